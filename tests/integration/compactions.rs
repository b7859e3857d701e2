//! Tests for the compaction ledger: `ctxhooks compactions` on real captures and on bad input,
//! `report`'s pointer to it, and the hooks that gather a segment's items (the Stop hook's
//! cursor, `PreCompact`'s `segment.json`) for the note after a compaction, which lists what the
//! summary left out.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

#[cfg(unix)]
use crate::support::make_fifo;
use crate::support::{Hook, World, cli_capture, transcript_fixture};

const SESSION: &str = "5e55a0b1-0000-4000-8000-00000000c0de";

/// The 2.1.332 capture with an automatic and a manual compaction, each keeping two messages
/// word for word.
const AUTO_MANUAL: &str = "compaction/auto-manual.jsonl.gz";

/// The 2.0.76 fixture with one automatic compaction and a long summary.
const COMPACTED: &str = "entireio__cli/a6/e4c2a0fbd1/0/full.jsonl";

/// `(verdict, text)` of each item of one kind of one compaction in `compactions --json`.
fn verdicts(compaction: &Value, kind: &str, field: &str) -> Vec<(String, String)> {
    compaction["items"][kind]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item["verdict"].as_str().unwrap().to_owned(),
                item[field].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(verdict, text)| ((*verdict).to_owned(), (*text).to_owned()))
        .collect()
}

#[test]
fn the_ledger_of_a_real_capture_tells_each_compaction_what_it_left_out() {
    let world = World::new("ledger-capture");
    let transcript = cli_capture(world.root(), AUTO_MANUAL);
    let ledger = world
        .ctxhooks(["compactions", "--json", "--transcript"])
        .arg(&transcript)
        .json();
    let compactions = ledger["compactions"].as_array().unwrap();
    assert_eq!(compactions.len(), 2, "{ledger:#}");
    let first = &compactions[0];
    assert_eq!(first["trigger"], "auto");
    assert_eq!(first["pre_tokens"], 167_011);
    assert_eq!(first["post_tokens"], 2_638);
    assert_eq!(first["duration_ms"], 61);
    assert_eq!(first["summary"]["state"], "read");
    let summary = first["summary"]["text"].as_str().unwrap();
    assert!(summary.contains("Keep the file ids."), "{summary}");
    // The wrapper's path of the whole transcript is not the summary's own text.
    assert!(
        !summary.contains("read the full transcript at"),
        "{summary}"
    );
    // The third command's call and result were kept word for word; the first two are gone, as
    // is the prompt.
    assert_eq!(first["preserved"]["messages"], 2);
    assert_eq!(
        verdicts(first, "commands", "command"),
        pairs(&[
            ("left_out", "echo step1"),
            ("left_out", "echo step2"),
            ("kept_verbatim", "echo step3"),
        ])
    );
    assert_eq!(first["items"]["commands"][0]["status"], "ok");
    assert_eq!(
        verdicts(first, "prompts", "text"),
        pairs(&[("left_out", "Run three steps")])
    );
    assert_eq!(first["counts"]["left_out"], 3);
    let second = &compactions[1];
    assert_eq!(
        (
            &second["trigger"],
            &second["pre_tokens"],
            &second["duration_ms"]
        ),
        (&json!("manual"), &json!(22_453), &json!(206))
    );
    assert_eq!(
        verdicts(second, "prompts", "text"),
        pairs(&[("left_out", "question after the automatic compaction")])
    );
    assert_eq!(ledger["since_last"]["items"], 1);

    // In words: per compaction, its numbers, its summary, each item with its verdict.
    let text = world
        .ctxhooks(["compactions", "--transcript"])
        .arg(&transcript)
        .success()
        .stdout_text();
    for expected in [
        "compaction 1 of 2: 2026-12-01 04:48:13 UTC, automatic, 167,011 -> 2,638 tokens, took 61 ms",
        "| The user asked for scripted work; it was done. Keep the file ids.",
        "kept word for word: 2 message(s)",
        "LEFT OUT     echo step1  (ok)",
        "kept         echo step3  (ok)",
        "LEFT OUT     \"Run three steps\"",
        "compaction 2 of 2: 2026-12-01 04:48:19 UTC, manual, 22,453 -> 2,626 tokens, took 206 ms",
    ] {
        assert!(text.contains(expected), "{expected}\n{text}");
    }
}

#[test]
fn a_summary_names_files_by_their_name_and_commands_by_their_first_words() {
    let world = World::new("ledger-names");
    let ledger = world
        .ctxhooks(["compactions", "--json", "--transcript"])
        .arg(transcript_fixture(COMPACTED))
        .json();
    let compaction = &ledger["compactions"][0];
    let file = "/Users/soph/Work/entire/devenv/cli/cmd/entire/cli/hooks_claudecode_handlers.go";
    // The summary names the file (`hooks_claudecode_handlers.go`) and both prompts, but not the
    // command that ran the tests and the linter.
    assert_eq!(
        verdicts(compaction, "edited", "path"),
        pairs(&[("named", file)])
    );
    assert_eq!(compaction["items"]["edited"][0]["times"], 2);
    assert_eq!(
        verdicts(compaction, "read", "path"),
        pairs(&[("named", file)])
    );
    assert_eq!(
        verdicts(compaction, "commands", "command"),
        pairs(&[("left_out", "mise run test && mise run lint")])
    );
    assert!(
        verdicts(compaction, "prompts", "text")
            .iter()
            .all(|(verdict, _)| verdict == "named")
    );
    assert_eq!(compaction["post_tokens"], Value::Null);
}

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

#[test]
fn bad_input_gives_a_ledger_that_says_what_it_could_not_tell() {
    let world = World::new("ledger-bad");
    // No boundary at all: said, exit 0.
    let plain = world.write_transcript(
        "plain.jsonl",
        fs_err::read(transcript_fixture("marot__spotter/short.jsonl")).unwrap(),
    );
    world
        .ctxhooks(["compactions", "--transcript"])
        .arg(&plain)
        .stdout_contains("no compaction: the transcript holds no compaction boundary")
        .success();
    // A damaged summary line, then a compaction with no summary at all, then one whose summary
    // names the command: the first two judge nothing, the third judges.
    let lines = [
        bash("t1", "a1", "cargo test"),
        result("t1", "u1", true, "Exit code 101\nfailed"),
        boundary("b1"),
    ];
    let mut text = String::new();
    for line in &lines {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    text.push_str(
        "{\"type\":\"user\",\"isCompactSummary\":true,\"message\":{\"content\":\"ran cargo test\n",
    );
    for line in [
        bash("t2", "a2", "cargo test"),
        result("t2", "u2", false, "ok"),
        boundary("b2"),
        bash("t3", "a3", "cargo test"),
        result("t3", "u3", true, "Exit code 1\nno"),
        boundary("b3"),
        summary("We ran cargo test, which failed."),
    ] {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    let transcript = world.write_transcript("bad.jsonl", text.as_bytes());
    let ledger = world
        .ctxhooks(["compactions", "--json", "--transcript"])
        .arg(&transcript)
        .json();
    let compactions = ledger["compactions"].as_array().unwrap();
    let states: Vec<&str> = compactions
        .iter()
        .map(|compaction| compaction["summary"]["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["unreadable", "missing", "read"]);
    let judged: Vec<Vec<(String, String)>> = compactions
        .iter()
        .map(|compaction| verdicts(compaction, "commands", "command"))
        .collect();
    assert_eq!(
        judged,
        [
            pairs(&[("not_checked", "cargo test")]),
            pairs(&[("not_checked", "cargo test")]),
            pairs(&[("named", "cargo test")]),
        ]
    );
    assert_eq!(compactions[0]["items"]["commands"][0]["exit_code"], 101);
    assert_eq!(compactions[0]["items"]["commands"][0]["status"], "failed");
    assert_eq!(ledger["unreadable_lines"], 1);
    let words = world
        .ctxhooks(["compactions", "--transcript"])
        .arg(&transcript)
        .success()
        .stdout_text();
    assert!(
        words.contains("summary: unreadable (its record is damaged)"),
        "{words}"
    );
    assert!(
        words.contains("summary: missing (no summary record follows the boundary)"),
        "{words}"
    );
    assert!(
        words.contains("not checked  cargo test  (exit 101)"),
        "{words}"
    );
    // Not a transcript: a clear error.
    world
        .ctxhooks(["compactions", "--transcript"])
        .arg(world.join("missing.jsonl"))
        .stderr_contains("failed to read the transcript")
        .stderr_contains("missing.jsonl")
        .exit_code(1);
}

// See: issue 30 (on a transcript that begins at its compaction, the ledger said the
// conversation before it "held no file, command, error or prompt": a claim without evidence).
#[test]
fn a_transcript_that_begins_at_its_compaction_holds_nothing_from_before_it() {
    let world = World::new("ledger-begins-at-compaction");
    let snapshot = json!({"type": "file-history-snapshot", "messageId": "p0", "snapshot": {}});
    let answer = json!({"type": "assistant", "uuid": "a0", "message": {"id": "m-a0",
        "role": "assistant", "content": [{"type": "text", "text": "Hello."}]}});
    let after = [
        summary("We talked."),
        bash("t1", "a1", "cargo test"),
        result("t1", "u1", false, "ok"),
        boundary("b2"),
        summary("Ran cargo test."),
    ];
    // Its first record is the boundary; records that are no conversation before it change
    // nothing; a conversation that held no item is another thing, and says so.
    let cases = [
        ("first.jsonl", vec![], false),
        ("metadata.jsonl", vec![snapshot], false),
        ("no-items.jsonl", vec![answer], true),
    ];
    for (name, before, in_transcript) in cases {
        let mut lines = before;
        lines.push(boundary("b1"));
        lines.extend(after.iter().cloned());
        let transcript = write_lines(&world, name, &lines);
        let ledger = world
            .ctxhooks(["compactions", "--json", "--transcript"])
            .arg(&transcript)
            .json();
        let compactions = ledger["compactions"].as_array().unwrap();
        let seen: Vec<(bool, u64)> = compactions
            .iter()
            .map(|compaction| {
                (
                    compaction["before_in_transcript"].as_bool().unwrap(),
                    compaction["counts"]["items"].as_u64().unwrap(),
                )
            })
            .collect();
        // The second compaction's segment begins at the first boundary: in the transcript.
        assert_eq!(seen, [(in_transcript, 0), (true, 1)], "{name}: {ledger:#}");
        let words = world
            .ctxhooks(["compactions", "--transcript"])
            .arg(&transcript)
            .success()
            .stdout_text();
        let nothing_from_before = "this transcript holds nothing from before it";
        let held_none = "the conversation before it held no file, command, error or prompt";
        if in_transcript {
            assert!(words.contains(held_none), "{name}: {words}");
            assert!(!words.contains(nothing_from_before), "{name}: {words}");
        } else {
            assert!(words.contains(nothing_from_before), "{name}: {words}");
            assert!(!words.contains(held_none), "{name}: {words}");
        }
    }
}

#[test]
fn a_session_is_read_from_its_transcript_and_from_the_kept_copy_once_it_is_gone() {
    let world = World::new("ledger-session");
    let transcript = world.write_transcript(
        format!("{SESSION}.jsonl"),
        fs_err::read(cli_capture(world.root(), AUTO_MANUAL)).unwrap(),
    );
    stop(&world, &transcript);
    let live = world
        .ctxhooks(["compactions", "--json", "--session", "last"])
        .json();
    assert_eq!(live["session_id"], SESSION);
    assert_eq!(live["kept_copy"], false);
    assert_eq!(live["transcript"], transcript.to_string_lossy().as_ref());
    // Claude Code's cleanup deletes it: the kept copy gives the same ledger.
    fs_err::remove_file(&transcript).unwrap();
    let kept = world
        .ctxhooks(["compactions", "--json", "--session", &SESSION[..8]])
        .json();
    assert_eq!(kept["kept_copy"], true);
    assert_eq!(kept["compactions"], live["compactions"]);
    world
        .ctxhooks(["compactions", "--session", "last"])
        .stdout_contains("the kept copy: Claude Code's transcript is gone")
        .success();
    // The report points to the ledger.
    world
        .ctxhooks(["report", "--session", SESSION])
        .stdout_contains(format!(
            "what each summary named or left out: ctxhooks compactions --session {SESSION}"
        ))
        .success();
    assert_eq!(world.error_lines(), Vec::<String>::new());
}

#[test]
fn the_report_of_a_transcript_names_the_ledger_only_when_it_has_a_boundary() {
    let world = World::new("ledger-report");
    let transcript = cli_capture(world.root(), AUTO_MANUAL);
    world
        .ctxhooks(["report", "--transcript"])
        .arg(&transcript)
        .stdout_contains(format!(
            "what each summary named or left out: ctxhooks compactions --transcript {}",
            ctxhooks_shared::shell_word::shell_word(&transcript.to_string_lossy())
        ))
        .success();
    let plain = world
        .ctxhooks(["report", "--transcript"])
        .arg(transcript_fixture("marot__spotter/short.jsonl"))
        .success()
        .stdout_text();
    assert!(!plain.contains("ctxhooks compactions"), "{plain}");
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
    // Each call runs the `ctxhooks` beside the hook, as the shell takes it: its exact path on
    // Unix; on Windows the path the system gives the hook (under Wine a `Z:` drive), so there
    // its file name is what is checked.
    let ctxhooks =
        ctxhooks_shared::shell_word::shell_word(&ctxhooks_shared::platform::program::shell_path(
            &Hook::Session.binary().with_file_name("ctxhooks"),
        ));
    let lines: Vec<String> = list
        .lines()
        .skip(1)
        .map(|line| {
            let at = line.find(" recall --session").unwrap_or(line.len());
            let start = line[..at].rfind(": ").map_or(0, |colon| colon + 2);
            let program = &line[start..at];
            if cfg!(windows) {
                let name = ctxhooks_shared::platform::program::last_component(program);
                assert_eq!(
                    ctxhooks_shared::platform::program::binary_name(name),
                    "ctxhooks"
                );
            } else {
                assert_eq!(program, ctxhooks, "{line}");
            }
            format!("{}ctxhooks{}", &line[..start], &line[at..])
        })
        .collect();
    let call = |pattern: &str| {
        format!("ctxhooks recall --session {SESSION} --before-compaction last {pattern}")
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

// Unix only: a FIFO.
#[cfg(unix)]
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
