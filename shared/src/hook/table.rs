//! The hook table: every hook binary ctxhooks ships, the events it serves, and each event's
//! timeout. The installer registers from it, doctor checks against it, the runner reads its
//! budget from it.

/// One hook binary and the events it serves, with each event's timeout in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookBinary {
    /// The file name of the binary.
    pub name: &'static str,
    /// `(event, timeout in seconds)` for every event it is registered for.
    pub events: &'static [(&'static str, u64)],
}

/// Every hook binary ctxhooks ships, in registration order.
pub const HOOK_BINARIES: &[HookBinary] = &[
    HookBinary {
        name: "ctxhooks-precompact",
        events: &[("PreCompact", 120)],
    },
    HookBinary {
        name: "ctxhooks-stop",
        events: &[("Stop", 60), ("SubagentStop", 60)],
    },
    HookBinary {
        name: "ctxhooks-tooluse",
        events: &[
            ("PreToolUse", 10),
            ("PostToolUse", 10),
            ("PostToolUseFailure", 10),
        ],
    },
];
