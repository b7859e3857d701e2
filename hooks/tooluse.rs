//! `ctxhooks-tooluse`: the `PreToolUse`, `PostToolUse` and `PostToolUseFailure` hook: one line per
//! event in the session's provenance sidecar.
//! Always exits 0.

use std::process::ExitCode;

fn main() -> ExitCode {
    ctxhooks_shared::hook::runner::run_hook(&ctxhooks_shared::hook::table::TOOLUSE)
}
