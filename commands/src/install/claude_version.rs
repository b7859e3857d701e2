//! Which hook events the user's Claude Code knows: `claude --version` of the `claude` on `PATH`.
//! Before 2.1.101 Claude Code skips a whole settings file that names a hook event it does not
//! know ("Files with errors are skipped entirely": every hook in it, ours and others'), so the
//! installer leaves such events out and doctor says when one is registered.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use ctxhooks_shared::hook::event::{HookEvent, UNKNOWN_EVENTS_TOLERATED_SINCE};
use ctxhooks_shared::hook::table::HOOK_BINARIES;
use ctxhooks_shared::platform::program::find_on_path;
use ctxhooks_shared::version::ClaudeVersion;

/// How long `claude --version` may take (it starts a large program).
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// The `claude` found on `PATH` and the version it reported (in JSON, as `doctor --json` shows
/// it: its path and the version as text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstalledClaude {
    pub path: PathBuf,
    /// What `claude --version` printed, read as a version.
    pub version: ClaudeVersion,
}

/// The events ctxhooks registers that `version` would refuse a settings file over.
pub fn refused_events(version: ClaudeVersion) -> Vec<HookEvent> {
    if version >= UNKNOWN_EVENTS_TOLERATED_SINCE {
        return Vec::new();
    }
    HOOK_BINARIES
        .iter()
        .flat_map(|binary| binary.events)
        .copied()
        .filter(|event| event.since() > version)
        .collect()
}

/// The first executable `claude` on `PATH` and its version, if there is one and it answers.
pub fn installed_claude() -> Option<InstalledClaude> {
    let path = find_on_path("claude")?;
    let version = ClaudeVersion::find_in(&version_output(&path)?)?;
    Some(InstalledClaude { path, version })
}

/// What `program --version` prints on stdout, within [`VERSION_TIMEOUT`] (then it is ended).
fn version_output(program: &Path) -> Option<String> {
    let mut child = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + VERSION_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut text = String::new();
    child.stdout.take()?.read_to_string(&mut text).ok()?;
    Some(text)
}

/// The note `install` and doctor give about events left out, in words.
pub fn refused_note(claude: &InstalledClaude, events: &[HookEvent]) -> String {
    let names: Vec<&str> = events.iter().map(|event| event.name()).collect();
    format!(
        "Claude Code {} (`{}`) does not know the hook event(s) {}, and before 2.1.101 it skips a \
         whole settings file that names one (every hook in it, not only ours): left out. Run \
         `ctxhooks install` again after updating Claude Code.",
        claude.version,
        claude.path.display(),
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_versions_refuse_the_newer_events() {
        let names = |version| {
            refused_events(version)
                .iter()
                .map(|event| event.name())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(ClaudeVersion(2, 1, 42)), ["PostCompact"]);
        assert_eq!(
            names(ClaudeVersion(1, 0, 70)),
            ["PostToolUseFailure", "PostCompact", "SessionEnd"]
        );
        assert!(names(ClaudeVersion(2, 1, 76)).is_empty());
        assert!(names(ClaudeVersion(2, 1, 332)).is_empty());
    }
}
