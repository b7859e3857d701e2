//! Taking one snapshot: bring the kept copies of the transcript and its subagent transcripts up
//! to date (`keep.rs`), then record in a new folder, which gets its final name only once
//! it is written, which kept bytes each file is (`snapshot.json`, schema 2; no second copy).

use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};

use crate::causes::Causes;
use crate::keep::subagents::find_subagent_files;
use crate::keep::{Check, KeepError, keep_transcript};
use crate::store::files::{self, FileError};
use crate::store::io_kind;
use crate::store::kept::{self, KeptError, KeptName};
use crate::store::session_id::SessionId;
use crate::store::snapshot_metadata::{
    KeptReference, METADATA_FILE_NAME, SNAPSHOT_SCHEMA, SkippedFile, SnapshotFile,
    SnapshotMetadata, TEMP_PREFIX,
};
use crate::store::state_dir::StateDir;
use crate::store::trigger::Trigger;
use crate::transcript::file::{TranscriptError, TranscriptFile};

/// Why a snapshot could not be taken, or a sub-agent's file could not be in it (each variant's
/// words are the ones a person reads).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(
    missing_docs,
    reason = "each variant's message says what it is; its fields are named for what they hold"
)]
pub enum SnapshotError {
    #[error("failed to create the snapshot's unfinished folder")]
    CreateFolder(#[source] FileError),
    #[error("failed to lock the snapshot's folder")]
    LockFolder(#[source] FileError),
    /// The main transcript's keep.
    #[error("failed to keep the transcript")]
    KeepTranscript(#[source] Box<SnapshotError>),
    /// Claude Code has not written the transcript's first line yet.
    #[error(
        "`{}` is empty (Claude Code has not written its first line): there is nothing to \
         snapshot",
        .0.display()
    )]
    Empty(PathBuf),
    #[error("failed to give the snapshot its final name")]
    Rename(#[source] io::Error),
    /// Every name from the base name on (`-1` to `-999` after it) is taken.
    #[error("could not find a free snapshot name for `{0}`")]
    NoFreeName(String),
    #[error(transparent)]
    Keep(#[from] KeepError),
    /// A sub-agent's kept name.
    #[error(transparent)]
    Kept(#[from] KeptError),
    /// A sub-agent's transcript, opened.
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    /// The session's and the archive's folders, `snapshot.json`, where no step is named.
    #[error(transparent)]
    File(#[from] FileError),
    /// `snapshot.json`'s text.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// Anything else the file system said where no step is named.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl SnapshotError {
    /// The file system's error a variant that shows it as its own holds (a transparent one
    /// hides it from the chain of causes, and a boxed one from a downcast): what a caller that
    /// holds this error asks besides [`crate::store::io_kind::is_io_kind`], which reads the
    /// chain and the state folder's errors only.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            Self::Io(source) => Some(source),
            Self::File(file) => file.io_error(),
            Self::Kept(kept) => kept.io_error(),
            Self::Keep(keep) => keep.io_error(),
            Self::KeepTranscript(inner) => inner.io_error(),
            _ => None,
        }
    }
}

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
) -> Result<(SnapshotMetadata, PathBuf), SnapshotError> {
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
fn make_locked_folder(
    archive: &Path,
    name: &str,
) -> Result<(PathBuf, Option<fs_err::File>), SnapshotError> {
    let unlocked = archive.join(format!("{name}{UNLOCKED_SUFFIX}"));
    files::create_private_dir_all(&unlocked).map_err(SnapshotError::CreateFolder)?;
    let made = (|| -> Result<(PathBuf, Option<fs_err::File>), SnapshotError> {
        let folder = crate::platform::open::open_folder(&unlocked)?;
        let lock = match files::lock_within(folder.file(), FOLDER_LOCK_WAIT) {
            Ok(()) => Some(folder),
            // The filesystem cannot lock (an I/O error, not a lock held elsewhere).
            Err(FileError::Io(_)) => None,
            Err(error) => return Err(SnapshotError::LockFolder(error)),
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
) -> Result<SnapshotMetadata, SnapshotError> {
    // The kept copy is brought up to date, every byte it already held compared with the
    // transcript's; the snapshot records which of its bytes the transcript is, and copies none.
    let transcript = keep_one(state, request, &KeptName::main(), source)
        .map_err(|error| SnapshotError::KeepTranscript(Box::new(error)))?;
    let mut snapshot_files = vec![transcript.clone()];
    let (subagents, mut skipped) = find_subagent_files(source.path(), &request.session);
    for subagent in subagents {
        let kept = (|| -> Result<SnapshotFile, SnapshotError> {
            let name = KeptName::parse(&kept::slash_separated(&subagent.relative))?;
            let mut file = TranscriptFile::open(&subagent.source)?;
            keep_one(state, request, &name, &mut file)
        })();
        match kept {
            Ok(kept) => snapshot_files.push(kept),
            // A subagent file can vanish between listing and keeping (cleanup); the rest stays.
            Err(_) if !subagent.source.exists() => {}
            // A full disk fails the whole snapshot; anything else costs only this file.
            Err(error) if is_out_of_space(&error) => return Err(error),
            Err(error) => {
                skipped.push(SkippedFile {
                    source: subagent.source.to_string_lossy().into_owned(),
                    error: Causes(&error).to_string(),
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

/// Returns true if and only if the file system's error behind `error` is a full disk or a full
/// quota: said by `error` itself (its transparent and boxed variants) or by one of its causes.
fn is_out_of_space(error: &SnapshotError) -> bool {
    let kinds = [ErrorKind::StorageFull, ErrorKind::QuotaExceeded];
    error
        .io_error()
        .is_some_and(|io| kinds.contains(&io.kind()))
        || io_kind::is_io_kind(error, &kinds)
}

/// Brings the kept copy `name` of the open `source` up to date (every kept byte compared) and
/// describes the file as the snapshot records it: its path in the snapshot is its kept name
/// (`transcript.jsonl`, `subagents/…`).
fn keep_one(
    state: &StateDir,
    request: &SnapshotRequest,
    name: &KeptName,
    source: &mut TranscriptFile,
) -> Result<SnapshotFile, SnapshotError> {
    let kept = keep_transcript(state, &request.session, name, source, Check::Whole, None)?;
    if kept.generation == 0 {
        return Err(SnapshotError::Empty(source.path().to_owned()));
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
) -> Result<(SnapshotMetadata, PathBuf), SnapshotError> {
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
            Err(error) => return Err(SnapshotError::Rename(error)),
        }
    }
    Err(SnapshotError::NoFreeName(base_name.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{TempFolder, causes_of};

    #[test]
    fn a_full_disk_is_told_through_transparent_boxed_and_step_variants() {
        let full = || io::Error::from(ErrorKind::StorageFull);
        let kept = SnapshotError::Keep(KeepError::Kept(KeptError::Io(full())));
        assert!(is_out_of_space(&kept));
        let boxed = SnapshotError::KeepTranscript(Box::new(SnapshotError::Keep(KeepError::File(
            FileError::Io(io::Error::from(ErrorKind::QuotaExceeded)),
        ))));
        assert!(is_out_of_space(&boxed));
        let step = SnapshotError::Keep(KeepError::Kept(KeptError::StartGeneration(FileError::Io(
            full(),
        ))));
        assert!(is_out_of_space(&step));
        let read = SnapshotError::Keep(KeepError::ReadNewBytes(full()));
        assert!(is_out_of_space(&read));
        let denied =
            SnapshotError::Keep(KeepError::Io(io::Error::from(ErrorKind::PermissionDenied)));
        assert!(!is_out_of_space(&denied));
    }

    #[test]
    fn an_empty_transcript_is_no_snapshot_and_says_why_in_the_same_words() {
        let temp = TempFolder::new("snapshot-empty");
        let state = StateDir::at(temp.join("state"));
        let path = temp.join("s1.jsonl");
        fs_err::write(&path, "").unwrap();
        let request = SnapshotRequest {
            session: SessionId::parse("s1").unwrap(),
            trigger: Trigger::from_text("manual"),
            custom_instructions: None,
        };
        let mut transcript = TranscriptFile::open(&path).unwrap();
        let error = take_snapshot(&state, &request, &mut transcript).unwrap_err();
        assert_eq!(
            causes_of(&error),
            [
                "failed to keep the transcript".to_owned(),
                format!(
                    "`{}` is empty (Claude Code has not written its first line): there is \
                     nothing to snapshot",
                    path.display()
                ),
            ]
        );
        let archive = state.archive_dir(&request.session);
        assert_eq!(fs_err::read_dir(archive).unwrap().count(), 0);
    }

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
