//! The ownership record (`<state>/installs.json`): which handlers we added to which settings
//! file, and what that file was before our first install, so `uninstall` can undo exactly that.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::handlers::OwnedHandler;
use ctxhooks_shared::store::files;
use ctxhooks_shared::store::state_dir::StateDir;

/// The schema version written into the ownership record.
pub const INSTALLS_SCHEMA_VERSION: u32 = 1;

/// The whole ownership record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstallsFile {
    /// Schema version, currently 1.
    pub version: u32,
    /// One record per settings file, keyed by its absolute path.
    pub settings_files: BTreeMap<String, InstallRecord>,
}

impl Default for InstallsFile {
    fn default() -> Self {
        Self {
            version: INSTALLS_SCHEMA_VERSION,
            settings_files: BTreeMap::new(),
        }
    }
}

/// What we did to one settings file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InstallRecord {
    /// When the first install into this file happened (RFC 3339, UTC).
    pub installed_at: String,
    /// When the latest change was made (RFC 3339, UTC).
    pub updated_at: String,
    /// The file before the first install.
    pub before: PriorState,
    /// Whether we created the top-level `hooks` object.
    pub created_hooks_object: bool,
    /// The events whose array under `hooks` we created.
    pub created_event_arrays: Vec<String>,
    /// The handlers we added, each in its own matcher group (`{"hooks": [handler]}`).
    pub handlers: Vec<OwnedHandler>,
    /// The `statusLine` we set (`install --statusline`), exactly as written; absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_line: Option<serde_json::Value>,
}

/// A settings file's state before our first install.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum PriorState {
    /// The file did not exist.
    #[default]
    Absent,
    /// The file existed with these bytes, copied to `backup`.
    Present {
        /// Its size in bytes.
        size: u64,
        /// Lowercase hex SHA-256 of its bytes.
        sha256: String,
        /// The backup copy of those bytes.
        backup: PathBuf,
    },
}

impl InstallsFile {
    /// Reads the record (empty if it does not exist). An unreadable record is an error, never
    /// silently replaced: it is the only memory of what we own.
    pub fn load(state: &StateDir) -> Result<Self> {
        let path = state.installs_file();
        let Some(bytes) = files::read_state_file_within(&path, files::SMALL_STATE_FILE_LIMIT)
            .context("failed to read the ownership record")?
        else {
            return Ok(Self::default());
        };
        let text = String::from_utf8_lossy(&bytes);
        let record: Self = serde_json::from_str(&text).with_context(|| {
            format!(
                "the ownership record `{}` is unreadable; fix it or move it away",
                path.display()
            )
        })?;
        if record.version != INSTALLS_SCHEMA_VERSION {
            bail!(
                "the ownership record `{}` has schema version {}, this ctxhooks knows {}",
                path.display(),
                record.version,
                INSTALLS_SCHEMA_VERSION
            );
        }
        Ok(record)
    }

    /// Writes the record atomically (0600), creating the state folder if needed.
    pub fn save(&self, state: &StateDir) -> Result<()> {
        state.ensure()?;
        let mut text = serde_json::to_string_pretty(self)
            .context("failed to serialize the ownership record")?;
        text.push('\n');
        files::write_atomic(
            &state.installs_file(),
            text.as_bytes(),
            files::PRIVATE_FILE_MODE,
        )
        .context("failed to write the ownership record")
    }
}
