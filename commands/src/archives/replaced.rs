//! The files `ctxhooks archives restore --force` replaced, kept apart in the session's folder:
//! `<state>/sessions/<id>/replaced/<YYYYMMDDTHHMMSS.ffffffZ>/<name>` (`transcript.jsonl`,
//! `subagents/…`), one folder per restore, folders 0700 and files 0600. A replaced file is
//! whatever was at the transcript's place (an older copy, a file a crash left with NUL bytes):
//! it is never lost, and never becomes part of the kept copies, which keep only the session's
//! transcript. ctxhooks never deletes these folders.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use chrono::Utc;

use crate::free_name::place_at_free_name;
use ctxhooks_shared::store::files::{self, Access};
use ctxhooks_shared::store::kept::KeptName;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::snapshot_metadata::TEMP_PREFIX;
use ctxhooks_shared::store::state_dir::StateDir;

/// Copies every file in `replaced` (its name in the kept copies, and where it is) into a new
/// folder of the session's `replaced/`, and returns where each copy is, in the same order. All
/// or nothing: the copies are made and flushed in a hidden `.tmp-…` folder, renamed to its
/// final name only once every one is whole; on any failure the hidden folder is removed and
/// nothing is left. Any regular file is kept, whatever its bytes; a symbolic link, a FIFO or a
/// device is refused (never followed, never waited on).
pub fn keep_apart(
    state: &StateDir,
    session: &SessionId,
    replaced: &[(KeptName, PathBuf)],
) -> Result<Vec<PathBuf>> {
    let folder = state.replaced_dir(session);
    state.ensure_real_dir(&folder)?;
    let stamp = Utc::now().format("%Y%m%dT%H%M%S%.6fZ").to_string();
    let temp = folder.join(format!("{TEMP_PREFIX}{stamp}-{}", std::process::id()));
    let copied = (|| -> Result<PathBuf> {
        files::create_private_dir_all(&temp)?;
        for (name, source) in replaced {
            copy_into(&temp, name, source)
                .with_context(|| format!("failed to keep `{}`", source.display()))?;
        }
        publish(&folder, &temp, &stamp)
    })();
    if copied.is_err() {
        let _ = fs_err::remove_dir_all(&temp);
    }
    let final_folder = copied?;
    Ok(replaced
        .iter()
        .map(|(name, _)| final_folder.join(name.as_str()))
        .collect())
}

/// Copies the regular file at `source` to `<folder>/<name>` (0600, its folders 0700), as many
/// bytes as it held when opened, and flushes it.
fn copy_into(folder: &Path, name: &KeptName, source: &Path) -> Result<()> {
    let target = folder.join(name.as_str());
    if let Some(parent) = target.parent() {
        files::create_private_dir_all(parent)?;
    }
    let file = files::open_unlinked_existing(source, Access::Read)?;
    let size = file.metadata()?.len();
    let copied = files::copy_new_hashed(&mut file.take(size), &target)?;
    if let Some(parent) = target.parent() {
        files::sync_dir(parent);
    }
    if copied.size != size {
        bail!(
            "`{}` gave {} bytes, not the {size} it held",
            source.display(),
            copied.size
        );
    }
    Ok(())
}

/// Renames `temp` to the first free `<stamp>`, `<stamp>-1`… in `folder`, and flushes `folder`.
fn publish(folder: &Path, temp: &Path, stamp: &str) -> Result<PathBuf> {
    let target = place_at_free_name(
        |suffix| folder.join(format!("{stamp}{suffix}")),
        |target| fs_err::rename(temp, target).context("failed to name the replaced files' folder"),
    )?
    .with_context(|| {
        format!("could not find a free name for the replaced files' folder `{stamp}`")
    })?;
    files::sync_dir(folder);
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxhooks_shared::platform::private::mode_of;

    #[test]
    fn any_regular_file_is_kept_apart_and_anything_else_leaves_nothing() {
        let temp = ctxhooks_shared::test_support::TempFolder::new("replaced");
        let state = StateDir::at(temp.join("state"));
        let session = SessionId::parse("s1").unwrap();
        let main = temp.join("main.jsonl");
        fs_err::write(&main, b"\0\0{\"cut").unwrap();
        let agent = temp.join("agent.jsonl");
        fs_err::write(&agent, b"{}\n").unwrap();
        let names = [
            (KeptName::main(), main.clone()),
            (KeptName::parse("subagents/agent-1.jsonl").unwrap(), agent),
        ];
        let kept = keep_apart(&state, &session, &names).unwrap();
        assert_eq!(fs_err::read(&kept[0]).unwrap(), b"\0\0{\"cut");
        assert_eq!(fs_err::read(&kept[1]).unwrap(), b"{}\n");
        for path in &kept {
            let mode = mode_of(path).unwrap() & 0o777;
            assert_eq!(mode, 0o600);
        }
        let mode = |path: &Path| mode_of(path).unwrap() & 0o777;
        assert_eq!(mode(kept[1].parent().unwrap()), 0o700);
        assert_eq!(mode(&state.replaced_dir(&session)), 0o700);
        // A link among them: nothing more is kept, and no hidden folder is left.
        let link = temp.join("link.jsonl");
        if !ctxhooks_shared::test_support::symlink_file(&main, &link) {
            return;
        }
        let error = keep_apart(&state, &session, &[(KeptName::main(), link)]).unwrap_err();
        assert!(
            matches!(
                error.downcast_ref(),
                Some(files::FileError::SymbolicLink(_))
            ),
            "{error:#}"
        );
        let entries = fs_err::read_dir(state.replaced_dir(&session))
            .unwrap()
            .count();
        assert_eq!(entries, 1);
    }
}
