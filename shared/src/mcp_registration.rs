//! Where Claude Code keeps the MCP servers of the user scope (`mcpServers` in `.claude.json`:
//! `$CLAUDE_CONFIG_DIR/.claude.json` when that is set, else `~/.claude.json`, as `claude mcp add
//! --scope user` writes it), and whether `ctxhooks mcp` is registered there. Read by `ctxhooks
//! install --mcp`, `doctor`, and the `SessionStart` hook after a compaction (to name the MCP
//! tool in its note).

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use crate::settings_file::{SettingsFileError, read_settings_bytes};
use crate::store::env_vars;

/// The name ctxhooks' server is registered under; Claude Code names its tools for the model
/// `mcp__ctxhooks__<tool>`.
pub const SERVER_NAME: &str = "ctxhooks";

/// The file that holds the user scope's MCP servers.
pub fn user_config_file() -> Result<PathBuf, SettingsFileError> {
    if let Some(dir) = env_vars::non_empty(env_vars::CLAUDE_CONFIG_DIR) {
        return Ok(PathBuf::from(dir).join(".claude.json"));
    }
    let home = crate::store::state_dir::home_dir().ok_or(SettingsFileError::NoHome)?;
    Ok(home.join(".claude.json"))
}

/// Returns true if and only if `entry` (an `mcpServers` value) runs `ctxhooks mcp`: a command
/// whose file name is `ctxhooks`, with the one argument `mcp`.
pub fn runs_ctxhooks_mcp(entry: &Value) -> bool {
    let command = entry.get("command").and_then(Value::as_str);
    let arguments = entry.get("args").and_then(Value::as_array);
    command.is_some_and(|command| {
        std::path::Path::new(command)
            .file_name()
            .is_some_and(|name| name == "ctxhooks")
    }) && arguments.is_some_and(|arguments| arguments.len() == 1 && arguments[0] == "mcp")
}

/// `.claude.json`, read for its `mcpServers` only (the rest, often large, is skipped unparsed).
#[derive(Deserialize)]
struct Servers {
    #[serde(rename = "mcpServers", default)]
    servers: Option<serde_json::Map<String, Value>>,
}

/// Returns true if and only if the user scope registers `ctxhooks mcp` under [`SERVER_NAME`].
/// Anything unreadable counts as not registered.
pub fn registered_for_user() -> bool {
    let Ok(path) = user_config_file() else {
        return false;
    };
    let Ok(Some(bytes)) = read_settings_bytes(&path) else {
        return false;
    };
    serde_json::from_slice::<Servers>(&bytes)
        .ok()
        .and_then(|config| config.servers)
        .and_then(|servers| servers.get(SERVER_NAME).cloned())
        .is_some_and(|entry| runs_ctxhooks_mcp(&entry))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_its_own_entry_only() {
        let ours =
            serde_json::json!({"type": "stdio", "command": "/x/bin/ctxhooks", "args": ["mcp"]});
        assert!(runs_ctxhooks_mcp(&ours));
        let other = serde_json::json!({"command": "/x/bin/other", "args": ["mcp"]});
        assert!(!runs_ctxhooks_mcp(&other));
        let more = serde_json::json!({"command": "ctxhooks", "args": ["mcp", "--x"]});
        assert!(!runs_ctxhooks_mcp(&more));
    }
}
