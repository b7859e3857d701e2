//! The first free name among `<name>`, `<name>-1`, `<name>-2`…, for a file or folder that must
//! never replace one already there: a settings file's backup, a restore's replaced files.

use std::path::{Path, PathBuf};

use anyhow::Result;

/// Calls `place` at the path `path_of` makes of each suffix in turn (none, `-1`, `-2`…),
/// passing over a path where something is, until `place` succeeds; returns that path, or
/// `None` when every name was taken. A failure at a path still free is returned as it is; one
/// at a path something took in between (another run) tries the next name.
pub fn place_at_free_name(
    path_of: impl Fn(&str) -> PathBuf,
    mut place: impl FnMut(&Path) -> Result<()>,
) -> Result<Option<PathBuf>> {
    // A thousand names: more means something else is wrong.
    for attempt in 0..1000u32 {
        let suffix = (attempt > 0).then(|| format!("-{attempt}"));
        let target = path_of(&suffix.unwrap_or_default());
        let taken = || fs_err::symlink_metadata(&target).is_ok();
        if taken() {
            continue;
        }
        match place(&target) {
            Ok(()) => return Ok(Some(target)),
            Err(_) if taken() => {}
            Err(error) => return Err(error),
        }
    }
    Ok(None)
}
