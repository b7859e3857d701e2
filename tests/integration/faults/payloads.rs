//! Hostile payloads for every hook: bytes that are no payload at all, ids that are no session
//! id, and every kind of thing a transcript path can name. Every run exits 0 with nothing on
//! stdout or stderr within a bound; a refused payload costs one line in `errors.log` naming the
//! hook and changes nothing else; what is accepted is done right.

use std::path::{Path, PathBuf};

use ctxhooks_shared::store::env_vars;
use serde_json::{Value, json};

use super::{REAL_TRANSCRIPT, SESSION, archives, usage};
use crate::support::{HANG_BOUND, Hook, World, make_fifo, say_held, transcript_fixture};

/// What a hostile run must end in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// One line in `errors.log`, and no session folder.
    Refused,
    /// The work done, and nothing in `errors.log`.
    Done,
    /// The work done, and one line in `errors.log` about what was set aside.
    DoneWithNote,
}

/// The case whose stdin is never closed.
const NEVER_CLOSED: &str = "an object never closed, stdin held open";

/// Runs `hook` with `stdin` (closed after it, except for [`NEVER_CLOSED`]) in `world`, and
/// checks what it left.
fn check_in(world: &World, name: &str, hook: Hook, stdin: &[u8], expect: Expect) {
    let run = world.hook(hook);
    // The stdin deadline is what ends the run whose stdin is never closed (300 ms, set here);
    // any other is read whole however long a busy machine takes (the deadline lifted to 60 s).
    let run = if name == NEVER_CLOSED {
        run.env(env_vars::CTXHOOKS_STDIN_TIMEOUT_MS, "300")
            .stdin_held_open(stdin)
    } else {
        run.env(env_vars::CTXHOOKS_STDIN_TIMEOUT_MS, "60000")
            .stdin(stdin)
    };
    let outcome = run.success();
    assert_eq!(
        outcome.stderr(),
        b"",
        "{name}: {}",
        String::from_utf8_lossy(outcome.stderr())
    );
    let errors = world.errors();
    let expected_lines = usize::from(expect != Expect::Done);
    assert_eq!(
        errors.len(),
        expected_lines,
        "{name} ({hook:?}): {errors:?}"
    );
    for error in &errors {
        assert_eq!(error["hook"], hook.name(), "{name}");
        assert!(
            !error["error"].to_string().contains("panicked"),
            "{name}: {errors:?}"
        );
    }
    let sessions = world.state_dir().join("sessions");
    match expect {
        Expect::Refused => assert!(!sessions.exists(), "{name}: something was written"),
        Expect::Done | Expect::DoneWithNote => match hook {
            Hook::Stop => assert!(
                !usage(world)["rows"].as_array().unwrap().is_empty(),
                "{name}"
            ),
            Hook::PreCompact => assert_eq!(archives(world).as_array().unwrap().len(), 1, "{name}"),
            Hook::ToolUse => assert!(world.sidecar(SESSION).exists(), "{name}"),
            Hook::Session => assert!(world.session_dir(SESSION).join("kept").exists(), "{name}"),
        },
    }
}

/// A valid payload of `hook` for the session, naming `transcript`.
fn payload(hook: Hook, transcript: &Value) -> Value {
    match hook {
        Hook::Stop => json!({"session_id": SESSION, "transcript_path": transcript,
                             "hook_event_name": "Stop"}),
        Hook::PreCompact => json!({"session_id": SESSION, "transcript_path": transcript,
                                   "hook_event_name": "PreCompact", "trigger": "manual"}),
        Hook::ToolUse => json!({"session_id": SESSION, "transcript_path": transcript,
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"}),
        Hook::Session => json!({"session_id": SESSION, "transcript_path": transcript,
            "hook_event_name": "SessionEnd", "reason": "other"}),
    }
}

/// Bytes that are no payload, each with what it is.
fn not_payloads() -> Vec<(&'static str, Vec<u8>)> {
    let mut nested = b"{\"session_id\": \"s\", \"x\": ".to_vec();
    nested.extend(std::iter::repeat_n(b'[', 100_000));
    nested.extend(std::iter::repeat_n(b']', 100_000));
    nested.push(b'}');
    let mut huge = b"{\"session_id\": \"s\", \"x\": \"".to_vec();
    huge.extend(std::iter::repeat_n(b'a', 20 * 1024 * 1024));
    huge.extend_from_slice(b"\"}");
    vec![
        ("empty stdin", Vec::new()),
        ("blank stdin", b" \n\t ".to_vec()),
        ("null", b"null".to_vec()),
        ("an array", b"[1, 2, 3]".to_vec()),
        ("a string", b"\"compact\"".to_vec()),
        ("a byte-order mark", b"\xef\xbb\xbf{}".to_vec()),
        (
            "invalid UTF-8 in a string",
            b"{\"session_id\": \"\xff\xfe\"}".to_vec(),
        ),
        ("invalid UTF-8 outside", b"{\xff: 1}".to_vec()),
        ("a NUL byte", b"{\"session_id\"\x00: \"s\"}".to_vec()),
        (NEVER_CLOSED, b"{\"session_id\": \"abc\", ".to_vec()),
        ("100,000 levels of nesting", nested),
        ("20 MiB", huge),
        (
            "the session id twice",
            br#"{"session_id": "abc", "session_id": "def", "hook_event_name": "Stop"}"#.to_vec(),
        ),
    ]
}

/// Session ids that must be refused, each with what it is.
fn bad_session_ids() -> Vec<(&'static str, Value)> {
    vec![
        ("an empty id", json!("")),
        ("a parent folder", json!("../../etc")),
        ("a slash", json!("a/b")),
        ("a dot", json!(".")),
        ("two dots", json!("..")),
        ("129 characters", json!("a".repeat(129))),
        ("a million characters", json!("a".repeat(1_000_000))),
        ("a letter outside ASCII", json!("sessión")),
        ("a space", json!("a b")),
        ("a newline", json!("abc\n")),
        ("a NUL", json!("abc\u{0}")),
        ("a number", json!(42)),
        ("an object", json!({"id": SESSION})),
        ("null", Value::Null),
    ]
}

/// Every kind of thing a transcript path can name, laid out in `world`: the path and whether a
/// hook that reads transcripts must take it.
fn transcript_paths(world: &World) -> Vec<(&'static str, Value, bool)> {
    let real = transcript_fixture(REAL_TRANSCRIPT);
    let dir = world.join("paths");
    fs_err::create_dir_all(&dir).unwrap();
    let at = |name: &str| -> PathBuf { dir.join(name) };
    let text = |path: &Path| json!(path.to_str().unwrap());
    fs_err::copy(&real, at("real.jsonl")).unwrap();
    fs_err::copy(&real, world.project().join("relative.jsonl")).unwrap();
    fs_err::copy(&real, at("new\nline.jsonl")).unwrap();
    fs_err::create_dir_all(at("folder.jsonl")).unwrap();
    make_fifo(&at("fifo.jsonl"));
    std::os::unix::fs::symlink(at("real.jsonl"), at("link.jsonl")).unwrap();
    std::os::unix::fs::symlink(at("nowhere.jsonl"), at("dangling.jsonl")).unwrap();
    std::os::unix::fs::symlink(at("loop.jsonl"), at("loop.jsonl")).unwrap();
    fs_err::write(at("passwd"), "root:x:0:0:root:/root:/bin/bash\n").unwrap();
    fs_err::write(at("disguised.jsonl"), "root:$6$secret:19000::::::\n").unwrap();
    vec![
        ("a missing file", text(&at("missing.jsonl")), false),
        ("an empty path", json!(""), false),
        ("a relative path", json!("relative.jsonl"), true),
        ("a newline in the name", text(&at("new\nline.jsonl")), true),
        ("a folder", text(&at("folder.jsonl")), false),
        ("a FIFO", text(&at("fifo.jsonl")), false),
        ("/dev/zero", json!("/dev/zero"), false),
        ("/dev/null", json!("/dev/null"), false),
        ("a symbolic link", text(&at("link.jsonl")), false),
        ("a dangling link", text(&at("dangling.jsonl")), false),
        ("a link to itself", text(&at("loop.jsonl")), false),
        ("not a .jsonl file", text(&at("passwd")), false),
        (
            "a .jsonl file that is no transcript",
            text(&at("disguised.jsonl")),
            false,
        ),
        (
            "a NUL in the path",
            json!(format!("{}\u{0}x.jsonl", dir.display())),
            false,
        ),
        (
            "longer than PATH_MAX",
            json!(format!("/{}.jsonl", "d/".repeat(3000))),
            false,
        ),
        (
            "a trailing slash",
            json!(format!("{}/", at("real.jsonl").display())),
            false,
        ),
        ("a tilde", json!("~/real.jsonl"), false),
        ("a number", json!(7), false),
    ]
}

#[test]
fn bytes_that_are_no_payload_are_refused_by_every_hook() {
    let cases = not_payloads();
    for hook in Hook::ALL {
        for (name, stdin) in &cases {
            let world = World::new("faults-payload");
            check_in(&world, name, hook, stdin, Expect::Refused);
        }
    }
    say_held(
        "payloads",
        &format!(
            "{} kinds of bytes that are no payload (empty, BOM, invalid UTF-8, NUL, never closed, \
             100,000 levels deep, 20 MiB, a key twice, ...) × {} hooks: every run exit 0, \
             nothing on stdout or stderr, one error line, nothing written",
            cases.len(),
            Hook::ALL.len()
        ),
    );
}

#[test]
fn session_ids_that_are_no_session_id_are_refused_by_every_hook() {
    let cases = bad_session_ids();
    for hook in Hook::ALL {
        let layout = World::new("faults-session-ids");
        let transcript = layout.write_transcript(
            format!("{SESSION}.jsonl"),
            fs_err::read(transcript_fixture(REAL_TRANSCRIPT)).unwrap(),
        );
        for (name, id) in &cases {
            let mut stdin = payload(hook, &json!(transcript));
            stdin["session_id"] = id.clone();
            let world = World::new("faults-session-id");
            check_in(
                &world,
                name,
                hook,
                stdin.to_string().as_bytes(),
                Expect::Refused,
            );
        }
    }
    say_held(
        "payloads",
        &format!(
            "{} session ids that are none (empty, `..`, `/`, 1,000,000 characters, non-ASCII, \
             NUL, a number, ...) × {} hooks: each refused with one line, no folder made",
            cases.len(),
            Hook::ALL.len()
        ),
    );
}

#[test]
fn every_kind_of_transcript_path_is_taken_or_refused_without_waiting() {
    let mut runs = 0;
    let mut count = 0;
    for hook in [Hook::Stop, Hook::PreCompact] {
        let layout = World::new("faults-paths-layout");
        let cases = transcript_paths(&layout);
        count = cases.len();
        for (name, path, taken) in cases {
            // A fresh state folder in the same world: the paths stay where they were made.
            let _ = fs_err::remove_dir_all(layout.state_dir());
            let expect = if taken { Expect::Done } else { Expect::Refused };
            check_in(
                &layout,
                name,
                hook,
                payload(hook, &path).to_string().as_bytes(),
                expect,
            );
            runs += 1;
        }
    }
    // SubagentStop: a bad agent transcript costs only itself; the session's usage is logged.
    let layout = World::new("faults-agent-paths");
    let main = layout.write_transcript(
        format!("{SESSION}.jsonl"),
        fs_err::read(transcript_fixture(REAL_TRANSCRIPT)).unwrap(),
    );
    for (name, path, taken) in transcript_paths(&layout) {
        let _ = fs_err::remove_dir_all(layout.state_dir());
        let stdin = json!({"session_id": SESSION, "transcript_path": main,
            "hook_event_name": "SubagentStop", "agent_id": "a1", "agent_transcript_path": path});
        // Nothing at the path is no agent transcript yet (Claude Code names some it never
        // writes); a number is set aside as a field of the wrong type.
        let nothing_there = matches!(name, "a missing file" | "an empty path" | "a tilde");
        let expect = if taken || nothing_there {
            Expect::Done
        } else {
            Expect::DoneWithNote
        };
        check_in(
            &layout,
            name,
            Hook::Stop,
            stdin.to_string().as_bytes(),
            expect,
        );
        runs += 1;
    }
    // The tool hook only records the path: it takes any, and leaves out one past PATH_MAX.
    let tool = World::new("faults-tool-paths");
    for (name, path, _) in transcript_paths(&tool) {
        let _ = fs_err::remove_dir_all(tool.state_dir());
        let expect = match name {
            "longer than PATH_MAX" | "a number" => Expect::DoneWithNote,
            _ => Expect::Done,
        };
        check_in(
            &tool,
            name,
            Hook::ToolUse,
            payload(Hook::ToolUse, &path).to_string().as_bytes(),
            expect,
        );
        runs += 1;
    }
    say_held(
        "payloads",
        &format!(
            "{count} kinds of transcript path (missing, relative, a folder, a FIFO, devices, \
             links, a loop, not a transcript, NUL, past PATH_MAX, ...) for Stop, PreCompact, \
             SubagentStop's agent transcript and tooluse, {runs} runs: real transcripts taken, \
             the rest refused with one line and without waiting, the session's own work kept"
        ),
    );
}

#[test]
fn the_statusline_prints_one_line_at_once_whatever_it_is_given() {
    // A status line has no one to report an error to: whatever arrives on stdin, and whatever
    // is where the gauge belongs, it prints one line, exits 0, says nothing on stderr, and
    // never waits past its deadline (here 500 ms) for a payload that does not come.
    let session = "faults-statusline";
    let good = serde_json::json!({"session_id": session, "model": {"id": "claude-opus-4-6"},
        "version": "2.1.332", "context_window": {"current_usage": {"input_tokens": 3,
        "cache_read_input_tokens": 100_000, "cache_creation_input_tokens": 500}}})
    .to_string();
    let odd_types = serde_json::json!({"session_id": ["x"], "model": 5, "version": {},
        "context_window": {"current_usage": {"input_tokens": "3", "cache_read_input_tokens": -1}}})
    .to_string();
    let mut inputs: Vec<(&str, Vec<u8>, bool)> = vec![
        ("the status JSON", good.clone().into_bytes(), false),
        ("odd types everywhere", odd_types.into_bytes(), false),
        ("nothing", Vec::new(), false),
        ("not JSON", b"status please".to_vec(), false),
        ("a JSON array", b"[1, 2, 3]".to_vec(), false),
        (
            "an object cut short",
            br#"{"session_id": "faults-"#.to_vec(),
            false,
        ),
        (
            "an object that never ends, the pipe held open",
            br#"{"session_id": "#.to_vec(),
            true,
        ),
        ("a byte-order mark", b"\xEF\xBB\xBF{}".to_vec(), false),
        (
            "invalid UTF-8 in a string",
            b"{\"session_id\": \"\xFF\xFE\"}".to_vec(),
            false,
        ),
        (
            "an object of 20 MiB",
            format!("{{\"pad\": \"{}\"}}", "x".repeat(20 * 1024 * 1024)).into_bytes(),
            false,
        ),
    ];
    inputs.push((
        "a session id that is a path",
        br#"{"session_id": "../../etc"}"#.to_vec(),
        false,
    ));
    let mut runs = 0;
    for gauge in ["none", "garbage", "a folder", "a FIFO"] {
        let world = World::new("faults-statusline");
        let path = world.session_dir(session).join("gauge.json");
        fs_err::create_dir_all(path.parent().unwrap()).unwrap();
        match gauge {
            "garbage" => fs_err::write(&path, b"\x00not a gauge").unwrap(),
            "a folder" => fs_err::create_dir_all(path.join("inside")).unwrap(),
            "a FIFO" => make_fifo(&path),
            _ => {}
        }
        for (name, bytes, held_open) in &inputs {
            let run = world
                .ctxhooks(["statusline", "--plain"])
                .env(env_vars::CTXHOOKS_STDIN_TIMEOUT_MS, "500");
            let run = if *held_open {
                run.stdin_held_open(bytes)
            } else {
                run.stdin(bytes)
            };
            let (outcome, hung) = run.spawn().kill_after(HANG_BOUND);
            runs += 1;
            let stdout = outcome.stdout_text();
            assert!(!hung, "{name}, gauge {gauge}: the statusline hung");
            assert_eq!(outcome.code(), Some(0), "{name}, gauge {gauge}");
            assert!(
                outcome.stderr().is_empty(),
                "{name}, gauge {gauge}: {}",
                outcome.stderr_text()
            );
            assert_eq!(
                stdout.lines().count(),
                1,
                "{name}, gauge {gauge}: {stdout:?}"
            );
            assert!(
                stdout.starts_with("ctx "),
                "{name}, gauge {gauge}: {stdout:?}"
            );
        }
        // What it could read, it read: the context against the rule's T for the model.
        world
            .ctxhooks(["statusline", "--plain"])
            .stdin(&good)
            .stdout("ctx 100k / 167k (60%) · 66k left · 0 compactions\n")
            .success();
    }
    say_held(
        "payloads",
        &format!(
            "the statusline: {} kinds of stdin (none, garbage, odd types, cut short, never ending, \
             20 MiB, ...) × no gauge, a garbage one, a folder and a FIFO in its place: {runs} runs, \
             each exit 0 with one line, nothing on stderr, none waited past its deadline",
            inputs.len()
        ),
    );
}
