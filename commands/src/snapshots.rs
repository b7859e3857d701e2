//! What ctxhooks keeps of a session, as the commands read it: the snapshots taken before each
//! compaction, found in the archive folders (`archives`, `report`, `history`, `export`,
//! `search`, `sessions` and `doctor` read them through here).

pub mod catalog;
