//! Interrupt provenance, seen by a person or a ledger step: who cut each tool call off and
//! whether it ran, and the transcript relabelled for a ledger extractor.

pub mod cli_ledger_input;
pub mod cli_mark_interrupt;
pub mod cli_provenance;
pub mod ledger;
pub mod marks;
pub mod records;
pub mod session;
pub mod sidecar;
pub mod text;
pub mod transcript_lines;
pub mod verdict;
