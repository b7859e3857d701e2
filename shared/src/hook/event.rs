//! The Claude Code hook events ctxhooks registers for, by their names, and since which Claude Code
//! version each exists.

use crate::version::ClaudeVersion;

/// A Claude Code hook event ctxhooks registers for. Its name ([`Self::name`], `FromStr`) is
/// the variant's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::IntoStaticStr, strum::EnumString)]
pub enum HookEvent {
    /// Before a compaction (manual `/compact` or automatic).
    PreCompact,
    /// When the main agent finishes a response.
    Stop,
    /// When a sub-agent finishes.
    SubagentStop,
    /// Before a tool call runs.
    PreToolUse,
    /// After a tool call succeeded.
    PostToolUse,
    /// After a tool call that started failed.
    PostToolUseFailure,
    /// When a session starts, resumes, is cleared or has just been compacted.
    SessionStart,
    /// After a compaction, with the summary it produced.
    PostCompact,
    /// When a session ends.
    SessionEnd,
}

impl HookEvent {
    /// The event's name exactly as settings files and payloads spell it (`PreCompact`).
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The first Claude Code version that knows the event (from its CHANGELOG; for
    /// `PostToolUseFailure`, which appeared in the docs between 2.1.15 and 2.1.27, the later).
    /// A settings file that names an event the running version does not know is refused whole
    /// by versions before [`UNKNOWN_EVENTS_TOLERATED_SINCE`], every hook in it with it.
    pub const fn since(self) -> ClaudeVersion {
        match self {
            Self::Stop | Self::PreToolUse | Self::PostToolUse => ClaudeVersion(1, 0, 38),
            Self::SubagentStop => ClaudeVersion(1, 0, 41),
            Self::PreCompact => ClaudeVersion(1, 0, 48),
            Self::PostToolUseFailure => ClaudeVersion(2, 1, 27),
            Self::SessionStart => ClaudeVersion(1, 0, 62),
            Self::PostCompact => ClaudeVersion(2, 1, 76),
            Self::SessionEnd => ClaudeVersion(1, 0, 85),
        }
    }
}

/// From this version on, Claude Code skips a hook event it does not know instead of refusing
/// the whole settings file (CHANGELOG 2.1.101).
pub const UNKNOWN_EVENTS_TOLERATED_SINCE: ClaudeVersion = ClaudeVersion(2, 1, 101);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_ordered_by_their_first_version() {
        assert!(HookEvent::PostCompact.since() > ClaudeVersion(2, 1, 42));
        assert!(ClaudeVersion(2, 1, 100) < UNKNOWN_EVENTS_TOLERATED_SINCE);
    }
}
