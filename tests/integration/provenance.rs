//! Interrupt provenance over real transcripts: the real fixtures of `tests/fixtures/transcripts` (CLI 2.0.76–2.1.38), the
//! real Agent SDK 0.3.332 / CLI 2.1.332 captures in `tests/fixtures/sdk-0.3.332/`, the real
//! `ctxhooks-tooluse` binary fed the payloads Claude Code sends, and the `ctxhooks` commands.
//!
//! Expected line numbers and counts were read from the fixture files themselves with python3
//! (one `json.loads` per line, printing `type`, `toolDenialKind`, `rowSource` and the start of each
//! block); each test says which lines it relies on.

use std::io::Write;
use std::path::{Path, PathBuf};

use ctxhooks_commands::doctor::findings::Finding;
use ctxhooks_commands::provenance::analysis::Analysis;
use ctxhooks_commands::provenance::ledger::write_ledger_input;
use ctxhooks_commands::provenance::load::analyse_file;
use ctxhooks_commands::provenance::records::{RecordClass, ResultKind, classify_record};
use ctxhooks_commands::provenance::sidecar::{Sidecar, read_sidecar};
use ctxhooks_commands::provenance::verdict::{
    ProvenanceReport, ToolState, Verdict, provenance_report,
};
use ctxhooks_shared::transcript::record::Record;
use serde_json::{Value, json};

use crate::support::{Hook, Scratch, World, json_lines, project_fixture, transcript_fixture};
use crate::tooluse::pre_tool_use;

/// A file of one of the real Agent SDK 0.3.332 captures.
fn sdk(scenario: &str, file: &str) -> PathBuf {
    project_fixture(&format!("sdk-0.3.332/{scenario}/{file}"))
}

/// The session id of a real SDK fixture (from its `driver.json`).
fn sdk_session(scenario: &str) -> String {
    let driver: Value =
        serde_json::from_slice(&fs_err::read(sdk(scenario, "driver.json")).unwrap()).unwrap();
    driver["sessions"][0]["session_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Analyses a transcript with an optional sidecar file.
fn analyse(transcript: &Path, sidecar: Option<&Path>) -> Analysis {
    let sidecar = sidecar.map_or_else(Sidecar::default, |path| read_sidecar(path).unwrap());
    analyse_file(transcript, sidecar).unwrap()
}

/// The ledger input of an analysed transcript, as `ctxhooks ledger-input` writes it.
fn ledger_input(analysis: &Analysis, report: &ProvenanceReport, transcript: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    let file = fs_err::File::open(transcript).unwrap();
    write_ledger_input(analysis, report, file, &mut bytes).unwrap();
    bytes
}

/// The 0-based line `index` of a transcript.
fn line_of(transcript: &Path, index: usize) -> Vec<u8> {
    let bytes = fs_err::read(transcript).unwrap();
    lines_of(&bytes)[index]
        .strip_suffix(b"\n")
        .unwrap()
        .to_vec()
}

/// How the 0-based line `index` of a transcript is classified (no sidecar).
fn class_at(transcript: &Path, index: usize) -> RecordClass {
    let line = line_of(transcript, index);
    classify_record(&Record::parse(&line).unwrap(), None)
}

/// Analyses a transcript with marks given as JSON lines.
fn analyse_with_marks(transcript: &Path, marks: &[Value]) -> Analysis {
    let dir = Scratch::new("marks");
    let path = dir.join("provenance.jsonl");
    let text: String = marks.iter().fold(String::new(), |mut text, mark| {
        text.push_str(&mark.to_string());
        text.push('\n');
        text
    });
    fs_err::write(&path, text).unwrap();
    analyse(transcript, Some(&path))
}

fn mark_at(time_ms: u64) -> Value {
    json!({"kind": "runtime_interrupt_mark", "time_ms": time_ms, "reason": "context backstop at 78%",
           "source": "test", "gauge_pct": 78.0, "pid": 1})
}

/// A world whose state folder holds one real SDK fixture's sidecar under its session id.
fn state_with_sdk_sidecar(scenario: &str) -> (World, String) {
    let world = World::new(scenario);
    let session = sdk_session(scenario);
    fs_err::create_dir_all(world.session_dir(&session)).unwrap();
    fs_err::copy(sdk(scenario, "provenance.jsonl"), world.sidecar(&session)).unwrap();
    (world, session)
}

/// `ctxhooks provenance --session SESSION --transcript TRANSCRIPT --json`, parsed.
fn provenance_json(world: &World, session: &str, transcript: &Path) -> Value {
    world
        .ctxhooks(["provenance", "--json", "--session", session, "--transcript"])
        .arg(transcript)
        .json()
}

/// `ctxhooks ledger-input --session SESSION --transcript TRANSCRIPT`.
fn ledger(world: &World, session: &str, transcript: &Path) -> Vec<u8> {
    world
        .ctxhooks(["ledger-input", "--session", session, "--transcript"])
        .arg(transcript)
        .success()
        .stdout()
        .to_vec()
}

fn lines_of(bytes: &[u8]) -> Vec<&[u8]> {
    bytes
        .split_inclusive(|byte| *byte == b'\n')
        .collect::<Vec<_>>()
}

// ----------------------------------------------------------------- real fixtures (older CLIs)

#[test]
fn short_rejections_form_one_trailing_group_blamed_on_the_user_without_a_mark() {
    // marot short.jsonl (2.1.38): lines 11 and 12 are rejection tool_results (Bash, Glob), line 13
    // is `[Request interrupted by user for tool use]`, lines 14-15 are system records.
    let transcript = transcript_fixture("marot__spotter/short.jsonl");
    let analysis = analyse(&transcript, None);
    assert_eq!(analysis.groups.len(), 1);
    let group = &analysis.groups[0];
    assert_eq!(group.lines, vec![10, 11, 12]);
    assert_eq!(group.markers, 1);
    assert!(group.trailing);
    assert!(group.results.iter().all(|(_, kind)| matches!(
        kind,
        ResultKind::Rejected {
            before_run: false,
            stopped_while_running: false,
            plain_user_rejected: false,
        }
    )));
    let report = provenance_report(&analysis);
    assert_eq!(report.calls.len(), 2);
    assert!(
        report
            .calls
            .iter()
            .all(|call| call.verdict == Verdict::User)
    );
    // No hook record and no "stopped while running" correction: the state is not known.
    assert!(
        report
            .calls
            .iter()
            .all(|call| call.state == ToolState::Unknown)
    );
    assert!(!report.calls.iter().any(|call| call.relabelled_in_ledger));
    assert_eq!(
        ledger_input(&analysis, &report, &transcript),
        fs_err::read(&transcript).unwrap()
    );
}

#[test]
fn a_mark_just_before_the_short_rejections_relabels_them_in_one_system_record() {
    // Line 11's timestamp 2026-02-10T21:12:02.480Z is 1770757922480 ms; a mark 100 ms earlier.
    let transcript = transcript_fixture("marot__spotter/short.jsonl");
    let analysis = analyse_with_marks(&transcript, &[mark_at(1_770_757_922_380)]);
    let report = provenance_report(&analysis);
    assert!(report.unmatched_marks.is_empty());
    assert!(
        report
            .calls
            .iter()
            .all(|call| call.verdict == Verdict::Runtime
                && call.relabelled_in_ledger
                && call.mark.is_some())
    );
    let original = fs_err::read(&transcript).unwrap();
    let relabelled = ledger_input(&analysis, &report, &transcript);
    let before = lines_of(&original);
    let after = lines_of(&relabelled);
    // Three records (lines 11-13) became one.
    assert_eq!(after.len(), before.len() - 2);
    assert_eq!(&after[..10], &before[..10]);
    assert_eq!(&after[11..], &before[13..]);
    let system: Value = serde_json::from_slice(after[10]).unwrap();
    assert_eq!(system["type"], "system");
    assert_eq!(system["subtype"], "runtime_interrupt");
    let content = system["content"].as_str().unwrap();
    assert!(content.contains("not the user"), "{content}");
    assert!(
        content.contains("toolu_0116Hyi5v8ut7Ffb7d8qV1Sc"),
        "{content}"
    );
    assert!(
        content.contains("toolu_01FdQ8qTyVyZjE3Kw4dguQGx"),
        "{content}"
    );
    assert!(!content.contains("rejected"), "{content}");
    assert_eq!(system["ctxhooks"]["calls"].as_array().unwrap().len(), 2);
}

#[test]
fn a_mark_outside_the_window_covers_nothing_and_is_reported_unmatched() {
    // 31 s before line 11 (window: 250 ms before to 30 000 ms after the mark).
    let transcript = transcript_fixture("marot__spotter/short.jsonl");
    let analysis = analyse_with_marks(&transcript, &[mark_at(1_770_757_922_480 - 31_000)]);
    let report = provenance_report(&analysis);
    assert_eq!(report.unmatched_marks.len(), 1);
    assert!(
        report
            .calls
            .iter()
            .all(|call| call.verdict == Verdict::User)
    );
    // And one ms after the group started is too late as well (beyond the 250 ms tolerance).
    let analysis = analyse_with_marks(&transcript, &[mark_at(1_770_757_922_480 + 251)]);
    assert_eq!(provenance_report(&analysis).unmatched_marks.len(), 1);
}

#[test]
fn rejection_with_feedback_is_a_person_and_never_interrupt_content() {
    // entireio b0/be9accda39 (2.0.76) line 8: rejection + "To tell you how to proceed, the user
    // said:\nEntire Inc."; the turn goes on (line 10 is the next tool_use).
    let transcript = transcript_fixture("entireio__cli/b0/be9accda39/0/full.jsonl");
    let analysis = analyse(&transcript, None);
    assert!(analysis.groups.is_empty());
    assert!(matches!(
        &class_at(&transcript, 7),
        RecordClass::Conversation { results } if results[0].1 == ResultKind::RejectedWithFeedback
    ));
    let report = provenance_report(&analysis);
    assert_eq!(report.calls.len(), 1);
    assert_eq!(
        report.calls[0].tool_use_id,
        "toolu_01BY1S5i5sYrB4ESjm3v8NGi"
    );
    assert_eq!(report.calls[0].verdict, Verdict::User);
}

#[test]
fn a_prompt_quoting_the_marker_is_not_an_interrupt() {
    // entireio 00/c9e2351016/3 (2.1.29): line 6 is a hook-written prompt quoting
    // "[Request interrupted by user for tool use]"; the real interrupt is lines 29-30 (Edit
    // rejection + marker), followed by a real prompt on line 32.
    let transcript = transcript_fixture("entireio__cli/00/c9e2351016/3/full.jsonl");
    let analysis = analyse(&transcript, None);
    assert!(matches!(
        class_at(&transcript, 5),
        RecordClass::Conversation { .. }
    ));
    assert_eq!(analysis.groups.len(), 1);
    assert_eq!(analysis.groups[0].lines, vec![28, 29]);
    assert!(!analysis.groups[0].trailing);
    // A mark at the quoting prompt's time (2026-02-03T00:25:14.150Z = 1770078314150 ms) matches
    // nothing: the quote is not an interrupt record.
    let analysis = analyse_with_marks(&transcript, &[mark_at(1_770_078_314_150)]);
    let report = provenance_report(&analysis);
    assert_eq!(report.unmatched_marks.len(), 1);
    assert_eq!(report.calls.len(), 1);
    assert_eq!(report.calls[0].verdict, Verdict::User);
}

#[test]
fn a_covered_interrupt_that_is_not_trailing_is_runtime_but_stays_in_the_ledger() {
    // Line 29 of c9e2351016 is at 2026-02-03T00:28:07.303Z = 1770078487303 ms.
    let transcript = transcript_fixture("entireio__cli/00/c9e2351016/3/full.jsonl");
    let analysis = analyse_with_marks(&transcript, &[mark_at(1_770_078_487_303 - 50)]);
    let report = provenance_report(&analysis);
    assert_eq!(report.calls[0].verdict, Verdict::Runtime);
    assert!(!report.calls[0].relabelled_in_ledger);
    assert_eq!(
        ledger_input(&analysis, &report, &transcript),
        fs_err::read(&transcript).unwrap()
    );
}

#[test]
fn interrupts_while_the_model_answers_are_groups_without_tool_calls() {
    // marot tool_heavy.jsonl (2.1.38): `[Request interrupted by user]` on lines 18 and 39; every
    // tool call has a normal result. The second marker ends the file (trailing).
    let transcript = transcript_fixture("marot__spotter/tool_heavy.jsonl");
    let analysis = analyse(&transcript, None);
    let groups: Vec<(Vec<usize>, bool)> = analysis
        .groups
        .iter()
        .map(|group| (group.lines.clone(), group.trailing))
        .collect();
    assert_eq!(groups, vec![(vec![17], false), (vec![38], true)]);
    assert!(provenance_report(&analysis).calls.is_empty());
}

#[test]
fn every_shared_fixture_passes_through_ledger_input_unchanged_without_marks() {
    for fixture in [
        "marot__spotter/short.jsonl",
        "marot__spotter/tool_heavy.jsonl",
        "entireio__cli/00/c9e2351016/3/full.jsonl",
        "entireio__cli/b0/be9accda39/0/full.jsonl",
        "entireio__cli/a6/e4c2a0fbd1/0/full.jsonl",
        "d-kimuson__claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    ] {
        let world = World::new("unchanged");
        let transcript = transcript_fixture(fixture);
        world
            .ctxhooks(["ledger-input", "--transcript"])
            .arg(&transcript)
            .stdout(fs_err::read(&transcript).unwrap())
            .success();
    }
}

// ---------------------------------------------------------------- real SDK 0.3.332 captures

#[test]
fn sdk_marked_interrupt_is_the_runtime_and_the_call_had_started() {
    // Lines 22 (rejection, toolDenialKind user-rejected) and 24 (marker, rowSource harness);
    // line 23 is an attachment. The sidecar holds one PreToolUse and the mark.
    let scenario = "marked-interrupt";
    let (world, session) = state_with_sdk_sidecar(scenario);
    let transcript = sdk(scenario, "transcript.jsonl");
    let report = provenance_json(&world, &session, &transcript);
    let calls = report["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["tool_use_id"], "toolu_3ea635f561d746d39c56d310");
    assert_eq!(calls[0]["verdict"], "runtime");
    assert_eq!(calls[0]["state"], "started");
    assert_eq!(calls[0]["summary"], "sleep 5");
    assert_eq!(calls[0]["relabelled_in_ledger"], true);
    assert!(report["unmatched_marks"].as_array().unwrap().is_empty());

    let original = fs_err::read(&transcript).unwrap();
    let relabelled = ledger(&world, &session, &transcript);
    // The library calls the command makes give the same bytes as the command.
    let state_dir = world.state();
    let session_id = ctxhooks_shared::store::session_id::SessionId::parse(&session).unwrap();
    let loaded = ctxhooks_commands::provenance::load::load_analysis(
        &state_dir,
        Some(&session_id),
        Some(&transcript),
    )
    .unwrap();
    let report = provenance_report(&loaded.analysis);
    assert_eq!(
        ledger_input(&loaded.analysis, &report, &loaded.transcript),
        relabelled
    );
    let before = lines_of(&original);
    let after = lines_of(&relabelled);
    assert_eq!(after.len(), before.len() - 1);
    assert_eq!(&after[..21], &before[..21]);
    assert_eq!(after[22], before[22], "the attachment between them stays");
    assert_eq!(&after[23..], &before[24..]);
    let system: Value = serde_json::from_slice(after[21]).unwrap();
    let content = system["content"].as_str().unwrap();
    assert!(content.contains("Bash `sleep 5`"), "{content}");
    assert!(
        content.contains("may have run in part or in full"),
        "{content}"
    );
    assert_eq!(system["ctxhooks"]["calls"][0]["state"], "started");
    assert_eq!(system["sessionId"], session.as_str());
}

#[test]
fn sdk_unmarked_interrupt_stays_the_users() {
    let scenario = "unmarked-interrupt";
    let (world, session) = state_with_sdk_sidecar(scenario);
    let transcript = sdk(scenario, "transcript.jsonl");
    let report = provenance_json(&world, &session, &transcript);
    let calls = report["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["verdict"], "user");
    assert_eq!(calls[0]["state"], "started");
    assert_eq!(calls[0]["relabelled_in_ledger"], false);
    assert_eq!(
        ledger(&world, &session, &transcript),
        fs_err::read(&transcript).unwrap()
    );
}

#[test]
fn sdk_earlier_genuine_interrupt_stays_and_only_the_last_is_relabelled() {
    // First interrupt: lines 22/24 (toolu_ea6e...), then line 31 "No response requested.",
    // `echo hello` completes (lines 34-35), then the marked interrupt at lines 46/47 (toolu_40ce...).
    let scenario = "earlier-genuine-then-marked";
    let (world, session) = state_with_sdk_sidecar(scenario);
    let transcript = sdk(scenario, "transcript.jsonl");
    let report = provenance_json(&world, &session, &transcript);
    let calls = report["calls"].as_array().unwrap();
    let summary: Vec<(&str, &str, &str, bool)> = calls
        .iter()
        .map(|call| {
            (
                call["tool_use_id"].as_str().unwrap(),
                call["verdict"].as_str().unwrap(),
                call["state"].as_str().unwrap(),
                call["relabelled_in_ledger"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            ("toolu_ea6e7ddf20cf4acda59f6a89", "user", "started", false),
            ("toolu_40ce02d121194d00ba10d550", "runtime", "started", true),
        ]
    );
    let original = fs_err::read(&transcript).unwrap();
    let relabelled = ledger(&world, &session, &transcript);
    let before = lines_of(&original);
    let after = lines_of(&relabelled);
    assert_eq!(after.len(), before.len() - 1);
    assert_eq!(
        &after[..45],
        &before[..45],
        "the earlier interrupt is byte-identical"
    );
    assert_eq!(&after[46..], &before[47..]);
}

#[test]
fn the_synthetic_no_response_after_an_interrupt_joins_its_group() {
    // earlier-genuine-then-marked: lines 22 and 24 are the first interrupt, line 31 the
    // `<synthetic>` "No response requested." written on resume, line 32 the next real prompt.
    let analysis = analyse(
        &sdk("earlier-genuine-then-marked", "transcript.jsonl"),
        None,
    );
    assert_eq!(analysis.groups[0].lines, vec![21, 23, 30]);
    assert!(!analysis.groups[0].trailing);
    assert_eq!(analysis.groups[1].lines, vec![45, 46]);
    assert!(analysis.groups[1].trailing);
    // Without an interrupt before it, the synthetic record starts no group.
    let dir = Scratch::new("synthetic");
    let transcript = dir.join("t.jsonl");
    fs_err::write(
        &transcript,
        concat!(
            r#"{"type":"user","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}"#,
            "\n",
            r#"{"type":"assistant","timestamp":"2026-01-01T00:00:01.000Z","message":{"model":"<synthetic>","content":[{"type":"text","text":"No response requested."}]}}"#,
            "\n"
        ),
    )
    .unwrap();
    assert!(analyse(&transcript, None).groups.is_empty());
}

/// The `earlier-genuine-then-marked` capture without the `PreToolUse` line of its last call (the
/// 4th sidecar line, `toolu_40ce...`), with `extra` sidecar lines appended, and its transcript
/// passed through `edit_last_rejection` (line 46, the last call's rejection).
fn without_last_pre_tool_use(
    extra: &[Value],
    edit_last_rejection: impl Fn(&mut Value),
) -> (World, String, PathBuf) {
    let scenario = "earlier-genuine-then-marked";
    let (world, session) = state_with_sdk_sidecar(scenario);
    let sidecar = world.sidecar(&session);
    let text = fs_err::read_to_string(&sidecar).unwrap();
    assert!(
        text.lines()
            .nth(3)
            .unwrap()
            .contains("toolu_40ce02d121194d00ba10d550")
    );
    let mut kept: String = text
        .lines()
        .enumerate()
        .filter(|(index, _)| *index != 3)
        .fold(String::new(), |mut kept, (_, line)| {
            kept.push_str(line);
            kept.push('\n');
            kept
        });
    for line in extra {
        kept.push_str(&line.to_string());
        kept.push('\n');
    }
    fs_err::write(&sidecar, kept).unwrap();
    let original = fs_err::read_to_string(sdk(scenario, "transcript.jsonl")).unwrap();
    let mut edited = String::new();
    for (index, line) in original.lines().enumerate() {
        if index == 45 {
            let mut record: Value = serde_json::from_str(line).unwrap();
            assert_eq!(
                record["message"]["content"][0]["tool_use_id"],
                "toolu_40ce02d121194d00ba10d550"
            );
            edit_last_rejection(&mut record);
            edited.push_str(&record.to_string());
        } else {
            edited.push_str(line);
        }
        edited.push('\n');
    }
    let transcript = world.transcript("transcript.jsonl");
    fs_err::write(&transcript, edited).unwrap();
    (world, session, transcript)
}

/// The plain rejection text, without 2.1.332's "stopped while running" correction.
fn strip_correction(record: &mut Value) {
    let text = record["message"]["content"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    let cut = text.find(" Correction to the text above:").unwrap();
    record["message"]["content"][0]["content"] = json!(text[..cut]);
    record.as_object_mut().unwrap().remove("toolDenialKind");
}

#[test]
fn a_missing_pre_tool_use_line_is_not_started_only_when_the_hook_wrote_lines_around_the_call() {
    // The last call's tool_use is line 45 (04:14:51.0xxZ); the sidecar's other hook lines are
    // all before it (PreToolUse/PostToolUse of the earlier calls) and the mark is no hook line.
    let last_call = |report: &Value| {
        let last = report["calls"][1].clone();
        assert_eq!(last["tool_use_id"], "toolu_40ce02d121194d00ba10d550");
        assert_eq!(last["verdict"], "runtime");
        last
    };
    // 1. Hook lines only before the call, and the SDK says "stopped while running": started.
    let (world, session, transcript) = without_last_pre_tool_use(&[], |_| {});
    let last = last_call(&provenance_json(&world, &session, &transcript));
    assert_eq!(last["state"], "started", "{last}");
    // 2. Hook lines only before, and nothing says it ran: unknown, never "not_started" (the
    //    hook may have been removed or broken since the earlier calls).
    let (world, session, transcript) = without_last_pre_tool_use(&[], strip_correction);
    let last = last_call(&provenance_json(&world, &session, &transcript));
    assert_eq!(last["state"], "unknown", "{last}");
    assert!(
        last["state_evidence"]
            .to_string()
            .contains("cannot tell whether it ran"),
        "{last}"
    );
    // 3. A hook line after the call too (a later call's PreToolUse): the hook was active around
    //    it and saw no PreToolUse: not started.
    let later = json!({"kind": "tool_event", "event": "started", "hook_event_name": "PreToolUse",
        "time_ms": 1_796_012_099_000_u64, "tool_use_id": "toolu_later", "tool_name": "Bash"});
    let (world, session, transcript) =
        without_last_pre_tool_use(std::slice::from_ref(&later), strip_correction);
    let last = last_call(&provenance_json(&world, &session, &transcript));
    assert_eq!(last["state"], "not_started", "{last}");
    // 4. The same, but the SDK says it was stopped while running: the two disagree: unknown.
    let (world, session, transcript) = without_last_pre_tool_use(&[later], |_| {});
    let last = last_call(&provenance_json(&world, &session, &transcript));
    assert_eq!(last["state"], "unknown", "{last}");
}

#[test]
fn tool_denial_kind_interrupted_says_the_call_was_running() {
    // 2.1.270 wrote toolDenialKind "interrupted" for a call cut off in flight. With no hook line
    // for the call, that is "started", not unknown and never not_started.
    let (world, session, transcript) = without_last_pre_tool_use(&[], |record| {
        strip_correction(record);
        record["toolDenialKind"] = json!("interrupted");
    });
    let last = &provenance_json(&world, &session, &transcript)["calls"][1];
    assert_eq!(last["result_kind"]["kind"], "interrupted");
    assert_eq!(last["result_kind"]["while_running"], true);
    assert_eq!(last["state"], "started", "{last}");
}

#[test]
fn post_tool_use_failure_with_is_interrupt_is_started_not_failed() {
    // marked-interrupt plus a PostToolUseFailure line (is_interrupt: true) for its Bash call
    // 300 ms after its PreToolUse: aborted mid-run, so the effect is unknown.
    let scenario = "marked-interrupt";
    let (world, session) = state_with_sdk_sidecar(scenario);
    let sidecar = world.sidecar(&session);
    let failure = json!({"kind": "tool_event", "event": "failed",
        "hook_event_name": "PostToolUseFailure", "time_ms": 1_796_012_085_406_u64,
        "tool_use_id": "toolu_3ea635f561d746d39c56d310", "tool_name": "Bash",
        "is_interrupt": true});
    let mut text = fs_err::read_to_string(&sidecar).unwrap();
    text.push_str(&failure.to_string());
    text.push('\n');
    fs_err::write(&sidecar, text).unwrap();
    let report = provenance_json(&world, &session, &sdk(scenario, "transcript.jsonl"));
    let call = &report["calls"][0];
    assert_eq!(call["state"], "started", "{call}");
    assert!(
        call["state_evidence"]
            .to_string()
            .contains("is_interrupt: true"),
        "{call}"
    );
}

#[test]
fn sdk_permission_deny_is_permission_denied_and_never_ran() {
    // Line 22: toolDenialKind permission-rule, "Not allowed by policy"; PreToolUse fired anyway.
    let scenario = "permission-deny";
    let (world, session) = state_with_sdk_sidecar(scenario);
    let transcript = sdk(scenario, "transcript.jsonl");
    let sidecar = read_sidecar(&sdk(scenario, "provenance.jsonl")).unwrap();
    assert_eq!(
        sidecar.events.len(),
        1,
        "PreToolUse fired before the denial"
    );
    let report = provenance_json(&world, &session, &transcript);
    let calls = report["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["verdict"], "permission_denied");
    assert_eq!(calls[0]["state"], "not_started");
    assert_eq!(
        ledger(&world, &session, &transcript),
        fs_err::read(&transcript).unwrap()
    );
}

#[test]
fn sdk_permission_deny_with_interrupt_is_refused_before_it_ran() {
    // Line 22: rejection prose, toolDenialKind user-rejected, toolDenialBeforeRun true; line 24
    // the harness marker. No mark: the transcript's "user" stands, and the call never ran even
    // though PreToolUse fired.
    let scenario = "permission-deny-interrupt";
    let (world, session) = state_with_sdk_sidecar(scenario);
    let transcript = sdk(scenario, "transcript.jsonl");
    let report = provenance_json(&world, &session, &transcript);
    let calls = report["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["verdict"], "user");
    assert_eq!(calls[0]["state"], "not_started");
    assert_eq!(calls[0]["result_kind"]["before_run"], true);
    assert_eq!(calls[0]["result_kind"]["stopped_while_running"], false);
    assert_eq!(
        ledger(&world, &session, &transcript),
        fs_err::read(&transcript).unwrap()
    );
    // Had the runtime marked it first, it would be the runtime's, relabelled as never started.
    let sidecar = world.sidecar(&session);
    let started = read_sidecar(&sidecar).unwrap().events[0].time_ms;
    let mut file = fs_err::OpenOptions::new()
        .append(true)
        .open(&sidecar)
        .unwrap();
    writeln!(file, "{}", mark_at(started + 10)).unwrap();
    let report = provenance_json(&world, &session, &transcript);
    assert_eq!(report["calls"][0]["verdict"], "runtime");
    assert_eq!(report["calls"][0]["state"], "not_started");
    let relabelled = String::from_utf8(ledger(&world, &session, &transcript)).unwrap();
    assert!(relabelled.contains("it never started, safe to re-run"));
}

#[test]
fn sdk_marked_interrupt_while_the_model_streams_relabels_the_marker_only() {
    // Line 20: the partial assistant answer (isAbortedMidStream: true), kept; line 21:
    // `[Request interrupted by user]` (rowSource harness), the only interrupt record. No tool ran.
    let scenario = "marked-streaming";
    let (world, session) = state_with_sdk_sidecar(scenario);
    let transcript = sdk(scenario, "transcript.jsonl");
    let report = provenance_json(&world, &session, &transcript);
    assert!(report["calls"].as_array().unwrap().is_empty());
    assert!(report["unmatched_marks"].as_array().unwrap().is_empty());
    let original = fs_err::read(&transcript).unwrap();
    let relabelled = ledger(&world, &session, &transcript);
    let before = lines_of(&original);
    let after = lines_of(&relabelled);
    assert_eq!(after.len(), before.len());
    assert_eq!(&after[..20], &before[..20], "the partial answer stays");
    assert_eq!(&after[21..], &before[21..]);
    let system: Value = serde_json::from_slice(after[20]).unwrap();
    assert_eq!(system["subtype"], "runtime_interrupt");
    assert!(system["ctxhooks"]["calls"].as_array().unwrap().is_empty());
    assert!(
        system["content"]
            .as_str()
            .unwrap()
            .contains("cut this turn off, not the user")
    );
}

#[test]
fn sdk_parallel_batch_cut_at_once_is_relabelled_together() {
    // Lines 24-26: three rejections; 27 attachment; 28 marker.
    let scenario = "parallel-marked";
    let (world, session) = state_with_sdk_sidecar(scenario);
    let transcript = sdk(scenario, "transcript.jsonl");
    let report = provenance_json(&world, &session, &transcript);
    let calls = report["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 3);
    assert!(calls.iter().all(|call| call["verdict"] == "runtime"
        && call["state"] == "started"
        && call["relabelled_in_ledger"] == true));
    let original = fs_err::read(&transcript).unwrap();
    let relabelled = ledger(&world, &session, &transcript);
    let before = lines_of(&original);
    let after = lines_of(&relabelled);
    assert_eq!(after.len(), before.len() - 3);
    assert_eq!(&after[..23], &before[..23]);
    assert_eq!(after[24], before[26], "the attachment stays");
    let system: Value = serde_json::from_slice(after[23]).unwrap();
    let ids: Vec<&str> = system["ctxhooks"]["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| call["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        vec![
            "toolu_b7afbf9b941944258386db0f",
            "toolu_344c7c7d7624416fa6ec4af4",
            "toolu_48404253c96740539557855f"
        ]
    );
    let text = String::from_utf8(relabelled.clone()).unwrap();
    assert_eq!(
        text.matches("runtime_interrupt\"").count(),
        2,
        "one record (subtype + ctxhooks.relabelled)"
    );
}

#[test]
fn canary_todays_sdk_interrupt_records_are_still_recognised() {
    // If a new SDK/CLI rewords or restructures its interrupt records, re-capture these fixtures
    // with tests/e2e/sdk-interrupt.mjs; this test then fails until recognition is updated.
    for scenario in [
        "marked-interrupt",
        "unmarked-interrupt",
        "earlier-genuine-then-marked",
        "parallel-marked",
    ] {
        let transcript = sdk(scenario, "transcript.jsonl");
        let analysis = analyse(&transcript, None);
        let trailing = analysis
            .groups
            .last()
            .unwrap_or_else(|| panic!("{scenario}: no interrupt group recognised"));
        assert!(trailing.trailing, "{scenario}");
        assert_eq!(trailing.markers, 1, "{scenario}: the harness marker");
        assert!(!trailing.results.is_empty(), "{scenario}");
        for (id, kind) in &trailing.results {
            assert_eq!(
                *kind,
                ResultKind::Rejected {
                    before_run: false,
                    stopped_while_running: true,
                    plain_user_rejected: false,
                },
                "{scenario} {id}"
            );
        }
        // The recognised records carry today's structured fields.
        for line in &trailing.lines {
            let bytes = line_of(&transcript, *line);
            let record = Record::parse(&bytes).unwrap();
            let structured = record.tool_denial_kind.text() == Some("user-rejected")
                || record.row_source.text() == Some("harness");
            assert!(
                structured,
                "{scenario}: line {} lost its structured field",
                line + 1
            );
        }
    }
}

/// The marked-interrupt capture with its interrupt records reworded and their structured fields
/// removed, as a future SDK might write them.
fn reworded_marked_interrupt(world: &World) -> PathBuf {
    let original = fs_err::read(sdk("marked-interrupt", "transcript.jsonl")).unwrap();
    let mut text = Vec::new();
    for (index, line) in lines_of(&original).into_iter().enumerate() {
        // Lines 22 (rejection) and 24 (marker), see sdk_marked_interrupt_... above.
        if index == 21 || index == 23 {
            let mut record: Value = serde_json::from_slice(line).unwrap();
            let object = record.as_object_mut().unwrap();
            object.remove("toolDenialKind");
            object.remove("rowSource");
            let block = &mut record["message"]["content"][0];
            if index == 21 {
                block["content"] = json!("The operator stopped this call.");
            } else {
                block["text"] = json!("[Request cancelled by host]");
            }
            text.extend_from_slice(record.to_string().as_bytes());
            text.push(b'\n');
        } else {
            text.extend_from_slice(line);
        }
    }
    world.write_transcript("transcript.jsonl", text)
}

#[test]
fn drift_with_the_hook_still_finds_the_runtime_and_warns_that_nothing_was_relabelled() {
    let (world, session) = state_with_sdk_sidecar("marked-interrupt");
    let transcript = reworded_marked_interrupt(&world);
    let report = provenance_json(&world, &session, &transcript);
    let calls = report["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1);
    // The sidecar saw the call start and never finish, and the mark covers its error result.
    assert_eq!(calls[0]["verdict"], "runtime");
    assert_eq!(calls[0]["state"], "started");
    assert_eq!(calls[0]["result_kind"]["kind"], "unrecognised_interruption");
    // The reworded marker is not recognised, so the group is not trailing: said loudly.
    assert_eq!(calls[0]["relabelled_in_ledger"], false);
    let warnings = report["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|warning| warning.as_str().unwrap().contains("does not recognise")),
        "{warnings:?}"
    );
}

#[test]
fn drift_without_the_hook_leaves_the_mark_unmatched_and_never_blames_the_user() {
    let world = World::new("drift-nohook");
    let session = sdk_session("marked-interrupt");
    fs_err::create_dir_all(world.session_dir(&session)).unwrap();
    // Only the mark line of the capture's sidecar (its second line), no hook events.
    let sidecar = fs_err::read_to_string(sdk("marked-interrupt", "provenance.jsonl")).unwrap();
    let mark_line = sidecar.lines().nth(1).unwrap();
    assert!(mark_line.contains("runtime_interrupt_mark"));
    fs_err::write(world.sidecar(&session), format!("{mark_line}\n")).unwrap();
    let transcript = reworded_marked_interrupt(&world);
    let report = provenance_json(&world, &session, &transcript);
    assert_eq!(report["unmatched_marks"].as_array().unwrap().len(), 1);
    // The reworded result reads as an ordinary error: no call is reported, none blamed on the
    // user; the unmatched mark is the alarm.
    assert_eq!(report["calls"].as_array().unwrap().len(), 0);
}

#[test]
fn canary_todays_streaming_interrupt_marker_is_still_recognised() {
    let transcript = sdk("marked-streaming", "transcript.jsonl");
    let analysis = analyse(&transcript, None);
    let group = analysis
        .groups
        .last()
        .expect("no interrupt group recognised");
    assert!(group.trailing);
    assert_eq!(group.lines, vec![20]);
    assert_eq!(group.markers, 1);
    assert_eq!(
        Record::parse(&line_of(&transcript, 20))
            .unwrap()
            .row_source
            .text(),
        Some("harness")
    );
}

#[test]
fn canary_todays_sdk_denials_are_still_recognised() {
    // permission-deny line 22 and permission-deny-interrupt line 22 (0-based 21).
    assert!(matches!(
        &class_at(&sdk("permission-deny", "transcript.jsonl"), 21),
        RecordClass::Conversation { results } if matches!(&results[0].1,
            ResultKind::PermissionDenied(refusal) if refusal.denial_kind.as_deref() == Some("permission-rule"))
    ));
    let transcript = sdk("permission-deny-interrupt", "transcript.jsonl");
    assert!(matches!(
        &class_at(&transcript, 21),
        RecordClass::InterruptOnly { results, .. } if results[0].1 == ResultKind::Rejected {
            before_run: true,
            stopped_while_running: false,
            plain_user_rejected: true,
        }
    ));
    assert!(analyse(&transcript, None).groups.last().unwrap().trailing);
}

#[test]
fn unmatched_marks_for_doctor() {
    use ctxhooks_commands::provenance::load::{unmatched_marks, unmatched_marks_in_all_sessions};
    use ctxhooks_commands::provenance::marks::UnmatchedReason;
    use ctxhooks_shared::store::session_id::SessionId;

    let world = World::new("doctor");
    let session = sdk_session("marked-interrupt");
    let transcript = sdk("marked-interrupt", "transcript.jsonl");
    let capture = fs_err::read_to_string(sdk("marked-interrupt", "provenance.jsonl")).unwrap();
    let mut started: Value = serde_json::from_str(capture.lines().next().unwrap()).unwrap();
    started["transcript_path"] = json!(transcript.to_str().unwrap());
    let real_mark: Value = serde_json::from_str(capture.lines().nth(1).unwrap()).unwrap();
    let late_mark = mark_at(real_mark["time_ms"].as_u64().unwrap() + 3_600_000);
    fs_err::create_dir_all(world.session_dir(&session)).unwrap();
    fs_err::write(
        world.sidecar(&session),
        format!("{started}\n{real_mark}\n{late_mark}\n"),
    )
    .unwrap();
    // A second session: a mark and no hook event, so no transcript to look in.
    fs_err::create_dir_all(world.session_dir("other-session")).unwrap();
    fs_err::write(world.sidecar("other-session"), format!("{late_mark}\n")).unwrap();

    let state_dir = world.state();
    let unmatched = unmatched_marks(&state_dir, &SessionId::parse(&session).unwrap()).unwrap();
    assert_eq!(unmatched.len(), 1);
    assert_eq!(
        unmatched[0].mark.time_ms,
        late_mark["time_ms"].as_u64().unwrap()
    );
    let all = unmatched_marks_in_all_sessions(&state_dir).unwrap();
    let summary: Vec<(String, usize)> = all
        .iter()
        .map(|(session, marks)| (session.as_str().to_owned(), marks.len()))
        .collect();
    let mut expected = vec![(session.clone(), 1), ("other-session".to_owned(), 1)];
    expected.sort();
    assert_eq!(summary, expected);
    let other_reason = &all
        .iter()
        .find(|(session, _)| session.as_str() == "other-session")
        .unwrap()
        .1[0]
        .reason;
    assert_eq!(*other_reason, UnmatchedReason::NoTranscriptPath);
    // doctor's hint names the session as `--session=<id>`, which also works for an id that
    // starts with `-`.
    let findings = ctxhooks_commands::doctor::checks::provenance_findings(&state_dir).unwrap();
    assert!(
        findings.iter().any(|finding| matches!(
            finding,
            Finding::RuntimeMarkWithoutInterrupt { session: found, .. } if *found == session
        ) && finding
            .to_string()
            .contains(&format!("ctxhooks provenance --session={session}`"))),
        "{findings:?}"
    );
}

// ---------------------------------------------------------------- the commands

#[test]
fn mark_interrupt_appends_the_documented_line() {
    let world = World::new("mark");
    let session = "3f1c1e7a-0000-4000-8000-000000000003";
    world
        .ctxhooks([
            "mark-interrupt",
            "--session",
            session,
            "--reason",
            "context backstop at 78%",
            "--source",
            "backstop",
            "--gauge-pct",
            "78.4",
        ])
        .success();
    let lines = json_lines(&world.sidecar(session));
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["kind"], "runtime_interrupt_mark");
    assert_eq!(lines[0]["reason"], "context backstop at 78%");
    assert_eq!(lines[0]["source"], "backstop");
    assert_eq!(lines[0]["gauge_pct"], 78.4);
    assert!(lines[0]["pid"].as_u64().is_some());
    assert!(lines[0]["time_ms"].as_u64().unwrap() > 1_700_000_000_000);
}

#[test]
fn mark_interrupt_refuses_bad_input_and_writes_nothing() {
    let world = World::new("mark-bad");
    for arguments in [
        &["mark-interrupt", "--session", "../x", "--reason", "r"][..],
        &["mark-interrupt", "--session", "ok", "--reason", "  "][..],
        &[
            "mark-interrupt",
            "--session",
            "ok",
            "--reason",
            "r",
            "--gauge-pct",
            "NaN",
        ][..],
        &["mark-interrupt", "--session", "ok"][..],
    ] {
        let refused = world.ctxhooks(arguments).failure();
        assert!(!refused.stderr().is_empty(), "{arguments:?} said nothing");
    }
    assert!(!world.state_dir().join("sessions").exists());
}

#[test]
fn provenance_says_loudly_when_a_mark_matches_nothing() {
    // The unmarked SDK capture plus a mark written 10 minutes after everything in it.
    let scenario = "unmarked-interrupt";
    let (world, session) = state_with_sdk_sidecar(scenario);
    let transcript = sdk(scenario, "transcript.jsonl");
    let sidecar = world.sidecar(&session);
    let last_event = read_sidecar(&sidecar).unwrap().events[0].time_ms;
    let mut file = fs_err::OpenOptions::new()
        .append(true)
        .open(&sidecar)
        .unwrap();
    writeln!(file, "{}", mark_at(last_event + 600_000)).unwrap();
    world
        .ctxhooks(["provenance", "--session", &session, "--transcript"])
        .arg(&transcript)
        .stdout_contains("matched NO interrupt record")
        .stderr_contains("WARNING")
        .success();
}

#[test]
fn the_sidecar_remembers_the_transcript_for_session_only_commands() {
    // A real hook run records transcript_path; `provenance --session` then finds it.
    let world = World::new("transcript-path");
    let session = sdk_session("marked-interrupt");
    let transcript = sdk("marked-interrupt", "transcript.jsonl");
    let mut payload = pre_tool_use(&session, "toolu_3ea635f561d746d39c56d310");
    payload["transcript_path"] = json!(transcript.to_str().unwrap());
    world
        .hook(Hook::ToolUse)
        .stdin(payload.to_string())
        .success();
    let report = world
        .ctxhooks(["provenance", "--session", &session, "--json"])
        .json();
    // No mark in this state folder: the transcript's "user" stands.
    assert_eq!(report["calls"][0]["verdict"], "user");
    assert_eq!(report["calls"][0]["state"], "started");
}

#[test]
fn commands_name_missing_input_clearly() {
    let world = World::new("errors");
    world
        .ctxhooks(["provenance", "--session", "no-such-session"])
        .stderr_contains("--transcript")
        .failure();
    world
        .ctxhooks(["ledger-input", "--transcript", "/nonexistent/t.jsonl"])
        .stderr_contains("failed to read")
        .failure();
    world.ctxhooks(["ledger-input"]).failure();
    let rule = world
        .ctxhooks(["ledger-input", "--prompt-rule"])
        .success()
        .stdout_text();
    assert!(rule.contains("never \"waiting on the user\""), "{rule}");
    assert!(
        rule.contains("never a rejection and never a confirmation"),
        "{rule}"
    );
}

// ---------------------------------------------------------------- review fixes

/// The marked-interrupt capture's sidecar with its mark line replaced by `mark_line`, in a
/// fresh state folder. Its first line is the `PreToolUse` of `toolu_3ea6...` at 1796012085106 ms;
/// the real mark is at 1796012085378 ms; the rejection (line 22) is at 04:14:45.436Z
/// (1796012085436 ms).
fn marked_interrupt_with_mark_line(mark_line: &str) -> (World, String, PathBuf) {
    let scenario = "marked-interrupt";
    let (world, session) = state_with_sdk_sidecar(scenario);
    let sidecar = world.sidecar(&session);
    let text = fs_err::read_to_string(&sidecar).unwrap();
    let first = text.lines().next().unwrap();
    fs_err::write(&sidecar, format!("{first}\n{mark_line}\n")).unwrap();
    (world, session, sdk(scenario, "transcript.jsonl"))
}

#[test]
fn a_mark_written_before_the_call_began_does_not_cover_it() {
    // A mark 2 s before the Bash call's PreToolUse (1796012085106 - 2000) is inside the 5 s
    // window of the interrupt records (they come 2330 ms after it) but the call began more than
    // 1 s after it: a runtime marks a call already running, so this interrupt stays the user's.
    let (world, session, transcript) =
        marked_interrupt_with_mark_line(&mark_at(1_796_012_083_106).to_string());
    let report = provenance_json(&world, &session, &transcript);
    assert_eq!(report["calls"][0]["verdict"], "user", "{report}");
    assert_eq!(report["unmatched_marks"].as_array().unwrap().len(), 1);
    assert_eq!(
        ledger(&world, &session, &transcript),
        fs_err::read(&transcript).unwrap()
    );
    // The real mark (272 ms after the PreToolUse) still covers it.
    let (world, session, transcript) =
        marked_interrupt_with_mark_line(&mark_at(1_796_012_085_378).to_string());
    assert_eq!(
        provenance_json(&world, &session, &transcript)["calls"][0]["verdict"],
        "runtime"
    );
}

#[test]
fn a_prompt_between_the_mark_and_the_interrupt_keeps_the_mark_away() {
    // earlier-genuine-then-marked: the genuine interrupt's records are lines 22/24 (toolu_ea6e,
    // PreToolUse at 1796012089196 ms). A mark 100 ms after its PreToolUse would cover it...
    let scenario = "earlier-genuine-then-marked";
    let transcript = sdk(scenario, "transcript.jsonl");
    let covered = analyse_with_marks(&transcript, &[mark_at(1_796_012_089_296)]);
    assert!(covered.groups[0].covered_by.is_some());
    // ...but not when a real user prompt lies between the mark and the records: copy line 3
    // (the session's first prompt) with a timestamp after the mark in front of line 22.
    let original = fs_err::read_to_string(&transcript).unwrap();
    let lines: Vec<&str> = original.lines().collect();
    let mut prompt: Value = serde_json::from_str(lines[2]).unwrap();
    assert_eq!(prompt["type"], "user");
    assert!(prompt["message"]["content"].to_string().contains("RUN:"));
    prompt["timestamp"] = json!("2026-11-30T04:14:49.300Z"); // 1796012089300 ms
    let mut edited = String::new();
    for (index, line) in lines.iter().enumerate() {
        if index == 21 {
            edited.push_str(&prompt.to_string());
            edited.push('\n');
        }
        edited.push_str(line);
        edited.push('\n');
    }
    let dir = Scratch::new("prompt-between");
    let path = dir.join("transcript.jsonl");
    fs_err::write(&path, edited).unwrap();
    let analysis = analyse_with_marks(&path, &[mark_at(1_796_012_089_296)]);
    assert!(analysis.groups[0].covered_by.is_none());
    assert_eq!(analysis.unmatched().len(), 1);
}

#[test]
fn a_transcript_of_another_session_is_refused() {
    // The unmarked capture's transcript with the marked capture's session: refused, nothing on
    // stdout.
    let (world, session) = state_with_sdk_sidecar("marked-interrupt");
    let other = sdk("unmarked-interrupt", "transcript.jsonl");
    for command in ["provenance", "ledger-input"] {
        world
            .ctxhooks([command, "--session", &session, "--transcript"])
            .arg(&other)
            .stdout("")
            .stderr_contains(sdk_session("unmarked-interrupt"))
            .failure();
    }
    // A transcript with no sessionId at all is accepted, with a warning.
    let original = fs_err::read_to_string(sdk("marked-interrupt", "transcript.jsonl")).unwrap();
    let mut stripped = String::new();
    for line in original.lines() {
        let mut record: Value = serde_json::from_str(line).unwrap();
        if let Some(object) = record.as_object_mut() {
            object.remove("sessionId");
        }
        stripped.push_str(&record.to_string());
        stripped.push('\n');
    }
    let path = world.write_transcript("no-session.jsonl", stripped);
    let report = provenance_json(&world, &session, &path);
    assert_eq!(report["calls"][0]["verdict"], "runtime");
    assert!(
        report["warnings"]
            .to_string()
            .contains("names no sessionId"),
        "{report}"
    );
}

#[test]
fn a_python_nan_mark_line_is_reported_loudly_and_never_used_as_a_mark() {
    // What Python's json.dumps writes for gauge_pct = float("nan"): not JSON. Its time is
    // plainly in the text, but a malformed line is counted and reported, not repaired: it is a
    // mark line whose time cannot be read, so the interrupt right after it is `unknown`, never
    // the user's and never taken as the runtime's on a guess.
    let line = r#"{"kind": "runtime_interrupt_mark", "time_ms": 1796012085378, "reason": "context backstop", "source": "py", "gauge_pct": NaN, "pid": 7}"#;
    let (world, session, transcript) = marked_interrupt_with_mark_line(line);
    let report = world
        .ctxhooks([
            "provenance",
            "--json",
            "--session",
            &session,
            "--transcript",
        ])
        .arg(&transcript)
        .stderr_contains("WARNING: sidecar line 2")
        .json();
    let call = &report["calls"][0];
    assert_eq!(call["verdict"], "unknown", "{report}");
    assert_eq!(call["mark"], Value::Null);
    assert_eq!(call["relabelled_in_ledger"], false);
    assert!(
        call["verdict_evidence"]
            .to_string()
            .contains("sidecar line 2")
    );
    assert!(report["unmatched_marks"].as_array().unwrap().is_empty());
    assert!(report["warnings"].to_string().contains("sidecar line 2"));
    assert_eq!(
        ledger(&world, &session, &transcript),
        fs_err::read(&transcript).unwrap(),
        "nothing is relabelled on a guessed time"
    );
    // doctor's provenance check warns too.
    let state_dir = world.state();
    let findings = ctxhooks_commands::doctor::checks::provenance_findings(&state_dir).unwrap();
    assert!(
        findings.iter().any(|finding| matches!(
            finding,
            Finding::RuntimeMarkUnreadable { session: found, line: 2, .. } if *found == session
        ) && finding
            .to_string()
            .contains(&format!("--session={session}"))),
        "{findings:?}"
    );
}

#[test]
fn a_mark_line_whose_time_cannot_be_read_makes_nearby_interrupts_unknown_not_users() {
    let line =
        r#"{"kind": "runtime_interrupt_mark", "time_ms": NaN, "reason": "context backstop"}"#;
    let (world, session, transcript) = marked_interrupt_with_mark_line(line);
    let report = provenance_json(&world, &session, &transcript);
    let call = &report["calls"][0];
    assert_eq!(call["verdict"], "unknown", "{call}");
    assert!(
        call["verdict_evidence"]
            .to_string()
            .contains("sidecar line 2")
    );
    assert_eq!(call["relabelled_in_ledger"], false);
    assert!(report["warnings"].to_string().contains("sidecar line 2"));
    assert!(
        !report.to_string().contains("  "),
        "no broken string continuations: {report}"
    );
}

#[test]
fn lenient_mark_fields_float_time_and_bad_gauge() {
    // A float time_ms is rounded; a string or non-finite gauge is ignored; the mark still covers.
    let line = r#"{"kind":"runtime_interrupt_mark","time_ms":1796012085377.6,"reason":"r","gauge_pct":"78%"}"#;
    let (world, session, transcript) = marked_interrupt_with_mark_line(line);
    let report = provenance_json(&world, &session, &transcript);
    assert_eq!(report["calls"][0]["verdict"], "runtime", "{report}");
    assert_eq!(report["calls"][0]["mark"]["time_ms"], 1_796_012_085_378_u64);
    assert!(report["calls"][0]["mark"].get("gauge_pct").is_none());
}

/// The marked-interrupt transcript with line 24's (the harness marker's) record edited.
fn marked_interrupt_with_marker(edit: impl Fn(&mut Value)) -> (World, String, PathBuf) {
    let scenario = "marked-interrupt";
    let (world, session) = state_with_sdk_sidecar(scenario);
    let original = fs_err::read_to_string(sdk(scenario, "transcript.jsonl")).unwrap();
    let mut edited = String::new();
    for (index, line) in original.lines().enumerate() {
        if index == 23 {
            let mut record: Value = serde_json::from_str(line).unwrap();
            assert_eq!(record["rowSource"], "harness");
            edit(&mut record);
            edited.push_str(&record.to_string());
        } else {
            edited.push_str(line);
        }
        edited.push('\n');
    }
    let path = world.transcript("transcript.jsonl");
    fs_err::write(&path, edited).unwrap();
    (world, session, path)
}

#[test]
fn a_harness_record_in_a_new_wording_after_interrupt_content_is_a_marker_with_a_warning() {
    let (world, session, transcript) = marked_interrupt_with_marker(|record| {
        record["message"]["content"][0]["text"] = json!("[Turn stopped by the SDK]");
    });
    let report = provenance_json(&world, &session, &transcript);
    let call = &report["calls"][0];
    assert_eq!(call["verdict"], "runtime");
    assert_eq!(call["relabelled_in_ledger"], true, "{report}");
    assert!(
        call["verdict_evidence"]
            .to_string()
            .contains("[Turn stopped by the SDK]")
    );
    assert!(
        report["warnings"].to_string().contains("wording"),
        "{report}"
    );
    assert!(!report.to_string().contains("  "), "{report}");
    // The ledger replaces both records (22 and 24): one line fewer.
    let original = fs_err::read(&transcript).unwrap();
    assert_eq!(
        lines_of(&ledger(&world, &session, &transcript)).len(),
        lines_of(&original).len() - 1
    );
}

#[test]
fn a_marker_typed_by_a_person_is_never_an_interrupt_marker() {
    // rowSource "local": a person typed "[Request interrupted by user for tool use]".
    let (_world, _, transcript) = marked_interrupt_with_marker(|record| {
        record["rowSource"] = json!("local");
    });
    let analysis = analyse(&transcript, None);
    assert!(matches!(
        class_at(&transcript, 23),
        RecordClass::Conversation { .. }
    ));
    assert_eq!(analysis.groups.len(), 1);
    assert_eq!(analysis.groups[0].lines, vec![21]);
    assert!(!analysis.groups[0].trailing);
}

/// The relabelled ledger of the marked-interrupt capture for a transcript given as bytes.
fn marked_ledger(transcript_bytes: &[u8]) -> (Vec<u8>, Value) {
    let (world, session) = state_with_sdk_sidecar("marked-interrupt");
    let path = world.transcript("transcript.jsonl");
    fs_err::write(&path, transcript_bytes).unwrap();
    let report = provenance_json(&world, &session, &path);
    (ledger(&world, &session, &path), report)
}

#[test]
fn ledger_keeps_line_endings_and_links_the_chain() {
    let original = fs_err::read(sdk("marked-interrupt", "transcript.jsonl")).unwrap();
    let before = lines_of(&original);
    // 1. uuid from the last replaced record (line 24), parentUuid from the first (line 22).
    let (relabelled, _) = marked_ledger(&original);
    let system: Value = serde_json::from_slice(lines_of(&relabelled)[21]).unwrap();
    assert_eq!(system["uuid"], "76eca4bb-74f0-4802-997a-2a6530606101");
    assert_eq!(system["parentUuid"], "b430fdc3-3b2a-48ba-945d-9e1705a7fb39");
    // 2. The file ends with the group, with no final newline: the replacement has none either.
    let cut: Vec<u8> = before[..24].concat();
    let cut = cut.strip_suffix(b"\n").unwrap();
    let (relabelled, _) = marked_ledger(cut);
    // The attachment (line 23) follows the replacement, so the replacement keeps the first
    // replaced line's newline and the attachment stays as it was.
    let after = lines_of(&relabelled);
    assert_eq!(after.len(), 23);
    assert_eq!(&after[..21], &before[..21]);
    assert!(after[21].ends_with(b"}\n"));
    assert_eq!(after[22], before[22], "the attachment stays");
    // Without the attachment, the replacement is the last line, with no final newline.
    let mut cut = [&before[..22], &before[23..24]].concat().concat();
    cut.pop();
    let (relabelled, _) = marked_ledger(&cut);
    assert!(relabelled.ends_with(b"}}"));
    assert_eq!(lines_of(&relabelled).len(), 22);
    assert_eq!(&lines_of(&relabelled)[..21], &before[..21]);
    // 3. CRLF everywhere: every other line byte-identical, the replacement ends with CRLF.
    let crlf: Vec<u8> = before
        .iter()
        .flat_map(|line| {
            let mut line = line.strip_suffix(b"\n").unwrap().to_vec();
            line.extend_from_slice(b"\r\n");
            line
        })
        .collect();
    let (relabelled, report) = marked_ledger(&crlf);
    assert_eq!(report["calls"][0]["relabelled_in_ledger"], true);
    let crlf_before = lines_of(&crlf);
    let after = lines_of(&relabelled);
    assert_eq!(after.len(), crlf_before.len() - 1);
    assert!(after[21].ends_with(b"}\r\n"));
    assert_eq!(&after[..21], &crlf_before[..21]);
    assert_eq!(
        &after[22..],
        &[&crlf_before[22..23], &crlf_before[24..]].concat()[..]
    );
}

#[test]
fn ledger_relabels_nothing_when_an_unreadable_line_follows_the_group() {
    let original = fs_err::read(sdk("marked-interrupt", "transcript.jsonl")).unwrap();
    let before = lines_of(&original);
    for follower in [
        &b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"con"[..],
        b"{\"type\":\"user\",\"message\":{\"content\":\"\xff\xfe\"}}\n",
    ] {
        let mut bytes = before[..24].concat();
        bytes.extend_from_slice(follower);
        let (relabelled, report) = marked_ledger(&bytes);
        assert_eq!(relabelled, bytes, "nothing relabelled");
        assert_eq!(report["calls"][0]["verdict"], "runtime");
        assert_eq!(report["calls"][0]["relabelled_in_ledger"], false);
        assert!(
            report["warnings"].to_string().contains("line 25"),
            "{report}"
        );
    }
    // An invalid UTF-8 line before the group stays byte-identical while the group is relabelled.
    let mut bytes = before[..20].concat();
    bytes.extend_from_slice(b"\xff\xfe not a record\n");
    bytes.extend_from_slice(&before[20..].concat());
    let (relabelled, report) = marked_ledger(&bytes);
    assert_eq!(report["calls"][0]["relabelled_in_ledger"], true);
    let after = lines_of(&relabelled);
    assert_eq!(after[20], b"\xff\xfe not a record\n");
    assert_eq!(after.len(), lines_of(&bytes).len() - 1);
}

/// The last `length` bytes of the file at `path`, read without reading the rest.
fn last_bytes(path: &Path, length: u64) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = fs_err::File::open(path).unwrap();
    let size = file.metadata().unwrap().len();
    file.seek(SeekFrom::Start(size.saturating_sub(length)))
        .unwrap();
    let mut tail = String::new();
    file.read_to_string(&mut tail).unwrap();
    tail
}

// Unix only: run through `/bin/sh` (a umask or a memory limit).
#[cfg(unix)]
#[test]
fn mark_interrupt_looks_only_at_the_end_of_a_sidecar_of_any_size() {
    // A runtime waits on mark-interrupt before it interrupts: it must not read a session's whole
    // sidecar. Here one of 4 GiB (sparse: no room on disk), a hook event at its end, and an
    // address space of 128 MiB: reading it all would fail, and the warning be wrong.
    let world = World::new("mark-large");
    let session = "mark-large";
    fs_err::create_dir_all(world.session_dir(session)).unwrap();
    let event = r#"{"kind":"tool_event","event":"started","time_ms":1,"tool_use_id":"toolu_1"}"#;
    let sidecar = fs_err::File::create(world.sidecar(session)).unwrap();
    sidecar.set_len(4 << 30).unwrap();
    drop(sidecar);
    crate::support::append(&world.sidecar(session), format!("\n{event}\n"));
    let output = world
        .ctxhooks([
            "mark-interrupt",
            "--session",
            session,
            "--reason",
            "backstop",
        ])
        .via("/bin/sh", ["-c", "ulimit -v 131072 && exec \"$0\" \"$@\""])
        .success();
    assert!(output.stderr().is_empty(), "{output:?}");
    let tail = last_bytes(&world.sidecar(session), 1024);
    let lines: Vec<&str> = tail.lines().rev().take(2).collect();
    assert_eq!(lines[1], event);
    assert!(
        lines[0].starts_with(r#"{"kind":"runtime_interrupt_mark""#),
        "{}",
        lines[0]
    );
    // The look is bounded: hook events only before the last 64 KiB are none of recent ones.
    let world = World::new("mark-old-events");
    let mut lines = format!("{event}\n");
    while lines.len() <= 64 * 1024 {
        lines.push_str(
            r#"{"kind":"runtime_interrupt_mark","time_ms":2,"reason":"an earlier backstop"}"#,
        );
        lines.push('\n');
    }
    fs_err::create_dir_all(world.session_dir(session)).unwrap();
    fs_err::write(world.sidecar(session), &lines).unwrap();
    world
        .ctxhooks(["mark-interrupt", "--session", session, "--reason", "r"])
        .stderr_contains("none in the last 64 KiB of its sidecar")
        .success();
}

#[test]
fn mark_interrupt_json_is_the_recorded_line_and_warns_without_hook_events() {
    let world = World::new("mark-json");
    let session = "-starts-with-a-dash";
    let output = world
        .ctxhooks([
            "mark-interrupt",
            &format!("--session={session}"),
            "--reason",
            "context backstop",
            "--gauge-pct",
            "78.4",
            "--json",
        ])
        .stderr_contains("is ctxhooks-tooluse installed?")
        .success();
    let recorded = fs_err::read_to_string(world.sidecar(session)).unwrap();
    assert_eq!(output.stdout_text(), recorded);
    assert!(recorded.contains("\"kind\":\"runtime_interrupt_mark\""));
    // With a hook event in the session, no warning.
    let (world, session) = state_with_sdk_sidecar("marked-interrupt");
    let output = world
        .ctxhooks(["mark-interrupt", "--session", &session, "--reason", "r"])
        .success();
    assert!(output.stderr().is_empty(), "{output:?}");
    // Negative and non-finite gauges are refused, and nothing is written.
    for gauge in ["--gauge-pct=-1", "--gauge-pct=inf", "--gauge-pct=NaN"] {
        let world = World::new("mark-gauge");
        world
            .ctxhooks(["mark-interrupt", "--session", "s", "--reason", "r", gauge])
            .failure();
        assert!(!world.state_dir().join("sessions").exists(), "{gauge}");
    }
}

/// A session resumed from another folder: its tool events recorded the first folder's
/// transcript, then the second's. `provenance --session` judges the calls of both (it read the
/// last one named alone, so the first folder's stopped calls were left out without a word).
#[test]
fn a_session_resumed_in_another_folder_has_the_calls_of_both_transcripts_judged() {
    let world = World::new("provenance-two-folders");
    let session = "55604662-cf2a-4331-851a-ec234028f8ca";
    // marot short.jsonl (2.1.38): two calls rejected, then an interrupt marker.
    let first = world
        .config_dir()
        .join(format!("projects/-home-marco/{session}.jsonl"));
    let second = world
        .config_dir()
        .join(format!("projects/-elsewhere/{session}.jsonl"));
    for path in [&first, &second] {
        fs_err::create_dir_all(path.parent().unwrap()).unwrap();
    }
    fs_err::copy(transcript_fixture("marot__spotter/short.jsonl"), &first).unwrap();
    fs_err::write(
        &second,
        json!({"type": "user", "uuid": "later", "sessionId": session,
            "timestamp": "2026-02-11T10:00:00.000Z",
            "message": {"role": "user", "content": "go on"}})
        .to_string()
            + "\n",
    )
    .unwrap();
    fs_err::create_dir_all(world.session_dir(session)).unwrap();
    let event = |time_ms: u64, id: &str, transcript: &Path| {
        json!({"kind": "tool_event", "event": "started", "time_ms": time_ms, "tool_use_id": id,
            "tool_name": "Bash", "transcript_path": transcript})
        .to_string()
            + "\n"
    };
    fs_err::write(
        world.sidecar(session),
        event(1, "toolu_other_1", &first) + &event(2, "toolu_other_2", &second),
    )
    .unwrap();
    let report = world
        .ctxhooks(["provenance", "--json", "--session", session])
        .json();
    assert_eq!(report["calls"].as_array().unwrap().len(), 2, "{report:#}");
}
