//! `ctxhooks-precompact`: the `PreCompact` hook. Reads the payload (`session_id`,
//! `transcript_path`, `trigger`, `custom_instructions`) from stdin, snapshots the transcript
//! into `<state>/sessions/<id>/archive/`, prints nothing and always exits 0; problems go to
//! `<state>/errors.log`.

use std::process::ExitCode;

fn main() -> ExitCode {
    ctxhooks_shared::hook::runner::run_hook(&ctxhooks_shared::hook::table::PRECOMPACT)
}
