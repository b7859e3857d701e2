//! `ctxhooks-precompact`: the `PreCompact` hook. Reads the payload (`session_id`,
//! `transcript_path`, `trigger`, `custom_instructions`) from stdin, snapshots the transcript
//! into `<state>/sessions/<id>/archive/`, prints nothing and always exits 0; problems go to
//! `<state>/errors.log`.

use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    // Below the 120 s timeout `ctxhooks install` registers.
    ctxhooks_shared::hook::runner::run_hook(
        "ctxhooks-precompact",
        Duration::from_secs(100),
        ctxhooks_shared::hook::precompact::handle,
    )
}
