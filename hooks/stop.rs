//! `ctxhooks-stop`: the `Stop` and `SubagentStop` hook. Reads what the transcript gained since
//! the last run and appends usage rows to `<state>/sessions/<id>/usage.jsonl`. Always exits 0.

use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    // Below the 60 s timeout `ctxhooks install` registers.
    ctxhooks_shared::hook::runner::run_hook(
        "ctxhooks-stop",
        Duration::from_secs(50),
        ctxhooks_shared::hook::stop::handle,
    )
}
