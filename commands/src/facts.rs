//! One session's facts, computed once from its usage log: what it is (where it ran, its title
//! and kind, its CLI, when), its requests and their tally (one type that counts, sums and
//! merges), the main chain's drops (each with its class and evidence), its compactions matched
//! with their snapshots, the trigger and floor estimates, and warnings. `report`, `history`,
//! `export` and `sessions` are views of these; nothing here imports a capability (a test checks
//! it).

pub mod classify;
pub mod compactions;
pub mod drops;
pub mod estimates;
pub mod log;
pub mod report;
pub mod snapshot_check;
pub mod summary;
pub mod tally;
pub mod warnings;
