//! The plugin route end to end: the pinned CLI validates the repository's marketplace and
//! plugin, installs the plugin from the local marketplace with its non-interactive commands, and
//! runs our real binaries from it (a Stop logs usage, a `PreCompact` takes a snapshot) without a
//! settings file that names a hook; doctor sees the plugin's hooks; the CLI starts the plugin's
//! MCP server, and the note after a compaction names its tool.

use serde_json::Value;

use crate::support::claude::Sandbox;
use crate::support::fixtures::repository_root;
use crate::support::model_server::{ModelServer, Scripted, Usage};

#[test]
fn the_plugin_from_the_local_marketplace_runs_the_hooks_without_a_settings_entry() {
    let Some(sandbox) = Sandbox::new("plugin") else {
        return;
    };
    let server = ModelServer::start();
    let repository = repository_root();
    // The marketplace and the plugin pass the CLI's own validation, warnings counted.
    for path in [repository.clone(), repository.join("plugin")] {
        let output = sandbox
            .run_claude(&server)
            .args(["plugin", "validate", "--strict"])
            .arg(&path)
            .success();
        assert!(
            output.stdout_text().contains("Validation passed"),
            "{}",
            output.stdout_text()
        );
    }
    sandbox
        .run_claude(&server)
        .args(["plugin", "marketplace", "add"])
        .arg(&repository)
        .success();
    sandbox
        .run_claude(&server)
        .args(["plugin", "install", "ctxhooks@ctxhooks"])
        .success();
    // What Claude Code wrote to the user settings: the marketplace and the plugin, no hook.
    let settings: Value =
        serde_json::from_slice(&fs_err::read(sandbox.home.join(".claude/settings.json")).unwrap())
            .unwrap();
    assert_eq!(settings["enabledPlugins"]["ctxhooks@ctxhooks"], true);
    assert!(settings.get("hooks").is_none(), "{settings:#}");
    assert!(!sandbox.project.join(".claude/settings.json").exists());

    // The hooks find the binaries through CTXHOOKS_BIN_DIR (a folder with a space).
    server.push([
        Scripted::bash("echo from-the-plugin", Usage::context(30_000)),
        Scripted::text("Done.", Usage::context(31_000)),
    ]);
    let bin_dir = sandbox.bin_dir.to_string_lossy().into_owned();
    let run = |args: &[&str]| {
        let output = sandbox
            .run_claude(&server)
            .args(args)
            .env("CTXHOOKS_BIN_DIR", &bin_dir)
            .success();
        let result: Value = serde_json::from_str(output.stdout_text().trim()).unwrap();
        assert_eq!(result["is_error"], false, "{result}");
        result
    };
    let first = run(&[
        "-p",
        "run it",
        "--output-format",
        "json",
        "--allowedTools",
        "Bash",
    ]);
    let session = first["session_id"].as_str().unwrap().to_owned();
    let usage = sandbox.ctxhooks_json(&["usage", "--session", &session, "--json"]);
    let contexts: Vec<u64> = usage["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["context_tokens"].as_u64().unwrap())
        .collect();
    assert_eq!(contexts, [30_000, 31_000], "the Stop hook logged usage");
    // The plugin's MCP server: the CLI starts it from the same folder and names its tools.
    let listed = sandbox
        .run_claude(&server)
        .args(["mcp", "list"])
        .env("CTXHOOKS_BIN_DIR", &bin_dir)
        .success()
        .stdout_text();
    assert!(
        listed.contains("plugin:ctxhooks:ctxhooks") && listed.contains("Connected"),
        "{listed}"
    );
    let named = server.served().iter().any(|served| {
        served
            .body
            .to_string()
            .contains("mcp__plugin_ctxhooks_ctxhooks__search")
    });
    assert!(
        named,
        "the plugin's search tool was not offered to the model"
    );
    let sidecar = fs_err::read_to_string(
        sandbox
            .state_dir()
            .join(format!("sessions/{session}/provenance.jsonl")),
    )
    .unwrap();
    assert!(
        sidecar.contains("PreToolUse") && sidecar.contains("PostToolUse"),
        "{sidecar}"
    );
    run(&[
        "-p",
        "/compact keep the ids",
        "--resume",
        &session,
        "--output-format",
        "json",
    ]);
    // After the compaction, the note names the plugin's MCP tool.
    let transcript = fs_err::read_to_string(sandbox.transcript_path(&session)).unwrap();
    assert!(
        transcript.contains("call the MCP tool mcp__plugin_ctxhooks_ctxhooks__recall with session"),
        "the SessionStart note does not name the plugin's tool"
    );
    let snapshots = sandbox.ctxhooks_json(&["archives", "--session", &session, "--json"]);
    let snapshots = snapshots.as_array().unwrap();
    assert_eq!(snapshots.len(), 1, "the PreCompact hook took a snapshot");
    assert_eq!(snapshots[0]["trigger"], "manual");
    assert_eq!(sandbox.problems(), Vec::<String>::new());

    // Doctor sees the plugin's hooks, with their programs, and nothing missing.
    let report = sandbox
        .run_ctxhooks(["doctor", "--json"])
        .env("CTXHOOKS_BIN_DIR", &bin_dir)
        .json();
    let plugin = &report["plugins"][0];
    assert_eq!(plugin["id"], "ctxhooks@ctxhooks");
    assert_eq!(plugin["enabled"], true);
    assert_eq!(plugin["hooks"].as_array().unwrap().len(), 9);
    let codes: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|finding| finding["code"].as_str())
        .collect();
    assert!(!codes.contains(&"not_installed"), "{codes:?}");
    assert!(!codes.contains(&"plugin_hook_binary_missing"), "{codes:?}");
}
