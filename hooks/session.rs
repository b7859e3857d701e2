//! `ctxhooks-session`: the `SessionStart`, `PostCompact` and `SessionEnd` hook. After a
//! compaction it tells the model (and only then prints anything: the protocol's
//! `additionalContext`) that the conversation before it is kept and how to search it; it records
//! the compaction's summary beside its snapshot, and brings the kept transcript copies up to
//! date. Always exits 0; problems go to `<state>/errors.log`.

use std::process::ExitCode;

fn main() -> ExitCode {
    ctxhooks_shared::hook::runner::run_hook(&ctxhooks_shared::hook::table::SESSION)
}
