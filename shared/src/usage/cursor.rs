//! `<state>/sessions/<id>/cursor.json`: for each transcript of the session, how far the Stop hook
//! has read, a fingerprint of the bytes before that point, and the reader's state.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::store::files;
use crate::usage::ingest::SourceState;

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
    /// Bytes read (always just after a newline).
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
    pub fn load(path: &Path) -> Result<Self> {
        let Some(bytes) = files::read_state_file_within(path, files::SMALL_STATE_FILE_LIMIT)
            .context("failed to read the cursor file")?
        else {
            return Ok(Self::default());
        };
        serde_json::from_slice(&bytes).context("the cursor file is not valid")
    }

    /// Replaces the cursor file atomically.
    pub fn save(&mut self, path: &Path) -> Result<()> {
        self.schema = CURSOR_SCHEMA;
        // Compact, not pretty: the hook reads and writes this file on every run.
        let bytes = serde_json::to_vec(self).context("failed to serialize the cursor")?;
        files::write_atomic(path, &bytes, files::PRIVATE_FILE_MODE)
            .context("failed to write the cursor file")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::files::FileError;

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
            matches!(error.downcast_ref(), Some(FileError::TooLarge(..))),
            "{error:#}"
        );
    }
}
