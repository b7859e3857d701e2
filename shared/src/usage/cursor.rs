//! `<state>/sessions/<id>/cursor.json`: for each transcript of the session, how far the Stop hook
//! has read, a fingerprint of the bytes before that point, and the reader's state.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::store::files::{self, FileError};
use crate::usage::ingest::SourceState;

/// Why the cursor file could not be read or saved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs, reason = "each variant's message says what it is")]
pub enum CursorError {
    #[error("failed to read the cursor file")]
    Read(#[source] FileError),
    #[error("the cursor file is not valid")]
    Invalid(#[source] serde_json::Error),
    #[error("failed to serialize the cursor")]
    Serialize(#[source] serde_json::Error),
    #[error("failed to write the cursor file")]
    Write(#[source] FileError),
}

/// Version of the cursor file's layout.
pub const CURSOR_SCHEMA: u32 = 1;

/// The whole cursor file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CursorFile {
    /// [`CURSOR_SCHEMA`].
    pub schema: u32,
    /// One cursor per transcript path.
    pub transcripts: BTreeMap<String, TranscriptCursor>,
    /// The usage log's length when this file was last saved: lines past it were appended by an
    /// ingest that was stopped before it could save its cursor (see `usage/log.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_length: Option<u64>,
}

/// How far one transcript was read.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TranscriptCursor {
    /// Bytes read: just after a newline, or at the end of a last line without one that was read
    /// as a whole JSON object at `SessionEnd` (the transcript at rest).
    pub offset: u64,
    /// SHA-256 of the up to 4 KiB before `offset`.
    pub fingerprint: String,
    /// The reader's state at `offset` (left out when empty, as for a finished sub-agent).
    #[serde(default, skip_serializing_if = "SourceState::is_empty")]
    pub state: SourceState,
}

impl CursorFile {
    /// Reads the cursor file; a missing file is an empty cursor. An unreadable one is an error
    /// (the caller then rescans, which is safe because rows are keyed).
    pub fn load(path: &Path) -> Result<Self, CursorError> {
        let Some(bytes) = files::read_state_file_within(path, files::SMALL_STATE_FILE_LIMIT)
            .map_err(CursorError::Read)?
        else {
            return Ok(Self::default());
        };
        serde_json::from_slice(&bytes).map_err(CursorError::Invalid)
    }

    /// Replaces the cursor file atomically.
    pub fn save(&mut self, path: &Path) -> Result<(), CursorError> {
        self.schema = CURSOR_SCHEMA;
        // Compact, not pretty: the hook reads and writes this file on every run.
        let bytes = serde_json::to_vec(self).map_err(CursorError::Serialize)?;
        files::write_atomic(path, &bytes, files::PRIVATE_FILE_MODE).map_err(CursorError::Write)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_grown_past_any_sane_size_is_an_error_not_its_claimed_memory() {
        let folder = crate::test_support::TempFolder::new("cursor-sparse");
        let path = folder.join("cursor.json");
        // A sparse file that claims 4 GiB: read whole, it would cost that much memory.
        fs_err::File::create(&path)
            .unwrap()
            .set_len(4 << 30)
            .unwrap();
        let error = CursorFile::load(&path).unwrap_err();
        assert!(
            matches!(error, CursorError::Read(FileError::TooLarge(..))),
            "{error:?}"
        );
    }

    #[test]
    fn a_cursor_file_that_is_not_json_is_invalid() {
        let folder = crate::test_support::TempFolder::new("cursor-invalid");
        let path = folder.join("cursor.json");
        fs_err::write(&path, b"{\"transcripts\": [").unwrap();
        let error = CursorFile::load(&path).unwrap_err();
        assert!(matches!(error, CursorError::Invalid(_)), "{error:?}");
    }

    #[test]
    fn a_cursor_saved_into_a_missing_folder_fails_to_write() {
        let folder = crate::test_support::TempFolder::new("cursor-write");
        let path = folder.join("absent").join("cursor.json");
        let error = CursorFile::default().save(&path).unwrap_err();
        assert!(matches!(error, CursorError::Write(_)), "{error:?}");
    }
}
