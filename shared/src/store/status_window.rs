//! `<state>/sessions/<id>/window.json`: the models' windows the status line's input gave for a
//! session (`context_window.context_window_size`, with `model.id`), recorded by `ctxhooks
//! statusline`, which Claude Code runs after every update anyway. The gauge (Stop hook), `gauge`
//! and `report` take a request's window from it for that request's model: it is the CLI's own
//! word on the window, where the model table (`usage/threshold.rs`) is ctxhooks' knowledge. One
//! entry per model, the newest last, so that a session that switches models (`/model`) keeps the
//! word on each. A file apart from `gauge.json` because the status line and the hooks write at
//! the same time; each file has one writer.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::store::files::{self, FileError};

/// Version of the file's layout: 2 holds a list of models (1 held one model, and is still read).
pub const STATUS_WINDOW_SCHEMA: u32 = 2;

/// The largest file read: [`MAX_MODELS`] entries of [`MAX_MODEL_CHARS`] are under it.
const MAX_BYTES: u64 = 8 * 1024;

/// How many models a session's file keeps (the newest).
pub const MAX_MODELS: usize = 8;

/// The longest model name recorded: real ones are under 64 characters.
pub const MAX_MODEL_CHARS: usize = 256;

/// What the status line said of one model's window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelWindow {
    /// `model.id`: the model the window is for, `[1m]` and all.
    pub model: String,
    /// `context_window.context_window_size`.
    pub window_tokens: u64,
}

/// What the status line said of the session's windows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusWindow {
    /// [`STATUS_WINDOW_SCHEMA`].
    pub schema: u32,
    /// One per model, the newest last.
    pub models: Vec<ModelWindow>,
}

/// The file as schema 1 wrote it.
#[derive(Deserialize)]
struct FirstSchema {
    schema: u32,
    model: String,
    window_tokens: u64,
}

impl StatusWindow {
    /// The windows and models, the newest last, for
    /// [`crate::usage::threshold::ThresholdInputs::status_line_windows`].
    pub fn evidence(&self) -> Vec<(u64, String)> {
        self.models
            .iter()
            .map(|entry| (entry.window_tokens, entry.model.clone()))
            .collect()
    }

    /// Reads the file; `None` when it is absent or not one (a status line's word is evidence,
    /// never a reason to fail). Entries with no window are left out.
    pub fn read(path: &Path) -> Option<Self> {
        let bytes = files::read_state_file_within(path, MAX_BYTES).ok()??;
        let mut window = serde_json::from_slice::<Self>(&bytes)
            .ok()
            .filter(|window| window.schema == STATUS_WINDOW_SCHEMA)
            .or_else(|| {
                let first = serde_json::from_slice::<FirstSchema>(&bytes).ok()?;
                (first.schema == 1).then(|| Self {
                    schema: STATUS_WINDOW_SCHEMA,
                    models: vec![ModelWindow {
                        model: first.model,
                        window_tokens: first.window_tokens,
                    }],
                })
            })?;
        window.models.retain(|entry| entry.window_tokens > 0);
        (!window.models.is_empty()).then_some(window)
    }

    /// Records `model`'s window as the newest word (folder 0700, file 0600, atomically),
    /// unless it already is; at most [`MAX_MODELS`] models are kept. A name longer than
    /// [`MAX_MODEL_CHARS`] or a window of 0 is no model's and is not recorded, nor anything when
    /// `may_write` (asked only when something is to be written) says no. Two status lines at
    /// once may each record its own (the newer file stands, never a torn one); the next update
    /// records again.
    pub fn record(
        path: &Path,
        model: &str,
        window_tokens: u64,
        may_write: impl FnOnce() -> bool,
    ) -> Result<(), FileError> {
        if window_tokens == 0 || model.is_empty() || model.chars().count() > MAX_MODEL_CHARS {
            return Ok(());
        }
        let entry = ModelWindow {
            model: model.to_owned(),
            window_tokens,
        };
        let mut window = Self::read(path).unwrap_or(Self {
            schema: STATUS_WINDOW_SCHEMA,
            models: Vec::new(),
        });
        if window.models.last() == Some(&entry) || !may_write() {
            return Ok(());
        }
        window.schema = STATUS_WINDOW_SCHEMA;
        window.models.retain(|known| known.model != entry.model);
        window.models.push(entry);
        let excess = window.models.len().saturating_sub(MAX_MODELS);
        window.models.drain(..excess);
        if let Some(folder) = path.parent() {
            files::create_private_dir_all(folder)?;
        }
        let bytes = serde_json::to_vec(&window).map_err(FileError::EncodeStatusWindow)?;
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
        StatusWindow::record(&path, "claude-opus-5", 1_000_000, || true).unwrap();
        assert_eq!(
            StatusWindow::read(&path).map(|window| window.evidence()),
            Some(vec![(1_000_000, "claude-opus-5".to_owned())])
        );
        let modified = fs_err::metadata(&path).unwrap().modified().unwrap();
        StatusWindow::record(&path, "claude-opus-5", 1_000_000, || true).unwrap();
        assert_eq!(
            fs_err::metadata(&path).unwrap().modified().unwrap(),
            modified
        );
        fs_err::write(
            &path,
            b"{\"schema\":2,\"models\":[{\"model\":\"m\",\"window_tokens\":0}]}",
        )
        .unwrap();
        assert_eq!(StatusWindow::read(&path), None);
    }

    #[test]
    fn each_model_keeps_its_window_the_newest_last() {
        let folder = TempFolder::new("status-window-models");
        let path = folder.join("s/window.json");
        StatusWindow::record(&path, "claude-sonnet-4-5-20250929[1m]", 1_000_000, || true).unwrap();
        StatusWindow::record(&path, "claude-sonnet-4-5-20250929", 200_000, || true).unwrap();
        StatusWindow::record(&path, "claude-sonnet-4-5-20250929[1m]", 1_000_000, || true).unwrap();
        assert_eq!(
            StatusWindow::read(&path).unwrap().evidence(),
            vec![
                (200_000, "claude-sonnet-4-5-20250929".to_owned()),
                (1_000_000, "claude-sonnet-4-5-20250929[1m]".to_owned()),
            ]
        );
        // Bounded: the oldest go, and no name is longer than a model's.
        for number in 0..20 {
            StatusWindow::record(&path, &format!("model-{number}"), 200_000, || true).unwrap();
        }
        StatusWindow::record(&path, &"x".repeat(MAX_MODEL_CHARS + 1), 200_000, || true).unwrap();
        // Nothing written when the caller says no.
        StatusWindow::record(&path, "model-new", 200_000, || false).unwrap();
        let models = StatusWindow::read(&path).unwrap().models;
        assert_eq!(models.len(), MAX_MODELS);
        assert!(models.iter().all(|entry| entry.model != "model-new"));
        assert_eq!(models.last().unwrap().model, "model-19");
    }

    #[test]
    fn the_first_schema_is_still_read() {
        let folder = TempFolder::new("status-window-first");
        let path = folder.join("window.json");
        fs_err::write(
            &path,
            br#"{"schema":1,"model":"claude-opus-5","window_tokens":1000000}"#,
        )
        .unwrap();
        assert_eq!(
            StatusWindow::read(&path).unwrap().evidence(),
            vec![(1_000_000, "claude-opus-5".to_owned())]
        );
    }
}
