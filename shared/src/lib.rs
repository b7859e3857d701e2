//! What every ctxhooks hook needs, and the rules the commands (the `ctxhooks-commands` crate)
//! read the same way. Layers, from the bottom up, each importing only from its own and the ones
//! below (the map, with the reasons, is in `docs/architecture.md`; the integration test
//! `architecture` holds the order, and that no module imports one that imports it back):
//!
//! - the leaves: [`lenient`] (JSON someone else wrote, read one field at a time), [`json_scan`]
//!   (JSON at the byte level), [`platform`] (what Unix and Windows do differently),
//!   [`version`], [`model_name`] and [`shell_word`] (each read or written one way), [`notes`]
//!   (where the rules leave a problem that does not stop their work) and [`settings_file`]
//!   (Claude Code's settings files, read);
//! - [`store`]: the state folder, its file formats, and writes that never leave a half-written
//!   file (both sides read and write it);
//! - [`tool_input`] (a tool call's input, as a summary names it) and [`mcp_registration`];
//! - [`transcript`]: reading Claude Code transcripts, one streaming typed reader;
//! - the rules both sides use, which take what they need as arguments, never the hook's
//!   frame: [`keep`] (the kept copies and snapshots) and [`compaction`] (what each compaction's
//!   summary left out), then [`usage`] (the usage ingest and the trigger rule), then [`gauge`]
//!   (the context against the trigger now);
//! - [`hook`]: the frame around every hook run and each event's body.

pub mod causes;
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
