//! Every record type Claude Code writes today, one line each, through every reader: the Stop
//! hook's ingest, `usage`, `history` and `provenance` count none of them as unreadable or
//! skipped, and the session's title, kind and new working folder reach `sessions`, `history`
//! and the status line's `{title}`.
//!
//! The shapes are those the pinned CLI 2.1.332 writes (its captures in `tests/fixtures/`, and,
//! for the records no capture holds, the writers in its own code: `relocated {relocatedCwd}`,
//! `custom-title {customTitle}`, `tag`, `agent-color`, ...), else the record shapes the transcript
//! reference documents for 2.1.97 and later (marked "reference" below).

use serde_json::{Value, json};

use crate::support::fixtures::cli_capture;
use crate::support::{Hook, World};

/// A session id of the UUID form `history` finds sessions by.
const SESSION: &str = "0d0d0d0d-0000-4000-8000-000000000022";

/// Conversation fields every conversation record of 2.1.332 carries, with `extra` added.
fn conversation(kind: &str, uuid: &str, time: &str, extra: Value) -> Value {
    let mut record = json!({
        "type": kind,
        "uuid": uuid,
        "parentUuid": null,
        "isSidechain": false,
        "timestamp": time,
        "sessionId": SESSION,
        "cwd": "/work/first",
        "version": "2.1.332",
        "gitBranch": "main",
        "userType": "external",
        "entrypoint": "sdk-cli",
        "sessionKind": "bg",
    });
    for (key, value) in extra.as_object().unwrap() {
        record[key] = value.clone();
    }
    record
}

fn system(subtype: &str, uuid: &str, extra: Value) -> Value {
    let mut fields = json!({"subtype": subtype, "level": "info", "content": "", "isMeta": false});
    for (key, value) in extra.as_object().unwrap() {
        fields[key] = value.clone();
    }
    conversation("system", uuid, "2026-12-01T10:00:05.000Z", fields)
}

fn attachment(kind: &str, index: usize) -> Value {
    conversation(
        "attachment",
        &format!("att-{index}"),
        "2026-12-01T10:00:06.000Z",
        json!({"attachment": {"type": kind, "content": "x"}, "rendered": []}),
    )
}

/// One line of every record type, `system` subtype and `attachment` kind known today.
fn every_record() -> Vec<Value> {
    let usage = json!({
        "input_tokens": 2, "cache_creation_input_tokens": 500, "cache_read_input_tokens": 40_000,
        "output_tokens": 30, "service_tier": "standard",
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 500},
        "iterations": [
            {"type": "message", "input_tokens": 1, "cache_read_input_tokens": 20_000,
             "cache_creation_input_tokens": 250, "output_tokens": 10},
            {"type": "advisor_message", "model": "claude-fable-5", "input_tokens": 9_000,
             "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0, "output_tokens": 300},
            {"type": "message", "input_tokens": 1, "cache_read_input_tokens": 20_000,
             "cache_creation_input_tokens": 250, "output_tokens": 20}
        ]
    });
    let mut records = vec![
        conversation(
            "user",
            "u1",
            "2026-12-01T10:00:00.000Z",
            json!({"message": {"role": "user", "content": "RUN:touch x"}, "promptId": "p1",
                   "permissionMode": "default", "origin": {"kind": "human"},
                   "promptSource": "typed"}),
        ),
        conversation(
            "assistant",
            "a1",
            "2026-12-01T10:00:01.000Z",
            json!({"requestId": "req_1", "apiBlockIndex": 0, "effort": "high",
                   "promptCacheRequested": "1h",
                   "message": {"id": "msg_1", "type": "message", "role": "assistant",
                               "model": "claude-opus-5", "stop_reason": "tool_use",
                               "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                            "input": {"command": "touch x"}}],
                               "usage": usage}}),
        ),
        // A person's "No" at the prompt, as 2.1.2xx writes it (no toolDenialBeforeRun).
        conversation(
            "user",
            "u2",
            "2026-12-01T10:00:02.000Z",
            json!({"toolUseResult": "User rejected tool use", "toolDenialKind": "user-rejected",
                   "sourceToolAssistantUUID": "a1",
                   "message": {"role": "user", "content": [{"type": "tool_result",
                       "tool_use_id": "toolu_1", "is_error": true,
                       "content": "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."}]}}),
        ),
        conversation(
            "user",
            "u3",
            "2026-12-01T10:00:02.100Z",
            json!({"rowSource": "harness", "interruptedMessageId": "msg_1",
                   "message": {"role": "user", "content": [{"type": "text",
                       "text": "[Request interrupted by user for tool use]"}]}}),
        ),
        conversation(
            "progress",
            "g1",
            "2026-12-01T10:00:02.200Z",
            json!({"data": {"type": "hook_progress", "hookName": "PreToolUse:Bash"},
                   "toolUseID": "toolu_1", "parentToolUseID": "toolu_1"}),
        ),
    ];
    let subtypes = [
        (
            "compact_boundary",
            json!({"content": "Conversation compacted", "logicalParentUuid": "a1",
                   "compactMetadata": {"trigger": "auto", "preTokens": 167_011,
                       "postTokens": 15_406, "durationMs": 94_025,
                       "cumulativeDroppedTokens": 151_605,
                       "preservedSegment": {"headUuid": "u1", "anchorUuid": "a1", "tailUuid": "u3"},
                       "preservedMessages": {"anchorUuid": "a1", "uuids": ["u1"], "allUuids": ["u1"]},
                       "preCompactDiscoveredTools": ["Bash"]}}),
        ),
        (
            "microcompact_boundary",
            json!({"content": "Context microcompacted",
                   "microcompactMetadata": {"trigger": "auto", "preTokens": 79_453,
                       "tokensSaved": 43_338, "compactedToolIds": ["toolu_1"],
                       "clearedAttachmentUUIDs": []}}),
        ),
        (
            "stop_hook_summary",
            json!({"hookCount": 1, "hookInfos": [{"command": "x", "durationMs": 3}],
                   "hookErrors": [], "preventedContinuation": false, "stopReason": "",
                   "hasOutput": false, "toolUseID": "t"}),
        ),
        (
            "turn_duration",
            json!({"durationMs": 1200, "messageCount": 4}),
        ),
        (
            "local_command",
            json!({"content": "<command-name>/rename</command-name>"}),
        ),
        // Reference: the subtypes below are named in §6 of the transcript reference.
        (
            "api_error",
            json!({"error": {"status": 529}, "retryAttempt": 1}),
        ),
        ("away_summary", json!({"content": "While you were away"})),
        ("bridge_status", json!({"content": "connected"})),
        (
            "informational",
            json!({"content": "Stop says: hi", "level": "notice"}),
        ),
        ("scheduled_task_fire", json!({"content": "cron"})),
    ];
    for (index, (subtype, extra)) in subtypes.into_iter().enumerate() {
        records.push(system(subtype, &format!("s{index}"), extra));
    }
    // The kinds the captures hold, then those the reference and the CLI's writers name.
    let kinds = [
        "agent_listing_delta",
        "auto_mode",
        "date",
        "deferred_tools_delta",
        "environment",
        "model",
        "prompt_snapshot",
        "remote_session_change",
        "session_context",
        "silent_turn_reminder",
        "skill_listing",
        "task_reminder",
        "total_tokens_reminder",
        "queued_command",
        "hook_success",
        "hook_non_blocking_error",
        "hook_cancelled",
        "file",
        "read_truncation_notice",
        "goal_status",
        "invoked_skills",
    ];
    for (index, kind) in kinds.into_iter().enumerate() {
        records.push(attachment(kind, index));
    }
    let metadata = [
        json!({"type": "summary", "summary": "Old title", "leafUuid": "a1"}),
        json!({"type": "file-history-snapshot", "messageId": "u1",
               "snapshot": {"messageId": "u1", "trackedFileBackups": {}, "timestamp": "2026-12-01T10:00:00.000Z"},
               "isSnapshotUpdate": false}),
        json!({"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-12-01T10:00:00.000Z",
               "sessionId": SESSION, "content": "later"}),
        json!({"type": "ai-title", "aiTitle": "Touching files", "sessionId": SESSION}),
        json!({"type": "custom-title", "customTitle": "Release\nchecklist", "sessionId": SESSION}),
        json!({"type": "last-prompt", "lastPrompt": "RUN:touch x", "leafUuid": "u1", "sessionId": SESSION}),
        json!({"type": "atis-latch", "atis": "", "sessionId": SESSION}),
        json!({"type": "cost-state", "sessionId": SESSION, "totalCostUSD": 0.1, "modelUsage": {}}),
        json!({"type": "api-request", "sessionId": SESSION, "id": "r", "timestamp": "2026-12-01T10:00:00.500Z",
               "version": "2.1.332", "querySource": "sdk", "params": {"model": "claude-opus-5", "max_tokens": 64_000}}),
        json!({"type": "api-request-shape", "sessionId": SESSION, "shapeHash": "h", "shape": {"system": []}}),
        json!({"type": "api-request-blob", "sessionId": SESSION, "hash": "h",
               "message": {"role": "user", "content": [{"type": "text", "text": "x"}]}}),
        json!({"type": "tools-used", "tools": ["Bash"], "sessionId": SESSION}),
        json!({"type": "mode", "mode": "normal", "sessionId": SESSION}),
        json!({"type": "permission-mode", "permissionMode": "default", "sessionId": SESSION}),
        json!({"type": "agent-name", "agentName": "reviewer", "sessionId": SESSION}),
        json!({"type": "agent-color", "agentColor": "blue", "sessionId": SESSION}),
        json!({"type": "agent-setting", "agentSetting": "reviewer", "sessionId": SESSION}),
        json!({"type": "pr-link", "sessionId": SESSION, "prNumber": 7, "prUrl": "https://x/7",
               "prRepository": "o/r", "timestamp": "2026-12-01T10:00:00.000Z"}),
        json!({"type": "tag", "tag": "release", "sessionId": SESSION}),
        json!({"type": "relocated", "relocatedCwd": "/work/moved", "sessionId": SESSION}),
        json!({"type": "worktree-state", "worktreeSession": null, "sessionId": SESSION}),
        json!({"type": "bridge-session", "sessionId": SESSION, "bridgeSessionId": "b", "lastSequenceNum": 0}),
        json!({"type": "frame-link", "artifactCount": 0, "sessionId": SESSION, "timestamp": "2026-12-01T10:00:00.000Z"}),
        json!({"type": "content-replacement", "sessionId": SESSION, "replacements": []}),
        json!({"type": "file-history-delta", "sessionId": SESSION}),
        json!({"type": "isolation-latch", "side": "a", "sessionId": SESSION}),
        json!({"type": "memory-mode", "mode": "on", "afterUuid": "u1", "timestamp": "2026-12-01T10:00:00.000Z"}),
        json!({"type": "repl-mode", "replMode": "x"}),
        json!({"type": "session-owner", "sessionId": SESSION}),
        json!({"type": "derived-from", "v": 1, "sessionId": SESSION, "sessions": []}),
        json!({"type": "data-flow-records", "v": 1, "sessionId": SESSION, "records": []}),
        json!({"type": "hybrid-organization", "organizationUuid": "o", "sessionId": SESSION}),
        json!({"type": "dev-mods", "folder": "/x", "sessionId": SESSION}),
    ];
    records.extend(metadata);
    records
}

fn no_unreadable_warning(warnings: &Value) {
    for warning in warnings.as_array().unwrap() {
        let text = warning.to_string();
        assert!(
            !text.contains("unreadable") && !text.contains("skipped"),
            "{warning:#}"
        );
    }
}

#[test]
fn no_record_type_of_today_is_unreadable_or_skipped_by_any_reader() {
    let world = World::new("today-records");
    let lines = every_record()
        .iter()
        .fold(String::new(), |mut lines, record| {
            lines.push_str(&record.to_string());
            lines.push('\n');
            lines
        });
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), &lines);
    // The Stop hook's ingest.
    world
        .hook(Hook::Stop)
        .stdin(
            json!({"session_id": SESSION, "transcript_path": transcript,
                   "hook_event_name": "Stop", "stop_hook_active": false})
            .to_string(),
        )
        .success();
    assert_eq!(world.error_lines(), Vec::<String>::new());
    let log = fs_err::read_to_string(world.session_dir(SESSION).join("usage.jsonl")).unwrap();
    assert!(!log.contains("skipped_lines"), "{log}");
    // `usage` (the log) and `usage --transcript` (the ingest over the file at rest).
    for arguments in [
        vec!["usage", "--session", SESSION, "--json"],
        vec![
            "usage",
            "--json",
            "--transcript",
            transcript.to_str().unwrap(),
        ],
    ] {
        let usage = world.ctxhooks(&arguments).json();
        assert_eq!(
            usage["skipped_lines"],
            json!([]),
            "{arguments:?}: {usage:#}"
        );
        assert_eq!(usage["rows"].as_array().unwrap().len(), 1, "{arguments:?}");
    }
    // `history`: every line read or passed, none unreadable.
    let history = world
        .ctxhooks(["history", "--json", "--projects"])
        .arg(world.config_dir().join("projects"))
        .json();
    assert_eq!(history["problems"], json!([]), "{history:#}");
    let session = &history["sessions"][0];
    assert_eq!(
        (&session["unreadable_lines"], &session["overlong_lines"]),
        (&json!(0), &json!(0)),
        "{session:#}"
    );
    no_unreadable_warning(&session["warnings"]);
    // `provenance`: no unreadable line, and the refusal at the prompt is the person's and never
    // ran.
    let provenance = world
        .ctxhooks(["provenance", "--json", "--transcript"])
        .arg(&transcript)
        .json();
    no_unreadable_warning(&provenance["warnings"]);
    let call = &provenance["calls"][0];
    assert_eq!(
        (&call["verdict"], &call["state"]),
        (&json!("user"), &json!("not_started")),
        "{provenance:#}"
    );
    // The session's own facts: the name a person gave it over the CLI's title, the folder the
    // CLI moved it to, its kind.
    assert_eq!(session["title"], "Release\nchecklist");
    assert_eq!(session["cwd"], "/work/moved");
    assert_eq!(
        (&session["session_kind"], &session["entrypoint"]),
        (&json!("bg"), &json!("sdk-cli"))
    );
    let sessions = world.ctxhooks(["sessions", "--json"]).json();
    let listed = &sessions[0];
    assert_eq!(
        (
            &listed["title"],
            &listed["project"],
            &listed["session_kind"]
        ),
        (
            &json!("Release\nchecklist"),
            &json!("/work/moved"),
            &json!("bg")
        ),
        "{sessions:#}"
    );
    let text = world.ctxhooks(["sessions"]).success().stdout_text();
    assert!(
        text.contains("bg/sdk-cli") && text.contains("/work/moved  \"Release checklist\""),
        "{text}"
    );
    let text = world
        .ctxhooks(["history", "--projects"])
        .arg(world.config_dir().join("projects"))
        .success()
        .stdout_text();
    assert!(text.contains("\"Release checklist\""), "{text}");
    // The status line's `{title}`: its own `session_name` when it sends one, else the title
    // the Stop hook read.
    let status = |input: Value| {
        world
            .ctxhooks(["statusline", "--plain", "--format", "[{title}]"])
            .stdin(input.to_string())
            .success()
            .stdout_text()
    };
    assert_eq!(
        status(json!({"session_id": SESSION})).trim(),
        "[Release checklist]"
    );
    assert_eq!(
        status(json!({"session_id": SESSION, "session_name": "renamed"})).trim(),
        "[renamed]"
    );
}

/// The pinned CLI's print-mode capture of an advisor response and of one whose top level is all
/// 0 (`tests/fixtures/cli-captures/today/advisor-print`): the context is the last `message`
/// iteration's, the advisor's tokens are another model's, and no fall is blamed on the advisor.
#[test]
fn the_advisor_capture_takes_the_context_from_the_last_message_iteration() {
    let world = World::new("today-advisor");
    let transcript = cli_capture(world.root(), "today/advisor-print.jsonl.gz");
    let usage = world
        .ctxhooks(["usage", "--json", "--transcript"])
        .arg(&transcript)
        .json();
    let rows = usage["rows"].as_array().unwrap();
    let contexts: Vec<u64> = rows
        .iter()
        .map(|row| row["context_tokens"].as_u64().unwrap())
        .collect();
    // Issue 22's numbers: the top level (2 + 216,786 + 6,352) is two inferences, the context is
    // the last one's (1 + 109,981 + 3,176); then an all-0 top level over input 2, cache read
    // 204,576, cache write 87.
    assert_eq!(contexts, [113_158, 204_665]);
    assert_eq!(
        rows[0]["advisor_usage"],
        json!([{"model": "claude-fable-5", "input_tokens": 207_281,
                "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                "output_tokens": 7_495}])
    );
    let report = world
        .ctxhooks(["report", "--json", "--transcript"])
        .arg(&transcript)
        .json();
    assert_eq!(report["peak"]["context_tokens"], 204_665);
    assert_eq!(report["drops"], json!([]), "{report:#}");
    assert_eq!(report["totals"]["advisor"][0]["model"], "claude-fable-5");
}

/// The counts of the capture's two responses and what each total says: the first's top level
/// (the sum of its two `message` iterations, the advisor's apart); the second's top level holds
/// nothing (every count 0), so its counts are its one `message` iteration's (input 2, cache
/// write 87, cache read 204,576, output 40), in `usage`, `report`, `history` and `export` alike.
#[test]
fn a_response_whose_top_level_holds_nothing_is_counted_from_its_iterations_in_every_total() {
    let world = World::new("today-zero-top");
    let capture = cli_capture(world.root(), "today/advisor-print.jsonl.gz");
    let session = "75bb47c5-570a-4914-8877-a7d653919cd8";
    let transcript =
        world.write_transcript(format!("{session}.jsonl"), fs_err::read(&capture).unwrap());
    let counts = |value: &Value| {
        [
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "output_tokens",
        ]
        .map(|key| {
            value[key]
                .as_u64()
                .unwrap_or_else(|| panic!("{key} in {value:#}"))
        })
    };
    let usage = world
        .ctxhooks(["usage", "--json", "--transcript"])
        .arg(&transcript)
        .json();
    let rows = usage["rows"].as_array().unwrap();
    assert_eq!(counts(&rows[0]), [2, 6_352, 216_786, 900]);
    assert_eq!(rows[0].get("counts_from_iterations"), None);
    assert_eq!(counts(&rows[1]), [2, 87, 204_576, 40]);
    assert_eq!(rows[1]["counts_from_iterations"], true);
    let text = world
        .ctxhooks(["usage", "--transcript"])
        .arg(&transcript)
        .success()
        .stdout_text();
    assert!(
        text.contains("counts from its iterations (top level 0)"),
        "{text}"
    );
    let both = [4, 6_439, 421_362, 940];
    let report = world
        .ctxhooks(["report", "--json", "--transcript"])
        .arg(&transcript)
        .json();
    assert_eq!(counts(&report["totals"]), both, "{report:#}");
    // The advisor's tokens stay another model's.
    assert_eq!(report["totals"]["advisor"][0]["input_tokens"], 207_281);
    let history = world.ctxhooks(["history", "--json"]).json();
    assert_eq!(counts(&history["totals"]["totals"]), both, "{history:#}");
    let export = world.ctxhooks(["export"]).success().stdout_text();
    let records: Vec<Value> = export
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let of_kind = |kind: &'static str| {
        records
            .iter()
            .filter(|record| record["kind"] == kind)
            .map(counts)
            .collect::<Vec<_>>()
    };
    let requests = of_kind("request");
    assert_eq!(requests, [[2, 6_352, 216_786, 900], [2, 87, 204_576, 40]]);
    let sessions = of_kind("session");
    assert_eq!(sessions, [both]);
}

/// The pinned CLI interactive (`today/titles-interactive`: an `ai-title` the CLI asked the
/// model for, then `/rename Release checklist`) and the status line input it piped
/// (`today/statusline-1m`: claude-opus-5, a 1,000,000 window, `session_name`).
#[test]
fn the_interactive_capture_gives_the_title_the_kind_and_the_status_lines_window() {
    let world = World::new("today-titles");
    let capture = cli_capture(world.root(), "today/titles-interactive.jsonl.gz");
    let session = "75dd8dfb-f36f-42b9-bed3-49ad9c99a930";
    let transcript =
        world.write_transcript(format!("{session}.jsonl"), fs_err::read(&capture).unwrap());
    // The status line first: it records the window the CLI gives claude-opus-5.
    let inputs =
        fs_err::read_to_string(cli_capture(world.root(), "today/statusline-1m.jsonl")).unwrap();
    // Its transcript where this world keeps it, as the CLI names the session's own.
    let mut last: Value = serde_json::from_str(inputs.lines().last().unwrap()).unwrap();
    last["transcript_path"] = json!(transcript);
    let status = world
        .ctxhooks(["statusline", "--plain", "--format", "{title} | {window}"])
        .stdin(last.to_string())
        .success()
        .stdout_text();
    assert_eq!(status.trim(), "Release checklist | 1M");
    world
        .hook(Hook::Stop)
        .stdin(
            json!({"session_id": session, "transcript_path": transcript,
                   "hook_event_name": "Stop", "stop_hook_active": false})
            .to_string(),
        )
        .success();
    assert_eq!(world.error_lines(), Vec::<String>::new());
    let gauge = world
        .ctxhooks(["gauge", "--session", session, "--json"])
        .json();
    assert_eq!(
        (
            &gauge["title"],
            &gauge["trigger_tokens"],
            &gauge["trigger"]["window_source"]
        ),
        (
            &json!("Release checklist"),
            &json!(967_000),
            &json!("status_line")
        ),
        "{gauge:#}"
    );
    // Before the rename the status line sent the CLI's own title; without `session_name`
    // the gauge's title stands in.
    let first_named = inputs
        .lines()
        .find(|line| line.contains("session_name"))
        .unwrap();
    let title = |input: &str| {
        world
            .ctxhooks(["statusline", "--plain", "--format", "{title}"])
            .stdin(input)
            .success()
            .stdout_text()
            .trim()
            .to_owned()
    };
    assert_eq!(title(first_named), "Parser questions");
    assert_eq!(title(inputs.lines().next().unwrap()), "Release checklist");
    let listed = &world.ctxhooks(["sessions", "--json"]).json()[0];
    assert_eq!(
        (
            &listed["title"],
            &listed["entrypoint"],
            &listed["session_kind"]
        ),
        (&json!("Release checklist"), &json!("cli"), &Value::Null),
        "{listed:#}"
    );
    let history = world
        .ctxhooks(["history", "--json", "--projects"])
        .arg(world.config_dir().join("projects"))
        .json();
    assert_eq!(history["sessions"][0]["title"], "Release checklist");
    assert_eq!(history["sessions"][0]["unreadable_lines"], 0);
}

/// What 2.1.332 writes in `compactMetadata` (the capture `compaction/auto-manual`) reaches the
/// report: `postTokens`, `durationMs`, `cumulativeDroppedTokens`, what was kept verbatim.
#[test]
fn the_compaction_capture_keeps_the_new_compaction_metadata() {
    let world = World::new("today-compaction");
    let transcript = cli_capture(world.root(), "compaction/auto-manual.jsonl.gz");
    let report = world
        .ctxhooks(["report", "--json", "--transcript"])
        .arg(&transcript)
        .json();
    let compactions = report["compactions"].as_array().unwrap();
    let facts: Vec<(Value, Value, Value, usize)> = compactions
        .iter()
        .map(|compaction| {
            (
                compaction["post_tokens"].clone(),
                compaction["duration_ms"].clone(),
                compaction["cumulative_dropped_tokens"].clone(),
                compaction["preserved_messages"]
                    .as_array()
                    .map_or(0, Vec::len),
            )
        })
        .collect();
    assert_eq!(
        facts,
        [
            (json!(2_638), json!(61), json!(164_373), 2),
            (json!(2_626), json!(206), json!(184_200), 2)
        ]
    );
    let text = world
        .ctxhooks(["report", "--transcript"])
        .arg(&transcript)
        .success()
        .stdout_text();
    assert!(
        text.contains(
            "preTokens 167,011, postTokens 2,638, took 61 ms, 2 message(s) kept verbatim"
        ),
        "{text}"
    );
}
