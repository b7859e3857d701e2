//! Names of the environment variables ctxhooks reads, in one place.

/// Overrides the state folder (default `${CLAUDE_CONFIG_DIR:-$HOME/.claude}/ctxhooks`).
pub const CTXHOOKS_HOME: &str = "CTXHOOKS_HOME";

/// Claude Code's configuration folder (default `$HOME/.claude`).
pub const CLAUDE_CONFIG_DIR: &str = "CLAUDE_CONFIG_DIR";

/// The folder of Claude Code's managed settings (`managed-settings.json` and
/// `managed-settings.d/`; default `/etc/claude-code` on Linux, `/Library/Application
/// Support/ClaudeCode` on macOS), where an administrator's settings sit.
pub const CTXHOOKS_MANAGED_SETTINGS_DIR: &str = "CTXHOOKS_MANAGED_SETTINGS_DIR";

/// The user's home folder.
pub const HOME: &str = "HOME";

/// The user's home folder on Windows, where Claude Code (Node's `os.homedir()`) finds it and
/// `HOME` is often not set (a program started outside Git Bash): read when `HOME` is not.
pub const USERPROFILE: &str = "USERPROFILE";

/// How long a hook waits for its stdin JSON, in milliseconds (default 5000).
pub const CTXHOOKS_STDIN_TIMEOUT_MS: &str = "CTXHOOKS_STDIN_TIMEOUT_MS";

/// How long a usage ingest waits for another one of the same session, in milliseconds (default
/// 10000).
pub const CTXHOOKS_LOCK_WAIT_MS: &str = "CTXHOOKS_LOCK_WAIT_MS";

/// Sets a hook's time budget (milliseconds) in place of its own, for tests: a test about a
/// deadline sets the one it exercises, and the test harness gives every other hook run a generous
/// one, so that a busy machine fails no test that is not about time. Not for a person's setup: a
/// budget past the timeout the installer registers lets Claude Code end the hook first.
pub const CTXHOOKS_HOOK_BUDGET_MS: &str = "CTXHOOKS_HOOK_BUDGET_MS";

/// How long the Stop hook waits for a turn's last response to reach the transcript, in
/// milliseconds (default 1000), for tests: a test about that wait sets it, and the end-to-end
/// tests give the real CLI's hooks a generous one, as a busy machine can write the response
/// later than that.
pub const CTXHOOKS_RESPONSE_WAIT_MS: &str = "CTXHOOKS_RESPONSE_WAIT_MS";

/// Lowers the size past which the logs are rotated (bytes; it can only be lowered), for tests.
pub const CTXHOOKS_ROTATE_AT_BYTES: &str = "CTXHOOKS_ROTATE_AT_BYTES";

/// The share of the auto-compact trigger at which the Stop hook warns, in percent (default 90;
/// `off` for none).
pub const CTXHOOKS_WARN_AT: &str = "CTXHOOKS_WARN_AT";

/// The project folder a Claude Code session started in (Claude Code sets it for hooks).
pub const CLAUDE_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";

/// What the variable `name` holds, when it is set and not empty.
pub fn non_empty(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|value| !value.is_empty())
}

/// The whole number the variable `name` holds (blanks around it allowed); `None` when it is
/// unset or holds anything else.
pub fn number(name: &str) -> Option<u64> {
    std::env::var(name).ok()?.trim().parse().ok()
}
