//! `ctxhooks archives restore`: writes a kept transcript (and its sub-agents') back where Claude
//! Code looks for it, as it was at the latest state or at a chosen snapshot. The latest state is
//! the newest generation whose every byte reads back as recorded; newer ones that keep nothing
//! or are damaged are passed over, and said. Never over an existing file unless asked (and then
//! every file about to be replaced is kept apart first, in the session's `replaced/` folder),
//! all files or none, always atomically, and never through a symbolic link below the projects
//! folder (or the folder named with `--to`).

use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use super::replaced;
use crate::render::text::quoted_paths;
use crate::snapshots::catalog::{SnapshotEntry, list_snapshots, stays_inside};
use crate::snapshots::parts::earlier_parts;
use crate::snapshots::passed_over::PassedOver;
use ctxhooks_shared::platform::open::is_link;
use ctxhooks_shared::platform::rename::rename_no_replace;
use ctxhooks_shared::store::files;
use ctxhooks_shared::store::kept::{self, GenerationIndex, KeptName};
use ctxhooks_shared::store::kept_check::{self, Depth};
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::snapshot_metadata::FileRole;
use ctxhooks_shared::store::state_dir::{StateDir, claude_config_dir};

/// What to restore, and where.
#[derive(Debug, Clone)]
pub struct RestoreRequest {
    pub session: SessionId,
    /// A snapshot's name (or the unique start of one); the latest state when absent.
    pub snapshot: Option<String>,
    /// Write into this folder (`<DIR>/<session>.jsonl`, `<DIR>/<session>/subagents/…`) instead
    /// of where the transcript was.
    pub to: Option<PathBuf>,
    /// Replace existing files (each is kept apart first).
    pub force: bool,
    /// Leave a sub-agent's file that is already there as it is (and say so) instead of refusing
    /// the whole restore; the main transcript must still be missing (`--deleted`).
    pub leave_existing: bool,
}

/// Where one file's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    /// The first bytes of a kept generation.
    Kept { name: KeptName, generation: u32 },
    /// A schema 1 snapshot's full copy.
    Copy(PathBuf),
}

/// One file to write.
#[derive(Debug, Clone, Serialize)]
pub struct RestoredFile {
    /// The main transcript or a sub-agent's.
    pub role: FileRole,
    /// Its name in the snapshot or the kept folder (`transcript.jsonl`, `subagents/…`).
    pub name: String,
    /// Where it is written.
    pub path: PathBuf,
    pub size: u64,
    /// Its SHA-256, checked after writing.
    pub sha256: String,
    /// The generation of the kept copy it was read from (null for a schema 1 snapshot's copy).
    pub generation: Option<u32>,
    /// An earlier part of the main transcript: the session was resumed in another project
    /// folder, and this is the file of the folder it was in before, written back to its own
    /// path because it is gone (`snapshots/parts.rs`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub part: bool,
    /// Newer generations of its kept copy passed over, newest first, each with why.
    pub passed_over: Vec<PassedOver>,
    /// Whether a file was there before (only with `--force`).
    pub replaced: bool,
    /// Where the file it replaced is kept (null when nothing was replaced, or when what was
    /// there was a symbolic link: replaced, never followed).
    pub replaced_kept_at: Option<PathBuf>,
    #[serde(skip)]
    origin: Origin,
}

/// A kept sub-agent transcript of which no generation can be restored.
#[derive(Debug, Clone, Serialize)]
pub struct SkippedFile {
    /// Its name in the kept folder.
    pub name: String,
    /// Every generation passed over, newest first, each with why.
    pub passed_over: Vec<PassedOver>,
}

/// What `restore` did.
#[derive(Debug, Clone, Serialize)]
pub struct RestoreOutcome {
    pub session_id: String,
    /// The snapshot restored, or null for the latest state.
    pub snapshot: Option<String>,
    /// Every file written, the main transcript first.
    pub files: Vec<RestoredFile>,
    /// Sub-agent transcripts left out: no generation of theirs reads back as recorded.
    pub skipped: Vec<SkippedFile>,
    /// Sub-agent files already there, left as they are (`--deleted` only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_existing: Vec<PathBuf>,
}

/// Restores the session's transcript files.
pub fn restore(state: &StateDir, request: &RestoreRequest) -> Result<RestoreOutcome> {
    let snapshot = request
        .snapshot
        .as_deref()
        .map(|name| find_snapshot(state, &request.session, name))
        .transpose()?;
    let (mut planned, skipped) = match &snapshot {
        Some(entry) => (plan_snapshot(entry)?, Vec::new()),
        // Each earlier part goes back to its own folder: under `--to` they would all be the
        // one `<DIR>/<id>.jsonl`.
        None => plan_latest(state, &request.session, request.to.is_none())?,
    };
    if planned.is_empty() {
        bail!(
            "nothing is kept for session {} (no kept copy, no snapshot)",
            request.session
        );
    }
    let root = match &request.to {
        Some(folder) => folder.clone(),
        None => claude_config_dir()?.join("projects"),
    };
    for file in &mut planned {
        if let Some(folder) = &request.to {
            file.path = target_in(folder, &request.session, &file.name)?;
        }
        check_target(&root, &file.path)?;
        file.replaced = fs_err::symlink_metadata(&file.path).is_ok();
    }
    let mut left_existing = Vec::new();
    if request.leave_existing {
        let existing;
        (existing, planned) = planned.into_iter().partition(|file| file.replaced);
        // The newest part there is left as it is when an earlier part is gone: that part is
        // what was deleted.
        let part_gone = planned.iter().any(|file| file.part);
        if let Some(main) = existing
            .iter()
            .find(|file| file.role == FileRole::Transcript && !file.part)
            .filter(|_| !part_gone)
        {
            bail!(
                "`{}` is there: the transcript was not deleted, or is back; nothing was written",
                main.path.display()
            );
        }
        left_existing = existing
            .into_iter()
            .map(|file: RestoredFile| file.path)
            .collect();
    }
    let existing: Vec<&Path> = planned
        .iter()
        .filter(|file| file.replaced)
        .map(|file| file.path.as_path())
        .collect();
    if !existing.is_empty() && !request.force {
        bail!(
            "{} already exist(s): {}; nothing was written (`--force` replaces them, after \
             keeping them apart)",
            existing.len(),
            quoted_paths(existing)
        );
    }
    keep_replaced(state, &request.session, &mut planned)?;
    write_all(state, &request.session, &root, &planned)?;
    Ok(RestoreOutcome {
        session_id: request.session.to_string(),
        snapshot: snapshot.map(|entry| entry.metadata.name),
        files: planned,
        skipped,
        left_existing,
    })
}

/// The snapshot named `name`, or the only one whose name starts with it.
pub fn find_snapshot(state: &StateDir, session: &SessionId, name: &str) -> Result<SnapshotEntry> {
    let snapshots = list_snapshots(state, Some(session))?;
    if let Some(exact) = snapshots.iter().find(|entry| entry.metadata.name == name) {
        return Ok(exact.clone());
    }
    let matching: Vec<&SnapshotEntry> = snapshots
        .iter()
        .filter(|entry| entry.metadata.name.starts_with(name))
        .collect();
    match matching.as_slice() {
        [one] => Ok((*one).clone()),
        [] => bail!(
            "session {session} has no snapshot `{name}` (`ctxhooks archives --session {session}` \
             lists them)"
        ),
        many => bail!(
            "`{name}` is the start of {} snapshots of session {session}; give more of the name",
            many.len()
        ),
    }
}

fn plan_snapshot(entry: &SnapshotEntry) -> Result<Vec<RestoredFile>> {
    entry
        .metadata
        .files
        .iter()
        .map(|file| {
            let origin = if let Some(reference) = &file.kept {
                Origin::Kept {
                    name: KeptName::parse(&reference.name)?,
                    generation: reference.generation,
                }
            } else {
                if !stays_inside(&file.path) {
                    bail!("`{}` leaves the snapshot folder", file.path);
                }
                Origin::Copy(entry.path.join(&file.path))
            };
            Ok(RestoredFile {
                role: file.role,
                name: file.path.clone(),
                path: PathBuf::from(&file.source),
                size: file.size,
                sha256: file.sha256.clone(),
                generation: file.kept.as_ref().map(|reference| reference.generation),
                part: false,
                passed_over: Vec::new(),
                replaced: false,
                replaced_kept_at: None,
                origin,
            })
        })
        .collect()
}

/// The newest generation of each kept copy whose every byte reads back as recorded, with the
/// newer ones passed over; a damaged one gets its mark, so that the next hook run starts a new
/// generation. A main transcript with none is refused, with every reason; a sub-agent's with
/// none is left out, and said. With `parts`, also each earlier part of the main transcript (the
/// newest generation of another source: the session resumed in another project folder) whose
/// file is gone, to its own path; a part whose file is there is left to it.
fn plan_latest(
    state: &StateDir,
    session: &SessionId,
    parts: bool,
) -> Result<(Vec<RestoredFile>, Vec<SkippedFile>)> {
    let kept_dir = state.kept_dir(session);
    let mut planned = Vec::new();
    let mut skipped = Vec::new();
    for (name, _) in kept::list_kept(&kept_dir)? {
        let newest = kept_check::newest_whole(&kept_dir, &name, Depth::Bytes)?;
        if state.ensure_real_dir(&kept_dir).is_ok() {
            for checked in newest.passed_over.iter().chain(&newest.chosen) {
                // Best effort: what restore says does not depend on it.
                let _ = kept_check::record_damage(&kept_dir, &name, checked, Depth::Bytes);
            }
        }
        let passed_over: Vec<PassedOver> = newest.passed_over.iter().map(PassedOver::of).collect();
        let Some(index) = newest.chosen.and_then(|chosen| chosen.index) else {
            if name.is_main() {
                bail!(
                    "nothing of session {session}'s transcript can be restored; no generation of \
                     its kept copy reads back whole: {}",
                    PassedOver::list(&passed_over)
                );
            }
            skipped.push(SkippedFile {
                name: name.to_string(),
                passed_over,
            });
            continue;
        };
        let gone_parts = if parts && name.is_main() {
            earlier_parts(&kept_dir, &name, &index)
                .into_iter()
                .filter(|part| {
                    fs_err::symlink_metadata(&part.header.source)
                        .is_err_and(|error| error.kind() == std::io::ErrorKind::NotFound)
                })
                .collect()
        } else {
            Vec::new()
        };
        planned.push(kept_file(&name, &index, passed_over, false));
        for part in &gone_parts {
            planned.push(kept_file(&name, part, Vec::new(), true));
        }
    }
    Ok((planned, skipped))
}

/// The file generation `index` of `name` keeps, written back to its source.
fn kept_file(
    name: &KeptName,
    index: &GenerationIndex,
    passed_over: Vec<PassedOver>,
    part: bool,
) -> RestoredFile {
    RestoredFile {
        role: name.role(),
        name: name.to_string(),
        path: PathBuf::from(&index.header.source),
        size: index.length(),
        sha256: index.sha256(),
        generation: Some(index.header.generation),
        part,
        passed_over,
        replaced: false,
        replaced_kept_at: None,
        origin: Origin::Kept {
            name: name.clone(),
            generation: index.header.generation,
        },
    }
}

/// Where `name` goes under `--to DIR`: the main transcript as `<DIR>/<session>.jsonl`, a
/// sub-agent's as `<DIR>/<session>/<name>` (Claude Code 2.1's layout).
fn target_in(folder: &Path, session: &SessionId, name: &str) -> Result<PathBuf> {
    let name = KeptName::parse(name)?;
    Ok(if name.is_main() {
        folder.join(format!("{session}.jsonl"))
    } else {
        folder.join(session.as_str()).join(name.as_str())
    })
}

/// Refuses a target outside `root`, one whose folders below `root` include a symbolic link, and
/// one that is a folder.
fn check_target(root: &Path, target: &Path) -> Result<()> {
    let relative = target.strip_prefix(root).with_context(|| {
        format!(
            "`{}` is not inside Claude Code's projects folder `{}`; give `--to DIR` to restore \
             elsewhere",
            target.display(),
            root.display()
        )
    })?;
    let mut current = root.to_path_buf();
    for component in relative.components() {
        let Component::Normal(part) = component else {
            bail!(
                "`{}` is not a plain path below `{}`",
                target.display(),
                root.display()
            );
        };
        current.push(part);
        // Paths compare by their components: only the target itself is equal to it.
        let last = current == target;
        match fs_err::symlink_metadata(&current) {
            Ok(metadata) if is_link(&metadata) && !last => bail!(
                "`{}` is a symbolic link; refusing to follow it out of `{}`",
                current.display(),
                root.display()
            ),
            Ok(metadata) if last && metadata.is_dir() => {
                bail!("`{}` is a folder", current.display())
            }
            Ok(metadata) if !last && !metadata.is_dir() => {
                bail!("`{}` is not a folder", current.display())
            }
            _ => {}
        }
    }
    Ok(())
}

/// Keeps apart every file the restore is about to replace, before any is replaced
/// (`replaced.rs`): any regular file, whatever its bytes. A symbolic link is replaced,
/// never followed (nothing of the session's is lost with it); anything else (a FIFO, a device)
/// is refused, and nothing is replaced.
fn keep_replaced(
    state: &StateDir,
    session: &SessionId,
    planned: &mut [RestoredFile],
) -> Result<()> {
    // Where each file to keep is among `planned`, and its name and path.
    let (mut positions, mut sources) = (Vec::new(), Vec::new());
    for (position, file) in planned.iter().enumerate().filter(|(_, file)| file.replaced) {
        let metadata = fs_err::symlink_metadata(&file.path)?;
        if is_link(&metadata) {
            continue;
        }
        if !metadata.is_file() {
            bail!(
                "`{}` is not a regular file (a FIFO, a socket or a device?): it cannot be kept \
                 before it is replaced; nothing was replaced (move it away)",
                file.path.display()
            );
        }
        positions.push(position);
        sources.push((KeptName::parse(&file.name)?, file.path.clone()));
    }
    if sources.is_empty() {
        return Ok(());
    }
    let kept_at = replaced::keep_apart(state, session, &sources)
        .context("failed to keep the files it would replace; nothing was replaced")?;
    for (position, path) in positions.into_iter().zip(kept_at) {
        planned[position].replaced_kept_at = Some(path);
    }
    Ok(())
}

/// Writes every file: each to a temporary sibling of its target (0600, its folders 0700 below
/// `root`), filled from the kept copy or snapshot and checked against the recorded size and
/// SHA-256, then flushed; only once every one is whole are they renamed into place (a link at a
/// target is replaced, not followed). A failure before the renames replaces nothing; a rename
/// that fails says which files were replaced and which were not.
fn write_all(
    state: &StateDir,
    session: &SessionId,
    root: &Path,
    planned: &[RestoredFile],
) -> Result<()> {
    let mut temps = Vec::new();
    for file in planned {
        match write_temp(state, session, root, file) {
            Ok(temp) => temps.push(temp),
            Err(error) => {
                for temp in &temps {
                    let _ = fs_err::remove_file(temp);
                }
                let replaced = if planned.iter().any(|file| file.replaced) {
                    "; nothing was replaced"
                } else {
                    "; nothing was written"
                };
                return Err(error.context(format!(
                    "failed to restore `{}`{replaced}",
                    file.path.display()
                )));
            }
        }
    }
    for (done, (file, temp)) in planned.iter().zip(&temps).enumerate() {
        // A file that was not there when checked must still not be: never written over.
        let placed = if file.replaced {
            fs_err::rename(temp, &file.path)
        } else {
            rename_no_replace(temp, &file.path)
        };
        if let Err(error) = placed {
            for temp in &temps[done..] {
                let _ = fs_err::remove_file(temp);
            }
            let named = |files: &[RestoredFile]| match files {
                [] => "none".to_owned(),
                files => quoted_paths(files.iter().map(|file| file.path.as_path())),
            };
            return Err(anyhow::Error::new(error).context(format!(
                "failed to put the restored files in place: written: {}; not written: {}",
                named(&planned[..done]),
                named(&planned[done..])
            )));
        }
        if let Some(parent) = file.path.parent() {
            files::sync_dir(parent);
        }
    }
    Ok(())
}

/// Writes one file's bytes to a temporary sibling of its target, checked and flushed; returns
/// the sibling.
fn write_temp(
    state: &StateDir,
    session: &SessionId,
    root: &Path,
    file: &RestoredFile,
) -> Result<PathBuf> {
    let parent = file
        .path
        .parent()
        .context("the restore target has no folder")?;
    files::create_private_dir_all(parent)?;
    check_target(root, &file.path)?;
    let temp = files::temp_sibling(&file.path);
    let written = (|| -> Result<()> {
        let mut target = files::create_new_file(&temp, files::PRIVATE_FILE_MODE)?;
        let mut writer = std::io::BufWriter::with_capacity(256 * 1024, &mut target);
        match &file.origin {
            Origin::Kept { name, generation } => {
                let kept_dir = state.kept_dir(session);
                let index = GenerationIndex::read(&name.index_path(&kept_dir, *generation))?;
                kept::copy_generation_checked(
                    &kept_dir,
                    name,
                    &index,
                    file.size,
                    &file.sha256,
                    &mut writer,
                )?;
            }
            Origin::Copy(path) => copy_checked(path, file, &mut writer)?,
        }
        writer.flush()?;
        drop(writer);
        target.sync_all()?;
        Ok(())
    })();
    if written.is_err() {
        let _ = fs_err::remove_file(&temp);
    }
    written.map(|()| temp)
}

/// Copies a schema 1 snapshot's full copy, checking its size and SHA-256.
fn copy_checked(path: &Path, file: &RestoredFile, writer: &mut impl std::io::Write) -> Result<()> {
    let copied = files::copy_hashed(&mut kept::open_no_follow(path)?, writer)?;
    if copied.size != file.size || copied.sha256 != file.sha256 {
        bail!(
            "the snapshot's copy `{}` does not have its recorded size and SHA-256",
            path.display()
        );
    }
    Ok(())
}
