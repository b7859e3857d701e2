//! `doctor`'s look at the MCP server: whether the user scope registers `ctxhooks mcp`, and
//! whether the registered command answers: it is started, sent `initialize` and `tools/list`,
//! and given a few seconds at most (then it is killed), as Claude Code would start it.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};

use super::registration::config_path;
use ctxhooks_shared::mcp_registration::{SERVER_NAME, runs_ctxhooks_mcp};
use ctxhooks_shared::settings_file::read_settings_bytes;

/// How long the registered server has to answer both requests.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// What `doctor` found of the MCP server: its registration, and whether it answers.
#[derive(Debug, Clone, Serialize)]
pub struct McpHealth {
    /// The user scope's configuration file.
    pub config: Option<PathBuf>,
    /// The registered entry, when `ctxhooks mcp` is registered.
    pub registered: Option<Value>,
    /// The tools the server listed, when it answered.
    pub tools: Vec<String>,
    /// Why it did not answer, when it did not.
    pub problem: Option<String>,
}

/// Looks at the registration and, when there is one, asks the server for its tools.
pub fn check() -> McpHealth {
    let config = config_path().ok();
    let registered = config
        .as_deref()
        .and_then(|path| read_settings_bytes(path).ok().flatten())
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .and_then(|value| value.get("mcpServers")?.get(SERVER_NAME).cloned())
        .filter(runs_ctxhooks_mcp);
    let mut health = McpHealth {
        config,
        registered: registered.clone(),
        tools: Vec::new(),
        problem: None,
    };
    if let Some(entry) = registered {
        match ask_tools(&entry) {
            Ok(tools) => health.tools = tools,
            Err(problem) => health.problem = Some(problem),
        }
    }
    health
}

/// Starts the registered command and returns the tools it lists.
fn ask_tools(entry: &Value) -> Result<Vec<String>, String> {
    let command = entry["command"].as_str().unwrap_or_default();
    let mut process = Command::new(command);
    process
        .args(["mcp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(environment) = entry.get("env").and_then(Value::as_object) {
        for (key, value) in environment {
            if let Some(value) = value.as_str() {
                process.env(key, value);
            }
        }
    }
    let mut child = process
        .spawn()
        .map_err(|error| format!("`{command} mcp` could not be started: {error}"))?;
    let outcome = talk(&mut child);
    let _ = child.kill();
    let _ = child.wait();
    outcome
}

fn talk(child: &mut std::process::Child) -> Result<Vec<String>, String> {
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("its pipes could not be opened".to_owned());
    };
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "ctxhooks-doctor", "version": env!("CARGO_PKG_VERSION")}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ];
    for request in requests {
        writeln!(stdin, "{request}").map_err(|error| format!("it did not read: {error}"))?;
    }
    let _ = stdin.flush();
    let deadline = Instant::now() + ANSWER_WITHIN;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = received.recv_timeout(left).map_err(|_| {
            format!(
                "it did not answer `tools/list` within {} s",
                ANSWER_WITHIN.as_secs()
            )
        })?;
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            return Err(format!(
                "it wrote something that is not JSON-RPC: {line:.80}"
            ));
        };
        if message["id"] == 2 {
            return Ok(message["result"]["tools"]
                .as_array()
                .map(|tools| {
                    tools
                        .iter()
                        .filter_map(|tool| tool["name"].as_str().map(ToOwned::to_owned))
                        .collect()
                })
                .unwrap_or_default());
        }
    }
}

/// The health in words, for `doctor`'s text.
pub fn describe(health: &McpHealth) -> String {
    let place = health.config.as_deref().map_or_else(
        || "the user configuration".to_owned(),
        |path| format!("`{}`", path.display()),
    );
    match (&health.registered, &health.problem) {
        (None, _) => format!(
            "mcp server     not registered in {place} (`ctxhooks install --mcp` adds it; the \
             plugin registers it too)\n"
        ),
        (Some(_), Some(problem)) => {
            format!("mcp server     registered in {place}, but {problem}\n")
        }
        (Some(_), None) => format!(
            "mcp server     registered in {place}; answers with tools: {}\n",
            health.tools.join(", ")
        ),
    }
}
