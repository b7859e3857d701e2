//! The hook table: every hook binary ctxhooks ships, the events it serves, its Claude Code
//! timeout, its own time budget and its work, each written once. The installer registers from
//! it, doctor checks against it, and each binary's `main` names its entry for the runner.

use std::time::Duration;

use anyhow::Result;

use crate::hook::context::HookContext;
use crate::hook::event::HookEvent;
use crate::hook::{precompact, session, stop, tooluse};
use crate::keep::snapshot;

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
    events: tooluse::EVENTS,
    timeout_seconds: 10,
    budget: Duration::from_secs(8),
    handle: tooluse::handle,
};

/// `ctxhooks-session`: after a compaction, tells the model its earlier conversation is kept and
/// how to search it (`SessionStart` with `source: "compact"`); records the compaction's summary
/// beside its snapshot (`PostCompact`); brings the kept copies up to date (`PostCompact`,
/// `SessionEnd`). Every `SessionEnd` hook shares a 1.5 s budget (a larger registered timeout
/// would raise it for all of them): the timeout is 1 s, and the work stops in time.
pub const SESSION: HookBinary = HookBinary {
    name: "ctxhooks-session",
    events: &[
        HookEvent::SessionStart,
        HookEvent::PostCompact,
        HookEvent::SessionEnd,
    ],
    timeout_seconds: 1,
    budget: Duration::from_millis(900),
    handle: session::handle,
};

/// Every hook binary ctxhooks ships, in registration order.
pub const HOOK_BINARIES: &[HookBinary] = &[PRECOMPACT, STOP, TOOLUSE, SESSION];

// The snapshot module judges a folder abandoned by the timeout of its writer, this hook.
const _: () = assert!(
    PRECOMPACT.timeout_seconds == snapshot::WRITER_TIMEOUT.as_secs(),
    "the PreCompact hook's timeout must be the one snapshots take for their writer's"
);

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
        assert_eq!(events.len(), 9);
        for event in &events {
            assert_eq!(event.name().parse(), Ok(*event));
            assert_eq!(
                events.iter().filter(|other| *other == event).count(),
                1,
                "{event:?}"
            );
        }
        assert!("Notification".parse::<HookEvent>().is_err());
    }
}
