//! Reading Claude Code transcripts: whole lines from an offset, and each line read once into a
//! typed record.

pub mod content;
pub mod conversation;
pub mod direct;
pub mod file;
pub mod lines;
pub mod look;
pub mod origin;
pub mod record;
pub mod schema;
