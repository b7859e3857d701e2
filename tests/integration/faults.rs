//! Faults the hooks must hold under: odd payload values, hostile paths, stopped runs, restrictive
//! permissions. Each test names the defect it guards against.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::process::spawn_with_stdin;
use crate::support::scratch::Scratch;

const PRECOMPACT: &str = env!("CARGO_BIN_EXE_ctxhooks-precompact");
const STOP: &str = env!("CARGO_BIN_EXE_ctxhooks-stop");
const TOOLUSE: &str = env!("CARGO_BIN_EXE_ctxhooks-tooluse");
const CTXHOOKS: &str = env!("CARGO_BIN_EXE_ctxhooks");
const SESSION: &str = "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9";

fn shared_fixture(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/transcript-fixtures")
        .join(relative)
}

/// Runs a hook binary with `payload` on stdin and the state folder `state`, in `dir`; asserts it
/// exits 0 and prints nothing.
fn run_hook(binary: &str, state: &Path, dir: &Path, payload: &Value) {
    let child = spawn_with_stdin(
        Command::new(binary)
            .env("CTXHOOKS_HOME", state)
            .env("CTXHOOKS_STDIN_TIMEOUT_MS", "5000")
            .current_dir(dir)
            .stderr(Stdio::piped()),
        payload.to_string().as_bytes(),
    );
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(output.stdout.is_empty(), "{output:?}");
}

fn ctxhooks_json(state: &Path, arguments: &[&str]) -> Value {
    let output = Command::new(CTXHOOKS)
        .args(arguments)
        .env("CTXHOOKS_HOME", state)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

fn error_lines(state: &Path) -> Vec<Value> {
    fs_err::read_to_string(state.join("errors.log"))
        .map(|text| {
            text.lines()
                .map(|line| serde_json::from_str(line).unwrap())
                .collect()
        })
        .unwrap_or_default()
}

fn precompact_payload(transcript: &str) -> Value {
    json!({"session_id": SESSION, "transcript_path": transcript, "hook_event_name": "PreCompact",
           "trigger": "auto", "custom_instructions": null})
}

// See: the fault issue, defect 4 (a relative transcript path failed with "failed to read
// directory ``" and nothing was archived).
#[test]
fn a_relative_transcript_path_is_archived() {
    let scratch = Scratch::new("relative-transcript");
    let project = scratch.join("project");
    fs_err::create_dir_all(&project).unwrap();
    fs_err::copy(
        shared_fixture("marot__spotter/short.jsonl"),
        project.join(format!("{SESSION}.jsonl")),
    )
    .unwrap();
    let state = scratch.join("state");
    run_hook(
        PRECOMPACT,
        &state,
        &project,
        &precompact_payload(&format!("{SESSION}.jsonl")),
    );
    let listed = ctxhooks_json(&state, &["archives", "--json"]);
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["size"], 10_491);
    assert!(error_lines(&state).is_empty(), "{:?}", error_lines(&state));
}

// See: the fault issue, defect 4 (a readable transcript in a folder that cannot be listed, 0711
// for another user, was not archived).
#[test]
fn a_transcript_in_a_folder_that_cannot_be_listed_is_archived() {
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout == b"0\n");
    if !(is_root && Path::new("/usr/bin/setpriv").exists()) {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "\nSKIPPED: the unlistable-folder test needs root and setpriv\n"
        );
        return;
    }
    let scratch = Scratch::new("unlistable-folder");
    let projects = scratch.join("projects");
    fs_err::create_dir_all(&projects).unwrap();
    let transcript = projects.join(format!("{SESSION}.jsonl"));
    fs_err::copy(shared_fixture("marot__spotter/short.jsonl"), &transcript).unwrap();
    fs_err::set_permissions(&transcript, std::fs::Permissions::from_mode(0o644)).unwrap();
    // Others may enter the folder and read the file, but not list the folder.
    fs_err::set_permissions(&projects, std::fs::Permissions::from_mode(0o711)).unwrap();
    fs_err::set_permissions(scratch.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
    let state = scratch.join("state");
    fs_err::create_dir_all(&state).unwrap();
    let chowned = Command::new("chown")
        .args(["65534:65534"])
        .arg(&state)
        .status()
        .unwrap();
    assert!(chowned.success());
    let child = spawn_with_stdin(
        Command::new("/usr/bin/setpriv")
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                PRECOMPACT,
            ])
            .env("CTXHOOKS_HOME", &state)
            .current_dir("/")
            .stderr(Stdio::piped()),
        precompact_payload(transcript.to_str().unwrap())
            .to_string()
            .as_bytes(),
    );
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let listed = ctxhooks_json(&state, &["archives", "--json"]);
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["size"], 10_491);
    // The folder that could not be listed is named, and the problem logged.
    assert_eq!(
        listed[0]["skipped"][0]["source"],
        projects.to_string_lossy().as_ref()
    );
    assert_eq!(error_lines(&state).len(), 1, "{:?}", error_lines(&state));
}

// See: the fault issue (run as root with `/etc/shadow` as the transcript, PreCompact archived it).
#[test]
fn only_what_a_transcript_can_be_is_archived_or_read() {
    let scratch = Scratch::new("not-a-transcript");
    let secret = scratch.join("shadow");
    fs_err::write(&secret, "root:$6$secret:19000:0:99999:7:::\n").unwrap();
    let disguised = scratch.join("disguised.jsonl");
    fs_err::write(&disguised, "root:$6$secret:19000:0:99999:7:::\n").unwrap();
    let state = scratch.join("state");
    for path in [&secret, &disguised] {
        run_hook(
            PRECOMPACT,
            &state,
            scratch.path(),
            &precompact_payload(path.to_str().unwrap()),
        );
        let stop =
            json!({"session_id": SESSION, "transcript_path": path, "hook_event_name": "Stop"});
        run_hook(STOP, &state, scratch.path(), &stop);
    }
    assert_eq!(ctxhooks_json(&state, &["archives", "--json"]), json!([]));
    assert!(
        !state
            .join("sessions")
            .join(SESSION)
            .join("usage.jsonl")
            .exists()
    );
    let errors = error_lines(&state);
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
    let scratch = Scratch::new("abandoned-copy");
    let transcript = scratch.join(format!("{SESSION}.jsonl"));
    fs_err::copy(shared_fixture("marot__spotter/short.jsonl"), &transcript).unwrap();
    let state = scratch.join("state");
    let archive = state.join("sessions").join(SESSION).join("archive");
    let abandoned = archive.join(".tmp-20260101T000000.000000Z-auto-4242");
    let recent = archive.join(".tmp-20260101T000001.000000Z-auto-4243");
    for folder in [&abandoned, &recent] {
        fs_err::create_dir_all(folder).unwrap();
        fs_err::write(folder.join("transcript.jsonl"), "{}\n").unwrap();
    }
    // Older than twice the hook's timeout: abandoned. The other one may still be written.
    let aged = Command::new("touch")
        .args(["-d", "10 minutes ago"])
        .arg(&abandoned)
        .status()
        .unwrap();
    assert!(aged.success());
    run_hook(
        PRECOMPACT,
        &state,
        scratch.path(),
        &precompact_payload(transcript.to_str().unwrap()),
    );
    assert!(!abandoned.exists(), "the abandoned copy is still there");
    assert!(
        recent.exists(),
        "a copy that may still be written was removed"
    );
    assert_eq!(
        ctxhooks_json(&state, &["archives", "--json"])
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

// See: the fault issue (a killed first ingest re-appended all its rows on the next run).
#[test]
fn an_ingest_stopped_after_its_append_is_not_appended_twice() {
    let scratch = Scratch::new("stopped-ingest");
    let transcript = scratch.join(format!("{SESSION}.jsonl"));
    fs_err::copy(
        shared_fixture("marot__spotter/tool_heavy.jsonl"),
        &transcript,
    )
    .unwrap();
    let state = scratch.join("state");
    let session_dir = state.join("sessions").join(SESSION);
    let stop =
        json!({"session_id": SESSION, "transcript_path": transcript, "hook_event_name": "Stop"});
    run_hook(STOP, &state, scratch.path(), &stop);
    let log = fs_err::read(session_dir.join("usage.jsonl")).unwrap();
    // The state a run stopped between its append and its cursor leaves: the log holds the rows,
    // the cursor is the mark the run saved before appending.
    fs_err::write(
        session_dir.join("cursor.json"),
        r#"{"schema":1,"transcripts":{},"log_length":0}"#,
    )
    .unwrap();
    run_hook(STOP, &state, scratch.path(), &stop);
    assert_eq!(
        fs_err::read(session_dir.join("usage.jsonl")).unwrap(),
        log,
        "the rows were appended again"
    );
    // And the run after that goes on from the new cursor as usual.
    run_hook(STOP, &state, scratch.path(), &stop);
    assert_eq!(fs_err::read(session_dir.join("usage.jsonl")).unwrap(), log);
    assert!(error_lines(&state).is_empty(), "{:?}", error_lines(&state));
}

// See: the fault issue (`tool_use_id`, `transcript_path` and `agent_id` were stored at any length:
// a 15 MB line was accepted).
#[test]
fn overlong_ids_are_left_out_of_the_sidecar_and_said() {
    let scratch = Scratch::new("overlong-ids");
    let state = scratch.join("state");
    let payload = json!({"session_id": SESSION, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls"},
        "tool_use_id": "x".repeat(1_000_000), "transcript_path": "/t.jsonl"});
    run_hook(TOOLUSE, &state, scratch.path(), &payload);
    let sidecar = fs_err::read_to_string(
        state
            .join("sessions")
            .join(SESSION)
            .join("provenance.jsonl"),
    )
    .unwrap();
    assert!(sidecar.len() < 1_000, "{} bytes", sidecar.len());
    let line: Value = serde_json::from_str(sidecar.trim()).unwrap();
    assert_eq!(line["transcript_path"], "/t.jsonl");
    assert!(line.get("tool_use_id").is_none());
    let errors = error_lines(&state);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0]["error"].to_string().contains("tool_use_id"));
}
