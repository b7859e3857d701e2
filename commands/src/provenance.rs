//! Interrupt provenance, seen by a person or a ledger step: who cut each tool call off and
//! whether it ran, and the transcript relabelled for a ledger extractor.
//!
//! The model reads a transcript once, streaming (`analysis`: `records` classifies each record,
//! `groups` finds the runs of interrupt records, `calls` keeps the tool calls; `load` finds the
//! files, and every session's marks that match nothing for `doctor`; `sidecar` reads the marks
//! and hook events), matches the marks to the groups (`marks`, with the marks that match none)
//! and judges each call (`verdict`, with typed `evidence`). `text` words it all for people and
//! `json` for programs; `ledger` copies the transcript a second time for the ledger extractor.

pub mod analysis;
pub mod calls;
pub mod cli_ledger_input;
pub mod cli_mark_interrupt;
pub mod cli_provenance;
pub mod evidence;
pub mod groups;
pub mod json;
pub mod ledger;
pub mod load;
pub mod marks;
pub mod records;
pub mod sidecar;
pub mod text;
pub mod verdict;
