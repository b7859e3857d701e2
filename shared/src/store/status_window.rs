//! `<state>/sessions/<id>/window.json`: the model's window the status line's input gave for a
//! session (`context_window.context_window_size`, with `model.id`), recorded by `ctxhooks
//! statusline`, which Claude Code runs after every update anyway. The gauge (Stop hook), `gauge`
//! and `report` take T's window from it for that model: it is the CLI's own word on the window,
//! where the model table (`usage/threshold.rs`) is ctxhooks' knowledge. A file apart from
//! `gauge.json` because the status line and the hooks write at the same time; each file has
//! one writer.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::store::files;

/// Version of the file's layout.
pub const STATUS_WINDOW_SCHEMA: u32 = 1;

/// The largest file read: a real one is under 200 bytes.
const MAX_BYTES: u64 = 4 * 1024;

/// What the status line said of the session's window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusWindow {
    /// [`STATUS_WINDOW_SCHEMA`].
    pub schema: u32,
    /// `model.id`: the model the window is for.
    pub model: String,
    /// `context_window.context_window_size`.
    pub window_tokens: u64,
}

impl StatusWindow {
    /// The window and model, for [`crate::usage::threshold::ThresholdInputs`].
    pub fn evidence(&self) -> (u64, String) {
        (self.window_tokens, self.model.clone())
    }

    /// Reads the file; `None` when it is absent or not one (a status line's word is evidence,
    /// never a reason to fail).
    pub fn read(path: &Path) -> Option<Self> {
        let bytes = files::read_state_file_within(path, MAX_BYTES).ok()??;
        serde_json::from_slice::<Self>(&bytes)
            .ok()
            .filter(|window| window.schema == STATUS_WINDOW_SCHEMA && window.window_tokens > 0)
    }

    /// Writes the file (folder 0700, file 0600, atomically) unless it already says the same.
    pub fn record(&self, path: &Path) -> Result<()> {
        if Self::read(path).as_ref() == Some(self) {
            return Ok(());
        }
        if let Some(folder) = path.parent() {
            files::create_private_dir_all(folder)?;
        }
        let bytes = serde_json::to_vec(self).context("failed to encode the status window")?;
        files::write_atomic(path, &bytes, 0o600)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempFolder;

    #[test]
    fn a_window_is_recorded_once_and_read_back() {
        let folder = TempFolder::new("status-window");
        let path = folder.join("s/window.json");
        assert_eq!(StatusWindow::read(&path), None);
        let window = StatusWindow {
            schema: STATUS_WINDOW_SCHEMA,
            model: "claude-opus-5".into(),
            window_tokens: 1_000_000,
        };
        window.record(&path).unwrap();
        assert_eq!(StatusWindow::read(&path), Some(window.clone()));
        let modified = fs_err::metadata(&path).unwrap().modified().unwrap();
        window.record(&path).unwrap();
        assert_eq!(
            fs_err::metadata(&path).unwrap().modified().unwrap(),
            modified
        );
        fs_err::write(&path, b"{\"schema\":1,\"model\":\"m\",\"window_tokens\":0}").unwrap();
        assert_eq!(StatusWindow::read(&path), None);
    }
}
