//! End-to-end tests: the real Claude Code CLI runs our real binaries, installed by the real
//! `ctxhooks install`; only the model is scripted.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::claude::Sandbox;
use crate::support::model_server::{ModelServer, RequestKind, Scripted, Usage};

/// Byte offsets at which each `compact_boundary` line of a transcript starts.
fn compact_boundary_offsets(transcript: &[u8]) -> Vec<(usize, Value)> {
    let mut offsets = Vec::new();
    let mut start = 0;
    for line in transcript.split_inclusive(|byte| *byte == b'\n') {
        if let Ok(record) = serde_json::from_slice::<Value>(line)
            && record["type"] == "system"
            && record["subtype"] == "compact_boundary"
        {
            offsets.push((start, record));
        }
        start += line.len();
    }
    offsets
}

/// Checks every snapshot against the final transcript: one snapshot per compaction, in order,
/// each with the right trigger, mode 0600, and bytes equal to the transcript as it stood just
/// before that compaction (a prefix of the final file ending before that compaction's boundary).
fn assert_one_verified_snapshot_per_compaction(
    sandbox: &Sandbox,
    session: &str,
    expected_triggers: &[&str],
    expected_instructions: &[Option<&str>],
    last_answers: &[&str],
) {
    let transcript = fs_err::read(sandbox.transcript_path(session)).unwrap();
    let boundaries = compact_boundary_offsets(&transcript);
    let triggers: Vec<&str> = boundaries
        .iter()
        .map(|(_, record)| record["compactMetadata"]["trigger"].as_str().unwrap())
        .collect();
    assert_eq!(triggers, expected_triggers, "compactions in the transcript");

    let listed = sandbox.ctxhooks_json(&["archives", "--session", session, "--json"]);
    let snapshots = listed.as_array().unwrap();
    assert_eq!(
        snapshots.len(),
        boundaries.len(),
        "one snapshot per compaction: {listed:#}"
    );
    for (index, (snapshot, (boundary_offset, _))) in snapshots.iter().zip(&boundaries).enumerate() {
        assert_eq!(snapshot["trigger"], expected_triggers[index]);
        assert_eq!(
            snapshot["custom_instructions"].as_str(),
            expected_instructions[index]
        );
        assert_eq!(snapshot["session_id"], session);
        let folder = Path::new(snapshot["path"].as_str().unwrap());
        // Schema 2: the snapshot's bytes are in the kept copy; restore writes them out.
        let restored = sandbox.root().join(format!("restored-{index}"));
        sandbox
            .run_ctxhooks(["archives", "restore", "--session", session, "--snapshot"])
            .arg(snapshot["name"].as_str().unwrap())
            .arg("--to")
            .arg(&restored)
            .success();
        let copy_path = restored.join(format!("{session}.jsonl"));
        let copy = fs_err::read(&copy_path).unwrap();
        assert_eq!(snapshot["size"], copy.len());
        assert!(
            copy.len() <= *boundary_offset,
            "snapshot {index} runs past its compaction's boundary"
        );
        assert_eq!(
            copy[..],
            transcript[..copy.len()],
            "snapshot {index} is not a prefix of the transcript"
        );
        assert!(copy.ends_with(b"\n"), "snapshot {index} ends mid-line");
        assert_eq!(
            compact_boundary_offsets(&copy).len(),
            index,
            "snapshot {index} holds the wrong number of earlier compactions"
        );
        // Complete up to the compaction: it holds the last answer before it, and nothing the
        // model said lies between its end and the boundary.
        assert!(
            String::from_utf8_lossy(&copy).contains(last_answers[index]),
            "snapshot {index} lacks the last answer before its compaction"
        );
        for line in transcript[copy.len()..*boundary_offset].split(|byte| *byte == b'\n') {
            if let Ok(record) = serde_json::from_slice::<Value>(line) {
                assert_ne!(
                    record["type"], "assistant",
                    "snapshot {index} ends before an answer: {record}"
                );
            }
        }
        let mode = fs_err::metadata(&copy_path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "snapshot file mode");
        let folder_mode = fs_err::metadata(folder).unwrap().permissions().mode() & 0o777;
        assert_eq!(folder_mode, 0o700, "snapshot folder mode");
    }
    let verified = sandbox.ctxhooks(&["archives", "verify", "--session", session]);
    assert!(
        verified.status.success(),
        "archives verify: {}",
        String::from_utf8_lossy(&verified.stdout)
    );
}

#[test]
fn manual_compact_with_instructions_leaves_one_verified_snapshot() {
    let Some(sandbox) = Sandbox::new("manual-compact") else {
        return;
    };
    sandbox.install_hooks();
    let server = ModelServer::start();
    server.push([
        Scripted::bash("echo first > notes.txt", Usage::context(30_000)),
        Scripted::text("Wrote notes.txt.", Usage::context(31_000)),
    ]);
    let first = sandbox.prompt(&server, "write the notes", None);
    let session = first["session_id"].as_str().unwrap().to_owned();

    let compact = sandbox.prompt(&server, "/compact keep the file ids", Some(&session));
    assert_eq!(compact["session_id"], session.as_str());
    assert!(
        server
            .served()
            .iter()
            .any(|served| served.kind == RequestKind::Summary),
        "the CLI never asked for a summary"
    );

    assert_one_verified_snapshot_per_compaction(
        &sandbox,
        &session,
        &["manual"],
        &[Some("keep the file ids")],
        &["Wrote notes.txt."],
    );
    assert_eq!(sandbox.problems(), Vec::<String>::new());
}

#[test]
fn automatic_compaction_leaves_one_verified_snapshot() {
    let Some(sandbox) = Sandbox::new("auto-compact") else {
        return;
    };
    sandbox.write_project_settings(&json!({"autoCompactWindow": 200_000}));
    sandbox.install_hooks();
    let server = ModelServer::start();
    // The second turn reports a context close to the window, so the third turn compacts first.
    server.push([
        Scripted::text("Started.", Usage::context(40_000)),
        Scripted::text("Read everything.", Usage::context(185_000)),
        Scripted::text("Carried on after compaction.", Usage::context(30_000)),
    ]);
    let first = sandbox.prompt(&server, "start", None);
    let session = first["session_id"].as_str().unwrap().to_owned();
    sandbox.prompt(&server, "read everything", Some(&session));
    sandbox.prompt(&server, "carry on", Some(&session));
    assert!(
        server
            .served()
            .iter()
            .any(|served| served.kind == RequestKind::Summary),
        "the CLI never compacted"
    );
    assert_one_verified_snapshot_per_compaction(
        &sandbox,
        &session,
        &["auto"],
        &[None],
        &["Read everything."],
    );
    assert_eq!(sandbox.problems(), Vec::<String>::new());
}

/// A usage of exactly these numbers.
fn usage(input: u64, cache_creation: u64, cache_read: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        cache_creation_input_tokens: cache_creation,
        cache_read_input_tokens: cache_read,
        output_tokens: output,
    }
}

#[test]
fn usage_log_has_one_row_per_served_request_and_explains_every_drop() {
    let Some(sandbox) = Sandbox::new("usage") else {
        return;
    };
    sandbox.write_project_settings(&json!({"autoCompactWindow": 200_000}));
    sandbox.install_hooks();
    let server = ModelServer::start();
    let planned = [
        ("one", usage(5, 28_000, 2_000, 120)),
        ("two", usage(4, 30_000, 29_996, 80)),
        // An advisor-like turn: the whole conversation sent again, context × 2.2.
        ("consult the advisor", usage(6, 72_000, 59_994, 300)),
        // Back to normal: a drop with a small cache write.
        ("carry on", usage(3, 2_000, 59_997, 60)),
        ("read the big file", usage(3, 58_000, 61_997, 90)),
        // Close to the window: the next prompt compacts first.
        ("read another", usage(2, 65_000, 119_998, 70)),
        // After the compaction: a small context, mostly rewritten into the cache.
        ("after compaction", usage(7, 25_000, 4_993, 40)),
    ];
    server.push(
        planned
            .iter()
            .map(|(_, usage)| Scripted::text("noted", *usage)),
    );
    let first = sandbox.prompt(&server, planned[0].0, None);
    let session = first["session_id"].as_str().unwrap().to_owned();
    for (prompt, _) in &planned[1..] {
        sandbox.prompt(&server, prompt, Some(&session));
    }
    let served = server.served();
    let scripted: Vec<_> = served
        .iter()
        .filter(|s| s.kind == RequestKind::Scripted)
        .collect();
    assert_eq!(
        scripted.len(),
        planned.len(),
        "every planned response was served"
    );
    assert_eq!(
        served
            .iter()
            .filter(|s| s.kind == RequestKind::Summary)
            .count(),
        1,
        "one compaction"
    );

    // Exactly one row per served conversation request, with exactly the served numbers.
    let log = sandbox.ctxhooks_json(&["usage", "--session", &session, "--json"]);
    let rows: Vec<&Value> = log["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["sidechain"] == false)
        .collect();
    assert_eq!(rows.len(), scripted.len(), "{log:#}");
    for (row, served) in rows.iter().zip(&scripted) {
        assert_eq!(row["request_id"], served.request_id.as_str());
        assert_eq!(row["message_id"], served.message_id.as_str());
        assert_eq!(row["input_tokens"], served.usage.input_tokens);
        assert_eq!(
            row["cache_creation_input_tokens"],
            served.usage.cache_creation_input_tokens
        );
        assert_eq!(
            row["cache_read_input_tokens"],
            served.usage.cache_read_input_tokens
        );
        assert_eq!(row["output_tokens"], served.usage.output_tokens);
        assert_eq!(row["context_tokens"], served.usage.context_tokens());
    }
    // The compaction's own summary request is answered by the server but written to no
    // transcript by Claude Code 2.1.332, so it has no row.
    let summary = served
        .iter()
        .find(|s| s.kind == RequestKind::Summary)
        .unwrap();
    assert!(
        log["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|row| row["request_id"] != summary.request_id.as_str())
    );

    let report = sandbox.ctxhooks_json(&["report", "--session", &session, "--json"]);
    let drops: Vec<(u64, u64, &str, &str)> = report["drops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|drop| {
            (
                drop["context_before"].as_u64().unwrap(),
                drop["context_after"].as_u64().unwrap(),
                drop["class"].as_str().unwrap(),
                drop["basis"].as_str().unwrap(),
            )
        })
        .collect();
    // The first fall has no advisor blocks before it: each prompt here is a new `claude -p`
    // process resuming the session (a cost-state record marks it), which says what happened
    // there but not why the context fell.
    assert_eq!(
        drops,
        [
            (132_000, 62_000, "resume", "structural"),
            (185_000, 30_000, "compaction", "structural")
        ],
        "{report:#}"
    );
    assert_eq!(report["drops"][0]["explains_fall"], false, "{report:#}");
    assert_eq!(report["compactions"].as_array().unwrap().len(), 1);
    assert_eq!(report["compactions"][0]["trigger"], "auto");
    let snapshot = report["compactions"][0]["snapshot"]
        .as_str()
        .expect("the compaction matched no snapshot");
    let archived = sandbox.ctxhooks_json(&["archives", "--session", &session, "--json"]);
    assert_eq!(archived[0]["name"], snapshot);
    assert_eq!(
        report["snapshots"]["compactions_without_snapshot"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    assert_eq!(
        report["snapshots"]["snapshots_without_compaction"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    assert_eq!(report["estimates"]["floor"], 30_000);
    assert_eq!(report["estimates"]["cap"]["tokens"], 200_000);
    // Compaction did not fire after the 120,000 request and fired after the 185,000 one. Claude
    // Code 2.1.332's debug log names its real threshold for `autoCompactWindow: 200000`:
    // "autocompact: ... threshold 167000"; the estimated range must hold it.
    let trigger = &report["estimates"]["trigger"]["observed"];
    assert_eq!(trigger["low"], 120_000);
    let high = trigger["high"].as_u64().unwrap();
    assert!(high >= 185_000, "{trigger}");
    assert!((120_000..=high).contains(&167_000), "{trigger}");
    assert_eq!(
        report["estimates"]["headroom"].as_u64().unwrap(),
        report["estimates"]["trigger"]["tokens"].as_u64().unwrap() - 30_000
    );
    assert!(
        !report["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|warning| warning["kind"] == "compaction_loop"),
        "no loop here: {report:#}"
    );
    let svg = sandbox.root().join("chart.svg");
    let output = sandbox.ctxhooks(&[
        "report",
        "--session",
        &session,
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(fs_err::read_to_string(&svg).unwrap().starts_with("<svg"));
    assert_eq!(sandbox.problems(), Vec::<String>::new());
}

#[test]
fn a_context_that_stays_above_the_window_is_reported_as_a_compaction_loop() {
    let Some(sandbox) = Sandbox::new("loop") else {
        return;
    };
    sandbox.write_project_settings(&json!({"autoCompactWindow": 200_000}));
    sandbox.install_hooks();
    let server = ModelServer::start();
    // Every response, summaries included, reports a context above the trigger.
    server.set_summary_usage(Usage::context(190_000));
    server.set_fallback_usage(Usage::context(190_000));
    let first = sandbox.prompt(&server, "start", None);
    let session = first["session_id"].as_str().unwrap().to_owned();
    for prompt in ["two", "three", "four"] {
        sandbox.prompt(&server, prompt, Some(&session));
    }
    let report = sandbox.ctxhooks_json(&["report", "--session", &session, "--json"]);
    let compactions = report["compactions"].as_array().unwrap();
    assert!(compactions.len() >= 2, "{report:#}");
    assert!(
        compactions
            .iter()
            .all(|compaction| compaction["basis"] == "structural")
    );
    assert!(
        report["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|warning| warning["kind"] == "compaction_loop"),
        "{report:#}"
    );
    // The loop rule counts turns, not requests (each prompt here is one turn): the real CLI's
    // prompts must be seen as turn starts, or the rule would fall back to counting requests.
    let usage = sandbox.ctxhooks_json(&["usage", "--session", &session, "--json"]);
    let turn_starts = usage["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["sidechain"] == false && row["turn_start"] == true)
        .count();
    assert_eq!(turn_starts, 4, "{usage:#}");
    assert!(
        compactions
            .iter()
            .any(|compaction| compaction["turns_since_previous_automatic"]
                .as_u64()
                .is_some_and(|turns| turns < 3)),
        "{report:#}"
    );
    // Every compaction has its snapshot. (Claude Code also runs PreCompact once when it then
    // finds nothing to summarize and gives up; that snapshot is reported, not hidden.)
    assert_eq!(
        report["snapshots"]["compactions_without_snapshot"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    let snapshots = sandbox.ctxhooks_json(&["archives", "--session", &session, "--json"]);
    let matched = report["snapshots"]["matched"].as_array().unwrap().len();
    let unmatched = report["snapshots"]["snapshots_without_compaction"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(matched, compactions.len());
    assert_eq!(matched + unmatched, snapshots.as_array().unwrap().len());
    // The trigger range must still hold the CLI's real threshold (167,000 for a window of
    // 200,000, per its debug log): a PreCompact that fired and gave up is an upper bound, and the
    // request before it is no "did not fire" lower bound.
    let trigger = &report["estimates"]["trigger"]["observed"];
    let high = trigger["high"].as_u64().unwrap();
    assert!(high >= 167_000, "{trigger}");
    assert!(
        trigger["low"].as_u64().is_none_or(|low| low < 167_000),
        "{trigger}"
    );
}
