//! `ctxhooks install --statusline`: the `statusLine` entry that runs `ctxhooks statusline`, set
//! only where no status line is configured; where one is, the exact way to add the segment to it
//! instead (nothing is changed). What was set is recorded like the hook handlers, so `uninstall`
//! takes exactly it out again.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

use crate::render::shell::shell_word_bare_equals;
use ctxhooks_shared::platform::program::shell_path;

/// What install did about the status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusLineAction {
    /// No status line was configured: ours was set.
    Added,
    /// Ours was there with another command (the binaries moved): brought up to date.
    Updated,
    /// Ours was there already.
    Kept,
    /// Another status line is configured: left as it is; `advice` says how to add the segment.
    LeftAlone,
    /// Uninstall: ours was taken out.
    Removed,
    /// Uninstall: the recorded status line was changed since; left as it is.
    ChangedSince,
}

/// The status line part of an install or uninstall outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatusLineOutcome {
    /// What happened.
    pub action: StatusLineAction,
    /// The `statusLine` value concerned (ours, or the one left alone).
    pub value: Value,
    /// The settings file that holds the one left alone (when it is another file).
    pub configured_in: Option<PathBuf>,
    /// How to add the ctxhooks segment to the status line left alone.
    pub advice: Option<String>,
}

/// What an install is asked to do about the status line. The default, no `--statusline`: only
/// keep it up to date where it is ours already.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusLinePlan {
    /// `--statusline` was given.
    pub requested: bool,
    /// Status lines configured in the other scopes' settings files (Claude Code shows one of
    /// them; setting ours in this file could hide it).
    pub elsewhere: Vec<(PathBuf, Value)>,
}

/// The `statusLine` value that runs `ctxhooks statusline` from `ctxhooks` (a shell command: Claude
/// Code runs a status line through the shell, Git Bash on Windows, which takes the path with
/// forward slashes).
pub fn status_line_value(ctxhooks: &Path) -> Value {
    json!({
        "type": "command",
        "command": format!("{} statusline", shell_word_bare_equals(&shell_path(ctxhooks))),
    })
}

/// How to add the ctxhooks segment to `existing`, the status line configured in `path`: for
/// ccstatusline, its Custom Command widget; for any other command, a wrapper that reads the JSON
/// once and gives it to both.
pub fn compose_advice(existing: &Value, path: &Path, ctxhooks: &Path) -> String {
    let ours = format!(
        "{} statusline",
        shell_word_bare_equals(&shell_path(ctxhooks))
    );
    let command = existing.get("command").and_then(Value::as_str);
    match command {
        Some(command) if command.contains("ccstatusline") => format!(
            "a status line is configured in `{}` (ccstatusline); nothing was changed. To add \
             the ctxhooks segment, run ccstatusline's configurator (`{command}` in a terminal), \
             add a Custom Command widget with the command `{ours} --plain` (ccstatusline pipes \
             Claude Code's JSON to it; enable \"preserve colors\" and drop --plain for colour)",
            path.display()
        ),
        Some(command) => format!(
            "a status line is configured in `{}`: `{command}`; nothing was changed. To show the \
             ctxhooks segment beside it, set its `command` to: sh -c 'input=$(cat); printf \
             \"%s · %s\\n\" \"$(printf %s \"$input\" | {mine})\" \"$(printf %s \"$input\" | \
             {ours})\"'",
            path.display(),
            mine = command.replace('\'', r"'\''"),
            ours = ours.replace('\'', r"'\''"),
        ),
        None => format!(
            "a status line is configured in `{}` that is not a command; nothing was changed. \
             The ctxhooks segment is the command `{ours}` (it reads the JSON Claude Code pipes \
             to a status line)",
            path.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Returns true if and only if `value` is a command status line that runs `ctxhooks
    /// statusline` (ours, wherever its binary is).
    fn runs_ctxhooks_statusline(value: &Value) -> bool {
        value
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(|command| command.contains("ctxhooks") && command.contains(" statusline"))
    }

    #[test]
    fn the_status_line_command_is_one_quoted_word_and_recognised() {
        let value = status_line_value(Path::new("/opt/my tools/ctxhooks"));
        assert_eq!(
            value,
            json!({"type": "command", "command": "'/opt/my tools/ctxhooks' statusline"})
        );
        assert!(runs_ctxhooks_statusline(&value));
        assert!(!runs_ctxhooks_statusline(
            &json!({"type": "command", "command": "ccstatusline"})
        ));
    }

    #[test]
    fn the_advice_names_the_exact_command() {
        let ctxhooks = Path::new("/b/ctxhooks");
        let path = Path::new("/home/me/.claude/settings.json");
        let cc = compose_advice(
            &json!({"type": "command", "command": "npx -y ccstatusline@latest"}),
            path,
            ctxhooks,
        );
        assert!(
            cc.contains("Custom Command widget with the command `/b/ctxhooks statusline --plain`")
        );
        let own = compose_advice(
            &json!({"type": "command", "command": "~/bin/line"}),
            path,
            ctxhooks,
        );
        assert!(
            own.contains("$(printf %s \"$input\" | ~/bin/line)"),
            "{own}"
        );
        assert!(own.contains("| /b/ctxhooks statusline)"), "{own}");
    }
}
