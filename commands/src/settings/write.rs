//! Writing a settings file back: atomically, an existing file keeping its mode, owner and group.

use std::path::Path;

use anyhow::{Context, Result};

use ctxhooks_shared::platform::owner::Owner;
use ctxhooks_shared::platform::private;
use ctxhooks_shared::store::files;

/// Writes a settings file atomically, keeping an existing file's mode, owner and group.
pub fn write_settings(path: &Path, bytes: &[u8], new_file_mode: u32) -> Result<()> {
    // An existing file keeps its mode, owner and group: `sudo ctxhooks install` on a user's
    // file must leave it theirs.
    let (mode, owner) = match fs_err::metadata(path) {
        Ok(metadata) => (
            private::mode_of(path).unwrap_or(new_file_mode),
            Owner::of(&metadata),
        ),
        Err(_) => (new_file_mode, None),
    };
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
    {
        fs_err::create_dir_all(parent).context("failed to create the settings folder")?;
    }
    files::write_atomic_owned(path, bytes, mode, owner).context("failed to write the settings file")
}
