//! `ctxhooks-tooluse`: the `PreToolUse`, `PostToolUse` and `PostToolUseFailure` hook: one line per
//! event in the session's provenance sidecar.
//! Always exits 0.

use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    // Below the 10 s timeout `ctxhooks install` registers.
    ctxhooks_shared::hook::runner::run_hook(
        "ctxhooks-tooluse",
        Duration::from_secs(8),
        ctxhooks_shared::hook::tooluse::handle,
    )
}
