//! Faults the hooks and the installer must hold under, and what `docs/reliability.md` promises
//! about them. This file holds one test per defect the fault issue found (each names it) and the
//! helpers the fault groups share; the groups, each a module that prints one line saying what it
//! tried and what held:
//!
//! - `concurrency`: many processes on one session, many installs on one settings file;
//! - `kills`: SIGKILL at random points, then the next run must end where a clean run ends;
//! - `payloads`: hostile payloads and transcript paths for every hook;
//! - `filesystem`: a full disk, a read-only state folder, another user, odd umasks, folders and
//!   FIFOs where state files belong (the first three need root, and say when they skip, through
//!   `support/root.rs`);
//! - `properties`: property-based tests (proptest) of the payload reader, the transcript line
//!   reader and the usage ingest behind it, and the settings merge.

mod concurrency;
mod filesystem;
mod kills;
mod payloads;
mod properties;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::{AS_NOBODY, Hook, SETPRIV, World, needs_root_and_setpriv, transcript_fixture};

const SESSION: &str = "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9";

/// The real transcript most fault tests read: Claude Code 2.0.76, 12 requests and an automatic
/// compaction, 294 KB.
const REAL_TRANSCRIPT: &str = "entireio__cli/a6/e4c2a0fbd1/0/full.jsonl";

fn precompact_payload(transcript: &str) -> Value {
    json!({"session_id": SESSION, "transcript_path": transcript, "hook_event_name": "PreCompact",
           "trigger": "auto", "custom_instructions": null})
}

fn stop_payload(transcript: &Path) -> String {
    json!({"session_id": SESSION, "transcript_path": transcript, "hook_event_name": "Stop"})
        .to_string()
}

/// A tool event of the session: `PreToolUse`, `PostToolUse` or `PostToolUseFailure` by `kind`
/// (0, 1, 2), naming `transcript`.
fn tooluse_payload(kind: usize, tool_use_id: &str, transcript: &str) -> String {
    let event = ["PreToolUse", "PostToolUse", "PostToolUseFailure"][kind % 3];
    let mut payload = json!({"session_id": SESSION, "transcript_path": transcript,
        "hook_event_name": event, "tool_name": "Bash",
        "tool_input": {"command": format!("echo {tool_use_id}")}, "tool_use_id": tool_use_id});
    if kind % 3 == 1 {
        payload["tool_response"] = json!({"stdout": "", "interrupted": false});
        payload["duration_ms"] = json!(12);
    } else if kind % 3 == 2 {
        payload["error"] = json!("Exit code 1");
        payload["is_interrupt"] = json!(false);
    }
    payload.to_string()
}

fn archives(world: &World) -> Value {
    world.ctxhooks(["archives", "--json"]).json()
}

/// How many snapshots `ctxhooks archives verify` checked, failing unless every one holds
/// exactly the bytes its `snapshot.json` names (exit 1 fails `.json()`).
fn verified_snapshots(world: &World) -> usize {
    let outcomes = world.ctxhooks(["archives", "verify", "--json"]).json();
    let outcomes = outcomes.as_array().unwrap();
    assert!(
        outcomes.iter().all(|outcome| outcome["ok"] == true),
        "{outcomes:#?}"
    );
    outcomes
        .iter()
        .filter(|outcome| outcome["kind"] == "snapshot")
        .count()
}

/// `ctxhooks usage --session SESSION --json`: the session's rows as every reader sees them.
fn usage(world: &World) -> Value {
    world
        .ctxhooks(["usage", "--session", SESSION, "--json"])
        .json()
}

/// The bytes of a state file of the session, or empty when it does not exist.
fn session_file(world: &World, name: &str) -> Vec<u8> {
    fs_err::read(world.session_dir(SESSION).join(name)).unwrap_or_default()
}

/// The real transcript [`REAL_TRANSCRIPT`] `copies` times over, each copy's ids (`uuid`,
/// `parentUuid`, `requestId`, `message.id`) made its own, so that every copy adds its requests:
/// a long session made of real lines.
fn long_transcript(copies: usize) -> Vec<u8> {
    let text = fs_err::read_to_string(transcript_fixture(REAL_TRANSCRIPT)).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let mut bytes = Vec::new();
    for copy in 0..copies {
        for line in &lines {
            let mut line = line.clone();
            for key in ["uuid", "parentUuid", "requestId"] {
                if let Some(Value::String(id)) = line.get_mut(key) {
                    *id = format!("{id}-{copy}");
                }
            }
            if let Some(Value::String(id)) = line.pointer_mut("/message/id") {
                *id = format!("{id}-{copy}");
            }
            serde_json::to_writer(&mut bytes, &line).unwrap();
            bytes.push(b'\n');
        }
    }
    bytes
}

/// A small, seedable source of chance (xorshift64*): kill points, chunk sizes. The seed is
/// printed with every group's line, so a failure can be replayed.
struct Chance {
    state: u64,
    seed: u64,
}

impl Chance {
    /// Seeded from the clock, unless `CTXHOOKS_FAULT_SEED` gives the seed.
    fn new() -> Self {
        let seed = std::env::var("CTXHOOKS_FAULT_SEED")
            .ok()
            .and_then(|text| text.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .subsec_nanos()
                    .into()
            });
        Self {
            state: seed | 1,
            seed,
        }
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    fn next(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A whole number in `low..high`.
    fn below(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low).max(1)
    }

    /// A fraction in `0.0..1.0`.
    fn fraction(&mut self) -> f64 {
        f64::from(u32::try_from(self.next() >> 32).unwrap()) / 4_294_967_296.0
    }
}

// See: the fault issue, defect 4 (a relative transcript path failed with "failed to read
// directory ``" and nothing was archived).
#[test]
fn a_relative_transcript_path_is_archived() {
    let world = World::new("relative-transcript");
    fs_err::copy(
        transcript_fixture("marot__spotter/short.jsonl"),
        world.project().join(format!("{SESSION}.jsonl")),
    )
    .unwrap();
    // Programs run in the world's project folder: the bare name is relative to it.
    world
        .hook(Hook::PreCompact)
        .stdin(precompact_payload(&format!("{SESSION}.jsonl")).to_string())
        .success();
    let listed = archives(&world);
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["size"], 10_491);
    assert_eq!(world.errors(), Vec::<Value>::new());
}

// See: the fault issue, defect 4 (a readable transcript in a folder that cannot be listed, 0711
// for another user, was not archived).
#[test]
fn a_transcript_in_a_folder_that_cannot_be_listed_is_archived() {
    let Some(_root) = needs_root_and_setpriv("the unlistable-folder test (setpriv)") else {
        return;
    };
    let world = World::new("unlistable-folder");
    let projects = world.join("projects");
    fs_err::create_dir_all(&projects).unwrap();
    let transcript = projects.join(format!("{SESSION}.jsonl"));
    fs_err::copy(
        transcript_fixture("marot__spotter/short.jsonl"),
        &transcript,
    )
    .unwrap();
    fs_err::set_permissions(&transcript, std::fs::Permissions::from_mode(0o644)).unwrap();
    // Others may enter the folder and read the file, but not list the folder.
    fs_err::set_permissions(&projects, std::fs::Permissions::from_mode(0o711)).unwrap();
    fs_err::set_permissions(world.root(), std::fs::Permissions::from_mode(0o711)).unwrap();
    let state = world.state_dir();
    fs_err::create_dir_all(&state).unwrap();
    let chowned = std::process::Command::new("chown")
        .arg("65534:65534")
        .arg(&state)
        .status()
        .unwrap();
    assert!(chowned.success());
    world
        .hook(Hook::PreCompact)
        .via(SETPRIV, AS_NOBODY)
        .in_dir("/")
        .stdin(precompact_payload(transcript.to_str().unwrap()).to_string())
        .success();
    let listed = archives(&world);
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["size"], 10_491);
    // The folder that could not be listed is named, and the problem logged.
    assert_eq!(
        listed[0]["skipped"][0]["source"],
        projects.to_string_lossy().as_ref()
    );
    assert_eq!(world.errors().len(), 1, "{:?}", world.errors());
}

// See: the fault issue (run as root with `/etc/shadow` as the transcript, PreCompact archived it).
#[test]
fn only_what_a_transcript_can_be_is_archived_or_read() {
    let world = World::new("not-a-transcript");
    let secret = world.join("shadow");
    fs_err::write(&secret, "root:$6$secret:19000:0:99999:7:::\n").unwrap();
    let disguised = world.join("disguised.jsonl");
    fs_err::write(&disguised, "root:$6$secret:19000:0:99999:7:::\n").unwrap();
    for path in [&secret, &disguised] {
        world
            .hook(Hook::PreCompact)
            .stdin(precompact_payload(path.to_str().unwrap()).to_string())
            .success();
        let stop =
            json!({"session_id": SESSION, "transcript_path": path, "hook_event_name": "Stop"});
        world.hook(Hook::Stop).stdin(stop.to_string()).success();
    }
    assert_eq!(archives(&world), json!([]));
    assert!(!world.session_dir(SESSION).join("usage.jsonl").exists());
    let errors = world.errors();
    assert_eq!(errors.len(), 4, "{errors:?}");
    assert!(
        errors
            .iter()
            .all(|error| error["error"].to_string().contains("is not a transcript")),
        "{errors:?}"
    );
}

// See: the fault issue (a killed PreCompact left a hidden copy as large as the transcript until a
// prune an hour later).
#[test]
fn the_next_snapshot_removes_a_copy_a_stopped_precompact_left() {
    let world = World::new("abandoned-copy");
    let transcript = world.transcript_path(SESSION);
    fs_err::copy(
        transcript_fixture("marot__spotter/short.jsonl"),
        &transcript,
    )
    .unwrap();
    let archive = world.session_dir(SESSION).join("archive");
    let abandoned = archive.join(".tmp-20260101T000000.000000Z-auto-4242");
    let being_written = archive.join(".tmp-20260101T000001.000000Z-auto-4243");
    for folder in [&abandoned, &being_written] {
        fs_err::create_dir_all(folder).unwrap();
        fs_err::write(folder.join("transcript.jsonl"), "{}\n").unwrap();
    }
    // A live PreCompact holds its folder's lock while it writes; a stopped one holds nothing,
    // however recent its folder is.
    let writer = fs_err::File::open(&being_written).unwrap();
    writer.file().lock().unwrap();
    world
        .hook(Hook::PreCompact)
        .stdin(precompact_payload(transcript.to_str().unwrap()).to_string())
        .success();
    assert!(!abandoned.exists(), "the abandoned copy is still there");
    assert!(
        being_written.exists(),
        "a copy that is still being written was removed"
    );
    assert_eq!(archives(&world).as_array().unwrap().len(), 1);
    // `archives prune` removes it by the same rule, once its writer is gone.
    let pruned = world
        .ctxhooks(["archives", "prune", "--keep", "1", "--json"])
        .json();
    assert_eq!(pruned["unfinished_deleted"], json!([]));
    drop(writer);
    let pruned = world
        .ctxhooks(["archives", "prune", "--keep", "1", "--json"])
        .json();
    assert_eq!(pruned["unfinished_deleted"].as_array().unwrap().len(), 1);
    assert!(!being_written.exists());
}

// See: the fault issue (a killed first ingest re-appended all its rows on the next run).
#[test]
fn an_ingest_stopped_after_its_append_is_not_appended_twice() {
    let world = World::new("stopped-ingest");
    let transcript = world.transcript_path(SESSION);
    fs_err::copy(
        transcript_fixture("marot__spotter/tool_heavy.jsonl"),
        &transcript,
    )
    .unwrap();
    let session_dir = world.session_dir(SESSION);
    let stop =
        json!({"session_id": SESSION, "transcript_path": transcript, "hook_event_name": "Stop"})
            .to_string();
    world.hook(Hook::Stop).stdin(&stop).success();
    let log = fs_err::read(session_dir.join("usage.jsonl")).unwrap();
    // The state a run stopped between its append and its cursor leaves: the log holds the rows,
    // the cursor is the mark the run saved before appending.
    fs_err::write(
        session_dir.join("cursor.json"),
        r#"{"schema":1,"transcripts":{},"log_length":0}"#,
    )
    .unwrap();
    world.hook(Hook::Stop).stdin(&stop).success();
    assert_eq!(
        fs_err::read(session_dir.join("usage.jsonl")).unwrap(),
        log,
        "the rows were appended again"
    );
    // And the run after that goes on from the new cursor as usual.
    world.hook(Hook::Stop).stdin(&stop).success();
    assert_eq!(fs_err::read(session_dir.join("usage.jsonl")).unwrap(), log);
    assert_eq!(world.errors(), Vec::<Value>::new());
}

// See: the fault issue (`tool_use_id`, `transcript_path` and `agent_id` were stored at any length:
// a 15 MB line was accepted).
#[test]
fn overlong_ids_are_left_out_of_the_sidecar_and_said() {
    let world = World::new("overlong-ids");
    let payload = json!({"session_id": SESSION, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls"},
        "tool_use_id": "x".repeat(1_000_000), "transcript_path": "/t.jsonl"});
    world
        .hook(Hook::ToolUse)
        .stdin(payload.to_string())
        .success();
    let sidecar = fs_err::read_to_string(world.sidecar(SESSION)).unwrap();
    assert!(sidecar.len() < 1_000, "{} bytes", sidecar.len());
    let line: Value = serde_json::from_str(sidecar.trim()).unwrap();
    assert_eq!(line["transcript_path"], "/t.jsonl");
    assert!(line.get("tool_use_id").is_none());
    let errors = world.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0]["error"].to_string().contains("tool_use_id"));
}

/// An assistant line of one API request whose `usage` object is `usage` (raw JSON text).
fn request_line(id: &str, usage: &str) -> String {
    format!(
        r#"{{"type":"assistant","uuid":"u-{id}","requestId":"req_{id}","timestamp":"2026-01-01T00:00:00Z","message":{{"id":"msg_{id}","model":"claude-opus-4-5","role":"assistant","usage":{usage}}}}}"#
    )
}

// See: the fault issue, defect 5 (requests whose usage held `1e400`, `-5`, `"5"`, `5.0` or a
// duplicate key vanished with nothing said; 2^64-1 input plus 1 cache read was logged as context
// 0).
#[test]
fn odd_numbers_in_usage_fields_are_counted_said_and_never_wrap() {
    let world = World::new("odd-usage-numbers");
    let lines = [
        request_line(
            "plain",
            r#"{"input_tokens":10,"cache_read_input_tokens":1,"output_tokens":2}"#,
        ),
        request_line("huge", r#"{"input_tokens":1e400,"output_tokens":2}"#),
        request_line("negative", r#"{"input_tokens":-5,"output_tokens":2}"#),
        request_line("text", r#"{"input_tokens":"5","output_tokens":2}"#),
        request_line(
            "duplicate",
            r#"{"input_tokens":5,"input_tokens":7,"output_tokens":2}"#,
        ),
        // JSON has one kind of number: 5.0 is the count 5 (docs/usage.md says why).
        request_line("float", r#"{"input_tokens":5.0,"output_tokens":2.0}"#),
        request_line(
            "max",
            r#"{"input_tokens":18446744073709551615,"cache_read_input_tokens":1,"output_tokens":1}"#,
        ),
    ];
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), lines.join("\n") + "\n");
    let stop =
        json!({"session_id": SESSION, "transcript_path": transcript, "hook_event_name": "Stop"});
    world.hook(Hook::Stop).stdin(stop.to_string()).success();

    let from_log = world
        .ctxhooks(["usage", "--session", SESSION, "--json"])
        .json();
    let from_file = world
        .ctxhooks([
            "usage",
            "--transcript",
            transcript.to_str().unwrap(),
            "--json",
        ])
        .json();
    for usage in [&from_log, &from_file] {
        let rows: Vec<(&str, u64, u64)> = usage["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| {
                (
                    row["key"].as_str().unwrap(),
                    row["input_tokens"].as_u64().unwrap(),
                    row["context_tokens"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("msg_plain:req_plain", 10, 11),
                ("msg_float:req_float", 5, 5),
                // Saturated, not wrapped to 0.
                ("msg_max:req_max", u64::MAX, u64::MAX),
            ],
            "{usage}"
        );
        // The four requests that could not be read are counted and shown.
        assert_eq!(usage["skipped_lines"][0]["unreadable"], 4, "{usage}");
    }
    world
        .ctxhooks(["usage", "--session", SESSION])
        .stdout_contains("4 unreadable line(s)")
        .success();
    // Sums saturate too: the report's totals, in JSON and in words.
    let report = world
        .ctxhooks(["report", "--session", SESSION, "--json"])
        .json();
    assert_eq!(report["totals"]["input_tokens"], u64::MAX, "{report}");
    assert_eq!(report["totals"]["output_tokens"], 5, "{report}");
    world
        .ctxhooks(["report", "--session", SESSION])
        .stdout_contains("4 unreadable line(s)")
        .success();
    // And the hook said so where `ctxhooks doctor` looks.
    let errors = world.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let error = errors[0]["error"].to_string();
    assert!(error.contains("4 unreadable line(s)"), "{error}");
}
