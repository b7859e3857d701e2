//! What each compaction took: the items of the conversation since the previous compaction (a
//! segment), whether the compaction's summary names each one (one rule, `naming.rs`), and the
//! note after a compaction that lists what it left out.

pub mod items;
pub mod latest;
pub mod naming;
pub mod note;
pub mod segment_file;
pub mod verdict;
