//! How close a session is to its auto-compact trigger, seen live: `ctxhooks statusline` (a
//! Claude Code status line segment, or a custom command for ccstatusline and the like) and
//! `ctxhooks gauge` (the same for a runtime, with `--json`). Both read the session's gauge file,
//! which the Stop hook keeps (`ctxhooks-shared`'s `gauge.rs`), and never a transcript or a log.

pub mod cli_gauge;
pub mod cli_statusline;
pub mod segment;
pub mod status_input;
pub mod text;
