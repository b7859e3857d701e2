//! `ctxhooks-stop`: the `Stop` and `SubagentStop` hook. Reads what the transcript gained since
//! the last run and appends usage rows to `<state>/sessions/<id>/usage.jsonl`. Always exits 0.

use std::process::ExitCode;

fn main() -> ExitCode {
    ctxhooks_shared::hook::runner::run_hook(&ctxhooks_shared::hook::table::STOP)
}
