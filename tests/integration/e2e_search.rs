//! `ctxhooks mcp` end to end with the pinned CLI: `install --mcp` registers the server in the
//! user's `.claude.json`, the CLI starts it and offers its tools to the model as
//! `mcp__ctxhooks__…`, the scripted model calls `search`, and the next request the model server
//! receives holds the tool's result, naming a phrase said in an earlier session.

use serde_json::{Value, json};

use crate::support::claude::Sandbox;
use crate::support::model_server::{Block, ModelServer, Scripted, Usage};

/// The tool names a request offered the model.
fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|tool| tool["name"].as_str().map(ToOwned::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The text of every `tool_result` in a request's last message.
fn last_tool_results(body: &Value) -> String {
    let Some(content) = body["messages"]
        .as_array()
        .and_then(|messages| messages.last())
        .and_then(|message| message["content"].as_array())
    else {
        return String::new();
    };
    content
        .iter()
        .filter(|block| block["type"] == "tool_result")
        .map(|block| match &block["content"] {
            Value::String(text) => text.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|part| part["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_model_calls_the_search_tool_and_reads_an_earlier_sessions_words() {
    let Some(sandbox) = Sandbox::new("search-mcp") else {
        return;
    };
    let server = ModelServer::start();
    sandbox.install_hooks();
    // The user scope, where Claude Code reads it (`~/.claude.json`; the CLI runs without
    // CLAUDE_CONFIG_DIR here).
    sandbox
        .run_ctxhooks(["install", "--scope", "project", "--mcp"])
        .env_remove("CLAUDE_CONFIG_DIR")
        .success();
    let config: Value =
        serde_json::from_slice(&fs_err::read(sandbox.home.join(".claude.json")).unwrap()).unwrap();
    assert_eq!(config["hasCompletedOnboarding"], true, "{config:#}");
    assert_eq!(config["mcpServers"]["ctxhooks"]["args"], json!(["mcp"]));

    // An earlier session says the phrase.
    server.push([Scripted::text(
        "Agreed: the release is called marmalade falcon.",
        Usage::context(20_000),
    )]);
    let first = sandbox.prompt(&server, "name the release", None);
    let earlier = first["session_id"].as_str().unwrap().to_owned();

    // A new session: the model searches for it through the MCP tool.
    server.push([
        Scripted {
            blocks: vec![Block::ToolUse {
                name: "ToolSearch".to_owned(),
                input: json!({"query": "select:mcp__ctxhooks__search", "max_results": 1}),
            }],
            usage: Usage::context(20_500),
        },
        Scripted {
            blocks: vec![Block::ToolUse {
                name: "mcp__ctxhooks__search".to_owned(),
                input: json!({"query": "\"marmalade falcon\""}),
            }],
            usage: Usage::context(21_000),
        },
        Scripted::text("It was marmalade falcon.", Usage::context(22_000)),
    ]);
    let output = sandbox
        .run_claude(&server)
        .args([
            "-p",
            "what was the release called?",
            "--output-format",
            "json",
            "--allowedTools",
            "mcp__ctxhooks__search",
        ])
        .success();
    let result: Value = serde_json::from_str(output.stdout_text().trim()).unwrap();
    assert_eq!(result["is_error"], false, "{result}");

    let served = server.served();
    let offered = served
        .iter()
        .find(|served| {
            served
                .body
                .to_string()
                .contains("what was the release called?")
        })
        .map(|served| tool_names(&served.body))
        .unwrap_or_default();
    // Claude Code 2.1.332 defers MCP tools: the first request names them (to be loaded with
    // ToolSearch) or, once loaded, offers their schemas.
    let first_request = served
        .iter()
        .find(|served| {
            served
                .body
                .to_string()
                .contains("what was the release called?")
        })
        .map(|served| served.body.to_string())
        .unwrap_or_default();
    for tool in ["search", "recall", "sessions", "gauge"] {
        let name = format!("mcp__ctxhooks__{tool}");
        assert!(
            offered.contains(&name) || first_request.contains(&name),
            "{name} neither offered nor named: {offered:?}"
        );
    }
    let loaded = served
        .iter()
        .any(|served| tool_names(&served.body).contains(&"mcp__ctxhooks__search".to_owned()));
    let answered = served
        .iter()
        .map(|served| last_tool_results(&served.body))
        .find(|text| !text.is_empty())
        .unwrap_or_default();
    assert!(loaded, "ToolSearch did not load the search tool's schema");
    assert!(answered.contains("[marmalade falcon]"), "{answered}");
    assert!(answered.contains(&earlier[..8]), "{answered}");
}
