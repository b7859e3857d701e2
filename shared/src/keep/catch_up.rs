//! What a `SessionEnd` cut short leaves for later. Claude Code gives a `SessionEnd` hook 1 s (all
//! of them 1.5 s together), and on a busy machine a run may not bring the kept copies and the
//! usage log up to date in that time, or may be ended before it starts; after it no hook runs
//! for that session unless it is resumed, and Claude Code's cleanup deletes the transcript in the
//! end. So `SessionEnd` records the session here before its work, and removes the record once
//! nothing was left for lack of time; a record that stays (the run's time or byte limit ran out,
//! or the run was ended) is taken up by the next run of the Stop hook, of any session, which
//! keeps what is left, then does what its caller gives for the rest (the usage ingest, which
//! this module stands below: `hook/catch_up.rs`), and removes the record once both finished.
//!
//! `<state>/catch-up/<session id>.<process id>.<nanoseconds>.json`, 0600, one per `SessionEnd`
//! run: `{"session_id", "transcript_path", "project_dir", "recorded_at"}` (`project_dir` when
//! the run knew one), written whole under its name (a temporary sibling renamed) and not flushed
//! to disk: a crash costs only the record, never a kept byte.

use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use chrono::{SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

use crate::keep::subagents::find_subagent_files;
use crate::keep::{Check, KeepError, KeptEnd, keep_path_waiting};
use crate::notes::Notes;
use crate::store::files::{self, FileError};
use crate::store::kept::{self, KeptName};
use crate::store::session_id::{SessionId, SessionIdError};
use crate::store::state_dir::StateDir;

/// What went wrong recording a session's end, taking a record up, or keeping what it names
/// (each variant's words are the ones a person reads).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(
    missing_docs,
    reason = "each variant's message says what it is; its fields are named for what they hold"
)]
pub enum CatchUpError {
    #[error("failed to record the session's end for the next run to keep")]
    Record(#[source] FileError),
    #[error("failed to remove `{}`", .path.display())]
    Remove { path: PathBuf, source: io::Error },
    #[error("failed to list the sessions to catch up")]
    List(#[source] io::Error),
    #[error("failed to read `{}`, a session's end to keep; removed", .path.display())]
    ReadRecord {
        path: PathBuf,
        source: Box<CatchUpError>,
    },
    /// A sub-agent's transcript that could not be looked at (`why` says what failed).
    #[error("a sub-agent transcript could not be kept: `{path}`: {why}")]
    SubagentSkipped { path: String, why: String },
    #[error("failed to keep the transcript of session {session}")]
    KeepSession {
        session: SessionId,
        source: KeepError,
    },
    #[error("failed to keep the sub-agent transcript `{}`", .path.display())]
    KeepSubagent { path: PathBuf, source: KeepError },
    /// The catch-up folder, a record's bytes, where no step is named.
    #[error(transparent)]
    File(#[from] FileError),
    /// A record that could not be written or read as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A record's session id.
    #[error(transparent)]
    SessionId(#[from] SessionIdError),
}

/// One record: a session whose end is to be kept.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    /// The session, as its payload named it.
    session_id: String,
    /// Its main transcript; its sub-agents' are found beside it.
    transcript_path: PathBuf,
    /// Its project folder, as its `SessionEnd` run found it (records written before it have
    /// none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    project_dir: Option<PathBuf>,
    /// When the `SessionEnd` run wrote it (RFC 3339, UTC).
    recorded_at: String,
}

/// A session whose end is to be brought up to date, as a record names it.
#[derive(Debug, Clone, Copy)]
pub struct EndedSession<'record> {
    /// The session.
    pub session: &'record SessionId,
    /// Its main transcript.
    pub transcript: &'record Path,
    /// Its project folder (`CLAUDE_PROJECT_DIR` or the payload's `cwd`), where its settings
    /// are, when its `SessionEnd` knew one.
    pub project_dir: Option<&'record Path>,
}

/// The most a record is read up to (a path and an id: far less).
const RECORD_LIMIT: u64 = 64 * 1024;

/// The most records one run takes up; the rest wait for the next run.
const MOST_PER_RUN: usize = 16;

/// How old a temporary sibling must be before a run removes it as left by a writer that was
/// ended between writing it and renaming it (a live writer renames it within its 1 s).
const ABANDONED_AFTER: Duration = Duration::from_secs(3600);

/// Records that the end of `ended` (its kept copies, and what the caller does besides) is to be
/// brought up to date, before the work that does it; returns the record's path, for [`remove`]
/// once the work is done.
pub fn record(state: &StateDir, ended: &EndedSession<'_>) -> Result<PathBuf, CatchUpError> {
    let session = ended.session;
    let dir = state.catch_up_dir();
    state.ensure_real_dir(&dir)?;
    let nanoseconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    let path = dir.join(format!(
        "{session}.{}.{nanoseconds}.json",
        std::process::id()
    ));
    let record = Record {
        session_id: session.as_str().to_owned(),
        transcript_path: ended.transcript.to_owned(),
        project_dir: ended.project_dir.map(Path::to_owned),
        recorded_at: Utc::now().to_rfc3339_opts(SecondsFormat::Micros, true),
    };
    files::replace_unsynced(
        &path,
        &serde_json::to_vec(&record)?,
        files::PRIVATE_FILE_MODE,
    )
    .map_err(CatchUpError::Record)?;
    Ok(path)
}

/// Removes the record at `path` (one another run removed already is no error).
pub fn remove(path: &Path) -> Result<(), CatchUpError> {
    files::remove_file_if_present(path).map_err(|source| CatchUpError::Remove {
        path: path.to_owned(),
        source,
    })
}

/// How long the next Stop hook waits for another writer of a session it catches up (the
/// session resumed, its own hooks keeping it): not longer, as the turn waits for it, and the
/// record stays for a later run.
pub const CATCH_UP_LOCK_WAIT: Duration = Duration::from_millis(100);

/// Brings the kept copies of `session` up to date: its transcript at `transcript` and every
/// sub-agent transcript beside it (both layouts, as a snapshot finds them), stopping by
/// `deadline` and waiting at most `lock_wait` for another writer. A problem is noted for the
/// error log and never stops the rest. Returns true unless something was left for a later run:
/// the time ran out, or another writer held the lock (no problem: that writer is keeping it;
/// a problem said counts as done, as it would only be said again).
pub fn keep_session(
    state: &StateDir,
    notes: &dyn Notes,
    session: &SessionId,
    transcript: &Path,
    (deadline, lock_wait): (Instant, Duration),
) -> bool {
    let keep = |name: &KeptName, path: &Path| {
        keep_path_waiting(
            state,
            session,
            name,
            path,
            (Check::Tail, Some(deadline)),
            lock_wait,
        )
    };
    let mut finished = settle(notes, keep(&KeptName::main(), transcript), |source| {
        CatchUpError::KeepSession {
            session: session.clone(),
            source,
        }
    });
    let (found, skipped) = find_subagent_files(transcript, session);
    for file in skipped {
        notes.note(Box::new(CatchUpError::SubagentSkipped {
            path: file.source,
            why: file.error,
        }));
    }
    for file in found {
        let kept = KeptName::parse(&kept::slash_separated(&file.relative))
            .map_err(KeepError::from)
            .and_then(|name| keep(&name, &file.source));
        finished &= settle(notes, kept, |source| CatchUpError::KeepSubagent {
            path: file.source.clone(),
            source,
        });
    }
    finished
}

/// Whether one keep left nothing for a later run, noting its problem (`what` names the keep);
/// a lock another writer held is no problem.
fn settle(
    notes: &dyn Notes,
    kept: Result<Option<KeptEnd>, KeepError>,
    what: impl FnOnce(KeepError) -> CatchUpError,
) -> bool {
    match kept {
        Ok(kept) => kept.is_none_or(|kept| kept.caught_up),
        Err(error) if error.is_lock_held() => false,
        Err(error) => {
            notes.note(Box::new(what(error)));
            true
        }
    }
}

/// Takes up the records `SessionEnd` runs cut short left, until `deadline`: each session's kept
/// copies are brought up to date, then `rest` does what else its end needs (the hook layer's
/// usage ingest; by `deadline` too, which it is given, and true when it finished), and the
/// record is removed when both finished (else it stays for the next run). A record that cannot
/// be read is said and removed.
pub fn catch_up(
    state: &StateDir,
    notes: &dyn Notes,
    deadline: Instant,
    rest: &dyn Fn(&EndedSession<'_>, Instant) -> bool,
) {
    let dir = state.catch_up_dir();
    let entries = match files::present(fs_err::read_dir(&dir)) {
        Ok(Some(entries)) => entries,
        Ok(None) => return,
        Err(error) => {
            notes.note(Box::new(CatchUpError::List(error)));
            return;
        }
    };
    let mut records = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            remove_if_abandoned(&path);
        } else if path
            .extension()
            .is_some_and(|extension| extension == "json")
        {
            records.push(path);
        }
    }
    records.sort();
    for path in records.into_iter().take(MOST_PER_RUN) {
        if Instant::now() >= deadline {
            return;
        }
        let done = match take_up(state, notes, &path, deadline, rest) {
            Ok(done) => done,
            Err(error) => {
                notes.note(Box::new(CatchUpError::ReadRecord {
                    path: path.clone(),
                    source: Box::new(error),
                }));
                true
            }
        };
        if done && let Err(error) = remove(&path) {
            notes.note(Box::new(error));
        }
    }
}

/// Keeps what the record at `path` names, then does `rest` for it; true when both finished (a
/// record another run took up meanwhile is done).
fn take_up(
    state: &StateDir,
    notes: &dyn Notes,
    path: &Path,
    deadline: Instant,
    rest: &dyn Fn(&EndedSession<'_>, Instant) -> bool,
) -> Result<bool, CatchUpError> {
    let Some(bytes) = files::read_state_file_within(path, RECORD_LIMIT)? else {
        return Ok(true);
    };
    let record: Record = serde_json::from_slice(&bytes)?;
    let session = SessionId::parse(&record.session_id)?;
    let kept = keep_session(
        state,
        notes,
        &session,
        &record.transcript_path,
        (deadline, CATCH_UP_LOCK_WAIT),
    );
    // Done whatever became of the keep: the two are independent, and each leaves the record.
    let rested = rest(
        &EndedSession {
            session: &session,
            transcript: &record.transcript_path,
            project_dir: record.project_dir.as_deref(),
        },
        deadline,
    );
    Ok(kept && rested)
}

/// Removes a temporary sibling a writer ended before its rename left, once it is old enough
/// that no live writer can still be about to rename it.
fn remove_if_abandoned(path: &Path) {
    let abandoned = fs_err::symlink_metadata(path)
        .and_then(|metadata| metadata.modified())
        .is_ok_and(|modified| modified.elapsed().is_ok_and(|age| age > ABANDONED_AFTER));
    if abandoned {
        let _ = fs_err::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{KeptNotes, TempFolder};

    #[test]
    fn a_record_that_cannot_be_read_is_said_and_removed() {
        let temp = TempFolder::new("catch-up-unreadable");
        let state = StateDir::at(temp.join("state"));
        let dir = state.catch_up_dir();
        state.ensure_real_dir(&dir).unwrap();
        let path = dir.join("s1.1.1.json");
        fs_err::write(&path, "{\"session_id\":").unwrap();
        let notes = KeptNotes::default();
        catch_up(
            &state,
            &notes,
            Instant::now() + Duration::from_secs(60),
            &|_, _| true,
        );
        let said = notes.causes();
        assert_eq!(said.len(), 1, "{said:?}");
        assert_eq!(
            said[0][0],
            format!(
                "failed to read `{}`, a session's end to keep; removed",
                path.display()
            )
        );
        assert!(said[0][1].starts_with("EOF while parsing"), "{said:?}");
        assert!(!path.exists());
    }
}
