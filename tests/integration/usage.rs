//! Tests for the usage log: rows from every real transcript fixture, the Stop hook's cursor
//! (incremental, half-written lines, rewritten transcripts, hostile payloads), and the report.

use std::path::{Path, PathBuf};

use ctxhooks_commands::facts::log::{log_from_transcript, read_log_file, read_session_log};
use ctxhooks_shared::store::env_vars;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::store::usage_record::{RescanReason, UsageRecord, UsageRow};

#[cfg(unix)]
use crate::support::make_fifo;
use crate::support::{Hook, World, append, mode, transcript_fixture};

/// Every readable record of a usage log file.
fn read_records(path: &Path) -> anyhow::Result<Vec<UsageRecord>> {
    Ok(read_log_file(path)?.records)
}

/// One session's request rows, as `ctxhooks usage` lists them.
fn read_rows(state: &StateDir, session: &SessionId) -> anyhow::Result<Vec<UsageRow>> {
    Ok(read_session_log(state, session)?.rows())
}

/// Totals over rows: (requests, main-chain requests, input, cache writes, cache reads, output).
type Totals = (usize, usize, u64, u64, u64, u64);

fn totals(rows: &[UsageRow]) -> Totals {
    (
        rows.len(),
        rows.iter().filter(|row| !row.sidechain).count(),
        rows.iter().map(|row| row.tokens.input_tokens).sum(),
        rows.iter()
            .map(|row| row.tokens.cache_creation_input_tokens)
            .sum(),
        rows.iter()
            .map(|row| row.tokens.cache_read_input_tokens)
            .sum(),
        rows.iter().map(|row| row.tokens.output_tokens).sum(),
    )
}

fn main_contexts(rows: &[UsageRow]) -> Vec<u64> {
    rows.iter()
        .filter(|row| !row.sidechain)
        .map(|row| row.context_tokens)
        .collect()
}

// Expected numbers below were derived by hand, independently of the Rust code, with a short
// python3 script over each fixture file: keep top-level `type == "assistant"` lines that have
// `message.usage` and whose model is not `<synthetic>`; group them by (message.id, requestId)
// in file order; take the input-side fields from the group's lines (they agree) and the MAX
// `output_tokens` of the group; a row is a sidechain row when `isSidechain` is true or the file
// is an `agent-*.jsonl`. Columns: requests, main-chain requests, input_tokens,
// cache_creation_input_tokens, cache_read_input_tokens, output_tokens (sums over rows).
const EXPECTED: &[(&str, Totals)] = &[
    (
        "d-kimuson__claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
        (20, 10, 129, 47_747, 324_259, 3_629),
    ),
    (
        "entireio__cli/00/c9e2351016/3/full.jsonl",
        (8, 8, 68, 52_350, 336_667, 18),
    ),
    (
        "entireio__cli/4c/02af2759b6/0/full.jsonl",
        (1, 1, 10, 38_385, 0, 4),
    ),
    (
        "entireio__cli/a6/e4c2a0fbd1/0/full.jsonl",
        (12, 12, 102, 649_094, 654_807, 2_038),
    ),
    (
        "entireio__cli/b0/be9accda39/0/full.jsonl",
        (4, 4, 34, 41_434, 122_052, 744),
    ),
    (
        "lanegrid__agtrace/-Users-zawakin-agent-sample/7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9.jsonl",
        (6, 6, 74, 5_158, 93_553, 844),
    ),
    (
        "lanegrid__agtrace/-Users-zawakin-agent-sample/agent-0c4c3cf8.jsonl",
        (1, 0, 487, 0, 0, 130),
    ),
    (
        "lanegrid__agtrace/-Users-zawakin-agent-sample/agent-90fa40b6.jsonl",
        (1, 0, 476, 0, 0, 137),
    ),
    (
        "marot__spotter/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl",
        (1, 0, 3, 8_681, 164_830, 8),
    ),
    (
        "marot__spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl",
        (3, 0, 2_408, 18_814, 29_274, 7),
    ),
    ("marot__spotter/short.jsonl", (1, 1, 3, 13_835, 11_515, 13)),
    (
        "marot__spotter/tool_heavy.jsonl",
        (4, 4, 54, 17_696, 88_231, 212),
    ),
];

#[test]
fn every_fixture_gives_one_row_per_request_with_the_final_output() {
    for (relative, expected) in EXPECTED {
        let log = log_from_transcript(&transcript_fixture(relative)).unwrap();
        assert_eq!(totals(&log.rows()), *expected, "{relative}");
    }
}

#[test]
fn main_chain_contexts_match_the_hand_computed_sequences() {
    // Same python3 derivation as above: input + cache_creation + cache_read per main-chain
    // request, in file order.
    let log = log_from_transcript(&transcript_fixture(
        "entireio__cli/a6/e4c2a0fbd1/0/full.jsonl",
    ))
    .unwrap();
    assert_eq!(
        main_contexts(&log.rows()),
        [
            152_294, 153_060, 153_871, 154_416, 154_796, 154_992, 49_761, 63_938, 65_862, 66_624,
            67_114, 67_275
        ]
    );
    let log = log_from_transcript(&transcript_fixture(
        "d-kimuson__claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    ))
    .unwrap();
    assert_eq!(
        main_contexts(&log.rows()),
        [
            18_768, 19_026, 19_449, 20_350, 21_085, 21_313, 21_579, 22_895, 25_854, 26_080
        ]
    );
}

#[test]
fn turn_starts_follow_the_typed_prompts_of_real_fixtures() {
    // Derived with python3 over each file: walk the lines; a main-chain `user` line that is not
    // tool_result-only, not isMeta / isCompactSummary, and whose (first) text does not start with
    // "[Request interrupted by user", "<command-name>", "<local-command-stdout>",
    // "<local-command-caveat>" or "<task-notification>" marks the next new main-chain request
    // (grouped by message.id + requestId, <synthetic> skipped) as a turn start.
    for (relative, expected) in [
        (
            "marot__spotter/tool_heavy.jsonl",
            &[true, false, true, false][..],
        ),
        (
            "entireio__cli/a6/e4c2a0fbd1/0/full.jsonl",
            &[
                true, false, false, false, false, true, false, false, false, false, false, false,
            ][..],
        ),
    ] {
        let log = log_from_transcript(&transcript_fixture(relative)).unwrap();
        let starts: Vec<bool> = log
            .rows()
            .iter()
            .filter(|row| !row.sidechain)
            .map(|row| row.turn_start)
            .collect();
        assert_eq!(starts, expected, "{relative}");
    }
}

#[test]
fn placeholder_output_is_replaced_by_the_largest_value() {
    // tool_heavy.jsonl: one message.id written on two lines, output_tokens 25 then 173
    // (transcript-format.md §15.1, checked with jq).
    let log = log_from_transcript(&transcript_fixture("marot__spotter/tool_heavy.jsonl")).unwrap();
    let outputs: Vec<u64> = log
        .rows()
        .iter()
        .map(|row| row.tokens.output_tokens)
        .collect();
    assert!(outputs.contains(&173), "{outputs:?}");
    assert!(!outputs.contains(&25), "{outputs:?}");
}

fn stop_payload(session: &str, transcript: &Path) -> String {
    serde_json::json!({
        "session_id": session,
        "transcript_path": transcript,
        "hook_event_name": "Stop",
        "stop_hook_active": false,
    })
    .to_string()
}

/// The fixture's lines, each with its newline (the Entire files end without one).
fn fixture_lines(relative: &str) -> Vec<String> {
    fs_err::read_to_string(transcript_fixture(relative))
        .unwrap()
        .lines()
        .map(|line| format!("{line}\n"))
        .collect()
}

/// Request records in the raw log that repeat an earlier record of the same key with the same
/// values (a version that changed nothing is a duplicate).
fn duplicate_versions(world: &World, session: &SessionId) -> usize {
    let path = world.state().session_dir(session).join("usage.jsonl");
    let mut seen = std::collections::HashSet::new();
    read_records(&path)
        .unwrap()
        .into_iter()
        .filter_map(|record| match record {
            UsageRecord::Request(row) => Some(row),
            _ => None,
        })
        .filter(|row| !seen.insert(serde_json::to_string(row).unwrap()))
        .count()
}

#[test]
fn incremental_runs_give_the_same_rows_as_one_run_over_the_whole_file() {
    for (name, relative, chunk) in [
        ("compaction", "entireio__cli/a6/e4c2a0fbd1/0/full.jsonl", 1),
        (
            "sidechain",
            "d-kimuson__claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
            4,
        ),
        ("placeholders", "marot__spotter/tool_heavy.jsonl", 3),
    ] {
        let world = World::new(&format!("incremental-{name}"));
        let transcript = world.transcript("transcript.jsonl");
        let session = SessionId::parse("incremental-session").unwrap();
        let lines = fixture_lines(relative);
        for piece in lines.chunks(chunk) {
            append(&transcript, piece.concat());
            world
                .hook(Hook::Stop)
                .stdin(stop_payload(session.as_str(), &transcript))
                .success();
        }
        let state = world.state();
        let incremental = read_rows(&state, &session).unwrap();
        let whole = log_from_transcript(&transcript).unwrap().rows();
        assert_eq!(incremental, whole, "{relative}");
        assert_eq!(
            totals(&incremental),
            EXPECTED
                .iter()
                .find(|(path, _)| path == &relative)
                .unwrap()
                .1
        );
        assert_eq!(duplicate_versions(&world, &session), 0, "{relative}");
        assert!(world.error_lines().is_empty(), "{:?}", world.error_lines());
        // One more run with nothing new appends nothing.
        let log = state.session_dir(&session).join("usage.jsonl");
        let before = fs_err::read(&log).unwrap();
        world
            .hook(Hook::Stop)
            .stdin(stop_payload(session.as_str(), &transcript))
            .success();
        assert_eq!(fs_err::read(&log).unwrap(), before);
    }
}

#[test]
fn a_half_written_last_line_is_read_only_once_completed() {
    let world = World::new("half-line");
    let transcript = world.transcript("transcript.jsonl");
    let session = SessionId::parse("half-line").unwrap();
    let state = world.state();
    let lines = fixture_lines("entireio__cli/b0/be9accda39/0/full.jsonl");
    // Cut in half the first line of the last request (the first line with its message id).
    let last_line = lines
        .iter()
        .rfind(|line| line.contains("\"type\":\"assistant\""))
        .unwrap();
    let message_id: serde_json::Value = serde_json::from_str(last_line).unwrap();
    let message_id = format!(
        "\"id\":\"{}\"",
        message_id["message"]["id"].as_str().unwrap()
    );
    let last_assistant = lines
        .iter()
        .position(|line| line.contains(&message_id))
        .unwrap();
    append(&transcript, lines[..last_assistant].concat());
    let line = &lines[last_assistant];
    let (first_half, second_half) = line.split_at(line.len() / 2);
    append(&transcript, first_half);
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(session.as_str(), &transcript))
        .success();
    let before = read_rows(&state, &session).unwrap();
    append(&transcript, second_half);
    append(&transcript, lines[last_assistant + 1..].concat());
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(session.as_str(), &transcript))
        .success();
    let after = read_rows(&state, &session).unwrap();
    // The 4 requests of this fixture (hand count as in EXPECTED): the cut request is not seen
    // while its line is half written, and is read once the line is complete.
    assert_eq!(before.len(), 3);
    assert_eq!(after.len(), 4);
    assert_eq!(after, log_from_transcript(&transcript).unwrap().rows());
    assert!(world.error_lines().is_empty());
}

/// The `SessionEnd` payload for `transcript`.
fn session_end_payload(session: &str, transcript: &Path) -> String {
    serde_json::json!({
        "session_id": session,
        "transcript_path": transcript,
        "hook_event_name": "SessionEnd",
        "reason": "prompt_input_exit",
    })
    .to_string()
}

#[test]
fn a_whole_last_line_without_its_newline_is_logged_once_at_the_session_end() {
    let world = World::new("end-unterminated");
    let id = "end-unterminated";
    let session = SessionId::parse(id).unwrap();
    let state = world.state();
    let transcript = world.transcript_path(id);
    let time = "2026-03-01T00:00:00.000Z";
    let line = |n: &str| assistant_line(n, 10, 1_000, 2_000, time);
    let unterminated = |n: &str| line(n).trim_end().to_owned();
    let requests_agree = |expected: usize| {
        let logged = read_rows(&state, &session).unwrap();
        assert_eq!(logged.len(), expected);
        assert_eq!(duplicate_versions(&world, &session), 0);
        let report = world.ctxhooks(["report", "--session", id, "--json"]).json();
        let history = world.ctxhooks(["history", "--json"]).json();
        let listed = history["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|listed| listed["session_id"] == id)
            .unwrap_or_else(|| panic!("no session {id} in {history:#}"));
        assert_eq!(report["requests"], expected, "{report:#}");
        assert_eq!(listed["requests"], report["requests"], "{history:#}");
    };
    // The last line is whole but has no newline: the live Stop hook leaves it (Claude Code may
    // still be writing it).
    append(&transcript, line("1") + &line("2") + &unterminated("3"));
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(id, &transcript))
        .success();
    assert_eq!(read_rows(&state, &session).unwrap().len(), 2);
    // At the session's end the file is at rest: the line is a request, logged once however many
    // times the hook runs.
    for _ in 0..2 {
        world
            .hook(Hook::Session)
            .stdin(session_end_payload(id, &transcript))
            .success();
    }
    requests_agree(3);
    // Resumed: the line gets its newline, and more requests follow; nothing is read twice.
    append(&transcript, "\n".to_owned() + &line("4"));
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(id, &transcript))
        .success();
    requests_agree(4);
    assert_eq!(
        read_rows(&state, &session).unwrap(),
        log_from_transcript(&transcript).unwrap().rows()
    );
    // A half-written last line is not a whole JSON object: left, even at the session's end, and
    // read once completed.
    let half = line("5");
    let (first_half, second_half) = half.split_at(half.len() / 2);
    append(&transcript, first_half);
    world
        .hook(Hook::Session)
        .stdin(session_end_payload(id, &transcript))
        .success();
    assert_eq!(read_rows(&state, &session).unwrap().len(), 4);
    append(&transcript, second_half);
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(id, &transcript))
        .success();
    requests_agree(5);
    // No line was unreadable: the newline after the line read at the end was passed as blank.
    let report = world.ctxhooks(["report", "--session", id, "--json"]).json();
    assert_eq!(report["skipped_lines"], serde_json::json!([]), "{report:#}");
    assert!(world.error_lines().is_empty(), "{:?}", world.error_lines());
}

/// The request rows as appended to the session's usage log, a row appended twice counted twice
/// (the readers fold such repeats; the log must not hold them).
fn appended_requests(world: &World, session: &SessionId) -> usize {
    let path = world.state().session_dir(session).join("usage.jsonl");
    read_records(&path)
        .unwrap()
        .into_iter()
        .filter(|record| matches!(record, UsageRecord::Request(_)))
        .count()
}

/// Runs the Stop hook of another session, whose only work for `session` is the catch-up of
/// what its `SessionEnd` left.
fn stop_of_another_session(world: &World, name: &str) -> crate::support::run::Run {
    let other = world.transcript_path(name);
    append(
        &other,
        assistant_line(name, 10, 0, 0, "2026-03-02T00:00:00.000Z"),
    );
    world.hook(Hook::Stop).stdin(stop_payload(name, &other))
}

/// Takes the usage lock of session `id` as another process would (a hook still ingesting, or
/// wedged): held until the returned file is dropped.
fn hold_the_usage_lock(world: &World, id: &str) -> fs_err::File {
    let session_dir = world.session_dir(id);
    fs_err::create_dir_all(&session_dir).unwrap();
    let lock = fs_err::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(session_dir.join("usage.lock"))
        .unwrap();
    lock.file().lock().unwrap();
    lock
}

/// Runs `SessionEnd` for `id` while another process holds the session's usage lock: its ingest
/// gives up after 100 ms (as one Claude Code ends during the wait would not log either), the
/// keep finishes, and the record stays.
fn session_end_with_the_usage_lock_held(world: &World, id: &str, transcript: &Path) {
    let lock = hold_the_usage_lock(world, id);
    world
        .hook(Hook::Session)
        .env(env_vars::CTXHOOKS_LOCK_WAIT_MS, "100")
        .stdin(session_end_payload(id, transcript))
        .success();
    drop(lock);
    assert_eq!(crate::keep::catch_up_records(world).len(), 1);
    let errors = world.error_lines();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("busy"), "{errors:?}");
}

/// When the catch-up tests' lines were written.
const CATCH_UP_TIME: &str = "2026-03-01T00:00:00.000Z";

/// A world for a catch-up test of session `id`: the world, the session and its transcript's path.
fn catch_up_session(id: &str) -> (World, SessionId, PathBuf) {
    let world = World::new(id);
    let transcript = world.transcript_path(id);
    (world, SessionId::parse(id).unwrap(), transcript)
}

/// One served request of a catch-up test's transcript, `n` its message id.
fn catch_up_line(n: &str) -> String {
    assistant_line(n, 10, 1_000, 2_000, CATCH_UP_TIME)
}

/// Asserts that the session's usage log holds each of its transcript's `requests` once, as
/// `report` shows them, and that no catch-up record stays.
fn assert_caught_up(world: &World, session: &SessionId, transcript: &Path, requests: usize) {
    let report = world
        .ctxhooks(["report", "--session", session.as_str(), "--json"])
        .json();
    assert_eq!(report["requests"], requests, "{report:#}");
    assert_eq!(appended_requests(world, session), requests);
    assert_eq!(
        read_rows(&world.state(), session).unwrap(),
        log_from_transcript(transcript).unwrap().rows()
    );
    assert_eq!(
        crate::keep::catch_up_records(world),
        Vec::<std::path::PathBuf>::new()
    );
}

#[test]
fn a_session_end_past_its_byte_limit_leaves_the_rest_to_the_next_stops_catch_up() {
    let id = "catch-up-backlog";
    let (world, session, transcript) = catch_up_session(id);
    append(&transcript, catch_up_line("1"));
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(id, &transcript))
        .success();
    // A turn no Stop read (interrupted), 5 MiB of it before its last requests: past the 4 MiB
    // `SessionEnd` reads, the last one whole without its newline.
    let text = "x".repeat(64 * 1024);
    let prompt = serde_json::json!({"type": "user", "timestamp": CATCH_UP_TIME,
        "message": {"role": "user", "content": text}})
    .to_string();
    append(&transcript, format!("{prompt}\n").repeat(80));
    append(
        &transcript,
        catch_up_line("2") + catch_up_line("3").trim_end(),
    );
    world
        .hook(Hook::Session)
        .stdin(session_end_payload(id, &transcript))
        .success();
    assert_eq!(read_rows(&world.state(), &session).unwrap().len(), 1);
    assert_eq!(crate::keep::catch_up_records(&world).len(), 1);

    stop_of_another_session(&world, "catch-up-other").success();
    assert_caught_up(&world, &session, &transcript, 3);
    assert!(world.error_lines().is_empty(), "{:?}", world.error_lines());
}

#[test]
fn the_catch_up_logs_what_a_session_end_did_not_once_however_many_stops_take_it_up() {
    let id = "catch-up-once";
    let (world, session, transcript) = catch_up_session(id);
    let line = catch_up_line;
    // The session's own Stop logged its requests; the last line, whole without its newline,
    // only an ingest at rest reads.
    append(
        &transcript,
        line("1") + &line("2") + &line("3") + line("4").trim_end(),
    );
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(id, &transcript))
        .success();
    session_end_with_the_usage_lock_held(&world, id, &transcript);
    assert_eq!(appended_requests(&world, &session), 3);
    // Two Stop hooks of other sessions take the record up at once; a third one after them
    // finds it gone, or takes up what the two left (each waits only briefly for the locks).
    let runs = crate::support::spawn_together([
        stop_of_another_session(&world, "catch-up-a"),
        stop_of_another_session(&world, "catch-up-b"),
    ]);
    for run in runs {
        run.wait().success();
    }
    stop_of_another_session(&world, "catch-up-c").success();
    assert_caught_up(&world, &session, &transcript, 4);
    assert_eq!(world.error_lines().len(), 1, "{:?}", world.error_lines());
}

#[test]
fn the_catch_up_of_a_transcript_claude_code_deleted_logs_nothing_and_removes_its_record() {
    let id = "catch-up-deleted";
    let (world, session, transcript) = catch_up_session(id);
    let line = catch_up_line;
    append(&transcript, line("1") + &line("2"));
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(id, &transcript))
        .success();
    append(&transcript, line("3"));
    session_end_with_the_usage_lock_held(&world, id, &transcript);
    fs_err::remove_file(&transcript).unwrap();
    stop_of_another_session(&world, "catch-up-other").success();
    assert_eq!(appended_requests(&world, &session), 2);
    assert_eq!(
        crate::keep::catch_up_records(&world),
        Vec::<std::path::PathBuf>::new()
    );
    // Only SessionEnd's own line about the busy lock.
    assert_eq!(world.error_lines().len(), 1, "{:?}", world.error_lines());
    // What is left of the transcript is its kept copy, whole.
    let kept = world.ctxhooks(["sessions", "--json"]).json();
    let listed = kept
        .as_array()
        .unwrap()
        .iter()
        .find(|listed| listed["session_id"] == id)
        .unwrap_or_else(|| panic!("no session {id} in {kept:#}"));
    assert_eq!(listed["size"], line("1").len() * 3, "{listed:#}");
}

#[test]
fn a_rewritten_or_shrunk_transcript_is_rescanned_without_duplicates() {
    let world = World::new("rescan");
    let transcript = world.transcript("transcript.jsonl");
    let session = SessionId::parse("rescan").unwrap();
    let state = world.state();
    let lines = fixture_lines("entireio__cli/a6/e4c2a0fbd1/0/full.jsonl");
    fs_err::write(&transcript, lines.concat()).unwrap();
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(session.as_str(), &transcript))
        .success();
    assert_eq!(read_rows(&state, &session).unwrap().len(), 12);

    // Shrunk: only the first 30 lines remain (a truncation after a streaming error).
    fs_err::write(&transcript, lines[..30].concat()).unwrap();
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(session.as_str(), &transcript))
        .success();
    let rows = read_rows(&state, &session).unwrap();
    assert_eq!(rows, log_from_transcript(&transcript).unwrap().rows());
    assert_eq!(
        rows.len(),
        6,
        "requests in the first 30 lines (hand count: lines 8-28)"
    );

    // Rewritten in place with the same length: the last two lines (inside the 4 KiB the
    // fingerprint covers) swapped.
    let mut rewritten = lines[..30].to_vec();
    rewritten.swap(28, 29);
    fs_err::write(&transcript, rewritten.concat()).unwrap();
    append(&transcript, lines[30..].concat());
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(session.as_str(), &transcript))
        .success();
    let rows = read_rows(&state, &session).unwrap();
    assert_eq!(rows, log_from_transcript(&transcript).unwrap().rows());
    assert_eq!(rows.len(), 12);
    assert_eq!(duplicate_versions(&world, &session), 0);
    let reasons: Vec<RescanReason> = read_records(&state.session_dir(&session).join("usage.jsonl"))
        .unwrap()
        .into_iter()
        .filter_map(|record| match record {
            UsageRecord::Rescan(rescan) => Some(rescan.reason),
            _ => None,
        })
        .collect();
    assert_eq!(
        reasons,
        [RescanReason::Shrank, RescanReason::FingerprintChanged]
    );
    // Nothing lost: the log as it was before each rescan is kept beside it.
    let kept: Vec<String> = fs_err::read_dir(state.session_dir(&session))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("usage.before-rescan-"))
        .collect();
    assert_eq!(kept.len(), 2, "{kept:?}");
}

/// The names of the copies of the usage log from before a rescan, sorted (by time).
fn rescan_copies(world: &World, session: &SessionId) -> Vec<String> {
    let mut names: Vec<String> = fs_err::read_dir(world.state().session_dir(session))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("usage.before-rescan-"))
        .collect();
    names.sort();
    names
}

#[test]
fn only_the_newest_three_copies_from_before_a_rescan_are_kept() {
    let world = World::new("rescan-copies");
    let transcript = world.transcript("transcript.jsonl");
    let session = SessionId::parse("rescan-copies").unwrap();
    let log = world.state().session_dir(&session).join("usage.jsonl");
    let lines = fixture_lines("entireio__cli/a6/e4c2a0fbd1/0/full.jsonl");
    let stop = || {
        world
            .hook(Hook::Stop)
            .stdin(stop_payload(session.as_str(), &transcript))
            .success();
    };
    let mut written: Vec<String> = Vec::new();
    for round in 1..=5 {
        // The transcript grows, then is cut short: each cut is one rescan, one copy.
        fs_err::write(&transcript, lines[..40].concat()).unwrap();
        stop();
        let before = fs_err::read(&log).unwrap();
        fs_err::write(&transcript, lines[..30].concat()).unwrap();
        stop();
        let copies = rescan_copies(&world, &session);
        let new: Vec<&String> = copies
            .iter()
            .filter(|name| !written.contains(name))
            .collect();
        assert_eq!(new.len(), 1, "round {round}: {copies:?}");
        written.push(new[0].clone());
        // The newest copy is the log as it was just before this rescan; only the newest three
        // are left.
        assert_eq!(copies.last(), Some(new[0]), "round {round}");
        assert_eq!(
            fs_err::read(world.state().session_dir(&session).join(new[0])).unwrap(),
            before,
            "round {round}"
        );
        assert_eq!(
            copies,
            written[written.len().saturating_sub(3)..],
            "round {round}"
        );
        let rows = read_rows(&world.state(), &session).unwrap();
        assert_eq!(rows, log_from_transcript(&transcript).unwrap().rows());
    }
    assert_eq!(world.errors(), Vec::<serde_json::Value>::new());
}

// Unix only: a file's inode.
#[cfg(unix)]
#[test]
fn a_damaged_line_in_the_usage_log_hides_nothing_else() {
    let world = World::new("damaged-log");
    let transcript = world.transcript("transcript.jsonl");
    let session = SessionId::parse("damaged-log").unwrap();
    let state = world.state();
    let lines = fixture_lines("entireio__cli/a6/e4c2a0fbd1/0/full.jsonl");
    fs_err::write(&transcript, lines[..30].concat()).unwrap();
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(session.as_str(), &transcript))
        .success();
    let log = state.session_dir(&session).join("usage.jsonl");
    // A line that is not even UTF-8, then a cursor that cannot be read (so a rescan follows).
    let mut bytes = fs_err::read(&log).unwrap();
    bytes.extend_from_slice(b"\xff\xfe\n");
    fs_err::write(&log, bytes).unwrap();
    fs_err::write(state.session_dir(&session).join("cursor.json"), "garbage").unwrap();
    append(&transcript, lines[30..].concat());
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(session.as_str(), &transcript))
        .success();
    // The unreadable cursor is said once, with its reason; the rescan hides nothing.
    let errors = world.error_lines();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("usage cursor could not be read") && errors[0].contains("not valid"),
        "{}",
        errors[0]
    );
    let rows = read_rows(&state, &session).unwrap();
    assert_eq!(rows, log_from_transcript(&transcript).unwrap().rows());
    assert_eq!(rows.len(), 12);
    // The cursor is good again: the next run says nothing, and with nothing new it leaves the
    // cursor file as it was.
    let cursor = state.session_dir(&session).join("cursor.json");
    let inode = |path: &Path| std::os::unix::fs::MetadataExt::ino(&fs_err::metadata(path).unwrap());
    let before = inode(&cursor);
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(session.as_str(), &transcript))
        .success();
    assert_eq!(world.error_lines().len(), 1);
    assert_eq!(inode(&cursor), before, "the cursor file was rewritten");
}

#[test]
fn an_optional_field_of_an_unexpected_type_still_gets_its_usage_logged() {
    // Only `session_id` and `transcript_path` are needed to log usage: an odd `agent_id` or
    // `cwd` used to make the whole payload unreadable, and nothing was logged.
    let world = World::new("odd-fields");
    let session = SessionId::parse("odd-fields").unwrap();
    let state = world.state();
    let transcript = world.transcript("transcript.jsonl");
    fs_err::write(
        &transcript,
        fixture_lines("marot__spotter/short.jsonl").concat(),
    )
    .unwrap();
    let payload = serde_json::json!({
        "session_id": session.as_str(),
        "transcript_path": transcript,
        "hook_event_name": "Stop",
        "agent_id": 5,
        "cwd": 7,
    });
    world.hook(Hook::Stop).stdin(payload.to_string()).success();
    assert_eq!(read_rows(&state, &session).unwrap().len(), 1);
    let errors = world.error_lines();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("`agent_id` (a number, expected a string)")
            && errors[0].contains("`cwd`"),
        "{}",
        errors[0]
    );
}

#[test]
fn subagent_stop_logs_the_agent_transcript_apart() {
    let world = World::new("subagent");
    let session = SessionId::parse("subagent").unwrap();
    let state = world.state();
    let main = world.transcript("main.jsonl");
    fs_err::write(&main, fixture_lines("marot__spotter/short.jsonl").concat()).unwrap();
    let agent = world.transcript("agent-aac57f5.jsonl");
    fs_err::write(
        &agent,
        fixture_lines(
            "marot__spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl",
        )
        .concat(),
    )
    .unwrap();
    let payload = serde_json::json!({
        "session_id": session.as_str(),
        "transcript_path": main,
        "hook_event_name": "SubagentStop",
        "agent_id": "aac57f5",
        "agent_transcript_path": agent,
    });
    world.hook(Hook::Stop).stdin(payload.to_string()).success();
    let rows = read_rows(&state, &session).unwrap();
    // short.jsonl: 1 main request; agent-aac57f5.jsonl: 3 requests (EXPECTED above).
    assert_eq!(rows.iter().filter(|row| !row.sidechain).count(), 1);
    let agent_rows: Vec<_> = rows.iter().filter(|row| row.sidechain).collect();
    assert_eq!(agent_rows.len(), 3);
    assert!(
        agent_rows
            .iter()
            .all(|row| row.agent_id.as_deref() == Some("aac57f5"))
    );
    // Private modes: files 0600, folders 0700.
    let session_dir = state.session_dir(&session);
    assert_eq!(mode(&session_dir), 0o700);
    for name in ["usage.jsonl", "cursor.json", "usage.lock"] {
        assert_eq!(mode(&session_dir.join(name)), 0o600, "{name}");
    }
}

#[test]
fn hostile_payloads_exit_zero_with_one_error_line_each() {
    for name in ["not-json", "traversal", "missing", "no-transcript"] {
        let world = World::new(&format!("hostile-{name}"));
        let transcript = world.write_transcript("transcript.jsonl", "{}\n");
        let payload = match name {
            "not-json" => "this is not json".to_owned(),
            "traversal" => stop_payload("../../etc", &transcript),
            "missing" => stop_payload("missing", &world.transcript("nowhere.jsonl")),
            _ => r#"{"session_id":"abc","hook_event_name":"Stop"}"#.to_owned(),
        };
        world.hook(Hook::Stop).stdin(payload).success();
        assert_eq!(world.error_lines().len(), 1, "{name}");
        // `sessions/../../etc` would be `etc` beside the state folder.
        assert!(
            !world.state_dir().join("etc").exists() && !world.config_dir().join("etc").exists(),
            "{name}"
        );
    }
}

// Unix only: a symbolic link (Wine 8 makes none that reads back as one), a FIFO.
#[cfg(unix)]
#[test]
fn a_fifo_a_device_a_folder_or_a_link_as_transcript_is_refused_without_hanging() {
    let files = World::new("special");
    let fifo = files.transcript("fifo.jsonl");
    make_fifo(&fifo);
    let real = files.write_transcript("real.jsonl", "{}\n");
    let link = files.transcript("link.jsonl");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let folder = files.transcript("folder.jsonl");
    fs_err::create_dir_all(&folder).unwrap();
    // Runs the Stop hook on `payload` in a world of its own (each run is bounded against a
    // hang), and returns its error log.
    let errors_of = |name: &str, payload: String| {
        let world = World::new(&format!("special-{name}"));
        world.hook(Hook::Stop).stdin(payload).success();
        world.error_lines()
    };
    for (name, path) in [
        ("fifo", fifo.as_path()),
        ("zero", Path::new("/dev/zero")),
        ("folder", folder.as_path()),
        ("link", link.as_path()),
    ] {
        // As the main transcript.
        let errors = errors_of(&format!("main-{name}"), stop_payload("special", path));
        assert_eq!(errors.len(), 1, "main {name}");
        // As a sub-agent's transcript, the main one being fine.
        let payload = serde_json::json!({
            "session_id": "special",
            "transcript_path": real,
            "hook_event_name": "SubagentStop",
            "agent_id": "a1",
            "agent_transcript_path": path,
        })
        .to_string();
        let errors = errors_of(&format!("agent-{name}"), payload);
        assert_eq!(errors.len(), 1, "agent {name}");
        assert!(
            errors[0].contains("sub-agent"),
            "agent {name}: {}",
            errors[0]
        );
    }
    // A sub-agent transcript that does not exist is still a silent skip (Claude Code announces
    // the compaction agent's transcript and never writes it).
    let payload = serde_json::json!({
        "session_id": "special",
        "transcript_path": real,
        "hook_event_name": "SubagentStop",
        "agent_transcript_path": files.transcript("never-written.jsonl"),
    })
    .to_string();
    assert!(errors_of("agent-missing", payload).is_empty());
}

#[test]
fn the_auto_compaction_is_found_with_structural_evidence_and_estimates() {
    use ctxhooks_commands::facts::drops::{Basis, DropClass, DropEvidence};
    use ctxhooks_commands::facts::report::{ReportOptions, build_report};
    use ctxhooks_commands::time::Time;
    use ctxhooks_shared::store::trigger::Trigger;
    let log = log_from_transcript(&transcript_fixture(
        "entireio__cli/a6/e4c2a0fbd1/0/full.jsonl",
    ))
    .unwrap();
    let report = build_report(None, &log, None, &ReportOptions::default());
    // Hand-checked with python3 (see EXPECTED): the only fall of the main chain is
    // 154,992 (request 6) -> 49,761 (request 7), with the compact_boundary line
    // {"trigger":"auto","preTokens":155250} between them.
    assert_eq!(report.drops.len(), 1);
    let drop = &report.drops[0];
    assert_eq!((drop.request_before, drop.request_after), (6, 7));
    assert_eq!((drop.context_before, drop.context_after), (154_992, 49_761));
    assert_eq!(
        (drop.class, drop.basis),
        (DropClass::Compaction, Basis::Structural)
    );
    assert_eq!(
        drop.evidence,
        DropEvidence::CompactBoundary {
            time: drop
                .boundary
                .as_ref()
                .and_then(|row| Time::of(row.boundary.time.as_deref())),
            trigger: Some(Trigger::Auto),
            pre_tokens: Some(155_250),
        }
    );
    assert_eq!(report.compactions.len(), 1);
    assert_eq!(report.compactions[0].boundary.trigger, Some(Trigger::Auto));
    // T: CLI 2.0.76's rule for claude-opus-4-5 (W 200,000 - 32,000 reserved - 13,000) is
    // 155,000; compaction did not fire after request 5 (154,796) and fired after request 6, at
    // preTokens 155,250: the observation agrees with the rule.
    let trigger = &report.estimates.trigger;
    let observed = trigger.observed.as_ref().unwrap();
    assert_eq!(
        (observed.low, observed.high, observed.estimate),
        (Some(154_796), 155_250, 155_023)
    );
    assert_eq!(trigger.tokens, Some(155_000));
    assert_eq!(
        trigger.derivation,
        ctxhooks_commands::facts::estimates::Derivation::RuleConfirmed
    );
    assert_eq!(report.estimates.floor, Some(49_761));
    assert_eq!(report.estimates.headroom, Some(155_000 - 49_761));
    assert_eq!(report.peak.as_ref().unwrap().context_tokens, 154_992);
    // The largest turn after the compaction: 49,761 -> 63,938 (+14,177), after a 43,565-byte
    // Read result (python3: len of the tool_result text in line 35 of the fixture).
    let largest = &report.estimates.largest_requests[0];
    assert_eq!(largest.added_tokens, 14_177);
    assert_eq!(largest.largest_tool_result.as_ref().unwrap().bytes, 43_565);
    // No state folder: the snapshot cross-check is marked as not done, not as failed.
    assert!(!report.snapshots.checked);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
}

fn assistant_line(id: &str, input: u64, cache_write: u64, cache_read: u64, time: &str) -> String {
    let line = serde_json::json!({
        "type": "assistant", "uuid": format!("u-{id}"), "timestamp": time, "isSidechain": false,
        "requestId": format!("req_{id}"), "cwd": "/nonexistent-project",
        "message": {"id": format!("msg_{id}"), "model": "claude-test", "role": "assistant",
            "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": input, "cache_creation_input_tokens": cache_write,
                "cache_read_input_tokens": cache_read, "output_tokens": 7}},
    });
    format!("{line}\n")
}

fn boundary_line(uuid: &str, pre_tokens: u64, time: &str) -> String {
    let line = serde_json::json!({
        "type": "system", "subtype": "compact_boundary", "uuid": uuid, "parentUuid": null,
        "timestamp": time, "content": "Conversation compacted",
        "compactMetadata": {"trigger": "auto", "preTokens": pre_tokens},
    });
    format!("{line}\n")
}

#[test]
fn usage_and_report_json_show_rows_snapshot_matches_and_a_compaction_loop() {
    let world = World::new("loop");
    let transcript = world.transcript("loop.jsonl");
    let session = "loop-session";
    let early = "2026-01-01T00:00:00.000Z";
    fs_err::write(
        &transcript,
        [
            assistant_line("1", 10, 150_000, 0, early),
            assistant_line("2", 10, 10_000, 150_000, early),
        ]
        .concat(),
    )
    .unwrap();
    // PreCompact: logs usage first, then takes a snapshot stamped now.
    let precompact = serde_json::json!({
        "session_id": session, "transcript_path": transcript, "hook_event_name": "PreCompact",
        "trigger": "auto",
    });
    world
        .hook(Hook::PreCompact)
        .stdin(precompact.to_string())
        .success();
    // PreCompact logged the turns before the compaction (its boundary is not written yet).
    let state = world.state();
    let logged = read_rows(&state, &SessionId::parse(session).unwrap()).unwrap();
    assert_eq!(logged.len(), 2);
    let archive = world.session_dir(session).join("archive");
    let snapshot_folder = fs_err::read_dir(&archive)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let metadata: serde_json::Value =
        serde_json::from_slice(&fs_err::read(snapshot_folder.join("snapshot.json")).unwrap())
            .unwrap();
    let snapshot_time = metadata["created_at"].as_str().unwrap().to_owned();
    // The first compaction at the snapshot's time; two more with one request between each,
    // a server that keeps reporting a context above the window, and no snapshots for them.
    append(
        &transcript,
        [
            boundary_line("b1", 160_020, &snapshot_time),
            assistant_line("3", 10, 240_000, 0, &snapshot_time),
            boundary_line("b2", 240_010, "2030-01-01T00:00:00.000Z"),
            assistant_line("4", 10, 240_000, 0, "2030-01-01T00:00:01.000Z"),
            boundary_line("b3", 240_010, "2030-01-01T00:01:00.000Z"),
            assistant_line("5", 10, 30_000, 10_000, "2030-01-01T00:01:01.000Z"),
        ]
        .concat(),
    );
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(session, &transcript))
        .success();
    assert!(world.error_lines().is_empty(), "{:?}", world.error_lines());

    let usage = world
        .ctxhooks(["usage", "--session", session, "--json"])
        .json();
    let rows = usage["rows"].as_array().unwrap();
    let served: Vec<(&str, u64, u64, u64, u64)> = rows
        .iter()
        .map(|row| {
            (
                row["request_id"].as_str().unwrap(),
                row["input_tokens"].as_u64().unwrap(),
                row["cache_creation_input_tokens"].as_u64().unwrap(),
                row["cache_read_input_tokens"].as_u64().unwrap(),
                row["context_tokens"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        served,
        [
            ("req_1", 10, 150_000, 0, 150_010),
            ("req_2", 10, 10_000, 150_000, 160_010),
            ("req_3", 10, 240_000, 0, 240_010),
            ("req_4", 10, 240_000, 0, 240_010),
            ("req_5", 10, 30_000, 10_000, 40_010),
        ]
    );
    assert_eq!(usage["compactions"].as_array().unwrap().len(), 3);

    let report = world
        .ctxhooks(["report", "--session", session, "--json"])
        .json();
    let compactions = report["compactions"].as_array().unwrap();
    assert_eq!(compactions.len(), 3);
    assert!(compactions.iter().all(|c| c["basis"] == "structural"));
    assert_eq!(
        compactions[0]["snapshot"].as_str(),
        metadata["name"].as_str()
    );
    assert!(compactions[1]["snapshot"].is_null() && compactions[2]["snapshot"].is_null());
    // Only falls are drops: across b1 the context rose (160,010 -> 240,010) and across b2 it
    // stayed; both are compactions, not drops.
    let drops = report["drops"].as_array().unwrap();
    assert_eq!(drops.len(), 1);
    assert!(
        drops
            .iter()
            .all(|d| d["class"] == "compaction" && d["basis"] == "structural")
    );
    let kinds: Vec<&str> = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["kind"].as_str().unwrap())
        .collect();
    // A loop is few requests in little time: b3 came one request and a minute after b2; b2
    // came one request but years (in this log's clock) after b1, which is no loop.
    assert_eq!(
        kinds
            .iter()
            .filter(|kind| **kind == "compaction_loop")
            .count(),
        1,
        "{kinds:?}"
    );
    assert_eq!(
        kinds
            .iter()
            .filter(|kind| **kind == "compaction_without_snapshot")
            .count(),
        2,
        "{kinds:?}"
    );
    // T: only the first compaction has a request before it with no compaction between
    // (req_1, 150,010: not fired; fired at preTokens 160,020); the other two say only "at most
    // 240,010". The observations agree on 150,010 .. 160,020, whose middle is the estimate;
    // the rows name no CLI version and a model the table does not know (`claude-test`), so the
    // rule gives no T and the observed estimate is T.
    let trigger = &report["estimates"]["trigger"];
    assert_eq!(trigger["observed"]["low"], 150_010);
    assert_eq!(trigger["observed"]["high"], 160_020);
    assert_eq!(trigger["observed"]["estimate"], 155_015);
    assert_eq!(trigger["tokens"], 155_015);
    assert_eq!(trigger["derivation"], "observed");
    assert_eq!(report["estimates"]["floor"], 240_010);
}

#[test]
fn report_draws_the_compaction_trigger_and_floor_in_the_svg() {
    let world = World::new("svg");
    let chart = world.join("chart.svg");
    let transcript = transcript_fixture("entireio__cli/a6/e4c2a0fbd1/0/full.jsonl");
    let report = world
        .ctxhooks(["report", "--json", "--transcript"])
        .arg(&transcript)
        .arg("--svg")
        .arg(&chart)
        .json();
    assert_eq!(report["compactions"].as_array().unwrap().len(), 1);
    let svg = fs_err::read_to_string(&chart).unwrap();
    assert!(svg.starts_with("<svg ") && svg.trim_end().ends_with("</svg>"));
    // One dot per main-chain request (12, see EXPECTED), the compaction marker, T and the floor.
    assert_eq!(svg.matches("<circle ").count(), 12);
    assert!(svg.contains(">compaction</text>"));
    assert!(svg.contains("T 155,000"));
    assert!(svg.contains("floor 49,761"));
}

#[test]
fn a_request_completed_in_a_later_run_is_updated_not_duplicated() {
    // tool_heavy.jsonl: lines 34 and 37 (1-based) are two blocks of one response, with
    // output_tokens 25 then 173 (grep -n on the fixture). Run the hook after line 34, then
    // after the rest.
    let world = World::new("later-line");
    let transcript = world.transcript("transcript.jsonl");
    let session = SessionId::parse("later-line").unwrap();
    let state = world.state();
    let lines = fixture_lines("marot__spotter/tool_heavy.jsonl");
    assert!(
        lines[33].contains("\"output_tokens\":25") && lines[36].contains("\"output_tokens\":173")
    );
    append(&transcript, lines[..34].concat());
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(session.as_str(), &transcript))
        .success();
    let before = read_rows(&state, &session).unwrap();
    assert_eq!(before.last().unwrap().tokens.output_tokens, 25);
    append(&transcript, lines[34..].concat());
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(session.as_str(), &transcript))
        .success();
    let after = read_rows(&state, &session).unwrap();
    assert_eq!(after.len(), 4);
    let updated = after
        .iter()
        .find(|row| row.key == before.last().unwrap().key)
        .unwrap();
    assert_eq!(updated.tokens.output_tokens, 173);
    // The log holds two versions of that request (25, then 173) and one of every other.
    let versions = read_records(&state.session_dir(&session).join("usage.jsonl"))
        .unwrap()
        .into_iter()
        .filter(|record| matches!(record, UsageRecord::Request(row) if row.key == updated.key))
        .count();
    assert_eq!(versions, 2);
    assert_eq!(duplicate_versions(&world, &session), 0);
}

#[test]
fn the_cursor_keeps_a_bounded_state_per_transcript() {
    let world = World::new("cursor-bound");
    let main = world.transcript("main.jsonl");
    let mut text = String::new();
    for index in 0..30 {
        text.push_str(&assistant_line(
            &format!("m{index}"),
            3,
            100,
            1_000 * index,
            "2026-01-01T00:00:00Z",
        ));
    }
    fs_err::write(&main, &text).unwrap();
    world
        .hook(Hook::Stop)
        .stdin(stop_payload("bounded", &main))
        .success();
    for agent in 0..3 {
        let transcript = world.transcript(format!("agent-a{agent}.jsonl"));
        fs_err::write(
            &transcript,
            assistant_line(&format!("a{agent}"), 3, 100, 1_000, "2026-01-01T00:00:01Z"),
        )
        .unwrap();
        let payload = serde_json::json!({
            "session_id": "bounded",
            "transcript_path": main,
            "hook_event_name": "SubagentStop",
            "agent_id": format!("a{agent}"),
            "agent_transcript_path": transcript,
        })
        .to_string();
        world.hook(Hook::Stop).stdin(payload).success();
    }
    assert!(world.error_lines().is_empty());
    // All 30 + 3 rows are logged...
    let session = SessionId::parse("bounded").unwrap();
    assert_eq!(read_rows(&world.state(), &session).unwrap().len(), 33);
    // ...but the main transcript's cursor remembers only the last 8 requests (not all 30), and
    // a finished sub-agent's cursor only its offset and fingerprint.
    let cursor: serde_json::Value = serde_json::from_slice(
        &fs_err::read(world.session_dir("bounded").join("cursor.json")).unwrap(),
    )
    .unwrap();
    let transcripts = cursor["transcripts"].as_object().unwrap();
    assert_eq!(transcripts.len(), 4);
    let main_cursor = &transcripts[main.to_str().unwrap()];
    assert_eq!(main_cursor["state"]["recent"].as_array().unwrap().len(), 8);
    for agent in 0..3 {
        let path = world.transcript(format!("agent-a{agent}.jsonl"));
        let agent_cursor = transcripts[path.to_str().unwrap()].as_object().unwrap();
        let mut keys: Vec<&str> = agent_cursor.keys().map(String::as_str).collect();
        keys.sort_unstable();
        // The reader's state is left out: nothing to remember (an assistant line's cwd is not
        // recorded as the source, so not even that flag is set).
        assert_eq!(keys, ["fingerprint", "offset"], "{agent_cursor:?}");
    }
}

#[test]
fn a_held_usage_lock_is_waited_for_a_bounded_time_then_skipped() {
    let world = World::new("held-lock");
    let session = "held-lock-session";
    let transcript = world.transcript("transcript.jsonl");
    fs_err::copy(
        transcript_fixture("marot__spotter/short.jsonl"),
        &transcript,
    )
    .unwrap();
    // Another process (a wedged hook) holds the session's usage lock.
    let lock = hold_the_usage_lock(&world, session);
    // The run is bounded against a hang: a hook that waited for the lock for ever fails it.
    world
        .hook(Hook::Stop)
        .env(env_vars::CTXHOOKS_LOCK_WAIT_MS, "300")
        .stdin(stop_payload(session, &transcript))
        .success();
    let errors = world.error_lines();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("busy"), "{errors:?}");
    // Once the lock is free, the next run catches up.
    drop(lock);
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(session, &transcript))
        .success();
    let rows = read_rows(&world.state(), &SessionId::parse(session).unwrap()).unwrap();
    assert!(!rows.is_empty());
}

// See: the shape issue, item 7 (unreadable transcript lines were skipped with no count anywhere).
#[test]
fn garbage_lines_are_counted_and_shown_by_usage_and_report() {
    let world = World::new("garbage-lines");
    let transcript = world.transcript("garbage.jsonl");
    fs_err::copy(
        transcript_fixture("entireio__cli/a6/e4c2a0fbd1/0/full.jsonl"),
        &transcript,
    )
    .unwrap();
    // Two runs, each passing garbage: the counts add up, and the rows are all there.
    append(&transcript, "\nnot json at all\n{\"broken\":\n");
    world
        .hook(Hook::Stop)
        .stdin(stop_payload("garbage", &transcript))
        .success();
    append(&transcript, "[1, 2]\n");
    world
        .hook(Hook::Stop)
        .stdin(stop_payload("garbage", &transcript))
        .success();
    let usage = world
        .ctxhooks(["usage", "--session", "garbage", "--json"])
        .json();
    assert_eq!(
        usage["skipped_lines"],
        serde_json::json!([{"transcript": transcript, "unreadable": 3, "overlong": 0}])
    );
    let whole = log_from_transcript(&transcript).unwrap();
    assert_eq!(usage["rows"].as_array().unwrap().len(), whole.rows().len());
    assert_eq!(whole.skipped.len(), 1);
    assert_eq!(whole.skipped[0].unreadable, 3);
    let report = world
        .ctxhooks(["report", "--json", "--transcript"])
        .arg(&transcript)
        .json();
    assert_eq!(report["skipped_lines"][0]["unreadable"], 3);
    for arguments in [
        &["usage", "--session", "garbage"][..],
        &["report", "--session", "garbage"],
    ] {
        world
            .ctxhooks(arguments)
            .stdout_contains("3 unreadable line(s)")
            .success();
    }
}

#[test]
fn unreadable_lines_of_the_usage_log_are_counted_and_shown_by_usage_and_report() {
    let world = World::new("garbage-log-lines");
    let transcript = world.transcript("transcript.jsonl");
    let session = SessionId::parse("garbage-log-lines").unwrap();
    fs_err::write(
        &transcript,
        fixture_lines("entireio__cli/a6/e4c2a0fbd1/0/full.jsonl")[..30].concat(),
    )
    .unwrap();
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(session.as_str(), &transcript))
        .success();
    let log = world.state().session_dir(&session).join("usage.jsonl");
    let lines = fs_err::read_to_string(&log).unwrap().lines().count();
    // Damaged bytes, a line that is not JSON, and a record of a kind a newer ctxhooks wrote.
    append(
        &log,
        b"\xff\xfe\nnot json\n{\"kind\":\"from_a_later_version\",\"transcript\":\"t\"}\n",
    );
    let rows = read_rows(&world.state(), &session).unwrap();
    assert_eq!(rows.len(), 6, "the readable rows are all read");
    let expected = serde_json::json!({
        "usage_log": log,
        "unreadable": 3,
        "first_line": lines + 1,
    });
    let usage = world
        .ctxhooks(["usage", "--session", session.as_str(), "--json"])
        .json();
    assert_eq!(usage["skipped_log_lines"], expected, "{usage}");
    assert_eq!(usage["rows"].as_array().unwrap().len(), rows.len());
    let report = world
        .ctxhooks(["report", "--session", session.as_str(), "--json"])
        .json();
    assert_eq!(report["skipped_log_lines"], expected, "{report}");
    for arguments in [
        &["usage", "--session", session.as_str()][..],
        &["report", "--session", session.as_str()],
    ] {
        world
            .ctxhooks(arguments)
            .stdout_contains(format!(
                "skipped in the usage log `{}`: 3 unreadable line(s)",
                log.display()
            ))
            .stdout_contains(format!("the first is line {}", lines + 1))
            .success();
    }
    // A log whose every line is a record says nothing of the kind.
    let clean = world
        .ctxhooks(["usage", "--transcript"])
        .arg(&transcript)
        .arg("--json")
        .json();
    assert_eq!(clean["skipped_log_lines"], serde_json::Value::Null);
}

// Unix only: a FIFO.
#[cfg(unix)]
#[test]
fn a_fifo_named_on_the_command_line_is_refused_without_hanging() {
    let world = World::new("cli-fifo");
    let fifo = world.transcript("transcript.jsonl");
    make_fifo(&fifo);
    // Each run is bounded against a hang: a command that blocks on the FIFO fails the test.
    for command in ["usage", "report", "provenance", "ledger-input"] {
        world
            .ctxhooks([command, "--transcript"])
            .arg(&fifo)
            .exit_code(1);
    }
}

/// A transcript whose counts are as large as a `u64` holds (written by something else than
/// Claude Code, or damaged): `report` says the fall between two requests, its share included,
/// rather than panicking on `fall * 100` (it did, in the text's share of the fall).
#[test]
fn the_largest_counts_a_transcript_may_hold_are_reported_without_overflow() {
    let world = World::new("usage-largest");
    let answer = |id: &str, input: u64| {
        serde_json::json!({"type": "assistant", "uuid": id, "requestId": format!("req_{id}"),
            "timestamp": "2026-11-01T10:00:00.000Z", "message": {"id": format!("msg_{id}"),
            "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
            "usage": {"input_tokens": input, "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 0, "output_tokens": 1}}})
        .to_string()
            + "\n"
    };
    let transcript =
        world.write_transcript("largest.jsonl", answer("1", u64::MAX) + &answer("2", 1_000));
    let text = world
        .ctxhooks(["report", "--transcript"])
        .arg(&transcript)
        .success()
        .stdout_text();
    assert!(text.contains("-99 %)"), "{text}");
    let json = world
        .ctxhooks(["report", "--json", "--transcript"])
        .arg(&transcript)
        .json();
    assert_eq!(json["drops"].as_array().unwrap().len(), 1, "{json:#}");
}
