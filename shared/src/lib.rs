//! What every ctxhooks hook needs, and the rules the commands (the `ctxhooks-commands` crate)
//! read the same way. Layers, each using only the ones above it (the map, with the reasons, is
//! in `docs/architecture.md`):
//!
//! - [`version`] (a leaf): a Claude Code version, read one way; [`model_name`] (a leaf): a model
//!   name compared one way, its `[1m]` window selection told apart; [`shell_word`] (a leaf): text
//!   as one word of a shell command ctxhooks prints;
//! - [`platform`] (a leaf): what Unix and Windows do differently, one module per concern;
//! - [`store`]: the state folder, its file formats, and writes that never leave a half-written
//!   file (both sides read and write it);
//! - [`transcript`]: reading Claude Code transcripts, one streaming typed reader;
//! - the rules both sides use: [`keep`] (the kept copies and snapshots), [`usage`] (the usage
//!   ingest and the trigger rule), [`gauge`] (the context against the trigger now),
//!   [`compaction`] (what each compaction's summary left out), and [`settings_file`] (Claude
//!   Code's settings files, read);
//! - [`hook`]: the frame around every hook run and each event's body.

pub mod compaction;
pub mod gauge;
pub mod hook;
pub mod json_scan;
pub mod keep;
pub mod lenient;
pub mod mcp_registration;
pub mod model_name;
pub mod notes;
pub mod platform;
pub mod settings_file;
pub mod shell_word;
pub mod store;
pub mod tool_input;
pub mod transcript;
pub mod usage;
pub mod version;

#[cfg(any(test, feature = "test-support"))]
pub mod test_support;
