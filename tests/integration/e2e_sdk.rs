//! End-to-end tests of interrupt provenance with the real Agent SDK (pinned 0.3.332, driven by
//! `tests/e2e/sdk-interrupt.mjs`) and the real CLI it bundles, running our real hooks as
//! installed by `ctxhooks install`. These are also the canary for the SDK's interrupt wording:
//! if an upgrade rewords or restructures the interrupt records, they turn red.

use serde_json::Value;

use crate::support::claude::Sandbox;
use crate::support::model_server::{ModelServer, sdk_driver_responder};

/// A sandbox with the hooks installed and a server answering the driver's prompts.
fn start(name: &str) -> Option<(Sandbox, ModelServer)> {
    let sandbox = Sandbox::new(name)?;
    sandbox.install_hooks();
    let server = ModelServer::start();
    server.set_responder(sdk_driver_responder());
    Some((sandbox, server))
}

/// The last session the driver ran: its id and transcript bytes.
fn last_session(report: &Value) -> (String, Vec<u8>) {
    let session = report["sessions"].as_array().unwrap().last().unwrap();
    let id = session["session_id"].as_str().unwrap().to_owned();
    let transcript = fs_err::read(session["transcript_path"].as_str().unwrap()).unwrap();
    (id, transcript)
}

/// The calls `ctxhooks provenance` reports, as (verdict, state, summary).
fn verdicts(sandbox: &Sandbox, session: &str) -> Vec<(String, String, String)> {
    let report = sandbox.ctxhooks_json(&["provenance", "--session", session, "--json"]);
    report["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| {
            (
                call["verdict"].as_str().unwrap().to_owned(),
                call["state"].as_str().unwrap().to_owned(),
                call["summary"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// `ctxhooks ledger-input --session` output.
fn ledger_input(sandbox: &Sandbox, session: &str) -> Vec<u8> {
    let output = sandbox.ctxhooks(&["ledger-input", "--session", session]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
        .collect()
}

fn is_interrupt_text(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    text.contains("doesn't want to proceed with this tool use")
        || text.contains("[Request interrupted by user")
}

/// Checks a relabelled ledger input against its transcript: every line is byte-identical except
/// that the trailing interrupt records are gone and exactly one `runtime_interrupt` system record
/// stands in their place. Returns that record.
fn assert_only_trailing_interrupts_relabelled(transcript: &[u8], ledger: &[u8]) -> Value {
    let original = lines(transcript);
    let relabelled = lines(ledger);
    let system: Vec<&&[u8]> = relabelled
        .iter()
        .filter(|line| !original.contains(line))
        .collect();
    assert_eq!(system.len(), 1, "exactly one new record");
    let record: Value = serde_json::from_slice(system[0]).unwrap();
    assert_eq!(record["type"], "system");
    assert_eq!(record["subtype"], "runtime_interrupt");
    let removed: Vec<&&[u8]> = original
        .iter()
        .filter(|line| !relabelled.contains(line))
        .collect();
    assert!(!removed.is_empty(), "nothing was relabelled");
    for line in &removed {
        assert!(
            is_interrupt_text(line),
            "a non-interrupt record was removed: {}",
            String::from_utf8_lossy(line)
        );
    }
    // Whatever stays, stays in order, and nothing after the new record is a user or assistant
    // record (only the trailing interrupts were replaced).
    let kept: Vec<&&[u8]> = relabelled
        .iter()
        .filter(|line| original.contains(line))
        .collect();
    let in_order: Vec<&&[u8]> = original
        .iter()
        .filter(|line| relabelled.contains(line))
        .collect();
    assert_eq!(kept, in_order);
    let position = relabelled
        .iter()
        .position(|line| line == system[0])
        .unwrap();
    for line in &relabelled[position + 1..] {
        let after: Value = serde_json::from_slice(line).unwrap();
        assert!(
            after["type"] != "user" && after["type"] != "assistant",
            "relabelled an interrupt that is not trailing"
        );
    }
    let content = record["content"].as_str().unwrap();
    assert!(content.contains("not the user"), "{content}");
    assert!(!content.contains("doesn't want to proceed"), "{content}");
    record
}

#[test]
fn a_marked_runtime_interrupt_of_a_running_bash_is_relabelled() {
    let Some((sandbox, server)) = start("sdk-marked") else {
        return;
    };
    let report = sandbox.run_sdk_driver(&server, "marked-interrupt");
    let (session, transcript) = last_session(&report);
    // Canary: today's interrupt records are there, in today's words.
    assert!(
        lines(&transcript)
            .iter()
            .any(|line| is_interrupt_text(line)),
        "the SDK wrote no interrupt record"
    );
    assert_eq!(
        verdicts(&sandbox, &session),
        [("runtime".into(), "started".into(), "sleep 5".into())]
    );
    let record =
        assert_only_trailing_interrupts_relabelled(&transcript, &ledger_input(&sandbox, &session));
    assert_eq!(record["ctxhooks"]["calls"][0]["state"], "started");
    assert_eq!(record["ctxhooks"]["calls"][0]["tool_name"], "Bash");
    assert!(record["content"].as_str().unwrap().contains("sleep 5"));
    assert_eq!(sandbox.problems(), Vec::<String>::new());
}

#[test]
fn an_unmarked_interrupt_stays_the_users_and_is_not_relabelled() {
    let Some((sandbox, server)) = start("sdk-unmarked") else {
        return;
    };
    let report = sandbox.run_sdk_driver(&server, "unmarked-interrupt");
    let (session, transcript) = last_session(&report);
    assert!(
        lines(&transcript)
            .iter()
            .any(|line| is_interrupt_text(line)),
        "the SDK wrote no interrupt record"
    );
    assert_eq!(
        verdicts(&sandbox, &session),
        [("user".into(), "started".into(), "sleep 5".into())]
    );
    assert_eq!(
        ledger_input(&sandbox, &session),
        transcript,
        "ledger input must be the transcript, byte for byte"
    );
}

#[test]
fn only_the_last_marked_interrupt_is_relabelled_after_an_earlier_genuine_one() {
    let Some((sandbox, server)) = start("sdk-earlier") else {
        return;
    };
    let report = sandbox.run_sdk_driver(&server, "earlier-genuine-then-marked");
    let (session, transcript) = last_session(&report);
    let found = verdicts(&sandbox, &session);
    assert_eq!(
        found,
        [
            ("user".into(), "started".into(), "sleep 5".into()),
            ("runtime".into(), "started".into(), "sleep 5".into())
        ]
    );
    let ledger = ledger_input(&sandbox, &session);
    assert_only_trailing_interrupts_relabelled(&transcript, &ledger);
    // The earlier, genuine interrupt records are still there, byte for byte.
    let earlier: Vec<&[u8]> = lines(&transcript)
        .into_iter()
        .filter(|line| is_interrupt_text(line))
        .collect();
    let kept: Vec<&[u8]> = lines(&ledger)
        .into_iter()
        .filter(|line| is_interrupt_text(line))
        .collect();
    assert!(
        !kept.is_empty() && kept.len() < earlier.len(),
        "kept {} of {}",
        kept.len(),
        earlier.len()
    );
    assert_eq!(
        kept[..],
        earlier[..kept.len()],
        "the earlier interrupt changed"
    );
}

#[test]
fn a_permission_denial_is_not_relabelled() {
    let Some((sandbox, server)) = start("sdk-deny") else {
        return;
    };
    let report = sandbox.run_sdk_driver(&server, "permission-deny");
    let (session, transcript) = last_session(&report);
    assert_eq!(
        verdicts(&sandbox, &session),
        [(
            "permission_denied".into(),
            "not_started".into(),
            "touch created-by-model.txt".into()
        )]
    );
    assert_eq!(ledger_input(&sandbox, &session), transcript);
    assert!(
        !sandbox.project.join("created-by-model.txt").exists(),
        "the denied command ran"
    );
}

#[test]
fn parallel_calls_cut_at_once_are_relabelled_together() {
    let Some((sandbox, server)) = start("sdk-parallel") else {
        return;
    };
    let report = sandbox.run_sdk_driver(&server, "parallel-marked");
    let (session, transcript) = last_session(&report);
    let mut found = verdicts(&sandbox, &session);
    found.sort();
    assert_eq!(
        found,
        [
            (
                "runtime".into(),
                "started".into(),
                "sleep 5 && echo 1".into()
            ),
            (
                "runtime".into(),
                "started".into(),
                "sleep 5 && echo 2".into()
            ),
            (
                "runtime".into(),
                "started".into(),
                "sleep 5 && echo 3".into()
            ),
        ]
    );
    let record =
        assert_only_trailing_interrupts_relabelled(&transcript, &ledger_input(&sandbox, &session));
    assert_eq!(record["ctxhooks"]["calls"].as_array().unwrap().len(), 3);
}
