//! Claude Code's settings files, read as bytes without ever hanging: only a regular file of a
//! sane size. The Stop hook reads the context window from them (`threshold.rs`); the installer
//! and doctor parse them on the command side (the commands crate's `settings/document.rs`).

use std::io::Read as _;
use std::path::Path;

use anyhow::{Context, Result, bail};

/// The largest settings file ctxhooks reads (Claude Code's own are a few kilobytes).
pub const MAX_SETTINGS_BYTES: u64 = 16 * 1024 * 1024;

/// A settings file's bytes, or `None` when it does not exist. Only a regular file (symbolic
/// links are followed) of at most [`MAX_SETTINGS_BYTES`] is read: a FIFO would block the read
/// forever and a device such as `/dev/zero` never ends.
pub fn read_settings_bytes(path: &Path) -> Result<Option<Vec<u8>>> {
    let metadata = match fs_err::metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error).context("failed to inspect the settings file"),
    };
    if !metadata.is_file() {
        bail!(
            "`{}` is not a regular file (a folder, FIFO or device?); it was left untouched",
            path.display()
        );
    }
    let mut file = fs_err::File::open(path).context("failed to open the settings file")?;
    let opened = file
        .metadata()
        .context("failed to inspect the settings file")?;
    if !opened.is_file() || opened.len() > MAX_SETTINGS_BYTES {
        bail!(
            "`{}` is not a regular file of at most {MAX_SETTINGS_BYTES} bytes; it was left untouched",
            path.display()
        );
    }
    let mut bytes = Vec::with_capacity(usize::try_from(opened.len()).unwrap_or(0));
    (&mut file)
        .take(MAX_SETTINGS_BYTES + 1)
        .read_to_end(&mut bytes)
        .context("failed to read the settings file")?;
    if bytes.len() as u64 > MAX_SETTINGS_BYTES {
        bail!(
            "`{}` grew past {MAX_SETTINGS_BYTES} bytes while it was read; it was left untouched",
            path.display()
        );
    }
    Ok(Some(bytes))
}
