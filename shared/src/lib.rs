//! The library every ctxhooks binary shares. Four layers, each using only the ones above it
//! (the map, with the reasons, is in `docs/architecture.md`):
//!
//! - [`store`]: the state folder, its file formats, and writes that never leave a half-written
//!   file (both sides read and write it);
//! - [`transcript`]: reading Claude Code transcripts, one streaming typed reader;
//! - [`hook`]: what runs inside Claude Code on every event: the frame around each hook, the
//!   payload, the hook table, and the hooks' work (snapshot, usage ingest, sidecar append);
//! - [`command`]: what runs when a person or a runtime types `ctxhooks …`: the reports, the
//!   verdicts, the ledger input, doctor, the archive listing and the installer.

pub mod command;
pub mod hook;
pub mod lenient;
pub mod store;
pub mod transcript;

#[cfg(test)]
mod test_support;
