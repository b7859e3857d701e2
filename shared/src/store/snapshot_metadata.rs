//! The archive's layout and `snapshot.json`: what the `PreCompact` hook writes for each snapshot
//! and the commands read back (see docs/archive.md). Schema 1 snapshots hold full copies of
//! their files; schema 2 snapshots hold none and say which bytes of which kept copy
//! (`store/kept.rs`) each file is. Also which snapshot is the newest finished one, which the
//! `PostCompact` and `SessionStart` hooks read back.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::files;
use super::trigger::Trigger;

/// Why the newest snapshot could not be found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs, reason = "each variant's message says what it is")]
pub enum SnapshotListError {
    #[error("failed to list the session's snapshots")]
    List(#[source] io::Error),
    #[error("failed to look at a snapshot")]
    Look(#[source] io::Error),
}

/// The metadata file inside each snapshot folder.
pub const METADATA_FILE_NAME: &str = "snapshot.json";

/// Prefix of snapshot folders still being written (never listed, never a final name).
pub const TEMP_PREFIX: &str = ".tmp-";

/// Version of the `snapshot.json` layout this version writes: 2, the files referenced in the
/// kept copies. Schema 1 (full copies in the folder) is still read.
pub const SNAPSHOT_SCHEMA: u32 = 2;

/// What `PostCompact` recorded beside a snapshot: the summary the compaction produced.
pub const COMPACT_SUMMARY_FILE_NAME: &str = "compact-summary.json";

/// What `PreCompact` recorded beside a snapshot: what the conversation held since the previous
/// compaction, for the note after this one (format in `compaction/segment_file.rs`).
pub const SEGMENT_FILE_NAME: &str = "segment.json";

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
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct SnapshotFile {
    /// Path inside the snapshot folder.
    pub path: String,
    /// Where it was copied from.
    pub source: String,
    pub role: FileRole,
    /// Bytes copied.
    pub size: u64,
    /// SHA-256 of the bytes copied, lowercase hex.
    pub sha256: String,
    /// Schema 2: the kept copy that holds the file's bytes (its first `size` bytes); the
    /// snapshot folder holds no copy. Absent in schema 1, where `path` is a full copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<KeptReference>,
}

/// Where a schema 2 snapshot's file is kept: a generation of a kept copy.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct KeptReference {
    /// The kept transcript's name inside `kept/` (`transcript.jsonl`, `subagents/…`).
    pub name: String,
    /// The generation, from 1.
    pub generation: u32,
}

/// `compact-summary.json`, written by the `PostCompact` hook into the snapshot its compaction
/// began with.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct CompactSummary {
    /// When it was recorded (RFC 3339 UTC, microseconds).
    pub recorded_at: String,
    /// `manual` or `auto`, as `PostCompact` said.
    pub trigger: Trigger,
    /// The summary the compaction produced.
    pub compact_summary: String,
}

/// `snapshot.json`: everything recorded about one snapshot.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct SnapshotMetadata {
    /// Layout version, [`SNAPSHOT_SCHEMA`].
    pub schema: u32,
    /// The snapshot folder's name (sorts by time).
    pub name: String,
    pub session_id: String,
    /// `manual` or `auto`.
    pub trigger: Trigger,
    /// What the user typed after `/compact`; null for automatic compactions.
    pub custom_instructions: Option<String>,
    /// When the snapshot was taken (RFC 3339, UTC, microseconds).
    pub created_at: String,
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
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct SkippedFile {
    /// Its path on disk.
    pub source: String,
    pub error: String,
}

/// The newest finished snapshot folder of `archive` (names sort by time); `None` when there is
/// none. A folder that cannot be listed or looked at is an error that names why (permission
/// denied is not "no snapshot").
pub fn newest_snapshot(archive: &Path) -> Result<Option<PathBuf>, SnapshotListError> {
    let Some(entries) =
        files::present(fs_err::read_dir(archive)).map_err(SnapshotListError::List)?
    else {
        return Ok(None);
    };
    let mut finished = Vec::new();
    for entry in entries {
        let entry = entry.map_err(SnapshotListError::List)?;
        let is_folder = entry.file_type().map_err(SnapshotListError::Look)?.is_dir();
        if is_folder && !entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            finished.push(entry.path());
        }
    }
    Ok(finished
        .into_iter()
        .max_by(|left, right| left.file_name().cmp(&right.file_name())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_archive_is_no_snapshot_and_a_file_in_its_place_fails_to_list() {
        let folder = crate::test_support::TempFolder::new("newest-snapshot");
        let archive = folder.join("archive");
        assert!(newest_snapshot(&archive).unwrap().is_none());
        fs_err::write(&archive, b"").unwrap();
        let error = newest_snapshot(&archive).unwrap_err();
        assert!(matches!(error, SnapshotListError::List(_)), "{error:?}");
    }
}
