//! Claude Code's own cleanup of old transcripts: the `cleanupPeriodDays` it reads
//! (`settings.rs`, one reader for `doctor`, `sessions` and `archives restore --deleted`) and
//! what its sweep does to one transcript, given when it was last written (`sweep.rs`), in words
//! (`text.rs`).

pub mod settings;
pub mod sweep;
pub mod text;
