//! End-to-end checks of what the report and provenance claim, against the pinned Claude Code
//! CLI with our real hooks installed and a scripted model: a print-mode permission refusal is
//! the CLI's, the trigger T is within 2 % of the threshold the CLI logs, and an automatic
//! compaction gives T and the floor from its record.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::claude::Sandbox;
use crate::support::model_server::{ModelServer, RequestKind, Scripted, Usage};

/// Runs `claude -p PROMPT --output-format json` with `extra` arguments and environment, asserting
/// it succeeded, and returns the result object.
fn print_mode(
    sandbox: &Sandbox,
    server: &ModelServer,
    prompt: &str,
    extra: &[&str],
    environment: &[(&str, &str)],
) -> Value {
    let mut args = vec!["-p", prompt, "--output-format", "json"];
    args.extend_from_slice(extra);
    let output = sandbox.claude_with_env(server, &args, environment);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "claude {args:?} failed ({}):\nstdout: {stdout}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.trim().lines().last().unwrap_or_default())
        .unwrap_or_else(|error| panic!("claude printed no JSON result ({error}): {stdout}"))
}

/// The session id of a result object.
fn session_of(result: &Value) -> String {
    result["session_id"].as_str().unwrap().to_owned()
}

#[test]
fn a_print_mode_refusal_is_permission_denied_and_not_started() {
    let Some(sandbox) = Sandbox::new("truth-refusal") else {
        return;
    };
    sandbox.install_hooks();
    let outside = sandbox.root().join("outside");
    fs_err::create_dir_all(&outside).unwrap();
    let target = outside.join("created-outside.txt");
    let server = ModelServer::start();
    server.push([
        Scripted::bash(
            &format!("touch {}", target.display()),
            Usage::context(20_000),
        ),
        Scripted::text("Done.", Usage::context(20_300)),
    ]);
    // No allow rule: print mode cannot ask anyone, so the CLI refuses the call itself.
    let result = print_mode(&sandbox, &server, "touch the file outside", &[], &[]);
    let session = session_of(&result);
    assert!(!target.exists(), "the refused command ran");
    let denials = result["permission_denials"].as_array().map_or(0, Vec::len);
    assert_eq!(denials, 1, "{result:#}");
    // The CLI's own record: "needs approval", a reject decision of its configuration, and the
    // misleading toolDenialKind "user-rejected".
    let transcript = fs_err::read_to_string(sandbox.transcript_path(&session)).unwrap();
    let refusal: Value = transcript
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|record| record.get("permissionDecision").is_some() && record["type"] == "user")
        .expect("a record with a permission decision");
    assert_eq!(refusal["permissionDecision"]["decision"], "reject");
    assert_eq!(refusal["permissionDecision"]["source"], "config");
    let report = sandbox.ctxhooks_json(&["provenance", "--session", &session, "--json"]);
    let calls = report["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{report:#}");
    let call = &calls[0];
    assert_eq!(call["verdict"], "permission_denied", "{report:#}");
    assert_eq!(call["state"], "not_started", "{report:#}");
    assert_eq!(call["result_kind"]["decision_source"], "config");
    assert_eq!(call["result_kind"]["needs_approval"], true);
    // Our PreToolUse hook saw the call, before the permission decision; nothing after it.
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
    assert_eq!(sandbox.problems(), Vec::<String>::new());
}

/// The thresholds the CLI's `--debug` log names (`fixed prefix ~N > threshold T`).
fn logged_thresholds(home: &Path) -> Vec<u64> {
    let mut found = Vec::new();
    let Ok(entries) = fs_err::read_dir(home.join(".claude/debug")) else {
        return found;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|extension| extension != "txt") {
            continue;
        }
        let text = String::from_utf8_lossy(&fs_err::read(&path).unwrap()).into_owned();
        for line in text.lines() {
            if let Some(rest) = line.split("> threshold ").nth(1) {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                if let Ok(threshold) = digits.parse() {
                    found.push(threshold);
                }
            }
        }
    }
    found
}

#[test]
fn the_trigger_is_within_two_percent_of_the_threshold_the_cli_logs() {
    // A first response that reports a cache read far above any window makes the CLI log its
    // threshold ("autocompact: fixed prefix ~N > threshold T") and compact.
    let cases: [(&str, Option<u64>, Option<&str>); 4] = [
        ("settings-100k", Some(100_000), None),
        ("settings-200k", Some(200_000), None),
        ("settings-500k", Some(500_000), None),
        ("env-300k", None, Some("300000")),
    ];
    for (name, setting, variable) in cases {
        let Some(sandbox) = Sandbox::new(&format!("truth-threshold-{name}")) else {
            return;
        };
        if let Some(window) = setting {
            sandbox.write_project_settings(&json!({"autoCompactWindow": window}));
        }
        sandbox.install_hooks();
        let server = ModelServer::start();
        let huge = Usage {
            input_tokens: 3,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 1_200_000,
            output_tokens: 50,
        };
        server.push([Scripted::bash("echo hi", huge)]);
        server.set_fallback_usage(Usage::context(20_000));
        let environment: Vec<(&str, &str)> = variable
            .map(|value| vec![("CLAUDE_CODE_AUTO_COMPACT_WINDOW", value)])
            .unwrap_or_default();
        let result = print_mode(
            &sandbox,
            &server,
            "RUN:echo",
            &["--allowedTools", "Bash", "--debug"],
            &environment,
        );
        let session = session_of(&result);
        let logged = logged_thresholds(&sandbox.home);
        let threshold = *logged
            .first()
            .unwrap_or_else(|| panic!("{name}: the CLI logged no threshold"));
        assert!(logged.iter().all(|value| *value == threshold), "{logged:?}");
        // The report runs in the environment the session ran in (the env case sets the
        // variable for both).
        let mut command = sandbox.ctxhooks_command("ctxhooks");
        command.args(["report", "--session", &session, "--json"]);
        for (key, value) in &environment {
            command.env(key, value);
        }
        let output = command.output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        let trigger = &report["estimates"]["trigger"];
        let tokens = trigger["tokens"]
            .as_u64()
            .unwrap_or_else(|| panic!("{name}: no T: {trigger:#}"));
        let difference = tokens.abs_diff(threshold);
        assert!(
            difference * 50 <= threshold,
            "{name}: T {tokens} vs the CLI's {threshold}: {trigger:#}"
        );
        assert!(
            matches!(
                trigger["derivation"].as_str(),
                Some("rule" | "rule_confirmed")
            ),
            "{name}: {trigger:#}"
        );
        // Before any compaction of the session's conversation the room left is given against T.
        assert!(report["estimates"]["room_left"].is_i64(), "{report:#}");
    }
}

#[test]
fn an_automatic_compaction_gives_the_trigger_and_the_floor_from_its_record() {
    let Some(sandbox) = Sandbox::new("truth-auto-compact") else {
        return;
    };
    sandbox.write_project_settings(&json!({"autoCompactWindow": 200_000}));
    sandbox.install_hooks();
    let server = ModelServer::start();
    // 100,000; a resume at 80,000 (a fall that the resume does not explain); 150,000 (did not
    // compact); 185,000 (the next prompt compacts); 30,000 after the compaction.
    server.push([
        Scripted::text("Started.", Usage::context(100_000)),
        Scripted::text("Resumed.", Usage::context(80_000)),
        Scripted::text("Read more.", Usage::context(150_000)),
        Scripted::text("Read everything.", Usage::context(185_000)),
        Scripted::text("Carried on after compaction.", Usage::context(30_000)),
    ]);
    let first = sandbox.prompt(&server, "start", None);
    let session = session_of(&first);
    for prompt in ["resume", "read more", "read everything", "carry on"] {
        sandbox.prompt(&server, prompt, Some(&session));
    }
    assert_eq!(
        server
            .served()
            .iter()
            .filter(|served| served.kind == RequestKind::Summary)
            .count(),
        1,
        "one compaction"
    );
    let report = sandbox.ctxhooks_json(&["report", "--session", &session, "--json"]);
    let drops: Vec<(u64, u64, &str, &str, bool)> = report["drops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|drop| {
            (
                drop["context_before"].as_u64().unwrap(),
                drop["context_after"].as_u64().unwrap(),
                drop["class"].as_str().unwrap(),
                drop["basis"].as_str().unwrap(),
                drop["explains_fall"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        drops,
        [
            (100_000, 80_000, "resume", "structural", false),
            (185_000, 30_000, "compaction", "structural", true)
        ],
        "{report:#}"
    );
    assert!(
        report["drops"][0]["facts"]["markers"]
            .as_array()
            .unwrap()
            .contains(&json!("cost_state")),
        "{report:#}"
    );
    let estimates = &report["estimates"];
    assert_eq!(estimates["trigger"]["tokens"], 167_000, "{estimates:#}");
    assert_eq!(estimates["trigger"]["derivation"], "rule_confirmed");
    assert_eq!(estimates["trigger"]["observed"]["low"], 150_000);
    assert_eq!(estimates["cap"]["tokens"], 200_000);
    assert!(
        estimates["cap"]["source"]
            .as_str()
            .unwrap()
            .starts_with("settings:"),
        "{estimates:#}"
    );
    assert_eq!(estimates["floors"][0]["basis"], "structural");
    assert_eq!(estimates["floor"], 30_000);
    assert_eq!(estimates["headroom"], 167_000 - 30_000);
    let compaction = &report["compactions"][0];
    assert_eq!(compaction["trigger"], "auto");
    assert!(compaction["snapshot"].is_string(), "{report:#}");
    assert!(
        report["warnings"].as_array().unwrap().is_empty(),
        "{report:#}"
    );
    // The text says the same in words.
    let output = sandbox.ctxhooks(&["report", "--session", &session]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("trigger T (where the CLI compacts): 167,000 — CLI 2.1.332's rule"),
        "{text}"
    );
    assert!(
        text.contains("resume (structural): a new Claude Code process resumed the session here"),
        "{text}"
    );
    assert_eq!(sandbox.problems(), Vec::<String>::new());
}
