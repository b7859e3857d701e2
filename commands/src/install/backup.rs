//! Timestamped backups of settings files, kept in `<state>/backups/` (0600 files, 0700 folder).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use chrono::Utc;

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
    for attempt in 0u32..1000 {
        let suffix = if attempt == 0 {
            String::new()
        } else {
            format!("-{attempt}")
        };
        let target = dir.join(format!("{name}.{stamp}{suffix}.{}.bak", &path_hash[..8]));
        match files::copy_new_hashed(&mut &bytes[..], &target) {
            Ok(_) => {
                files::sync_dir(&dir);
                return Ok(target);
            }
            Err(_) if target.exists() => {}
            Err(error) => return Err(error).context("failed to write the backup"),
        }
    }
    bail!("failed to find a free backup name in `{}`", dir.display())
}
