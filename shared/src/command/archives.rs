//! The transcript archive, seen by a person: list, verify and prune the snapshots.

pub mod catalog;
pub mod cli;
pub mod prune;
