//! The archive's layout and `snapshot.json`: what the `PreCompact` hook writes for each snapshot
//! and the commands read back (see docs/archive.md).

use serde::{Deserialize, Serialize};

use super::trigger::Trigger;

/// The metadata file inside each snapshot folder.
pub const METADATA_FILE_NAME: &str = "snapshot.json";

/// The transcript's copy inside each snapshot folder.
pub const TRANSCRIPT_FILE_NAME: &str = "transcript.jsonl";

/// Prefix of snapshot folders still being written (never listed, never a final name).
pub const TEMP_PREFIX: &str = ".tmp-";

/// Version of the `snapshot.json` layout.
pub const SNAPSHOT_SCHEMA: u32 = 1;

/// What a file inside a snapshot is.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FileRole {
    /// The session's transcript.
    Transcript,
    /// A sub-agent's transcript.
    Subagent,
}

/// One file inside a snapshot.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SnapshotFile {
    /// Path inside the snapshot folder.
    pub path: String,
    /// Where it was copied from.
    pub source: String,
    /// What the file is.
    pub role: FileRole,
    /// Bytes copied.
    pub size: u64,
    /// SHA-256 of the bytes copied, lowercase hex.
    pub sha256: String,
}

/// `snapshot.json`: everything recorded about one snapshot.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SnapshotMetadata {
    /// Layout version, [`SNAPSHOT_SCHEMA`].
    pub schema: u32,
    /// The snapshot folder's name (sorts by time).
    pub name: String,
    /// The session.
    pub session_id: String,
    /// `manual` or `auto`.
    pub trigger: Trigger,
    /// What the user typed after `/compact`; null for automatic compactions.
    pub custom_instructions: Option<String>,
    /// When the snapshot was taken (RFC 3339, UTC, microseconds).
    pub created_at: String,
    /// The transcript's path.
    pub source_path: String,
    /// The transcript copy's size in bytes.
    pub size: u64,
    /// The transcript copy's SHA-256.
    pub sha256: String,
    /// Every file in the snapshot, the transcript first.
    pub files: Vec<SnapshotFile>,
    /// Subagent files that could not be examined or copied (the snapshot holds the rest).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedFile>,
}

/// A file that looked like a subagent transcript but could not be examined or copied.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SkippedFile {
    /// Its path on disk.
    pub source: String,
    /// Why it was skipped.
    pub error: String,
}
