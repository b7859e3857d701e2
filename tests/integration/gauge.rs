//! The gauge: the Stop hook keeps it on a real 2.1.332 session and warns once per crossing;
//! `ctxhooks gauge` shows it; `ctxhooks statusline` turns the JSON the pinned CLI really pipes to
//! a status line command into one line.

use std::path::{Path, PathBuf};

use ctxhooks_shared::store::env_vars;
use serde_json::{Value, json};

use crate::support::wait::in_timed_sleep;
use crate::support::{Hook, World, cli_capture, project_fixture, wait_until};

/// The session of the capture `compaction/auto-manual` (2.1.332, `autoCompactWindow: 200000`
/// in its project settings: T is 167,000).
const SESSION: &str = "3e08d6c1-gauge";

/// The capture laid out as a transcript of `world`, with its project settings in the world's
/// project; returns the transcript's lines (each with its newline) and the transcript path.
fn lay_out_capture(world: &World) -> (Vec<String>, PathBuf) {
    let capture = cli_capture(world.root(), "compaction/auto-manual.jsonl.gz");
    let lines: Vec<String> = fs_err::read_to_string(&capture)
        .unwrap()
        .split_inclusive('\n')
        .map(ToOwned::to_owned)
        .collect();
    let settings = world.project().join(".claude");
    fs_err::create_dir_all(&settings).unwrap();
    fs_err::copy(
        project_fixture("cli-captures/compaction/auto-manual-project-settings.json"),
        settings.join("settings.json"),
    )
    .unwrap();
    (lines, world.transcript_path(SESSION))
}

fn stop_payload(world: &World, transcript: &Path, event: &str) -> String {
    json!({
        "session_id": SESSION,
        "transcript_path": transcript,
        "cwd": world.project(),
        "hook_event_name": event,
        "stop_hook_active": false,
    })
    .to_string()
}

/// Runs a Stop after each of the capture's first `cuts` (line counts), as if each were the end
/// of a turn; returns the warning each run printed (empty for none).
fn stops_at(world: &World, cuts: &[usize], warn_at: Option<&str>) -> Vec<String> {
    let (lines, transcript) = lay_out_capture(world);
    cuts.iter()
        .map(|cut| {
            fs_err::write(&transcript, lines[..*cut].concat()).unwrap();
            let mut run = world
                .hook(Hook::Stop)
                .stdin(stop_payload(world, &transcript, "Stop"));
            if let Some(share) = warn_at {
                run = run.env(env_vars::CTXHOOKS_WARN_AT, share);
            }
            let outcome = run.success();
            let stdout = outcome.stdout_text();
            if stdout.is_empty() {
                String::new()
            } else {
                let answer: Value = serde_json::from_str(&stdout).unwrap();
                answer["systemMessage"].as_str().unwrap().to_owned()
            }
        })
        .collect()
}

/// Cuts after the capture's requests: 120,003 (line 19), 166,800 (25), 166,960 (30), the
/// request after the automatic compaction (52), the next turn (66), after the manual one (102).
const CUTS: [usize; 6] = [19, 25, 30, 52, 66, 102];

#[test]
fn the_stop_hook_warns_once_per_crossing_of_the_share_and_again_after_a_compaction() {
    let world = World::new("gauge-warning");
    let warnings = stops_at(&world, &CUTS, None);
    // 90% of 167,000 is 150,300: crossed at 166,800 (99.9%), not warned again at 166,960;
    // after the compaction (22,003) the context is below the share again.
    assert_eq!(warnings[0], "");
    assert!(
        warnings[1].starts_with(
            "ctxhooks: context is at 99% of the auto-compact trigger (166k of 167k tokens, 200 \
             left)."
        ),
        "{warnings:?}"
    );
    assert!(warnings[2..].iter().all(String::is_empty), "{warnings:?}");
    assert_eq!(world.errors(), Vec::<Value>::new());
    let gauge: Value = world
        .ctxhooks(["gauge", "--session", "last", "--json"])
        .json();
    assert_eq!(gauge["session_id"], SESSION);
    assert_eq!(gauge["context_tokens"], 22_703);
    assert_eq!(gauge["trigger_tokens"], 167_000);
    assert_eq!(gauge["trigger"]["derivation"], "rule");
    assert_eq!(gauge["trigger"]["window_tokens"], 200_000);
    assert_eq!(gauge["room_left"], 167_000 - 22_703);
    assert_eq!(gauge["compactions"], 2);
    assert_eq!(gauge["warned"], false);
    assert_eq!(gauge["warn_at_percent"], 90);
    let text = world
        .ctxhooks(["gauge", "--session", "3e08"])
        .success()
        .stdout_text();
    assert!(
        text.starts_with("ctx 22k / 167k (13%) · 144k left · 2 compactions\n"),
        "{text}"
    );
    assert!(text.contains("window 200k from settings:"), "{text}");

    // A second crossing after the compaction warns again: the same session cut at 166,800
    // once more is a new transcript state (a rescan), below the share first.
    let again = World::new("gauge-warning-share");
    let warnings = stops_at(&again, &CUTS, Some("70"));
    // At 70%: 120,003 is 71.9% of T.
    assert!(
        warnings[0].contains("71% of the auto-compact trigger"),
        "{warnings:?}"
    );
    assert!(warnings[1..].iter().all(String::is_empty), "{warnings:?}");
}

#[test]
fn warnings_can_be_turned_off_and_a_bad_share_is_said_once() {
    let off = World::new("gauge-off");
    assert!(
        stops_at(&off, &CUTS[..3], Some("off"))
            .iter()
            .all(String::is_empty)
    );
    let gauge: Value = off
        .ctxhooks(["gauge", "--session", SESSION, "--json"])
        .json();
    assert_eq!(gauge["warn_at_percent"], Value::Null);
    assert_eq!(gauge["percent"], 99.9);

    let bad = World::new("gauge-bad-share");
    let warnings = stops_at(&bad, &CUTS[..2], Some("lots"));
    assert!(warnings[1].contains("99% of the auto-compact trigger"));
    let errors = bad.error_lines();
    assert_eq!(errors.len(), 2, "one note per run: {errors:?}");
    assert!(errors[0].contains("CTXHOOKS_WARN_AT"), "{errors:?}");
}

#[test]
fn a_sub_agents_stop_never_warns_and_leaves_the_warning_to_the_next_stop() {
    let world = World::new("gauge-subagent");
    let (lines, transcript) = lay_out_capture(&world);
    fs_err::write(&transcript, lines[..25].concat()).unwrap();
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(&world, &transcript, "SubagentStop"))
        .stdout("")
        .success();
    let outcome = world
        .hook(Hook::Stop)
        .stdin(stop_payload(&world, &transcript, "Stop"))
        .success();
    assert!(outcome.stdout_text().contains("systemMessage"));
}

#[test]
fn a_cursor_from_before_the_gauge_counts_the_compactions_the_log_already_holds() {
    let world = World::new("gauge-upgrade");
    let (lines, transcript) = lay_out_capture(&world);
    fs_err::write(&transcript, lines[..66].concat()).unwrap();
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(&world, &transcript, "Stop"))
        .success();
    // What an older ctxhooks left: a cursor without the gauge's counts, and no gauge file.
    let cursor_path = world.session_dir(SESSION).join("cursor.json");
    let mut cursor: Value = serde_json::from_slice(&fs_err::read(&cursor_path).unwrap()).unwrap();
    for entry in cursor["transcripts"].as_object_mut().unwrap().values_mut() {
        entry["state"].as_object_mut().unwrap().remove("gauge");
    }
    fs_err::write(&cursor_path, serde_json::to_vec(&cursor).unwrap()).unwrap();
    fs_err::remove_file(world.session_dir(SESSION).join("gauge.json")).unwrap();
    fs_err::write(&transcript, lines[..102].concat()).unwrap();
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(&world, &transcript, "Stop"))
        .success();
    let gauge: Value = world
        .ctxhooks(["gauge", "--session", SESSION, "--json"])
        .json();
    assert_eq!(
        (
            gauge["compactions"].as_u64(),
            gauge["context_tokens"].as_u64()
        ),
        (Some(2), Some(22_703))
    );
}

#[test]
fn no_gauge_yet_is_an_error_that_says_why() {
    let world = World::new("gauge-none");
    fs_err::create_dir_all(world.session_dir(SESSION)).unwrap();
    world
        .ctxhooks(["gauge", "--session", SESSION])
        .stderr_contains("has no gauge yet")
        .exit_code(1);
}

/// The status line JSON the pinned CLI piped after its second answer (captured), for `session`,
/// with `current_usage` kept or set to `null`.
fn status_json(session: &str, current_usage: bool) -> String {
    let text = fs_err::read_to_string(project_fixture(
        "cli-captures/statusline/interactive-2.1.332.jsonl",
    ))
    .unwrap();
    let mut value: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    value["session_id"] = json!(session);
    if !current_usage {
        value["context_window"]["current_usage"] = Value::Null;
    }
    value.to_string()
}

#[test]
fn the_statusline_reads_the_real_status_json_and_the_gauge() {
    let world = World::new("statusline");
    stops_at(&world, &CUTS, None);
    // The live context from the status line (142,503) against the gauge's T and count.
    world
        .ctxhooks(["statusline", "--plain"])
        .stdin(status_json(SESSION, true))
        .stdout("ctx 142k / 167k (85%) · 24k left · 2 compactions\n")
        .success();
    // In colour by default: yellow from 75% of T.
    world
        .ctxhooks(["statusline"])
        .stdin(status_json(SESSION, true))
        .stdout("\u{1b}[33mctx 142k / 167k (85%) · 24k left · 2 compactions\u{1b}[0m\n")
        .success();
    world
        .ctxhooks(["statusline"])
        .env("NO_COLOR", "1")
        .stdin(status_json(SESSION, true))
        .stdout("ctx 142k / 167k (85%) · 24k left · 2 compactions\n")
        .success();
    // No response yet in this process: the gauge's context.
    world
        .ctxhooks(["statusline", "--plain"])
        .stdin(status_json(SESSION, false))
        .stdout("ctx 22k / 167k (13%) · 144k left · 2 compactions\n")
        .success();
    world
        .ctxhooks([
            "statusline",
            "--plain",
            "--format",
            "{percent} of {trigger_tokens} ({left_tokens} left, {compactions}x) {{ok}}",
        ])
        .stdin(status_json(SESSION, true))
        .stdout("85% of 167000 (24497 left, 2x) {ok}\n")
        .success();
    world
        .ctxhooks(["statusline", "--format", "{nope}"])
        .stdin(status_json(SESSION, true))
        .stdout("ctxhooks statusline --format: unknown placeholder `{nope}`\n")
        .success();
    // A session with no gauge: T from the rule for the model and version the JSON names (the
    // default model's window, no settings in this world): 967,000.
    world
        .ctxhooks(["statusline", "--plain"])
        .stdin(status_json("another-session", true))
        .stdout("ctx 142k / 967k (14%) · 824k left · 0 compactions\n")
        .success();
}

/// The Stop hook's wait for a turn's last response, as the tests about it set it: long enough
/// that a busy machine never makes it pass before the test writes the response.
const RESPONSE_WAIT_MS: &str = "60000";

#[test]
fn a_stop_that_starts_before_the_turns_response_reaches_the_transcript_waits_for_it() {
    // Seen with the interactive 2.1.332: the Stop hook started before the turn's last response
    // was in the file. The payload's `last_assistant_message` names the response to wait for:
    // here the turn's `Done.` after its automatic compaction (22,003), written once the hook has
    // read the file without it (its gauge says the context before it).
    let world = World::new("gauge-lag");
    let (lines, transcript) = lay_out_capture(&world);
    fs_err::write(&transcript, lines[..51].concat()).unwrap();
    let mut payload: Value =
        serde_json::from_str(&stop_payload(&world, &transcript, "Stop")).unwrap();
    payload["last_assistant_message"] = json!("Done.");
    let running = world
        .hook(Hook::Stop)
        .env(env_vars::CTXHOOKS_RESPONSE_WAIT_MS, RESPONSE_WAIT_MS)
        .stdin(payload.to_string())
        .spawn();
    let gauge_file = world.session_dir(SESSION).join("gauge.json");
    let before: Value = wait_until("the gauge of what the hook read first", || {
        fs_err::read(&gauge_file)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
    });
    assert_ne!(before["context_tokens"], 22_003, "{before:#}");
    crate::support::append(&transcript, lines[51].as_bytes());
    running.wait().success();
    let gauge: Value = world
        .ctxhooks(["gauge", "--session", SESSION, "--json"])
        .json();
    assert_eq!(
        (
            gauge["context_tokens"].as_u64(),
            gauge["after_compaction"].as_bool(),
            gauge["compactions"].as_u64()
        ),
        (Some(22_003), Some(false), Some(1))
    );
}

#[test]
fn a_stop_that_starts_before_the_transcript_exists_waits_for_it() {
    // Seen with the interactive 2.1.332 under load: the first turn's Stop started before Claude
    // Code had created the transcript. The hook waits for it as for a late response, and logs
    // no error.
    let world = World::new("gauge-lag-first");
    let (lines, transcript) = lay_out_capture(&world);
    let mut payload: Value =
        serde_json::from_str(&stop_payload(&world, &transcript, "Stop")).unwrap();
    payload["last_assistant_message"] = json!("Done.");
    let running = world
        .hook(Hook::Stop)
        .env(env_vars::CTXHOOKS_RESPONSE_WAIT_MS, RESPONSE_WAIT_MS)
        .stdin(payload.to_string())
        .spawn();
    // Written once the hook polls for it (Linux says so; elsewhere, written at once, and the
    // test then holds that a file there when the hook looks is read as well).
    let pid = running.id();
    wait_until("the Stop hook polling for the transcript", || {
        in_timed_sleep(pid)
            .is_none_or(|asleep| asleep)
            .then_some(())
    });
    fs_err::write(&transcript, lines[..52].concat()).unwrap();
    running.wait().success();
    assert_eq!(world.error_lines(), Vec::<String>::new());
    let gauge: Value = world
        .ctxhooks(["gauge", "--session", SESSION, "--json"])
        .json();
    assert_eq!(gauge["context_tokens"].as_u64(), Some(22_003));
}

fn post_compact_payload(world: &World, transcript: &Path) -> String {
    json!({
        "session_id": SESSION,
        "transcript_path": transcript,
        "cwd": world.project(),
        "hook_event_name": "PostCompact",
        "trigger": "auto",
    })
    .to_string()
}

#[test]
fn post_compact_counts_the_compaction_before_its_boundary_is_written_and_once_after() {
    // 2.1.332 writes a compaction's boundary after PostCompact ran (seen interactively): the
    // gauge counts it as pending, the context it left unknown; the Stop that reads the boundary
    // makes it exact, without counting it twice.
    let world = World::new("gauge-post-compact");
    let (lines, transcript) = lay_out_capture(&world);
    fs_err::write(&transcript, lines[..30].concat()).unwrap();
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(&world, &transcript, "Stop"))
        .success();
    world
        .hook(Hook::Session)
        .stdin(post_compact_payload(&world, &transcript))
        .success();
    let gauge: Value = world
        .ctxhooks(["gauge", "--session", SESSION, "--json"])
        .json();
    assert_eq!(
        (
            gauge["compactions"].as_u64(),
            gauge["compaction_pending"].as_bool(),
            gauge["context_tokens"].as_u64()
        ),
        (Some(1), Some(true), None)
    );
    world
        .ctxhooks(["statusline", "--plain"])
        .stdin(status_json(SESSION, false))
        .stdout("ctx ? after compaction / 167k · 1 compaction\n")
        .success();
    fs_err::write(&transcript, lines[..52].concat()).unwrap();
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(&world, &transcript, "Stop"))
        .success();
    let gauge: Value = world
        .ctxhooks(["gauge", "--session", SESSION, "--json"])
        .json();
    assert_eq!(
        (
            gauge["compactions"].as_u64(),
            gauge["compaction_pending"].as_bool(),
            gauge["context_tokens"].as_u64()
        ),
        (Some(1), Some(false), Some(22_003))
    );

    // When the boundary is there already, PostCompact reads what it left (`postTokens`).
    let world = World::new("gauge-post-compact-written");
    let (lines, transcript) = lay_out_capture(&world);
    fs_err::write(&transcript, lines[..30].concat()).unwrap();
    world
        .hook(Hook::Stop)
        .stdin(stop_payload(&world, &transcript, "Stop"))
        .success();
    fs_err::write(&transcript, lines[..36].concat()).unwrap();
    world
        .hook(Hook::Session)
        .stdin(post_compact_payload(&world, &transcript))
        .success();
    let gauge: Value = world
        .ctxhooks(["gauge", "--session", SESSION, "--json"])
        .json();
    assert_eq!(
        (
            gauge["compactions"].as_u64(),
            gauge["compaction_pending"].as_bool(),
            gauge["context_tokens"].as_u64(),
            gauge["after_compaction"].as_bool()
        ),
        (Some(1), Some(false), Some(2_638), Some(true))
    );
    assert_eq!(world.errors(), Vec::<Value>::new());
}

/// One main-chain response of a model the table does not know, with `context` tokens read.
fn unknown_model_line(number: u64, context: u64) -> String {
    let line = json!({
        "type": "assistant", "uuid": format!("a{number}"), "requestId": format!("req_{number}"),
        "timestamp": format!("2026-11-01T10:00:{number:02}.000Z"), "version": "2.1.300",
        "cwd": "/nonexistent-project", "sessionId": "nova-session",
        "message": {"id": format!("msg_{number}"), "model": "claude-nova-7", "role": "assistant",
            "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": 1, "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": context - 1, "output_tokens": 5}},
    });
    format!("{line}\n")
}

/// Issue 22: a model the table does not know gets no T (it was taken as 200,000) until
/// evidence gives one; the status line's window is such evidence, recorded by `ctxhooks
/// statusline` and used by the Stop hook's gauge and by `report`.
#[test]
fn an_unknown_model_has_no_trigger_until_the_status_line_gives_its_window() {
    let world = World::new("nova");
    let session = "nova-session";
    let transcript = world.transcript_path(session);
    let payload = json!({
        "session_id": session, "transcript_path": transcript, "cwd": world.project(),
        "hook_event_name": "Stop", "stop_hook_active": false,
    })
    .to_string();
    fs_err::write(&transcript, unknown_model_line(1, 100_000)).unwrap();
    world.hook(Hook::Stop).stdin(payload.clone()).success();
    let gauge: Value = serde_json::from_str(
        &fs_err::read_to_string(world.session_dir(session).join("gauge.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(gauge["trigger_tokens"], Value::Null, "{gauge}");
    assert_eq!(gauge["trigger"]["window_source"], "unknown", "{gauge}");

    let status = json!({
        "session_id": session, "version": "2.1.300", "model": {"id": "claude-nova-7"},
        "context_window": {"context_window_size": 400_000, "current_usage": null},
    })
    .to_string();
    world
        .ctxhooks(["statusline", "--plain"])
        .stdin(status)
        .success();
    let window: Value = serde_json::from_str(
        &fs_err::read_to_string(world.session_dir(session).join("window.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(window["models"][0]["window_tokens"], 400_000);

    let mut text = fs_err::read_to_string(&transcript).unwrap();
    text.push_str(&unknown_model_line(2, 120_000));
    fs_err::write(&transcript, text).unwrap();
    world.hook(Hook::Stop).stdin(payload).success();
    let gauge: Value = serde_json::from_str(
        &fs_err::read_to_string(world.session_dir(session).join("gauge.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(gauge["trigger_tokens"], 367_000, "{gauge}");
    assert_eq!(gauge["trigger"]["window_source"], "status_line", "{gauge}");

    let report = world
        .ctxhooks(["report", "--session", session, "--json"])
        .json();
    let trigger = &report["estimates"]["trigger"];
    assert_eq!(trigger["tokens"], 367_000, "{trigger}");
    assert_eq!(
        trigger["rule"]["window"]["source"], "status_line",
        "{trigger}"
    );
    // The same transcript read alone (no state folder, so no status line): unknown, said so.
    let alone = world
        .ctxhooks(["report", "--transcript"])
        .arg(&transcript)
        .arg("--json")
        .json();
    assert_eq!(
        alone["estimates"]["trigger"]["derivation"],
        "window_unknown"
    );
    assert_eq!(alone["estimates"]["trigger"]["tokens"], Value::Null);
}

/// A context at or above the rule's T with no compaction after it contradicts the rule: the
/// report never calls T confirmed, and gives what the evidence allows.
#[test]
fn a_context_above_the_rules_trigger_without_a_compaction_contradicts_the_rule() {
    let world = World::new("contradicted");
    let transcript = world.transcript("contradicted.jsonl");
    let line = |number: u64, context: u64| {
        unknown_model_line(number, context).replace("claude-nova-7", "claude-opus-4-6")
    };
    // claude-opus-4-6 under 2.1.300: a 200,000 window, T 167,000 by the rule; the session read
    // 300,000 and went on.
    fs_err::write(
        &transcript,
        [line(1, 150_000), line(2, 300_000), line(3, 310_000)].concat(),
    )
    .unwrap();
    let report = world
        .ctxhooks(["report", "--transcript"])
        .arg(&transcript)
        .arg("--json")
        .json();
    let trigger = &report["estimates"]["trigger"];
    assert_eq!(trigger["derivation"], "rule_contradicted", "{trigger}");
    assert_eq!(trigger["rule"]["tokens"], 167_000);
    assert_eq!(trigger["reached_without_compaction"], 300_000);
    assert_eq!(trigger["tokens"], Value::Null);
    // An automatic compaction at 400,000 bounds it from above: between the two.
    let boundary = json!({
        "type": "system", "subtype": "compact_boundary", "uuid": "b1", "parentUuid": null,
        "timestamp": "2026-11-01T10:00:04.000Z", "content": "Conversation compacted",
        "compactMetadata": {"trigger": "auto", "preTokens": 400_000},
    });
    fs_err::write(
        &transcript,
        [
            line(1, 150_000),
            line(2, 300_000),
            line(3, 390_000),
            format!("{boundary}\n"),
            line(5, 40_000),
        ]
        .concat(),
    )
    .unwrap();
    let report = world
        .ctxhooks(["report", "--transcript"])
        .arg(&transcript)
        .arg("--json")
        .json();
    let trigger = &report["estimates"]["trigger"];
    assert_eq!(trigger["derivation"], "rule_contradicted", "{trigger}");
    assert_eq!(trigger["tokens"], 350_000, "{trigger}");
}

/// The session of the capture `million-window/switch` (2.1.332): `--model
/// 'claude-sonnet-4-5-20250929[1m]'`, then the same model with its 200,000 window, then `[1m]`
/// again, every context past 300,000.
const MILLION_SESSION: &str = "million-session";

/// Cuts after the capture's three requests (301,103 with `[1m]`, 303,103 without, 304,103 with).
const MILLION_CUTS: [usize; 3] = [18, 31, 43];

/// The capture's lines (each with its newline), as the pinned CLI wrote them, or without the
/// `requestedModel` it writes (as a CLI before it, which names only the API's model).
fn million_lines(world: &World, keep_requested_model: bool) -> Vec<String> {
    let capture = cli_capture(world.root(), "million-window/switch.jsonl.gz");
    fs_err::read_to_string(capture)
        .unwrap()
        .split_inclusive('\n')
        .map(|line| {
            if keep_requested_model || !line.contains("\"requestedModel\"") {
                return line.to_owned();
            }
            let mut record: Value = serde_json::from_str(line).unwrap();
            record.as_object_mut().unwrap().remove("requestedModel");
            format!("{record}\n")
        })
        .collect()
}

/// Runs a Stop after each cut of `lines`; returns the warning each printed and the gauge after.
fn million_stops(world: &World, lines: &[String], cuts: &[usize]) -> (Vec<String>, Vec<Value>) {
    let transcript = world.transcript_path(MILLION_SESSION);
    let payload = json!({
        "session_id": MILLION_SESSION, "transcript_path": transcript, "cwd": world.project(),
        "hook_event_name": "Stop", "stop_hook_active": false,
    })
    .to_string();
    cuts.iter()
        .map(|cut| {
            fs_err::write(&transcript, lines[..*cut].concat()).unwrap();
            let stdout = world
                .hook(Hook::Stop)
                .stdin(payload.clone())
                .success()
                .stdout_text();
            let warning = if stdout.is_empty() {
                String::new()
            } else {
                let answer: Value = serde_json::from_str(&stdout).unwrap();
                answer["systemMessage"].as_str().unwrap().to_owned()
            };
            let gauge: Value = world
                .ctxhooks(["gauge", "--session", MILLION_SESSION, "--json"])
                .json();
            (warning, gauge)
        })
        .unzip()
}

fn write_project_settings(world: &World, settings: &Value) {
    let folder = world.project().join(".claude");
    fs_err::create_dir_all(&folder).unwrap();
    fs_err::write(folder.join("settings.json"), settings.to_string()).unwrap();
}

/// Issue 30: a session run with a `[1m]` model was judged against a 200,000 window (the
/// transcript's `message.model` has no `[1m]`): at 300,000 the Stop hook said "179% of the
/// auto-compact trigger". Each request is judged with the window the CLI gave it: the
/// `requestedModel` 2.1.332 writes.
#[test]
fn a_session_with_the_million_window_is_judged_against_it_request_by_request() {
    let world = World::new("million-window");
    // The project asks for a window of 1,000,000: the CLI compacts the [1m] model at 967,000
    // and the same model without [1m] at 167,000 (its debug log, 2.1.332).
    write_project_settings(&world, &json!({ "autoCompactWindow": 1_000_000 }));
    let lines = million_lines(&world, true);
    let (warnings, gauges) = million_stops(&world, &lines, &MILLION_CUTS);
    // [1m]: 301,103 of 967,000, no warning.
    assert_eq!(warnings[0], "", "{gauges:#?}");
    assert_eq!(gauges[0]["trigger_tokens"], 967_000, "{:#}", gauges[0]);
    assert_eq!(gauges[0]["trigger"]["window_tokens"], 1_000_000);
    assert_eq!(
        gauges[0]["trigger"]["model"],
        "claude-sonnet-4-5-20250929[1m]"
    );
    assert_eq!(gauges[0]["percent"], 31.1);
    // Switched to the 200,000 window: past its trigger, and said so once.
    assert!(
        warnings[1].starts_with("ctxhooks: context is at 181% of the auto-compact trigger"),
        "{warnings:?}"
    );
    assert_eq!(gauges[1]["trigger_tokens"], 167_000);
    // Back to [1m]: under the share again, no warning.
    assert_eq!(warnings[2], "");
    assert_eq!(gauges[2]["trigger_tokens"], 967_000);
    assert_eq!(gauges[2]["warned"], false);
    let text = world
        .ctxhooks(["gauge", "--session", MILLION_SESSION])
        .success()
        .stdout_text();
    assert!(
        text.starts_with("ctx 304k / 967k (31%) · 662k left"),
        "{text}"
    );
    assert_eq!(world.errors(), Vec::<Value>::new());

    // The report judges the latest request by its own window too; with nothing configured,
    // 2.1.332 compacts a [1m] model only on a refusal, at its window of 1,000,000.
    let transcript = world.transcript_path(MILLION_SESSION);
    let alone = world
        .ctxhooks(["report", "--transcript"])
        .arg(&transcript)
        .arg("--json")
        .json();
    let rule = &alone["estimates"]["trigger"]["rule"];
    assert_eq!(rule["window"]["tokens"], 1_000_000, "{rule:#}");
    assert_eq!(rule["model"], "claude-sonnet-4-5-20250929[1m]", "{rule:#}");
    assert_eq!(alone["estimates"]["trigger"]["tokens"], Value::Null);
}

/// A CLI that writes no `requestedModel`: the status line's word on the model decides
/// (recorded by `ctxhooks statusline` as 2.1.332 gives it: `"id": "…[1m]"`,
/// `context_window_size` 1,000,000), and without it the model the person selected.
#[test]
fn without_the_cli_s_name_the_status_line_or_the_selected_model_gives_the_window() {
    let world = World::new("million-status-line");
    write_project_settings(&world, &json!({ "autoCompactWindow": 1_000_000 }));
    let lines = million_lines(&world, false);
    // Before any status line: the table's 200,000 for the API's name.
    let (_, gauges) = million_stops(&world, &lines, &MILLION_CUTS[..1]);
    assert_eq!(gauges[0]["trigger_tokens"], 167_000, "{:#}", gauges[0]);
    let status = json!({
        "session_id": MILLION_SESSION, "version": "2.1.332",
        "transcript_path": world.transcript_path(MILLION_SESSION), "cwd": world.project(),
        "model": {"id": "claude-sonnet-4-5-20250929[1m]", "display_name": "Sonnet 4.5 (1M context)"},
        "context_window": {"context_window_size": 1_000_000, "current_usage": null,
            "used_percentage": null},
    });
    let segment = world
        .ctxhooks(["statusline", "--plain"])
        .stdin(status.to_string())
        .success()
        .stdout_text();
    // The status line itself reads the gauge's T only for the same model and window.
    assert!(segment.contains("/ 967k"), "{segment}");
    // The next turn's Stop (its last request, 304,103, has the status line's model).
    let (warnings, gauges) = million_stops(&world, &lines, &MILLION_CUTS[2..]);
    assert_eq!(warnings[0], "");
    assert_eq!(gauges[0]["trigger_tokens"], 967_000, "{:#}", gauges[0]);
    assert_eq!(gauges[0]["trigger"]["window_source"], "status_line");
    // `history` reads the session's transcript with the same word on its window (the
    // transcript's cwd is not this world's project, so no window is configured there).
    let history = world
        .ctxhooks(["history", "--projects"])
        .arg(world.transcripts_dir())
        .arg("--json")
        .json();
    let session = history["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|session| session["session_id"] == MILLION_SESSION)
        .unwrap();
    assert_eq!(session["cap"], 1_000_000, "{session:#}");
    assert_eq!(session["cap_source"], "status_line", "{session:#}");

    // No status line, and the person selected `sonnet[1m]` in their settings.
    let selected = World::new("million-selected");
    write_project_settings(&selected, &json!({ "autoCompactWindow": 1_000_000 }));
    selected.write_user_settings(r#"{"model": "sonnet[1m]"}"#);
    let (warnings, gauges) = million_stops(&selected, &lines, &MILLION_CUTS[..1]);
    assert_eq!(warnings[0], "", "{:#}", gauges[0]);
    assert_eq!(gauges[0]["trigger_tokens"], 967_000);
    assert_eq!(
        gauges[0]["trigger"]["window_source"],
        format!(
            "selected_model:settings:{}#model",
            selected.user_settings().display()
        )
    );
    // `ANTHROPIC_MODEL` in Claude Code's environment, which its hooks get.
    let environment = World::new("million-environment");
    write_project_settings(&environment, &json!({ "autoCompactWindow": 1_000_000 }));
    let transcript = environment.transcript_path(MILLION_SESSION);
    fs_err::write(&transcript, lines[..MILLION_CUTS[0]].concat()).unwrap();
    let stdout = environment
        .hook(Hook::Stop)
        .env("ANTHROPIC_MODEL", "claude-sonnet-4-5-20250929[1m]")
        .stdin(
            json!({
                "session_id": MILLION_SESSION, "transcript_path": transcript,
                "cwd": environment.project(), "hook_event_name": "Stop",
                "stop_hook_active": false,
            })
            .to_string(),
        )
        .success()
        .stdout_text();
    assert_eq!(stdout, "");
    let gauge: Value = environment
        .ctxhooks(["gauge", "--session", MILLION_SESSION, "--json"])
        .json();
    assert_eq!(
        gauge["trigger"]["window_source"],
        "selected_model:env:ANTHROPIC_MODEL"
    );
}

/// Issue 30: `ctxhooks statusline` with any `session_id` made `sessions/<id>/window.json`, and
/// `sessions` then listed the id as an empty session. It records a window only for a session a
/// hook knows or whose transcript is there.
#[test]
fn the_status_line_leaves_nothing_behind_for_a_session_no_one_knows() {
    let world = World::new("statusline-stranger");
    let status = |session: &str, transcript: &Path| {
        json!({
            "session_id": session, "version": "2.1.332", "transcript_path": transcript,
            "model": {"id": "claude-opus-5"},
            "context_window": {"context_window_size": 1_000_000, "current_usage": null},
        })
        .to_string()
    };
    let stranger = "stranger-0001";
    world
        .ctxhooks(["statusline", "--plain"])
        .stdin(status(stranger, &world.join("nowhere/stranger-0001.jsonl")))
        .success();
    assert!(!world.session_dir(stranger).exists());
    let sessions = world
        .ctxhooks(["sessions", "--json"])
        .success()
        .stdout_text();
    assert!(!sessions.contains(stranger), "{sessions}");
    // A transcript of another name is no evidence either.
    let other = world.transcript_path("someone-else");
    fs_err::write(&other, "").unwrap();
    world
        .ctxhooks(["statusline", "--plain"])
        .stdin(status(stranger, &other))
        .success();
    assert!(!world.session_dir(stranger).exists());
    // A session whose transcript Claude Code has begun: its window is recorded at once.
    let starting = "starting-0002";
    let transcript = world.transcript_path(starting);
    fs_err::write(&transcript, "").unwrap();
    world
        .ctxhooks(["statusline", "--plain"])
        .stdin(status(starting, &transcript))
        .success();
    assert!(world.session_dir(starting).join("window.json").is_file());
}
