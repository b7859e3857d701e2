//! Taking one snapshot: bring the kept copies of the transcript and its subagent transcripts up
//! to date (`keep.rs`), then record in a new folder, which gets its final name only once
//! it is written, which kept bytes each file is (`snapshot.json`, schema 2; no second copy).

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use chrono::{DateTime, SecondsFormat, Utc};

use crate::keep::subagents::find_subagent_files;
use crate::keep::{Check, keep_transcript};
use crate::store::files::{self, FileError};
use crate::store::io_kind;
use crate::store::kept::{self, KeptName};
use crate::store::session_id::SessionId;
use crate::store::snapshot_metadata::{
    KeptReference, METADATA_FILE_NAME, SNAPSHOT_SCHEMA, SkippedFile, SnapshotFile,
    SnapshotMetadata, TEMP_PREFIX,
};
use crate::store::state_dir::StateDir;
use crate::store::trigger::Trigger;
use crate::transcript::file::TranscriptFile;

/// Why a snapshot is taken.
#[derive(Debug, Clone)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct SnapshotRequest {
    pub session: SessionId,
    /// `manual`, `auto`, or whatever Claude Code sent.
    pub trigger: Trigger,
    /// What the user typed after `/compact`, if anything.
    pub custom_instructions: Option<String>,
}

/// Keeps the open transcript and its subagent transcripts (every byte, up to their size now)
/// and records them in a new snapshot of the session's archive; returns its metadata and
/// folder. Nothing is left under a final name on failure.
pub fn take_snapshot(
    state: &StateDir,
    request: &SnapshotRequest,
    transcript: &mut TranscriptFile,
) -> Result<(SnapshotMetadata, PathBuf)> {
    state.ensure_session_dir(&request.session)?;
    let archive = state.archive_dir(&request.session);
    files::create_private_dir_all(&archive)?;
    let now = Utc::now();
    let base_name = snapshot_base_name(now, request.trigger.as_str());
    // A folder a stopped PreCompact left behind goes first (best effort). Our own folder
    // appears under its unfinished name already locked, and the lock is held until this run
    // ends: no one (another snapshot, `archives prune`) can take it for abandoned at any moment
    // of its life.
    for folder in abandoned_folders(&archive) {
        let _ = fs_err::remove_dir_all(folder);
    }
    let (temp, _writing) = make_locked_folder(
        &archive,
        &format!("{TEMP_PREFIX}{base_name}-{}", std::process::id()),
    )?;
    let done = build(state, request, transcript, now)
        .and_then(|metadata| publish(&archive, &temp, &base_name, metadata));
    if done.is_err() {
        let _ = fs_err::remove_dir_all(&temp);
    }
    done
}

/// The longest a snapshot's writer lives: the timeout Claude Code gives the `PreCompact` hook,
/// which takes the snapshots (the hook table registers this one; it does not compile otherwise).
pub const WRITER_TIMEOUT: Duration = Duration::from_secs(120);

/// How old an unfinished snapshot folder must be to count as abandoned where folders cannot be
/// locked (see [`is_abandoned`]): twice [`WRITER_TIMEOUT`], so no live hook can still be
/// writing it.
pub const ABANDONED_AFTER: Duration = Duration::from_secs(WRITER_TIMEOUT.as_secs() * 2);

/// How long a new snapshot folder's writer waits for its lock: a bound, not an expected wait
/// (no one else locks a folder under its [`UNLOCKED_SUFFIX`] name).
const FOLDER_LOCK_WAIT: Duration = Duration::from_secs(2);

/// Ends the name a new unfinished snapshot folder is made under, before its writer holds its
/// lock. Its writer renames it to its unfinished name within microseconds, so such a folder is
/// abandoned only once it is older than [`ABANDONED_AFTER`], whatever its lock says.
pub const UNLOCKED_SUFFIX: &str = ".unlocked";

/// Makes the unfinished snapshot folder `archive/name` with its lock already held, and returns
/// it with the lock (`None` on a filesystem that cannot lock folders: then only its age says it
/// is abandoned). The folder is made as `name` + [`UNLOCKED_SUFFIX`], locked, then renamed: a
/// folder under an unfinished name without its writer's lock would be taken for abandoned by
/// whoever looked at that moment.
fn make_locked_folder(archive: &Path, name: &str) -> Result<(PathBuf, Option<fs_err::File>)> {
    let unlocked = archive.join(format!("{name}{UNLOCKED_SUFFIX}"));
    files::create_private_dir_all(&unlocked)
        .context("failed to create the snapshot's unfinished folder")?;
    let made = (|| -> Result<(PathBuf, Option<fs_err::File>)> {
        let folder = crate::platform::open::open_folder(&unlocked)?;
        let lock = match files::lock_within(folder.file(), FOLDER_LOCK_WAIT) {
            Ok(()) => Some(folder),
            // The filesystem cannot lock (an I/O error, not a lock held elsewhere).
            Err(FileError::Io(_)) => None,
            Err(error) => return Err(error).context("failed to lock the snapshot's folder"),
        };
        let temp = archive.join(name);
        fs_err::rename(&unlocked, &temp)?;
        Ok((temp, lock))
    })();
    if made.is_err() {
        let _ = fs_err::remove_dir_all(&unlocked);
    }
    made
}

/// Returns true if and only if the unfinished snapshot folder `folder` is abandoned: the run
/// that writes it holds a lock on it until it ends, so a folder whose lock can be taken has no
/// writer left (it finished, failed, or was killed). A folder still under its
/// [`UNLOCKED_SUFFIX`] name, or on a filesystem that cannot lock folders, is abandoned once it is
/// older than [`ABANDONED_AFTER`].
pub fn is_abandoned(folder: &Path) -> bool {
    let Ok(handle) = crate::platform::open::open_folder(folder) else {
        return false;
    };
    let old_enough = || {
        handle
            .metadata()
            .and_then(|metadata| metadata.modified())
            .is_ok_and(|modified| modified.elapsed().is_ok_and(|age| age > ABANDONED_AFTER))
    };
    if folder
        .file_name()
        .is_some_and(|name| name.to_string_lossy().ends_with(UNLOCKED_SUFFIX))
    {
        return old_enough();
    }
    match handle.file().try_lock() {
        // Released when `handle` is dropped.
        Ok(()) => true,
        Err(std::fs::TryLockError::WouldBlock) => false,
        Err(std::fs::TryLockError::Error(_)) => old_enough(),
    }
}

/// The unfinished snapshot folders in `archive` whose writer is gone (see [`is_abandoned`]).
pub fn abandoned_folders(archive: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs_err::read_dir(archive) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX))
        .map(|entry| entry.path())
        .filter(|folder| is_abandoned(folder))
        .collect()
}

/// `20261130T041502.123456Z-auto`: sorts by time; the trigger is reduced to safe characters.
fn snapshot_base_name(now: DateTime<Utc>, trigger: &str) -> String {
    let trigger: String = trigger
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(32)
        .collect();
    let trigger = if trigger.is_empty() {
        "unknown"
    } else {
        &trigger
    };
    format!("{}-{trigger}", now.format("%Y%m%dT%H%M%S%.6fZ"))
}

fn build(
    state: &StateDir,
    request: &SnapshotRequest,
    source: &mut TranscriptFile,
    now: DateTime<Utc>,
) -> Result<SnapshotMetadata> {
    // The kept copy is brought up to date, every byte it already held compared with the
    // transcript's; the snapshot records which of its bytes the transcript is, and copies none.
    let transcript = keep_one(state, request, &KeptName::main(), source)
        .context("failed to keep the transcript")?;
    let mut snapshot_files = vec![transcript.clone()];
    let (subagents, mut skipped) = find_subagent_files(source.path(), &request.session);
    for subagent in subagents {
        let kept = (|| {
            let name = KeptName::parse(&kept::slash_separated(&subagent.relative))?;
            let mut file = TranscriptFile::open(&subagent.source)?;
            keep_one(state, request, &name, &mut file)
        })();
        match kept {
            Ok(kept) => snapshot_files.push(kept),
            // A subagent file can vanish between listing and keeping (cleanup); the rest stays.
            Err(_) if !subagent.source.exists() => {}
            // A full disk fails the whole snapshot; anything else costs only this file.
            Err(error)
                if io_kind::is_io_kind(
                    error.as_ref(),
                    &[ErrorKind::StorageFull, ErrorKind::QuotaExceeded],
                ) =>
            {
                return Err(error);
            }
            Err(error) => {
                skipped.push(SkippedFile {
                    source: subagent.source.to_string_lossy().into_owned(),
                    error: format!("{error:#}"),
                });
            }
        }
    }
    Ok(SnapshotMetadata {
        schema: SNAPSHOT_SCHEMA,
        name: String::new(),
        session_id: request.session.to_string(),
        trigger: request.trigger.clone(),
        custom_instructions: request.custom_instructions.clone(),
        created_at: now.to_rfc3339_opts(SecondsFormat::Micros, true),
        source_path: source.path().to_string_lossy().into_owned(),
        size: transcript.size,
        sha256: transcript.sha256,
        files: snapshot_files,
        skipped,
    })
}

/// Brings the kept copy `name` of the open `source` up to date (every kept byte compared) and
/// describes the file as the snapshot records it: its path in the snapshot is its kept name
/// (`transcript.jsonl`, `subagents/…`).
fn keep_one(
    state: &StateDir,
    request: &SnapshotRequest,
    name: &KeptName,
    source: &mut TranscriptFile,
) -> Result<SnapshotFile> {
    let kept = keep_transcript(state, &request.session, name, source, Check::Whole, None)?;
    if kept.generation == 0 {
        bail!(
            "`{}` is empty (Claude Code has not written its first line): there is nothing to \
             snapshot",
            source.path().display()
        );
    }
    Ok(SnapshotFile {
        path: name.as_str().to_owned(),
        source: source.path().to_string_lossy().into_owned(),
        role: name.role(),
        size: kept.length,
        sha256: kept.sha256(),
        kept: Some(KeptReference {
            name: name.as_str().to_owned(),
            generation: kept.generation,
        }),
    })
}

/// Writes `snapshot.json` into the temp folder, then renames the folder to the first free final
/// name. Renaming onto an existing snapshot fails, so two compactions in one instant never mix.
fn publish(
    archive: &Path,
    temp: &Path,
    base_name: &str,
    mut metadata: SnapshotMetadata,
) -> Result<(SnapshotMetadata, PathBuf)> {
    for attempt in 0..1000u32 {
        let name = if attempt == 0 {
            base_name.to_owned()
        } else {
            format!("{base_name}-{attempt}")
        };
        let target = archive.join(&name);
        if target.exists() {
            continue;
        }
        metadata.name.clone_from(&name);
        let bytes = serde_json::to_vec_pretty(&metadata)?;
        files::write_atomic(
            &temp.join(METADATA_FILE_NAME),
            &bytes,
            files::PRIVATE_FILE_MODE,
        )?;
        match fs_err::rename(temp, &target) {
            Ok(()) => {
                files::sync_dir(archive);
                return Ok((metadata, target));
            }
            // Another process took this name between the check and the rename: try the next.
            Err(_) if target.exists() => {}
            Err(error) => return Err(error).context("failed to give the snapshot its final name"),
        }
    }
    bail!("could not find a free snapshot name for `{base_name}`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_appears_under_its_unfinished_name_already_locked() {
        let archive = crate::test_support::TempFolder::new("snapshot-folder");
        let (temp, lock) = make_locked_folder(archive.path(), ".tmp-x-1").unwrap();
        // Windows locks no folder: the unfinished folder is then judged by its age alone.
        if cfg!(windows) {
            assert!(lock.is_none());
            return;
        }
        assert!(lock.is_some(), "this filesystem locks folders");
        assert_eq!(temp, archive.join(".tmp-x-1"));
        assert!(
            !is_abandoned(&temp),
            "a folder with its writer taken for abandoned"
        );
        assert_eq!(abandoned_folders(archive.path()), Vec::<PathBuf>::new());
        drop(lock);
        assert_eq!(abandoned_folders(archive.path()), vec![temp]);
        // One left between making and renaming: unlocked, but too young to be taken.
        let young = archive.join(format!(".tmp-y-2{UNLOCKED_SUFFIX}"));
        fs_err::create_dir(&young).unwrap();
        assert!(!is_abandoned(&young));
    }

    #[test]
    fn names_sort_by_time_and_keep_the_trigger_safe() {
        let early = DateTime::parse_from_rfc3339("2026-11-30T04:15:02.000001Z")
            .unwrap()
            .to_utc();
        let late = DateTime::parse_from_rfc3339("2026-11-30T04:15:02.000002Z")
            .unwrap()
            .to_utc();
        let first = snapshot_base_name(early, "auto");
        assert_eq!(first, "20261130T041502.000001Z-auto");
        assert!(first < snapshot_base_name(late, "auto"));
        assert_eq!(
            snapshot_base_name(early, "../x"),
            "20261130T041502.000001Z-x"
        );
        assert_eq!(
            snapshot_base_name(early, ""),
            "20261130T041502.000001Z-unknown"
        );
    }
}
