//! Reading Claude Code transcripts: whole lines from an offset, and each line read once into a
//! typed record. The record's reading, from the bottom up: the direct reader's machinery
//! (`direct`) and the `table!` macro (`table`, with the tests' `shape`), the values that are not
//! plain objects of keys (`values`, `content`), the table of the format's keys (`schema`), and
//! what a record means (`record`).

pub mod content;
pub mod conversation;
pub mod direct;
pub mod file;
pub mod lines;
pub mod look;
pub mod origin;
pub mod record;
pub mod schema;
#[cfg(any(test, feature = "test-support"))]
pub mod shape;
mod table;
pub mod values;
