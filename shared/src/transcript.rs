//! Reading Claude Code transcripts: whole lines from an offset, and what each line means.

pub mod entry;
pub mod lines;
