//! Tests for the compaction ledger: the hooks that gather a segment's items (the Stop hook's
//! cursor, `PreCompact`'s `segment.json`) for the note after a compaction, which lists what the
//! summary left out.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{Hook, World, make_fifo};

const SESSION: &str = "5e55a0b1-0000-4000-8000-00000000c0de";

/// A transcript of `lines` (JSON values, one per line) in the world's projects folder.
fn write_lines(world: &World, name: &str, lines: &[Value]) -> PathBuf {
    let mut text = String::new();
    for line in lines {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    world.write_transcript(name, text.as_bytes())
}

fn bash(id: &str, uuid: &str, command: &str) -> Value {
    json!({"type": "assistant", "uuid": uuid, "message": {"id": format!("m-{uuid}"),
        "role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "Bash",
        "input": {"command": command}}]}})
}

fn result(id: &str, uuid: &str, error: bool, text: &str) -> Value {
    json!({"type": "user", "uuid": uuid, "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": id, "is_error": error, "content": text}]}})
}

fn prompt(uuid: &str, text: &str) -> Value {
    json!({"type": "user", "uuid": uuid, "message": {"role": "user", "content": text}})
}

fn boundary(uuid: &str) -> Value {
    json!({"type": "system", "subtype": "compact_boundary", "uuid": uuid,
        "timestamp": "2026-12-02T10:00:00.000Z",
        "compactMetadata": {"trigger": "manual", "preTokens": 50_000}})
}

fn summary(text: &str) -> Value {
    json!({"type": "user", "isCompactSummary": true, "uuid": "s",
        "message": {"role": "user", "content": text}})
}

fn stop(world: &World, transcript: &Path) {
    world
        .hook(Hook::Stop)
        .stdin(
            json!({"session_id": SESSION, "transcript_path": transcript,
                "hook_event_name": "Stop", "cwd": "/p"})
            .to_string(),
        )
        .success();
}

fn precompact(world: &World, transcript: &Path) {
    world
        .hook(Hook::PreCompact)
        .stdin(
            json!({"session_id": SESSION, "transcript_path": transcript, "cwd": "/p",
                "hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": null})
            .to_string(),
        )
        .success();
}

/// Runs `ctxhooks-session` with `event` and returns what it printed.
fn session_event(world: &World, transcript: &Path, event: &str, extra: &Value) -> String {
    let mut body = json!({"session_id": SESSION, "transcript_path": transcript,
        "hook_event_name": event, "cwd": "/p"});
    for (key, value) in extra.as_object().unwrap() {
        body[key] = value.clone();
    }
    world
        .program(Hook::Session.binary())
        .stdin(body.to_string())
        .success()
        .stdout_text()
}

/// The note `SessionStart` after a compaction prints.
fn note_after_compaction(world: &World, transcript: &Path) -> String {
    let printed = session_event(
        world,
        transcript,
        "SessionStart",
        &json!({"source": "compact"}),
    );
    let answer: Value = serde_json::from_str(&printed).unwrap();
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A session since its last compaction: a prompt, an edit, a read, a failed and a good command.
fn a_segment() -> Vec<Value> {
    vec![
        prompt("p1", "please fix the parser before the release"),
        json!({"type": "assistant", "uuid": "a1", "message": {"id": "m1", "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "e1", "name": "Edit",
                 "input": {"file_path": "/p/src/parser.rs", "old_string": "a", "new_string": "b"}},
                {"type": "tool_use", "id": "r1", "name": "Read",
                 "input": {"file_path": "/p/README.md"}}]}}),
        json!({"type": "user", "uuid": "u1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "e1", "content": "updated"},
            {"type": "tool_result", "tool_use_id": "r1", "content": "read me"}]}}),
        bash("b1", "a2", "cargo test --workspace"),
        result("b1", "u2", true, "Exit code 101\nthread panicked"),
        bash("b2", "a3", "ls -la"),
        result("b2", "u3", false, "total 0"),
    ]
}

#[test]
fn the_note_after_a_compaction_lists_what_its_summary_left_out() {
    let world = World::new("ledger-note");
    // An earlier compaction: what came before it is not this segment's.
    let mut lines = vec![
        bash("old", "a0", "make old-target"),
        result("old", "u0", true, "Exit code 2"),
        boundary("b0"),
        summary("An earlier summary."),
    ];
    lines.extend(a_segment());
    let transcript = write_lines(&world, &format!("{SESSION}.jsonl"), &lines);
    stop(&world, &transcript);
    precompact(&world, &transcript);
    // The compaction appends its boundary and a summary that names the README only.
    let mut grown = fs_err::read(&transcript).unwrap();
    for line in [
        boundary("b1"),
        summary("Summary:\nThe user reviewed README.md."),
    ] {
        grown.extend_from_slice(line.to_string().as_bytes());
        grown.push(b'\n');
    }
    fs_err::write(&transcript, &grown).unwrap();
    let note = note_after_compaction(&world, &transcript);
    let list = note
        .split_once("Its summary does not name these")
        .unwrap_or_else(|| panic!("no list: {note}"))
        .1;
    let lines: Vec<&str> = list.lines().skip(1).collect();
    let ctxhooks = Hook::Session
        .binary()
        .with_file_name("ctxhooks")
        .to_string_lossy()
        .into_owned();
    let call = |pattern: &str| {
        format!("{ctxhooks} recall --session {SESSION} --before-compaction last {pattern}")
    };
    assert_eq!(
        lines,
        [
            format!("- edited: src/parser.rs: {}", call("parser.rs")),
            format!(
                "- failed commands: `cargo test --workspace` (exit 101): {}",
                call("'cargo test --workspace'")
            ),
            format!(
                "- prompts: \"please fix the parser …\": {}",
                call("'please fix the parser'")
            ),
        ],
        "{note}"
    );
    assert!(!note.contains("make old-target"), "{note}");
    // The call the note gives finds the edit in the conversation before the compaction.
    let found = world
        .ctxhooks([
            "recall",
            "--session",
            SESSION,
            "--before-compaction",
            "last",
            "parser.rs",
        ])
        .success()
        .stdout_text();
    assert!(found.contains("/p/src/parser.rs"), "{found}");
    assert_eq!(world.error_lines(), Vec::<String>::new());
}

#[test]
fn the_note_has_its_list_whichever_of_post_compact_and_session_start_runs_first() {
    let world = World::new("ledger-order");
    let transcript = write_lines(&world, &format!("{SESSION}.jsonl"), &a_segment());
    precompact(&world, &transcript);
    // SessionStart before the boundary and the summary are written, and before PostCompact:
    // the summary cannot be read; the list says so and holds everything.
    let early = note_after_compaction(&world, &transcript);
    assert!(
        early.contains("Its summary could not be checked yet"),
        "{early}"
    );
    assert!(early.contains("- read: README.md"), "{early}");
    // PostCompact first: its summary (which names the parser and the tests) is used.
    session_event(
        &world,
        &transcript,
        "PostCompact",
        &json!({"trigger": "manual", "compact_summary": "Fixed parser.rs; cargo test still fails."}),
    );
    let note = note_after_compaction(&world, &transcript);
    assert!(note.contains("Its summary does not name these"), "{note}");
    assert!(!note.contains("parser.rs"), "{note}");
    assert!(!note.contains("failed commands"), "{note}");
    assert!(note.contains("- read: README.md"), "{note}");
    // Once the transcript holds its boundary and summary, the transcript's summary is read (and
    // what the boundary kept word for word is not listed).
    let mut grown = fs_err::read(&transcript).unwrap();
    let mut kept = boundary("b1");
    kept["compactMetadata"]["preservedMessages"] = json!({"uuids": ["p1"]});
    for line in [kept, summary("Nothing about the files.")] {
        grown.extend_from_slice(line.to_string().as_bytes());
        grown.push(b'\n');
    }
    fs_err::write(&transcript, &grown).unwrap();
    let note = note_after_compaction(&world, &transcript);
    assert!(note.contains("- edited: src/parser.rs"), "{note}");
    assert!(
        !note.contains("prompts"),
        "the prompt was kept word for word: {note}"
    );
    // A second compaction whose PreCompact did not run: the snapshot is not its, nothing listed.
    let mut grown = fs_err::read(&transcript).unwrap();
    for line in [boundary("b2"), summary("Another.")] {
        grown.extend_from_slice(line.to_string().as_bytes());
        grown.push(b'\n');
    }
    fs_err::write(&transcript, &grown).unwrap();
    let note = note_after_compaction(&world, &transcript);
    assert!(note.contains("--before-compaction last 'WORDS'"), "{note}");
    assert!(!note.contains("Its summary"), "{note}");
    assert_eq!(world.error_lines(), Vec::<String>::new());
}

#[test]
fn the_stop_hook_keeps_a_bounded_segment_that_starts_again_at_each_compaction() {
    let world = World::new("ledger-cursor");
    let mut lines = a_segment();
    for number in 0..40 {
        lines.push(bash(
            &format!("x{number}"),
            &format!("ax{number}"),
            &format!("step {number}"),
        ));
        lines.push(result(
            &format!("x{number}"),
            &format!("ux{number}"),
            false,
            "ok",
        ));
    }
    let transcript = write_lines(&world, &format!("{SESSION}.jsonl"), &lines);
    stop(&world, &transcript);
    let cursor = || -> Value {
        let bytes = fs_err::read(world.session_dir(SESSION).join("cursor.json")).unwrap();
        let cursor: Value = serde_json::from_slice(&bytes).unwrap();
        cursor["transcripts"][transcript.to_string_lossy().as_ref()]["state"]["segment"].clone()
    };
    let segment = cursor();
    let commands = segment["commands"].as_array().unwrap();
    assert_eq!(commands.len(), 16, "{segment:#}");
    // The failed command stays; the oldest that went well go first.
    assert_eq!(commands[0]["command"], "cargo test --workspace");
    assert_eq!(commands[15]["command"], "step 39");
    assert_eq!(segment["omitted"]["commands"], 26);
    assert_eq!(segment["edited"][0]["path"], "/p/src/parser.rs");
    // A compaction starts the list again.
    let mut grown = fs_err::read(&transcript).unwrap();
    for line in [
        boundary("b1"),
        summary("s"),
        bash("n1", "an1", "echo after"),
    ] {
        grown.extend_from_slice(line.to_string().as_bytes());
        grown.push(b'\n');
    }
    fs_err::write(&transcript, &grown).unwrap();
    stop(&world, &transcript);
    let segment = cursor();
    assert_eq!(
        segment["commands"][0]["command"], "echo after",
        "{segment:#}"
    );
    assert_eq!(segment["commands"].as_array().unwrap().len(), 1);
    assert_eq!(segment["edited"], Value::Null);
}

#[test]
fn a_damaged_segment_record_costs_the_list_only_and_is_said() {
    let world = World::new("ledger-damaged");
    let transcript = write_lines(&world, &format!("{SESSION}.jsonl"), &a_segment());
    precompact(&world, &transcript);
    let archive = world.session_dir(SESSION).join("archive");
    let snapshot = fs_err::read_dir(&archive)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let record = snapshot.join("segment.json");
    assert!(record.is_file());
    // Garbage, then a FIFO (refused at once, never waited on): the note without its list, and
    // one line in the error log each time.
    fs_err::write(&record, b"{not json").unwrap();
    let note = note_after_compaction(&world, &transcript);
    assert!(note.contains("--before-compaction last 'WORDS'"), "{note}");
    assert!(!note.contains("Its summary"), "{note}");
    fs_err::remove_file(&record).unwrap();
    make_fifo(&record);
    let note = note_after_compaction(&world, &transcript);
    assert!(!note.contains("Its summary"), "{note}");
    let errors = world.error_lines();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors
            .iter()
            .all(|line| line.contains("failed to tell what the compaction left out")),
        "{errors:?}"
    );
}
