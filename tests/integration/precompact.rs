//! Tests for `ctxhooks-precompact` (run as Claude Code runs it: JSON on stdin) and
//! `ctxhooks archives`.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::process::{spawn_with_stdin, wait_bounded};
use crate::support::scratch::Scratch;

const PRECOMPACT: &str = env!("CARGO_BIN_EXE_ctxhooks-precompact");
const CTXHOOKS: &str = env!("CARGO_BIN_EXE_ctxhooks");
const SESSION: &str = "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9";

fn fixture(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/transcript-fixtures")
        .join(relative)
}

/// A home with a state folder, and a Claude Code project folder for transcripts.
struct World {
    scratch: Scratch,
}

impl World {
    fn new(name: &str) -> Self {
        let world = Self {
            scratch: Scratch::new(name),
        };
        fs_err::create_dir_all(world.projects()).unwrap();
        world
    }

    fn state(&self) -> PathBuf {
        self.scratch.join("state")
    }

    fn projects(&self) -> PathBuf {
        self.scratch.join("home/.claude/projects/-work-demo")
    }

    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("HOME", self.scratch.join("home"))
            .env("CTXHOOKS_HOME", self.state())
            .env("CTXHOOKS_STDIN_TIMEOUT_MS", "2000")
            .current_dir(self.scratch.path());
        command
    }

    fn run_hook_with(&self, stdin: &[u8]) -> Output {
        let child = spawn_with_stdin(self.command(PRECOMPACT).stderr(Stdio::piped()), stdin);
        child.wait_with_output().unwrap()
    }

    fn run_hook(&self, payload: &Value) -> Output {
        self.run_hook_with(payload.to_string().as_bytes())
    }

    fn ctxhooks(&self, args: &[&str]) -> Output {
        self.command(CTXHOOKS).args(args).output().unwrap()
    }

    fn ctxhooks_json(&self, args: &[&str]) -> Value {
        let output = self.ctxhooks(args);
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).unwrap()
    }

    fn errors(&self) -> Vec<Value> {
        fs_err::read_to_string(self.state().join("errors.log"))
            .map(|text| {
                text.lines()
                    .map(|line| serde_json::from_str(line).unwrap())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every path under the state folder, relative, sorted.
    fn state_entries(&self) -> Vec<String> {
        let mut entries = Vec::new();
        collect(&self.state(), &self.state(), &mut entries);
        entries.sort();
        entries
    }
}

fn collect(root: &Path, dir: &Path, entries: &mut Vec<String>) {
    let Ok(read) = fs_err::read_dir(dir) else {
        return;
    };
    for entry in read {
        let entry = entry.unwrap();
        entries.push(
            entry
                .path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned(),
        );
        if entry.file_type().unwrap().is_dir() {
            collect(root, &entry.path(), entries);
        }
    }
}

fn payload(transcript: &Path, trigger: &str, instructions: Value) -> Value {
    json!({
        "session_id": SESSION,
        "transcript_path": transcript,
        "cwd": "/work/demo",
        "prompt_id": "p1",
        "hook_event_name": "PreCompact",
        "trigger": trigger,
        "custom_instructions": instructions,
        "some_future_field": {"nested": true}
    })
}

#[track_caller]
fn assert_silent_success(output: &Output) {
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.stdout.is_empty(),
        "printed on stdout: {}",
        String::from_utf8_lossy(&output.stdout)
    );
}

/// Copies the 2.0.x fixture project (main transcript plus flat agent files) into the world.
fn lay_out_flat_project(world: &World) -> PathBuf {
    let source = fixture("lanegrid__agtrace/-Users-zawakin-agent-sample");
    for name in [
        &format!("{SESSION}.jsonl"),
        "agent-0c4c3cf8.jsonl",
        "agent-90fa40b6.jsonl",
    ] {
        fs_err::copy(source.join(name), world.projects().join(name)).unwrap();
    }
    // An agent file of another session must not be archived with this one.
    fs_err::write(
        world.projects().join("agent-ffffffff.jsonl"),
        "{\"sessionId\":\"another-session\",\"isSidechain\":true}\n",
    )
    .unwrap();
    world.projects().join(format!("{SESSION}.jsonl"))
}

#[test]
fn archives_the_transcript_and_its_flat_agent_files() {
    let world = World::new("flat");
    let transcript = lay_out_flat_project(&world);
    let output = world.run_hook(&payload(&transcript, "manual", json!("keep the file ids")));
    assert_silent_success(&output);
    assert_eq!(world.errors(), Vec::<Value>::new());

    let listed = world.ctxhooks_json(&["archives", "--json"]);
    let snapshots = listed.as_array().unwrap();
    assert_eq!(snapshots.len(), 1);
    let snapshot = &snapshots[0];
    assert_eq!(snapshot["trigger"], "manual");
    assert_eq!(snapshot["custom_instructions"], "keep the file ids");
    assert_eq!(snapshot["session_id"], SESSION);
    assert_eq!(
        snapshot["source_path"],
        transcript.to_string_lossy().as_ref()
    );
    // Sizes from PROVENANCE.md (23 397 bytes for the main transcript).
    assert_eq!(snapshot["size"], 23_397);
    let files: Vec<&str> = snapshot["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "transcript.jsonl",
            "subagents/agent-0c4c3cf8.jsonl",
            "subagents/agent-90fa40b6.jsonl"
        ]
    );
    let folder = Path::new(snapshot["path"].as_str().unwrap());
    assert_eq!(
        fs_err::read(folder.join("transcript.jsonl")).unwrap(),
        fs_err::read(&transcript).unwrap()
    );
    assert_eq!(
        fs_err::read(folder.join("subagents/agent-90fa40b6.jsonl")).unwrap(),
        fs_err::read(world.projects().join("agent-90fa40b6.jsonl")).unwrap()
    );
    // The checksum is the transcript's real SHA-256 (computed independently here).
    use sha2::Digest;
    let expected = format!(
        "{:x}",
        sha2::Sha256::digest(fs_err::read(&transcript).unwrap())
    );
    assert_eq!(snapshot["sha256"], expected);
    for entry in world.state_entries() {
        let mode = fs_err::metadata(world.state().join(&entry))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        let is_dir = world.state().join(&entry).is_dir();
        assert_eq!(mode, if is_dir { 0o700 } else { 0o600 }, "mode of {entry}");
    }
}

#[test]
fn archives_nested_subagent_transcripts_of_2_1() {
    let world = World::new("nested");
    let session = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";
    let transcript = world.projects().join(format!("{session}.jsonl"));
    fs_err::copy(fixture("marot__spotter/short.jsonl"), &transcript).unwrap();
    let subagents = world.projects().join(session).join("subagents");
    fs_err::create_dir_all(&subagents).unwrap();
    fs_err::copy(
        fixture(
            "marot__spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl",
        ),
        subagents.join("agent-aac57f5.jsonl"),
    )
    .unwrap();
    let mut body = payload(&transcript, "auto", Value::Null);
    body["session_id"] = json!(session);
    assert_silent_success(&world.run_hook(&body));
    assert_eq!(world.errors(), Vec::<Value>::new());
    let listed = world.ctxhooks_json(&["archives", "--session", session, "--json"]);
    let snapshot = &listed[0];
    assert_eq!(snapshot["trigger"], "auto");
    assert_eq!(snapshot["custom_instructions"], Value::Null);
    assert_eq!(
        snapshot["files"][1]["path"],
        "subagents/agent-aac57f5.jsonl"
    );
    assert_eq!(snapshot["files"][1]["size"], 46_918);
}

#[test]
fn an_optional_field_of_an_unexpected_type_still_gets_its_snapshot() {
    // Only `session_id` and `transcript_path` are needed to archive: one odd optional field used
    // to make the whole payload unreadable, and no snapshot was taken.
    let cases = [
        ("instructions", json!({"custom_instructions": {"x": 1}})),
        ("trigger", json!({"trigger": 5})),
        ("cwd", json!({"cwd": 7})),
        ("event", json!({"hook_event_name": ["PreCompact"]})),
        (
            "all",
            json!({"custom_instructions": {"x": 1}, "trigger": 5, "cwd": 7,
                "hook_event_name": ["PreCompact"]}),
        ),
    ];
    for (name, odd) in cases {
        let world = World::new(&format!("odd-{name}"));
        let transcript = lay_out_flat_project(&world);
        let mut body = payload(&transcript, "manual", json!("keep the ids"));
        for (field, value) in odd.as_object().unwrap() {
            body[field] = value.clone();
        }
        assert_silent_success(&world.run_hook(&body));
        let listed = world.ctxhooks_json(&["archives", "--json"]);
        assert_eq!(listed.as_array().unwrap().len(), 1, "{name}: no snapshot");
        assert_eq!(listed[0]["size"], 23_397, "{name}");
        // One line names every odd field, and the work went on.
        let errors = world.errors();
        assert_eq!(errors.len(), 1, "{name}: {errors:?}");
        assert_eq!(errors[0]["hook"], "ctxhooks-precompact");
        assert_eq!(errors[0]["session_id"], SESSION);
        let text = errors[0]["error"].to_string();
        for field in odd.as_object().unwrap().keys() {
            assert!(text.contains(&format!("`{field}`")), "{name}: {text}");
        }
    }
}

#[test]
fn two_compactions_in_the_same_instant_get_two_snapshots() {
    let world = World::new("collide");
    let transcript = lay_out_flat_project(&world);
    let body = payload(&transcript, "auto", Value::Null).to_string();
    let children: Vec<Child> = (0..6)
        .map(|_| spawn_with_stdin(world.command(PRECOMPACT), body.as_bytes()))
        .collect();
    for child in children {
        assert_silent_success(&child.wait_with_output().unwrap());
    }
    assert_eq!(world.errors(), Vec::<Value>::new());
    let listed = world.ctxhooks_json(&["archives", "--json"]);
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 6, "{names:?}");
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), 6);
    let verify = world.ctxhooks(&["archives", "verify"]);
    assert!(verify.status.success());
}

/// Runs the hook with `stdin` and checks it exited 0 silently, wrote exactly one error line
/// containing `expected`, and created nothing but that log.
#[track_caller]
fn assert_refused(world: &World, stdin: &[u8], expected: &str) {
    let output = world.run_hook_with(stdin);
    assert_silent_success(&output);
    let errors = world.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let text = errors[0]["error"].to_string();
    assert!(text.contains(expected), "error {text} lacks {expected:?}");
    assert_eq!(errors[0]["hook"], "ctxhooks-precompact");
    assert_eq!(
        world.state_entries(),
        ["errors.log"],
        "something besides the error log was written"
    );
}

#[test]
fn hostile_input_is_logged_once_and_changes_nothing() {
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty", Vec::new(), "empty"),
        ("not-json", b"compact please".to_vec(), "not a JSON object"),
        (
            "truncated",
            b"{\"session_id\": \"abc".to_vec(),
            "ended before",
        ),
        ("array", b"[1, 2]".to_vec(), "not a JSON object"),
        (
            "wrong-type",
            br#"{"session_id": 42, "transcript_path": "/x"}"#.to_vec(),
            "wrong type",
        ),
        (
            "no-session",
            br#"{"transcript_path": "/x", "trigger": "auto"}"#.to_vec(),
            "no `session_id`",
        ),
        (
            "traversal",
            br#"{"session_id": "../../x", "transcript_path": "/x"}"#.to_vec(),
            "session id",
        ),
        (
            "slash",
            br#"{"session_id": "/", "transcript_path": "/x"}"#.to_vec(),
            "session id",
        ),
        (
            "no-transcript",
            format!(r#"{{"session_id": "{SESSION}"}}"#).into_bytes(),
            "transcript_path",
        ),
    ];
    for (name, stdin, expected) in cases {
        let world = World::new(&format!("hostile-{name}"));
        assert_refused(&world, &stdin, expected);
    }
}

#[test]
fn missing_folder_and_symlink_transcripts_are_refused() {
    let world = World::new("paths-missing");
    let missing = world.projects().join("gone.jsonl");
    assert_refused(
        &world,
        payload(&missing, "auto", Value::Null)
            .to_string()
            .as_bytes(),
        "does not exist",
    );

    let world = World::new("paths-folder");
    assert_refused(
        &world,
        payload(&world.projects(), "auto", Value::Null)
            .to_string()
            .as_bytes(),
        "is a folder",
    );

    let world = World::new("paths-symlink");
    let real = lay_out_flat_project(&world);
    let link = world.projects().join("link.jsonl");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let before = fs_err::read(&real).unwrap();
    assert_refused(
        &world,
        payload(&link, "auto", Value::Null).to_string().as_bytes(),
        "symbolic link",
    );
    assert_eq!(fs_err::read(&real).unwrap(), before);
}

#[test]
fn stdin_that_never_closes_is_bounded() {
    // A complete payload on a pipe that stays open: archived without waiting for end of input.
    let world = World::new("open-pipe");
    let transcript = lay_out_flat_project(&world);
    let mut child = world
        .command(PRECOMPACT)
        .env("CTXHOOKS_STDIN_TIMEOUT_MS", "60000")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(
            payload(&transcript, "auto", Value::Null)
                .to_string()
                .as_bytes(),
        )
        .unwrap();
    stdin.flush().unwrap();
    let status = wait_bounded(&mut child, Duration::from_secs(30));
    drop(stdin);
    assert_eq!(status, Some(0), "the hook waited for end of input");
    assert_eq!(
        world
            .ctxhooks_json(&["archives", "--json"])
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // Nothing at all on a pipe that stays open: the hook's own deadline ends it.
    let world = World::new("silent-pipe");
    let mut child = world
        .command(PRECOMPACT)
        .env("CTXHOOKS_STDIN_TIMEOUT_MS", "300")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let status = wait_bounded(&mut child, Duration::from_secs(30));
    drop(stdin);
    assert_eq!(status, Some(0), "the hook did not bound its wait for stdin");
    let errors = world.errors();
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0]["error"]
            .to_string()
            .contains("no complete JSON value")
    );
}

#[test]
fn verify_catches_tampering_and_prune_trims_on_request() {
    let world = World::new("verify-prune");
    let transcript = lay_out_flat_project(&world);
    for _ in 0..3 {
        assert_silent_success(&world.run_hook(&payload(&transcript, "auto", Value::Null)));
    }
    let listed = world.ctxhooks_json(&["archives", "--json"]);
    assert_eq!(listed.as_array().unwrap().len(), 3);

    let first = Path::new(listed[0]["path"].as_str().unwrap()).join("transcript.jsonl");
    let mut bytes = fs_err::read(&first).unwrap();
    bytes[10] ^= 1;
    fs_err::write(&first, &bytes).unwrap();
    let verify = world.ctxhooks(&["archives", "verify", "--json"]);
    assert_eq!(
        verify.status.code(),
        Some(1),
        "verify missed a changed byte"
    );
    let outcomes: Value = serde_json::from_slice(&verify.stdout).unwrap();
    assert_eq!(outcomes[0]["ok"], false);
    assert_eq!(outcomes[0]["files"][0]["status"], "checksum_mismatch");
    assert_eq!(outcomes[1]["ok"], true);

    let dry = world.ctxhooks_json(&["archives", "prune", "--keep", "1", "--dry-run", "--json"]);
    assert_eq!(dry["deleted"].as_array().unwrap().len(), 2);
    assert_eq!(
        world
            .ctxhooks_json(&["archives", "--json"])
            .as_array()
            .unwrap()
            .len(),
        3
    );

    let pruned = world.ctxhooks_json(&["archives", "prune", "--keep", "1", "--json"]);
    assert_eq!(pruned["deleted"].as_array().unwrap().len(), 2);
    let left = world.ctxhooks_json(&["archives", "--json"]);
    assert_eq!(left.as_array().unwrap().len(), 1);
    assert_eq!(
        left[0]["name"], listed[2]["name"],
        "prune kept the wrong snapshot"
    );

    let none = world.ctxhooks_json(&["archives", "prune", "--older-than", "1", "--json"]);
    assert_eq!(none["deleted"].as_array().unwrap().len(), 0);

    let both = world.ctxhooks(&["archives", "prune"]);
    assert!(!both.status.success(), "prune without a policy must refuse");
    let bad = world.ctxhooks(&["archives", "--session", "../x"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("session"));
}

/// A small tmpfs mounted for one test (needs root, as on this project's machines and CI);
/// unmounted when dropped.
struct SmallFilesystem {
    path: PathBuf,
}

impl SmallFilesystem {
    fn mount(path: PathBuf, size: &str) -> Option<Self> {
        fs_err::create_dir_all(&path).unwrap();
        let status = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(&path)
            .stderr(Stdio::null())
            .status()
            .ok()?;
        status.success().then_some(Self { path })
    }
}

impl Drop for SmallFilesystem {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.path).status();
    }
}

#[test]
fn a_full_disk_leaves_nothing_under_a_final_name() {
    let world = World::new("full-disk");
    // A transcript of about 1.2 MB for a state folder on a 256 KiB filesystem.
    let transcript = world.projects().join(format!("{SESSION}.jsonl"));
    let fixture_bytes = fs_err::read(fixture("entireio__cli/a6/e4c2a0fbd1/0/full.jsonl")).unwrap();
    let mut big = Vec::new();
    for _ in 0..4 {
        big.extend_from_slice(&fixture_bytes);
        big.push(b'\n');
    }
    fs_err::write(&transcript, &big).unwrap();
    let Some(small) = SmallFilesystem::mount(world.state(), "256k") else {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "\nSKIPPED: the full-disk test needs root to mount a tmpfs\n"
        );
        return;
    };
    let output = world.run_hook(&payload(&transcript, "auto", Value::Null));
    assert_silent_success(&output);
    let errors = world.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]["error"].to_string().contains("No space left"),
        "{errors:?}"
    );
    let archive = world.state().join("sessions").join(SESSION).join("archive");
    let left: Vec<String> = fs_err::read_dir(&archive)
        .map(|entries| {
            entries
                .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        left,
        Vec::<String>::new(),
        "a partial snapshot was left behind"
    );
    assert_eq!(world.ctxhooks_json(&["archives", "--json"]), json!([]));
    drop(small);
}

#[test]
fn an_unreadable_agent_file_costs_only_itself() {
    // Needs root, to make a file the hook (run as `nobody`) cannot read.
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout == b"0\n");
    let has_setpriv = Path::new("/usr/bin/setpriv").exists();
    if !(is_root && has_setpriv) {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "\nSKIPPED: the unreadable-file test needs root and setpriv\n"
        );
        return;
    }
    let world = World::new("unreadable");
    let transcript = lay_out_flat_project(&world);
    let status = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(world.scratch.path())
        .status()
        .unwrap();
    assert!(status.success());
    // Another session's agent file that `nobody` may not read (root-owned, 0600).
    let locked = world.projects().join("agent-locked00.jsonl");
    fs_err::write(&locked, "{\"sessionId\":\"another-session\"}\n").unwrap();
    fs_err::set_permissions(&locked, std::fs::Permissions::from_mode(0o600)).unwrap();

    let child = spawn_with_stdin(
        world
            .command("/usr/bin/setpriv")
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                PRECOMPACT,
            ])
            .stderr(Stdio::piped()),
        payload(&transcript, "auto", Value::Null)
            .to_string()
            .as_bytes(),
    );
    assert_silent_success(&child.wait_with_output().unwrap());

    let listed = world.ctxhooks_json(&["archives", "--json"]);
    assert_eq!(
        listed.as_array().unwrap().len(),
        1,
        "the main transcript was not archived"
    );
    let snapshot = &listed[0];
    assert_eq!(snapshot["size"], 23_397);
    assert_eq!(
        snapshot["files"].as_array().unwrap().len(),
        3,
        "this session's agent files are kept"
    );
    assert_eq!(
        snapshot["skipped"][0]["source"],
        locked.to_string_lossy().as_ref()
    );
    let errors = world.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]["error"]
            .to_string()
            .contains("without 1 subagent file"),
        "{errors:?}"
    );
}

#[test]
fn a_log_line_that_does_not_fit_leaves_no_fragment() {
    let world = World::new("log-fragment");
    let Some(small) = SmallFilesystem::mount(world.state(), "16k") else {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "\nSKIPPED: the full-disk log test needs root to mount a tmpfs\n"
        );
        return;
    };
    // Each refused payload logs its (long) transcript path; the fifth line no longer fits.
    let long_name = "x".repeat(3000);
    for _ in 0..8 {
        let missing = world.projects().join(format!("{long_name}.jsonl"));
        assert_silent_success(&world.run_hook(&payload(&missing, "auto", Value::Null)));
    }
    let log = fs_err::read(world.state().join("errors.log")).unwrap();
    assert!(log.len() < 16 * 1024);
    assert!(log.ends_with(b"\n"), "the log ends in a fragment");
    for line in log
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
    {
        serde_json::from_slice::<Value>(line).expect("every line is whole JSON");
    }
    drop(small);
}

#[test]
fn a_damaged_archive_folder_never_hides_the_others() {
    let world = World::new("damaged");
    let transcript = lay_out_flat_project(&world);
    for _ in 0..2 {
        assert_silent_success(&world.run_hook(&payload(&transcript, "auto", Value::Null)));
    }
    let archive = world.state().join("sessions").join(SESSION).join("archive");
    // A folder someone made by hand, a snapshot whose metadata points outside itself, and the
    // temporary folder of a snapshot whose hook was killed two hours ago.
    fs_err::create_dir_all(archive.join("my-notes")).unwrap();
    let listed = world.ctxhooks_json(&["archives", "--json"]);
    assert_eq!(
        listed.as_array().unwrap().len(),
        2,
        "the readable snapshots are still listed"
    );
    let second = Path::new(listed[1]["path"].as_str().unwrap()).join("snapshot.json");
    let mut metadata: Value = serde_json::from_slice(&fs_err::read(&second).unwrap()).unwrap();
    metadata["files"][0]["path"] = json!("../../../../../../etc/hostname");
    fs_err::write(&second, serde_json::to_vec(&metadata).unwrap()).unwrap();
    let unfinished = archive.join(".tmp-20261130T000000.000000Z-auto-1");
    fs_err::create_dir_all(&unfinished).unwrap();
    let touched = Command::new("touch")
        .args(["-d", "2 hours ago"])
        .arg(&unfinished)
        .status()
        .unwrap();
    assert!(touched.success());

    let verify = world.ctxhooks(&["archives", "verify", "--json"]);
    assert_eq!(verify.status.code(), Some(1));
    let outcomes: Value = serde_json::from_slice(&verify.stdout).unwrap();
    let statuses: Vec<(bool, String)> = outcomes
        .as_array()
        .unwrap()
        .iter()
        .map(|outcome| {
            (
                outcome["ok"].as_bool().unwrap(),
                outcome["files"][0]["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            (true, "ok".to_owned()),
            (false, "outside_snapshot".to_owned()),
            (false, "unreadable".to_owned())
        ]
    );

    let pruned = world.ctxhooks_json(&["archives", "prune", "--keep", "5", "--json"]);
    assert_eq!(pruned["deleted"].as_array().unwrap().len(), 0);
    assert_eq!(pruned["unfinished_deleted"].as_array().unwrap().len(), 1);
    assert!(!unfinished.exists());
    assert!(
        archive.join("my-notes").exists(),
        "prune deletes only what it was asked to"
    );
}

#[test]
fn a_hook_blocked_on_its_state_stops_itself_within_its_budget() {
    // A FIFO where the provenance sidecar should be: opening it for appending blocks forever.
    let world = World::new("watchdog");
    let session_dir = world.state().join("sessions").join(SESSION);
    fs_err::create_dir_all(&session_dir).unwrap();
    let status = Command::new("mkfifo")
        .arg(session_dir.join("provenance.jsonl"))
        .status()
        .unwrap();
    assert!(status.success());
    let payload = json!({"session_id": SESSION, "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"});
    let mut child = spawn_with_stdin(
        world
            .command(env!("CARGO_BIN_EXE_ctxhooks-tooluse"))
            .env("CTXHOOKS_HOOK_BUDGET_MS", "500"),
        payload.to_string().as_bytes(),
    );
    assert_eq!(
        wait_bounded(&mut child, Duration::from_secs(20)),
        Some(0),
        "the hook hung on a FIFO"
    );
    let errors = world.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]["error"].to_string().contains("budget"),
        "{errors:?}"
    );
    // The line says who stalled: the hook, the event and the session.
    assert_eq!(errors[0]["hook"], "ctxhooks-tooluse");
    assert_eq!(errors[0]["event"], "PreToolUse");
    assert_eq!(errors[0]["session_id"], SESSION);
}

fn tooluse_payload() -> String {
    json!({"session_id": SESSION, "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"})
    .to_string()
}

#[test]
fn a_restrictive_umask_still_leaves_a_usable_private_state_folder() {
    let world = World::new("umask");
    for umask in ["0277", "0022"] {
        let child = spawn_with_stdin(
            world.command("/bin/sh").args([
                "-c",
                &format!("umask {umask}; exec \"$0\""),
                env!("CARGO_BIN_EXE_ctxhooks-tooluse"),
            ]),
            tooluse_payload().as_bytes(),
        );
        assert_silent_success(&child.wait_with_output().unwrap());
    }
    assert_eq!(world.errors(), Vec::<Value>::new());
    let sidecar = world
        .state()
        .join("sessions")
        .join(SESSION)
        .join("provenance.jsonl");
    assert_eq!(fs_err::read_to_string(&sidecar).unwrap().lines().count(), 2);
    for path in [
        world.state(),
        world.state().join("sessions"),
        sidecar.parent().unwrap().to_path_buf(),
    ] {
        assert_eq!(
            fs_err::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o700,
            "{}",
            path.display()
        );
    }
    assert_eq!(
        fs_err::metadata(&sidecar).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

#[test]
fn a_sidecar_lock_held_forever_costs_one_line_not_the_hook() {
    let world = World::new("held-append-lock");
    let session_dir = world.state().join("sessions").join(SESSION);
    fs_err::create_dir_all(&session_dir).unwrap();
    let sidecar = fs_err::OpenOptions::new()
        .create(true)
        .append(true)
        .open(session_dir.join("provenance.jsonl"))
        .unwrap();
    sidecar.file().lock().unwrap();
    let mut child = spawn_with_stdin(
        world.command(env!("CARGO_BIN_EXE_ctxhooks-tooluse")),
        tooluse_payload().as_bytes(),
    );
    assert_eq!(wait_bounded(&mut child, Duration::from_secs(20)), Some(0));
    let errors = world.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]["error"].to_string().contains("lock"),
        "{errors:?}"
    );
    drop(sidecar);
}
