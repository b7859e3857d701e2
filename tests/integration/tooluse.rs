//! Tests for `ctxhooks-tooluse`, run as Claude Code runs it: JSON on stdin, one sidecar line out.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::process::{spawn_with_stdin, wait_bounded};
use crate::support::scratch::Scratch;

const TOOLUSE: &str = env!("CARGO_BIN_EXE_ctxhooks-tooluse");
const SESSION: &str = "3b0c5f4e-1d2a-4c8e-9f00-5a6b7c8d9e0f";

fn command(scratch: &Scratch) -> Command {
    let mut command = Command::new(TOOLUSE);
    command
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("HOME", scratch.join("home"))
        .env("CTXHOOKS_HOME", scratch.join("state"))
        .env("CTXHOOKS_STDIN_TIMEOUT_MS", "2000")
        .stderr(Stdio::piped());
    command
}

/// Runs the hook on `payload`, checks it exited 0 silently, and returns the sidecar's lines and
/// the error log's lines.
fn run(scratch: &Scratch, payload: &Value) -> (Vec<Value>, Vec<Value>) {
    let child = spawn_with_stdin(command(scratch), payload.to_string().as_bytes());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty());
    let lines = |path: std::path::PathBuf| -> Vec<Value> {
        fs_err::read_to_string(path)
            .map(|text| {
                text.lines()
                    .map(|line| serde_json::from_str(line).unwrap())
                    .collect()
            })
            .unwrap_or_default()
    };
    (
        lines(scratch.join(format!("state/sessions/{SESSION}/provenance.jsonl"))),
        lines(scratch.join("state/errors.log")),
    )
}

#[test]
fn optional_fields_of_an_unexpected_type_are_named_and_the_line_is_still_written() {
    // Only `session_id` and `hook_event_name` are needed: the rest is set aside when odd, and
    // the error log says which fields were (before, they were dropped without a word).
    let scratch = Scratch::new("tooluse-odd");
    let payload = json!({
        "session_id": SESSION, "hook_event_name": "PostToolUse", "tool_name": ["Bash"],
        "tool_input": "ls -la", "tool_use_id": "toolu_9", "duration_ms": "slow",
        "tool_response": {"stdout": "x", "interrupted": "no"}, "is_interrupt": false,
        "cwd": 7
    });
    let (sidecar, errors) = run(&scratch, &payload);
    assert_eq!(sidecar.len(), 1);
    assert_eq!(
        sidecar[0],
        json!({"kind": "tool_event", "event": "completed", "hook_event_name": "PostToolUse",
            "time_ms": sidecar[0]["time_ms"], "tool_use_id": "toolu_9", "is_interrupt": false})
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["hook"], "ctxhooks-tooluse");
    assert_eq!(errors[0]["event"], "PostToolUse");
    assert_eq!(errors[0]["session_id"], SESSION);
    let text = errors[0]["error"].to_string();
    for field in [
        "`cwd`",
        "`tool_name`",
        "`tool_input`",
        "`duration_ms`",
        "`tool_response.interrupted`",
    ] {
        assert!(text.contains(field), "{field} is not named: {text}");
    }

    // Any `tool_response` is valid (an MCP tool's may be text): nothing to say about it.
    let scratch = Scratch::new("tooluse-text-response");
    let payload = json!({"session_id": SESSION, "hook_event_name": "PostToolUse",
        "tool_name": "mcp__x__y", "tool_response": "plain text"});
    let (sidecar, errors) = run(&scratch, &payload);
    assert_eq!((sidecar.len(), errors.len()), (1, 0), "{errors:?}");
}

#[test]
fn a_payload_without_what_the_hook_needs_is_refused_with_one_line() {
    for (name, payload, expected) in [
        (
            "no-event",
            json!({"session_id": SESSION, "tool_name": "Bash"}),
            "no `hook_event_name`",
        ),
        (
            "other-event",
            json!({"session_id": SESSION, "hook_event_name": "Stop"}),
            "not `Stop`",
        ),
        (
            "session-type",
            json!({"session_id": 12, "hook_event_name": "PreToolUse"}),
            "wrong type",
        ),
    ] {
        let scratch = Scratch::new(&format!("tooluse-{name}"));
        let (sidecar, errors) = run(&scratch, &payload);
        assert!(sidecar.is_empty(), "{name}");
        assert_eq!(errors.len(), 1, "{name}: {errors:?}");
        assert!(
            errors[0]["error"].to_string().contains(expected),
            "{name}: {errors:?}"
        );
    }
}

#[test]
fn the_stdin_deadline_holds_while_bytes_keep_arriving() {
    // A payload that starts and never ends, one byte every 10 ms on a pipe that stays open: the
    // hook's own deadline ends the run, with exit 0 and one line.
    let scratch = Scratch::new("tooluse-trickle");
    let mut child = command(&scratch)
        .env("CTXHOOKS_STDIN_TIMEOUT_MS", "300")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"{\"session_id\": \"").unwrap();
    let start = Instant::now();
    // A generous bound against a hang, not a timing assertion.
    while child.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(20) {
        let _ = stdin.write_all(b"x");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(wait_bounded(&mut child, Duration::from_secs(1)), Some(0));
    drop(stdin);
    let errors: Vec<Value> = fs_err::read_to_string(scratch.join("state/errors.log"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let text = errors[0]["error"].to_string();
    assert!(
        text.contains("no complete JSON value after 300 ms") && text.contains("bytes received"),
        "{text}"
    );
}
