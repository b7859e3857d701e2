//! Claude Code's settings files, read as bytes without ever hanging: only a regular file of a
//! sane size. The Stop hook reads the context window from them (`threshold.rs`); the installer
//! and doctor parse them on the command side (the commands crate's `settings/document.rs`).

use std::io::Read as _;
use std::path::{Path, PathBuf};

/// The largest settings file ctxhooks reads (Claude Code's own are a few kilobytes).
pub const MAX_SETTINGS_BYTES: u64 = 16 * 1024 * 1024;

/// Why a settings file's bytes were not read (each variant's words are the ones a person
/// reads).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(
    missing_docs,
    reason = "each variant's message says what it is; its fields are named for what they hold"
)]
pub enum SettingsFileError {
    #[error("failed to inspect the settings file")]
    Inspect(#[source] std::io::Error),
    #[error("failed to open the settings file")]
    Open(#[source] std::io::Error),
    #[error("failed to read the settings file")]
    Read(#[source] std::io::Error),
    /// A folder, a FIFO or a device at the path.
    #[error(
        "`{}` is not a regular file (a folder, FIFO or device?); it was left untouched",
        .0.display()
    )]
    NotRegular(PathBuf),
    /// What was opened is not a regular file, or is larger than [`MAX_SETTINGS_BYTES`].
    #[error(
        "`{}` is not a regular file of at most {MAX_SETTINGS_BYTES} bytes; it was left untouched",
        .0.display()
    )]
    NotRegularOrTooLarge(PathBuf),
    /// It grew past [`MAX_SETTINGS_BYTES`] while it was read.
    #[error(
        "`{}` grew past {MAX_SETTINGS_BYTES} bytes while it was read; it was left untouched",
        .0.display()
    )]
    Grew(PathBuf),
    /// Neither variable that says where the user's `.claude.json` is, is set.
    #[cfg_attr(
        windows,
        error("neither `CLAUDE_CONFIG_DIR`, `HOME` nor `USERPROFILE` is set")
    )]
    #[cfg_attr(not(windows), error("neither `CLAUDE_CONFIG_DIR` nor `HOME` is set"))]
    NoHome,
}

/// A settings file's bytes, or `None` when it does not exist. Only a regular file (symbolic
/// links are followed) of at most [`MAX_SETTINGS_BYTES`] is read: a FIFO would block the read
/// forever and a device such as `/dev/zero` never ends.
pub fn read_settings_bytes(path: &Path) -> Result<Option<Vec<u8>>, SettingsFileError> {
    let metadata = match fs_err::metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(SettingsFileError::Inspect(error)),
    };
    if !metadata.is_file() {
        return Err(SettingsFileError::NotRegular(path.to_owned()));
    }
    let mut file = fs_err::File::open(path).map_err(SettingsFileError::Open)?;
    let opened = file.metadata().map_err(SettingsFileError::Inspect)?;
    if !opened.is_file() || opened.len() > MAX_SETTINGS_BYTES {
        return Err(SettingsFileError::NotRegularOrTooLarge(path.to_owned()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(opened.len()).unwrap_or(0));
    (&mut file)
        .take(MAX_SETTINGS_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(SettingsFileError::Read)?;
    if bytes.len() as u64 > MAX_SETTINGS_BYTES {
        return Err(SettingsFileError::Grew(path.to_owned()));
    }
    Ok(Some(bytes))
}
