//! Context usage per request, as the hooks log it and the commands read it: the ingest that
//! turns transcript lines into request rows (`ingest.rs`), where it stopped (`cursor.rs`), the
//! locked append to the usage log (`log.rs`), and Claude Code's own auto-compact trigger rule
//! (`threshold.rs`).

pub mod cursor;
pub mod ingest;
pub mod log;
pub mod threshold;
