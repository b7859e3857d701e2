//! Provenance on real permission refusals of Claude Code 2.1.332 (`tests/fixtures/cli-captures/`,
//! see `tests/fixtures/PROVENANCE.md`): print mode refusing a call that needs approval, a deny
//! rule and `dontAsk` are the CLI's (`permission_denied`, `not_started`); a person's "No" and
//! Esc at the interactive prompt are the user's.

use serde_json::Value;

use crate::support::{Hook, World, cli_capture, project_fixture};

/// `ctxhooks provenance ARGS --json` in `world`.
fn provenance(world: &World, arguments: &[&str]) -> Value {
    let mut all = vec!["provenance"];
    all.extend_from_slice(arguments);
    all.push("--json");
    world.ctxhooks(all).json()
}

#[test]
fn print_mode_refusals_are_the_clis_and_never_ran() {
    let scratch = World::new("truth-refusals");
    for (file, reason_code, needs_approval, denial_kind) in [
        ("outside-project", "unknown", true, "user-rejected"),
        ("inside-project", "unknown", true, "user-rejected"),
        (
            "deny-rule",
            "rule:projectSettings",
            false,
            "permission-rule",
        ),
        ("dont-ask", "mode:dontAsk", false, "permission-rule"),
    ] {
        let transcript = cli_capture(
            scratch.root(),
            &format!("permission-headless/{file}.jsonl.gz"),
        );
        let report = provenance(&scratch, &["--transcript", transcript.to_str().unwrap()]);
        let calls = report["calls"].as_array().unwrap();
        assert_eq!(calls.len(), 1, "{file}: {report:#}");
        let call = &calls[0];
        assert_eq!(
            (call["verdict"].as_str(), call["state"].as_str()),
            (Some("permission_denied"), Some("not_started")),
            "{file}: {call:#}"
        );
        let kind = &call["result_kind"];
        assert_eq!(kind["kind"], "permission_denied");
        assert_eq!(kind["decision_source"], "config");
        assert_eq!(kind["reason_code"], reason_code);
        assert_eq!(kind["needs_approval"], needs_approval);
        assert_eq!(kind["denial_kind"], denial_kind);
        let evidence = call["verdict_evidence"][0].as_str().unwrap();
        assert!(
            evidence.contains("source \"config\"") && evidence.contains("person"),
            "{file}: {evidence}"
        );
    }
    // The accepted call is no report at all.
    let transcript = cli_capture(scratch.root(), "permission-headless/allowed-echo.jsonl.gz");
    let report = provenance(&scratch, &["--transcript", transcript.to_str().unwrap()]);
    assert_eq!(report["calls"].as_array().unwrap().len(), 0, "{report:#}");
}

#[test]
fn the_refusal_keeps_not_started_when_the_hook_saw_pretooluse() {
    // PreToolUse fires before the permission decision (the run's hook log); the real
    // ctxhooks-tooluse records it as "started". The transcript's refusal still says the call
    // never ran.
    let scratch = World::new("truth-refusal-hooks");
    let hooks = fs_err::read_to_string(project_fixture(
        "cli-captures/permission-headless/hooks.jsonl",
    ))
    .unwrap();
    let session = "6159f896-5b48-4ba0-9d4c-954c20f89d46";
    let payloads: Vec<Value> = hooks
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap())
        .filter(|payload: &Value| {
            payload["session_id"] == session
                && matches!(
                    payload["hook_event_name"].as_str(),
                    Some("PreToolUse" | "PostToolUse" | "PostToolUseFailure")
                )
        })
        .collect();
    // Only PreToolUse: the refused call has no PostToolUse or PostToolUseFailure.
    let events: Vec<&str> = payloads
        .iter()
        .filter_map(|payload| payload["hook_event_name"].as_str())
        .collect();
    assert_eq!(events, ["PreToolUse"]);
    for payload in &payloads {
        scratch
            .hook(Hook::ToolUse)
            .stdin(payload.to_string())
            .success();
    }
    let transcript = cli_capture(
        scratch.root(),
        "permission-headless/outside-project.jsonl.gz",
    );
    let report = provenance(
        &scratch,
        &[
            "--session",
            session,
            "--transcript",
            transcript.to_str().unwrap(),
        ],
    );
    let call = &report["calls"][0];
    assert_eq!(call["verdict"], "permission_denied", "{report:#}");
    assert_eq!(call["state"], "not_started", "{report:#}");
    let state: Vec<&str> = call["state_evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        state
            .iter()
            .any(|line| line.contains("PreToolUse runs before the permission decision")),
        "{state:?}"
    );
}

#[test]
fn a_persons_no_or_esc_at_the_prompt_stays_the_users() {
    let scratch = World::new("truth-person");
    for file in ["no", "esc"] {
        let transcript = cli_capture(
            scratch.root(),
            &format!("permission-interactive/{file}.jsonl.gz"),
        );
        let report = provenance(&scratch, &["--transcript", transcript.to_str().unwrap()]);
        let call = &report["calls"][0];
        assert_eq!(
            (call["verdict"].as_str(), call["state"].as_str()),
            (Some("user"), Some("not_started")),
            "{file}: {report:#}"
        );
        assert_eq!(call["result_kind"]["kind"], "rejected");
        assert_eq!(call["result_kind"]["before_run"], true);
    }
}
