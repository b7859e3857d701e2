//! The handler objects `ctxhooks install` writes into a settings file, built from the hook table.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::{Value, json};

use ctxhooks_shared::hook::table::HOOK_BINARIES;
use ctxhooks_shared::platform::program::{binary_file_name, binary_name, shell_path};

/// The `args` of every handler we write. Its presence makes Claude Code spawn `command`
/// directly (exec form: no shell, so a path with spaces needs no quoting). Change it here only.
pub const HANDLER_ARGS: &[&str] = &[];

/// One handler we own: the event it is registered under and its exact JSON.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OwnedHandler {
    /// The hook event, such as `PreCompact`.
    pub event: String,
    /// The handler object exactly as written into the settings file.
    pub handler: Value,
}

impl OwnedHandler {
    /// Whether this is `handler` registered under `event`.
    pub fn is(&self, event: &str, handler: &Value) -> bool {
        self.event == event && self.handler == *handler
    }
}

/// The handler object for `binary` at `timeout` seconds, in exec form. On Windows the path has
/// forward slashes (`C:/Users/me/.local/bin/ctxhooks-stop.exe`), which Windows takes as well as
/// Git Bash does, should a Claude Code without exec form run it through that shell.
pub fn handler_json(binary: &Path, timeout: u64) -> Value {
    json!({
        "type": "command",
        "command": shell_path(binary),
        "args": HANDLER_ARGS,
        "timeout": timeout,
    })
}

/// The folder that holds the running `ctxhooks` binary, with symlinks resolved.
pub fn install_dir() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("failed to find the running `ctxhooks` binary")?;
    let exe = ctxhooks_shared::platform::canonical::canonicalize(&exe)
        .context("failed to resolve the running binary's path")?;
    exe.parent()
        .map(Path::to_path_buf)
        .context("the running binary has no parent folder")
}

/// The handlers to register for the binaries present in `dir`, in registration order.
pub fn planned_handlers(dir: &Path) -> Vec<OwnedHandler> {
    HOOK_BINARIES
        .iter()
        .map(|binary| (binary, dir.join(binary_file_name(binary.name))))
        .filter(|(_, path)| path.is_file())
        .flat_map(|(binary, path)| {
            binary.events.iter().map(move |event| OwnedHandler {
                event: event.name().to_owned(),
                handler: handler_json(&path, binary.timeout_seconds),
            })
        })
        .collect()
}

/// Whether `handler` is a command handler whose program's file name is one of our binaries
/// (an exact match, not a substring; on Windows with or without `.exe`), wherever it lives.
pub fn is_ctxhooks_command(handler: &Value) -> bool {
    handler
        .get("command")
        .and_then(Value::as_str)
        .and_then(|command| Path::new(command).file_name())
        .and_then(|name| name.to_str())
        .map(binary_name)
        .is_some_and(|name| HOOK_BINARIES.iter().any(|binary| binary.name == name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handler_is_exec_form_with_seconds() {
        let handler = handler_json(Path::new("/opt/my tools/ctxhooks-stop"), 60);
        assert_eq!(
            serde_json::to_string(&handler).unwrap(),
            r#"{"type":"command","command":"/opt/my tools/ctxhooks-stop","args":[],"timeout":60}"#
        );
        assert!(is_ctxhooks_command(&handler));
        assert!(!is_ctxhooks_command(
            &json!({"type": "command", "command": "/bin/not-ctxhooks-stop"})
        ));
    }
}
