//! What ctxhooks keeps of a session, as the commands read it: the snapshots taken before each
//! compaction, found in the archive folders (`archives`, `report`, `history`, `export`,
//! `search`, `sessions` and `doctor` read them through here), and the generations of a kept
//! copy a reader passes over (`archives restore`, `recall`), and the generations that are the
//! session's other transcripts (`recall`, `view`, `compactions`).

pub mod catalog;
pub mod parts;
pub mod passed_over;
