//! `ctxhooks-stop`: the Stop and SubagentStop hook (not built yet). Always exits 0.

use std::process::ExitCode;

fn main() -> ExitCode {
    ctxhooks_shared::hook_runner::run_hook("ctxhooks-stop", ctxhooks_shared::stop::handle)
}
