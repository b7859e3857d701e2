//! Timestamped backups of settings files, kept in `<state>/backups/` (0600 files, 0700 folder).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use chrono::Utc;

use crate::free_name::place_at_free_name;
use ctxhooks_shared::store::files;
use ctxhooks_shared::store::state_dir::StateDir;

/// Copies `bytes` (the current content of `settings`) to a new backup file and returns its path:
/// `<state>/backups/<file name>.<UTC time>.<first 8 hex of the path's SHA-256>.bak`. Never
/// overwrites an existing backup.
pub fn back_up(state: &StateDir, settings: &Path, bytes: &[u8]) -> Result<PathBuf> {
    let dir = state.backups_dir();
    files::create_private_dir_all(&dir).context("failed to create the backups folder")?;
    let name = settings.file_name().map_or_else(
        || "settings".into(),
        |name| name.to_string_lossy().into_owned(),
    );
    let path_hash = files::sha256_hex(settings.as_os_str().as_encoded_bytes());
    let stamp = Utc::now().format("%Y%m%dT%H%M%S%.3fZ");
    let target = place_at_free_name(
        |suffix| dir.join(format!("{name}.{stamp}{suffix}.{}.bak", &path_hash[..8])),
        |target| {
            files::copy_new_hashed(&mut &bytes[..], target)
                .context("failed to write the backup")?;
            Ok(())
        },
    )?
    .with_context(|| format!("failed to find a free backup name in `{}`", dir.display()))?;
    files::sync_dir(&dir);
    Ok(target)
}
