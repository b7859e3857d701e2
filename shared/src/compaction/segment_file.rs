//! `segment.json` beside a snapshot: what the conversation held since the previous compaction,
//! as `PreCompact`'s ingest left it, for the note after the compaction the snapshot began.

use std::path::Path;

use chrono::{SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

use super::items::SegmentItems;
use crate::store::files::{self, FileError};
use crate::store::snapshot_metadata::SEGMENT_FILE_NAME;

/// Why `segment.json` could not be written or read (each variant's words are the ones a person
/// reads).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs, reason = "each variant's message says what it is")]
pub enum SegmentError {
    #[error("failed to serialize the segment")]
    Serialize(#[source] serde_json::Error),
    #[error("failed to record the segment beside the snapshot")]
    Write(#[source] FileError),
    #[error("failed to read the segment beside the snapshot")]
    Read(#[source] FileError),
    #[error("the segment beside the snapshot is not valid")]
    Invalid(#[source] serde_json::Error),
}

/// Version of the `segment.json` layout.
pub const SEGMENT_SCHEMA: u32 = 1;

/// The most of a `segment.json` read: it holds a bounded list (a few kilobytes).
const SEGMENT_FILE_LIMIT: u64 = 1024 * 1024;

/// `segment.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SegmentRecord {
    /// [`SEGMENT_SCHEMA`].
    pub schema: u32,
    /// When it was recorded (RFC 3339 UTC, microseconds).
    pub recorded_at: String,
    /// The transcript read, as the hook was given it.
    pub transcript: String,
    /// The byte offset the ingest reached: the compaction's boundary is written after it.
    pub offset: u64,
    /// What the main chain held since the previous compaction (bounded: see `items.rs`).
    pub items: SegmentItems,
}

impl SegmentRecord {
    /// A record made now.
    pub fn now(transcript: &Path, offset: u64, items: SegmentItems) -> Self {
        Self {
            schema: SEGMENT_SCHEMA,
            recorded_at: Utc::now().to_rfc3339_opts(SecondsFormat::Micros, true),
            transcript: transcript.to_string_lossy().into_owned(),
            offset,
            items,
        }
    }

    /// Writes it into `snapshot` (atomically, 0600).
    pub fn write(&self, snapshot: &Path) -> Result<(), SegmentError> {
        files::write_atomic(
            &snapshot.join(SEGMENT_FILE_NAME),
            &serde_json::to_vec(self).map_err(SegmentError::Serialize)?,
            files::PRIVATE_FILE_MODE,
        )
        .map_err(SegmentError::Write)
    }

    /// The record in `snapshot`, `None` when there is none.
    pub fn read(snapshot: &Path) -> Result<Option<Self>, SegmentError> {
        let Some(bytes) =
            files::read_state_file_within(&snapshot.join(SEGMENT_FILE_NAME), SEGMENT_FILE_LIMIT)
                .map_err(SegmentError::Read)?
        else {
            return Ok(None);
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(SegmentError::Invalid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{TempFolder, causes_of};

    #[test]
    fn a_segment_that_is_not_one_is_said_in_the_same_words() {
        let snapshot = TempFolder::new("segment-invalid");
        assert!(SegmentRecord::read(snapshot.path()).unwrap().is_none());
        fs_err::write(snapshot.join(SEGMENT_FILE_NAME), "[]").unwrap();
        let error = SegmentRecord::read(snapshot.path()).unwrap_err();
        assert!(matches!(error, SegmentError::Invalid(_)), "{error:?}");
        let causes = causes_of(&error);
        assert_eq!(causes[0], "the segment beside the snapshot is not valid");
        assert_eq!(causes.len(), 2, "{causes:?}");
    }
}
