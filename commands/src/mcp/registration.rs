//! `ctxhooks install --mcp` and `uninstall --mcp`: the `ctxhooks` entry of `mcpServers` in the
//! user scope's `.claude.json`, written as `claude mcp add --scope user` writes it, everything
//! else in the file kept byte for byte (only the changed members are rewritten, as `install`
//! edits a settings file), atomically, with the file's mode and owner. Uninstall removes exactly
//! that entry, and only when it runs `ctxhooks mcp`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::links::resolve_links;
use crate::settings::document::SettingsDocument;
use crate::settings::write::write_settings;
use ctxhooks_shared::mcp_registration::{SERVER_NAME, runs_ctxhooks_mcp, user_config_file};
use ctxhooks_shared::store::files::PRIVATE_FILE_MODE;

/// What `--mcp` did (or, with `--dry-run`, would do).
#[derive(Debug, Clone, Serialize)]
pub struct McpChange {
    /// The configuration file.
    pub path: PathBuf,
    /// Whether the file changed.
    pub changed: bool,
    /// The entry now registered (install), or removed (uninstall).
    pub entry: Option<Value>,
    /// Why nothing was done, when that needs saying.
    pub note: Option<String>,
}

/// The entry that runs the `ctxhooks` binary at `binary` as the server.
pub fn server_entry(binary: &Path) -> Value {
    json!({
        "type": "stdio",
        "command": binary.to_string_lossy(),
        "args": ["mcp"],
        "env": {},
    })
}

/// The user scope's configuration file, links resolved (the file they lead to is edited).
pub fn config_path() -> Result<PathBuf> {
    resolve_links(&user_config_file()?)
}

/// Registers `binary` as the `ctxhooks` MCP server of the user scope.
pub fn register(path: &Path, binary: &Path, dry_run: bool) -> Result<McpChange> {
    let document = SettingsDocument::read(path)?;
    let entry = server_entry(binary);
    let mut value = document.value.clone();
    let servers = servers_mut(&mut value, path)?;
    if let Some(existing) = servers.get(SERVER_NAME)
        && !runs_ctxhooks_mcp(existing)
    {
        bail!(
            "`{}` already registers another MCP server named `{SERVER_NAME}`; it was left \
             untouched (remove it with `claude mcp remove {SERVER_NAME} --scope user` first)",
            path.display()
        );
    }
    servers.insert(SERVER_NAME.to_owned(), entry.clone());
    write_if_changed(&document, &value, dry_run, Some(entry))
}

/// Removes the `ctxhooks` MCP server from the user scope, if it is ours.
pub fn unregister(path: &Path, dry_run: bool) -> Result<McpChange> {
    let document = SettingsDocument::read(path)?;
    let mut value = document.value.clone();
    let Some(object) = value.as_object_mut() else {
        bail!(
            "`{}` is not a JSON object; it was left untouched",
            path.display()
        );
    };
    let removed = match object.get_mut("mcpServers").and_then(Value::as_object_mut) {
        Some(servers) => match servers.get(SERVER_NAME) {
            Some(entry) if runs_ctxhooks_mcp(entry) => servers.remove(SERVER_NAME),
            Some(_) => {
                return Ok(McpChange {
                    path: path.to_path_buf(),
                    changed: false,
                    entry: None,
                    note: Some(format!(
                        "the MCP server named `{SERVER_NAME}` does not run `ctxhooks mcp`; left \
                         as it is"
                    )),
                });
            }
            None => None,
        },
        None => None,
    };
    // An `mcpServers` left empty goes too: it held only what install added.
    if object
        .get("mcpServers")
        .and_then(Value::as_object)
        .is_some_and(Map::is_empty)
        && removed.is_some()
    {
        object.remove("mcpServers");
    }
    write_if_changed(&document, &value, dry_run, removed)
}

fn servers_mut<'value>(
    value: &'value mut Value,
    path: &Path,
) -> Result<&'value mut Map<String, Value>> {
    let Some(object) = value.as_object_mut() else {
        bail!(
            "`{}` is not a JSON object; it was left untouched",
            path.display()
        );
    };
    let servers = object
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    match servers.as_object_mut() {
        Some(servers) => Ok(servers),
        None => bail!(
            "`mcpServers` in `{}` is not an object; it was left untouched",
            path.display()
        ),
    }
}

fn write_if_changed(
    document: &SettingsDocument,
    value: &Value,
    dry_run: bool,
    entry: Option<Value>,
) -> Result<McpChange> {
    let changed = value != &document.value || document.original.is_none() && entry.is_some();
    if changed && !dry_run {
        let text = document.render(value)?;
        write_settings(&document.path, text.as_bytes(), PRIVATE_FILE_MODE)
            .context("failed to write Claude Code's user configuration")?;
    }
    Ok(McpChange {
        path: document.path.clone(),
        changed,
        entry,
        note: None,
    })
}
