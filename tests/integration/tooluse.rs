//! Tests for `ctxhooks-tooluse`, run as Claude Code runs it: JSON on stdin, one sidecar line out,
//! and the frame every hook runs in (its stdin deadline, its time budget, its private state
//! folder).

use std::time::Duration;

use ctxhooks_shared::store::env_vars;
use serde_json::{Value, json};

use crate::support::{Hook, World, json_lines, mode, spawn_together};

const SESSION: &str = "3b0c5f4e-1d2a-4c8e-9f00-5a6b7c8d9e0f";

/// Runs the hook on `payload` (it exits 0 and prints nothing), and returns the sidecar's lines
/// and the error log's lines.
fn run(world: &World, payload: &Value) -> (Vec<Value>, Vec<Value>) {
    world
        .hook(Hook::ToolUse)
        .stdin(payload.to_string())
        .success();
    (json_lines(&world.sidecar(SESSION)), world.errors())
}

/// A `PreToolUse` payload with the fields Claude Code sends.
fn tooluse_payload() -> String {
    json!({"session_id": SESSION, "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"})
    .to_string()
}

/// The fields the real CLI 2.1.332 sends (real-claude-code-e2e.md, "Hooks fire for real").
pub(crate) fn pre_tool_use(session: &str, id: &str) -> Value {
    json!({
        "session_id": session, "transcript_path": "/tmp/project/transcript.jsonl",
        "cwd": "/tmp/project", "prompt_id": "p-1", "permission_mode": "default",
        "effort": {"level": "medium"}, "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "sleep 5", "description": "Wait"}, "tool_use_id": id
    })
}

#[test]
fn optional_fields_of_an_unexpected_type_are_named_and_the_line_is_still_written() {
    // Only `session_id` and `hook_event_name` are needed: the rest is set aside when odd, and
    // the error log says which fields were (before, they were dropped without a word).
    let world = World::new("tooluse-odd");
    let payload = json!({
        "session_id": SESSION, "hook_event_name": "PostToolUse", "tool_name": ["Bash"],
        "tool_input": "ls -la", "tool_use_id": "toolu_9", "duration_ms": "slow",
        "tool_response": {"stdout": "x", "interrupted": "no"}, "is_interrupt": false,
        "cwd": 7
    });
    let (sidecar, errors) = run(&world, &payload);
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
    let world = World::new("tooluse-text-response");
    let payload = json!({"session_id": SESSION, "hook_event_name": "PostToolUse",
        "tool_name": "mcp__x__y", "tool_response": "plain text"});
    let (sidecar, errors) = run(&world, &payload);
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
        let world = World::new(&format!("tooluse-{name}"));
        let (sidecar, errors) = run(&world, &payload);
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
    let world = World::new("tooluse-trickle");
    world
        .hook(Hook::ToolUse)
        .env(env_vars::CTXHOOKS_STDIN_TIMEOUT_MS, "300")
        .stdin_trickle("{\"session_id\": \"", b'x', Duration::from_millis(10))
        .success();
    let errors = world.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let text = errors[0]["error"].to_string();
    assert!(
        text.contains("no complete JSON value after 300 ms") && text.contains("bytes received"),
        "{text}"
    );
}

#[test]
fn a_hook_blocked_on_its_state_stops_itself_within_its_budget() {
    // Another process holds the sidecar's lock: the hook waits for it (2 s at most), longer than
    // a budget of 500 ms. (A FIFO there no longer blocks: it is refused at once.)
    let world = World::new("watchdog");
    fs_err::create_dir_all(world.session_dir(SESSION)).unwrap();
    let holder = fs_err::File::create(world.sidecar(SESSION)).unwrap();
    holder.file().lock().unwrap();
    // The run is bounded against a hang: a hook that stays blocked fails the test.
    world
        .hook(Hook::ToolUse)
        .env(env_vars::CTXHOOKS_HOOK_BUDGET_MS, "500")
        .stdin(tooluse_payload())
        .success();
    drop(holder);
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

// Unix only: run through `/bin/sh` (a umask or a memory limit).
#[cfg(unix)]
#[test]
fn a_restrictive_umask_still_leaves_a_usable_private_state_folder() {
    let world = World::new("umask");
    for umask in ["0277", "0022"] {
        world
            .hook(Hook::ToolUse)
            .via(
                "/bin/sh",
                ["-c", &format!("umask {umask}; exec \"$0\" \"$@\"")],
            )
            .stdin(tooluse_payload())
            .success();
    }
    assert_eq!(world.errors(), Vec::<Value>::new());
    let sidecar = world.sidecar(SESSION);
    assert_eq!(json_lines(&sidecar).len(), 2);
    for path in [
        world.state_dir(),
        world.state_dir().join("sessions"),
        world.session_dir(SESSION),
    ] {
        assert_eq!(mode(&path), 0o700, "{}", path.display());
    }
    assert_eq!(mode(&sidecar), 0o600);
}

#[test]
fn a_sidecar_lock_held_forever_costs_one_line_not_the_hook() {
    let world = World::new("held-append-lock");
    fs_err::create_dir_all(world.session_dir(SESSION)).unwrap();
    let sidecar = fs_err::OpenOptions::new()
        .create(true)
        .append(true)
        .open(world.sidecar(SESSION))
        .unwrap();
    sidecar.file().lock().unwrap();
    world.hook(Hook::ToolUse).stdin(tooluse_payload()).success();
    let errors = world.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]["error"].to_string().contains("lock"),
        "{errors:?}"
    );
    drop(sidecar);
}

#[test]
fn hook_records_start_completion_and_failure_with_only_a_summary() {
    let world = World::new("hook");
    let session = "3f1c1e7a-0000-4000-8000-000000000001";
    let mut completed = pre_tool_use(session, "toolu_A");
    completed["hook_event_name"] = json!("PostToolUse");
    completed["duration_ms"] = json!(5012);
    completed["tool_response"] = json!({"stdout": "SECRET-OUTPUT", "stderr": "",
        "interrupted": false, "isImage": false, "noOutputExpected": false});
    let mut failed = pre_tool_use(session, "toolu_B");
    failed["hook_event_name"] = json!("PostToolUseFailure");
    failed["error"] = json!("Exit code 1\nSECRET-OUTPUT");
    failed["is_interrupt"] = json!(false);
    failed["agent_id"] = json!("agent-7");
    for payload in [pre_tool_use(session, "toolu_A"), completed, failed] {
        // A hook prints nothing on stdout (every hook run checks it).
        world
            .hook(Hook::ToolUse)
            .stdin(payload.to_string())
            .success();
    }
    let sidecar = world.sidecar(session);
    let lines = json_lines(&sidecar);
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["event"], "started");
    assert_eq!(lines[0]["summary"], "sleep 5");
    assert_eq!(lines[0]["transcript_path"], "/tmp/project/transcript.jsonl");
    assert_eq!(lines[1]["event"], "completed");
    assert_eq!(lines[1]["duration_ms"], 5012);
    assert_eq!(lines[1]["interrupted"], false);
    assert_eq!(lines[2]["event"], "failed");
    assert_eq!(lines[2]["is_interrupt"], false);
    assert_eq!(lines[2]["agent_id"], "agent-7");
    let raw = fs_err::read_to_string(&sidecar).unwrap();
    assert!(!raw.contains("SECRET-OUTPUT"));
    assert!(!world.state_dir().join("errors.log").exists());
    assert_eq!(mode(&sidecar), 0o600);
    assert_eq!(mode(&world.session_dir(session)), 0o700);
}

#[test]
fn concurrent_hook_processes_lose_and_interleave_no_line() {
    let world = World::new("concurrent");
    let session = "3f1c1e7a-0000-4000-8000-000000000002";
    // Under Wine a process takes about 100 ms to start: 48 of them would take longer than a
    // hook's 5 s stdin deadline before the last one is given its payload.
    let count = if cfg!(windows) { 12 } else { 48 };
    let long_command = "x".repeat(5000);
    // Every process exists before any gets its payload, so they run at the same time.
    let runs = spawn_together((0..count).map(|index| {
        let mut payload = pre_tool_use(session, &format!("toolu_{index:03}"));
        payload["tool_input"]["command"] = json!(format!("{index} {long_command}"));
        world.hook(Hook::ToolUse).stdin(payload.to_string())
    }));
    for run in runs {
        run.wait().success();
    }
    let lines = json_lines(&world.sidecar(session));
    let errors = fs_err::read_to_string(world.state_dir().join("errors.log")).unwrap_or_default();
    assert_eq!(lines.len(), count, "the errors logged: {errors}");
    let mut ids: Vec<String> = lines
        .iter()
        .map(|line| line["tool_use_id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    let expected: Vec<String> = (0..count)
        .map(|index| format!("toolu_{index:03}"))
        .collect();
    assert_eq!(ids, expected);
    assert!(
        lines
            .iter()
            .all(|line| line["summary"].as_str().unwrap().chars().count() == 80)
    );
    assert_eq!(world.errors(), Vec::<Value>::new());
}

#[test]
fn hostile_payloads_exit_zero_and_log_one_line_each() {
    let cases: [&[u8]; 6] = [
        b"",
        b"not json at all",
        b"[1, 2, 3]",
        br#"{"session_id": "../../etc", "hook_event_name": "PreToolUse", "tool_use_id": "t"}"#,
        br#"{"session_id": "abc", "hook_event_name": "Stop"}"#,
        br#"{"session_id": "abc", "hook_event_name": "PreToolUse", "tool_input": "#,
    ];
    for stdin in cases {
        let world = World::new("hostile");
        world.hook(Hook::ToolUse).stdin(stdin).success();
        let errors = world.errors();
        assert_eq!(
            errors.len(),
            1,
            "{}: {errors:?}",
            String::from_utf8_lossy(stdin)
        );
        assert_eq!(errors[0]["hook"], "ctxhooks-tooluse");
        assert!(
            !world.state_dir().join("sessions").exists(),
            "nothing written for a refused payload"
        );
    }
}

/// The largest payload a hook reads (`MAX_INPUT_BYTES`).
const MAX_PAYLOAD_BYTES: usize = 16 * 1024 * 1024;

/// The payload `payload(text)` makes with `text` as many `filler`s as fit below the largest
/// payload a hook reads (`payload` puts `text` in as it is, already encoded).
fn at_the_cap(filler: &str, payload: impl Fn(&str) -> String) -> String {
    let room = MAX_PAYLOAD_BYTES - 64 - payload("").len();
    let payload = payload(&filler.repeat(room / filler.len()));
    assert!(payload.len() > MAX_PAYLOAD_BYTES - 64 - filler.len());
    assert!(payload.len() <= MAX_PAYLOAD_BYTES);
    payload
}

// Unix only: run through `/bin/sh` (a umask or a memory limit).
#[cfg(unix)]
#[test]
fn a_payload_at_the_cap_is_read_within_twice_its_size_of_memory() {
    // The hook keeps 80 characters of a tool's input: it must not build the rest. Each payload
    // is 16 MiB; the hook runs with an address space of 32 MiB (its own code and stacks
    // included), where a tool input built into a value (up to about 25 times the payload for
    // millions of tiny values) or a copy of a 16 MiB command does not fit.
    let world = World::new("tooluse-cap");
    let base = |event: &str, tool: &str, input: &str, response: &str| {
        format!(
            r#"{{"session_id": "{SESSION}", "hook_event_name": "{event}", "tool_name": "{tool}",
                "tool_input": {input}, "tool_use_id": "toolu_big"{response}}}"#
        )
    };
    // A line of Rust as JSON writes it, without its quotes.
    let line = serde_json::to_string("    println!(\"hello \\\"world\\\"\");\n").unwrap();
    let line = &line[1..line.len() - 1];
    let shapes: [(&str, String, &str); 4] = [
        (
            "a Write of 16 MiB",
            at_the_cap(line, |content| {
                base(
                    "PreToolUse",
                    "Write",
                    &format!(r#"{{"file_path": "/p/src/main.rs", "content": "{content}"}}"#),
                    "",
                )
            }),
            "/p/src/main.rs",
        ),
        (
            "a Bash command of 16 MiB, escapes all along",
            at_the_cap("echo \\\"a\\\"\\n", |command| {
                base(
                    "PreToolUse",
                    "Bash",
                    &format!(r#"{{"command": "{command}", "description": "d"}}"#),
                    "",
                )
            }),
            "echo \"a\" echo \"a\" echo \"a\" echo \"a\" echo \"a\" echo \"a\" echo \"a\" echo \"a\" echo \"a\"",
        ),
        (
            "millions of tiny values in a tool's input",
            at_the_cap("0,", |values| {
                base(
                    "PreToolUse",
                    "Bash",
                    &format!(r#"{{"values": [{values}0], "command": "ls"}}"#),
                    "",
                )
            }),
            "ls",
        ),
        (
            "a Bash output of 16 MiB",
            at_the_cap("   Compiling \\\"a\\\" v1.0\\n", |stdout| {
                base(
                    "PostToolUse",
                    "Bash",
                    r#"{"command": "cargo build"}"#,
                    &format!(
                        r#", "tool_response": {{"stdout": "{stdout}", "interrupted": false}}"#
                    ),
                )
            }),
            "cargo build",
        ),
    ];
    for (index, (what, payload, summary)) in shapes.iter().enumerate() {
        world
            .hook(Hook::ToolUse)
            .via(
                "/bin/sh",
                [
                    "-c",
                    &format!(
                        "ulimit -v {} && exec \"$0\" \"$@\"",
                        2 * MAX_PAYLOAD_BYTES / 1024
                    ),
                ],
            )
            // What is measured is memory, not time: the stdin deadline (5 s) is lifted, as a
            // debug build reading 16 MiB on a loaded machine can pass it (the budget still holds).
            .env(env_vars::CTXHOOKS_STDIN_TIMEOUT_MS, "60000")
            .stdin(payload)
            .success();
        let lines = json_lines(&world.sidecar(SESSION));
        assert_eq!(lines.len(), index + 1, "{what}: no line");
        assert_eq!(lines[index]["summary"], *summary, "{what}");
        assert_eq!(world.errors(), Vec::<Value>::new(), "{what}");
    }
}
