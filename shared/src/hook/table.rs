//! The hook table: every hook binary ctxhooks ships, the events it serves, its Claude Code
//! timeout, its own time budget and its work, each written once. The installer registers from
//! it, doctor checks against it, and each binary's `main` names its entry for the runner.

use std::time::Duration;

use anyhow::Result;

use crate::hook::runner::HookContext;
use crate::hook::{precompact, stop, tooluse};

/// A Claude Code hook event ctxhooks registers for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
}

impl HookEvent {
    /// The event's name exactly as settings files and payloads spell it (`PreCompact`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::PreCompact => "PreCompact",
            Self::Stop => "Stop",
            Self::SubagentStop => "SubagentStop",
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::PostToolUseFailure => "PostToolUseFailure",
        }
    }

    /// The event spelled `name`, if it is one ctxhooks registers for.
    pub fn from_name(name: &str) -> Option<Self> {
        HOOK_BINARIES
            .iter()
            .flat_map(|binary| binary.events)
            .copied()
            .find(|event| event.name() == name)
    }
}

/// One hook binary: what it is called, when Claude Code runs it, how long it may take, and the
/// work it does.
#[derive(Debug, Clone, Copy)]
pub struct HookBinary {
    /// The file name of the binary.
    pub name: &'static str,
    /// The events it is registered for, in registration order.
    pub events: &'static [HookEvent],
    /// The timeout `ctxhooks install` registers for each of its events, in seconds.
    pub timeout_seconds: u64,
    /// How long one run may take: below the timeout, so that the hook's watchdog ends an overrun
    /// (with exit 0 and a line in the error log) before Claude Code waits out its own timeout.
    pub budget: Duration,
    /// The hook's work, run inside the frame of [`crate::hook::runner::run_hook`].
    pub handle: fn(&HookContext) -> Result<()>,
}

/// `ctxhooks-precompact`: snapshots the transcript before a compaction, then brings the usage
/// log up to date. Claude Code waits for it before compacting.
pub const PRECOMPACT: HookBinary = HookBinary {
    name: "ctxhooks-precompact",
    events: &[HookEvent::PreCompact],
    timeout_seconds: 120,
    budget: Duration::from_secs(100),
    handle: precompact::handle,
};

/// `ctxhooks-stop`: appends what the transcript gained since the last run to the usage log.
pub const STOP: HookBinary = HookBinary {
    name: "ctxhooks-stop",
    events: &[HookEvent::Stop, HookEvent::SubagentStop],
    timeout_seconds: 60,
    budget: Duration::from_secs(50),
    handle: stop::handle,
};

/// `ctxhooks-tooluse`: one provenance line per tool event. It runs on every tool call.
pub const TOOLUSE: HookBinary = HookBinary {
    name: "ctxhooks-tooluse",
    events: &[
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
    ],
    timeout_seconds: 10,
    budget: Duration::from_secs(8),
    handle: tooluse::handle,
};

/// Every hook binary ctxhooks ships, in registration order.
pub const HOOK_BINARIES: &[HookBinary] = &[PRECOMPACT, STOP, TOOLUSE];

// Every budget ends before its timeout: checked when the crate compiles, not by a comment.
const _: () = {
    let mut index = 0;
    while index < HOOK_BINARIES.len() {
        let binary = &HOOK_BINARIES[index];
        assert!(
            binary.budget.as_secs() < binary.timeout_seconds,
            "a hook's budget must end before its timeout"
        );
        index += 1;
    }
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_has_one_binary_and_round_trips_its_name() {
        let events: Vec<HookEvent> = HOOK_BINARIES
            .iter()
            .flat_map(|binary| binary.events)
            .copied()
            .collect();
        assert_eq!(events.len(), 6);
        for event in &events {
            assert_eq!(HookEvent::from_name(event.name()), Some(*event));
            assert_eq!(
                events.iter().filter(|other| *other == event).count(),
                1,
                "{event:?}"
            );
        }
        assert_eq!(HookEvent::from_name("Notification"), None);
    }
}
