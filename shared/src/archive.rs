//! The transcript archive: snapshots taken before each compaction, listed, verified and pruned.

pub mod catalog;
pub mod prune;
pub mod snapshot;
pub mod subagents;

pub use catalog::{
    BrokenSnapshot, Catalog, SnapshotEntry, VerifyOutcome, list_snapshots, scan_archive,
    verify_snapshot,
};
pub use snapshot::{SnapshotFile, SnapshotMetadata, SnapshotRequest, take_snapshot};
pub use subagents::SkippedFile;

/// The folder, inside a session's folder, that holds its snapshots.
pub const ARCHIVE_DIR_NAME: &str = "archive";

/// The metadata file inside each snapshot folder.
pub const METADATA_FILE_NAME: &str = "snapshot.json";

/// The transcript's copy inside each snapshot folder.
pub const TRANSCRIPT_FILE_NAME: &str = "transcript.jsonl";

/// Prefix of snapshot folders still being written (never listed, never a final name).
pub const TEMP_PREFIX: &str = ".tmp-";
