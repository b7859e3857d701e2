//! The transcript archive, seen by a person: list, verify and prune the snapshots, verify the
//! kept copies, restore a transcript (or every one Claude Code deleted).

pub mod cli;
pub mod prune;
pub mod prune_kept;
pub mod replaced;
pub mod restore;
pub mod restore_deleted;
pub mod text;
pub mod verify;
