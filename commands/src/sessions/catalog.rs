//! What ctxhooks knows of each session: where it ran, when, how much of it is kept, how many
//! requests and compactions it had, and where its transcript stands with Claude Code's cleanup
//! (still there, due for deletion, or deleted and kept only here).

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::Result;
use chrono::{DateTime, Utc};
use rayon::prelude::*;

use crate::facts::log::{SessionLog, TimelineItem, read_session_log};
use crate::facts::summary::SessionSummary;
use crate::retention::sweep::{CleanupState, CleanupStatus};
use crate::snapshots::catalog::list_snapshots;
use crate::snapshots::parts::earlier_parts;
use crate::time::{Time, second_of};
use ctxhooks_shared::store::files;
use ctxhooks_shared::store::kept::{self, GenerationIndex, KeptName};
use ctxhooks_shared::store::kept_check::{Depth, newest_whole};
use ctxhooks_shared::store::rotation;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::store::whereabouts::{LoggedPaths, is_regular_file, locate};
use ctxhooks_shared::transcript::lines::{MAX_LINE_BYTES, split_opening_lines};
use ctxhooks_shared::transcript::record::Record;

/// One session, as ctxhooks knows it: what it is, and what ctxhooks keeps of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptSession {
    /// What it is (where it ran: its relocation, else the `cwd` its usage log or its kept
    /// transcript's opening names).
    pub summary: SessionSummary,
    /// Where Claude Code keeps (or kept) its transcript.
    pub transcript: Option<PathBuf>,
    /// Whether that file is still there (Claude Code's cleanup deletes old transcripts).
    pub transcript_present: bool,
    /// Where the transcript stands with Claude Code's cleanup.
    pub cleanup: CleanupStatus,
    /// The newest change ctxhooks made for the session, to the second.
    pub last_activity: Option<Time>,
    /// Transcript bytes kept (the main transcript's newest generation, and the newest of each
    /// other transcript of the session: resumed from another folder).
    pub size: u64,
    /// Bytes the kept copies take on disk, every transcript and generation, compressed.
    pub stored_bytes: u64,
    /// Generations of the main transcript's kept copy (more than 1: it was rewritten or cut).
    pub generations: u32,
    /// Sub-agent transcripts kept.
    pub subagents: usize,
    /// API requests in the usage log.
    pub requests: usize,
    /// Compactions: boundaries in the usage log, else snapshots.
    pub compactions: usize,
    /// Snapshots taken before compactions.
    pub snapshots: usize,
    /// An earlier part of its transcript (the session resumed in another project folder, the
    /// file of the folder it was in before) is gone from Claude Code's folder and kept here:
    /// `archives restore --deleted` writes it back.
    pub part_gone: bool,
}

impl KeptSession {
    /// Whether ctxhooks keeps anything of its transcript (a kept copy, or a snapshot's copy)
    /// that `archives restore` can write back.
    pub fn is_kept(&self) -> bool {
        self.generations > 0 || self.snapshots > 0
    }
}

/// Every session in the state folder, newest activity first, each with where its transcript
/// stands with a cleanup of `retention_days` (absent: paused) at `now`. Sessions are read on
/// every core.
pub fn list_sessions(
    state: &StateDir,
    retention_days: Option<u64>,
    now: DateTime<Utc>,
) -> Result<Vec<KeptSession>> {
    let mut sessions = state
        .session_ids()?
        .par_iter()
        .map(|session| summarize(state, session, retention_days, now))
        .collect::<Vec<_>>();
    // Newest first; the same time by id.
    sessions.sort_by(|left, right| {
        let (left_id, right_id) = (&left.summary.session_id, &right.summary.session_id);
        (&right.last_activity, left_id).cmp(&(&left.last_activity, right_id))
    });
    Ok(sessions)
}

/// The newest change ctxhooks made in a session's folder: the latest modification time of its
/// files (the usage log, the sidecar, the cursor), of its archive, and of its kept copies'
/// indexes. Cheap: no file is read.
pub fn last_activity(state: &StateDir, session: &SessionId) -> Option<SystemTime> {
    let generation = kept::latest_generation(&state.kept_dir(session), &KeptName::main());
    last_activity_with(state, session, generation.unwrap_or(0))
}

/// [`last_activity`] when the main transcript's newest generation is known.
fn last_activity_with(
    state: &StateDir,
    session: &SessionId,
    generation: u32,
) -> Option<SystemTime> {
    let folder = state.session_dir(session);
    let mut newest = modified(&folder);
    // `None` is older than any time.
    let mut consider = |path: &Path| newest = newest.max(modified(path));
    for entry in files::entries(&folder) {
        consider(&entry.path());
    }
    if generation > 0 {
        consider(&KeptName::main().index_path(&state.kept_dir(session), generation));
    }
    newest
}

fn modified(path: &Path) -> Option<SystemTime> {
    fs_err::symlink_metadata(path)
        .and_then(|metadata| metadata.modified())
        .ok()
}

/// Everything known of one session, its transcript's cleanup as of `now` with a retention of
/// `retention_days`. Parts that cannot be read are left out, never fatal.
pub fn summarize(
    state: &StateDir,
    session: &SessionId,
    retention_days: Option<u64>,
    now: DateTime<Utc>,
) -> KeptSession {
    let kept_dir = state.kept_dir(session);
    let main = KeptName::main();
    let kept_list = kept::list_kept(&kept_dir).unwrap_or_default();
    let generations = kept_list
        .iter()
        .find(|(name, _)| name.is_main())
        .map_or(0, |(_, generation)| *generation);
    // The newest generation that keeps something readable (what `recall` reads).
    let index = newest_whole(&kept_dir, &main, Depth::Files)
        .ok()
        .and_then(|newest| newest.chosen)
        .and_then(|chosen| chosen.index);
    let snapshots = list_snapshots(state, Some(session)).unwrap_or_default();
    let log = rotation::log_exists(&state.usage_log(session))
        .then(|| read_session_log(state, session).ok())
        .flatten();
    let sources = log.as_ref().map_or(&[][..], |log| log.sources.as_slice());
    let logged = LoggedPaths::of(session, sources.iter().map(|source| &source.transcript));
    // Where the transcript was recorded. The catalog lists every session, kept or not, with
    // what `recall` and `restore` give back of it: so where the generation they read (the
    // newest whole one, whose size is the one shown) was kept from; else, with no whole
    // generation, where the last snapshot was taken from; else, with nothing kept (a prune
    // deletes the copies, the log stays), where the usage log first read the main transcript.
    let recorded = index
        .as_ref()
        .map(|index| PathBuf::from(&index.header.source))
        .or_else(|| {
            snapshots
                .last()
                .map(|snapshot| PathBuf::from(&snapshot.metadata.source_path))
        })
        .or_else(|| logged.first().map(Path::to_path_buf));
    let transcript = recorded.map(|recorded| locate(&recorded, || logged).path);
    let cleanup = CleanupStatus::of(transcript.as_deref(), retention_days, now);
    let transcript_present = matches!(cleanup.state, CleanupState::Live | CleanupState::Due);
    // What the usage log already says of the main transcript: its first `cwd` (its source
    // record) and its first request's time. The kept copy's opening is decompressed only for a
    // session whose log does not say them (reading it for every session was most of the
    // command's time).
    let empty = SessionLog::default();
    let logged = log.as_ref().unwrap_or(&empty);
    let main_path = transcript.as_deref().map(Path::to_string_lossy);
    let main_source = main_path.and_then(|path| logged.source_of(&path));
    let mut summary = SessionSummary::of(session.as_str(), logged, main_source);
    let opening = index
        .as_ref()
        .filter(|_| summary.cwd.is_none() || summary.first_time.is_none())
        .and_then(|index| read_opening(&kept_dir, &main, index));
    let opening = opening.unwrap_or_default();
    summary.cwd = (summary.cwd)
        .or(opening.cwd)
        .or_else(|| logged.first_cwd().map(ToOwned::to_owned));
    summary.first_time = (summary.first_time)
        .or(opening.time)
        .or_else(|| {
            index
                .as_ref()
                .map(|index| Time::parse(&index.header.started_at))
        })
        .or_else(|| (snapshots.first()).map(|snapshot| snapshot.created.clone()));
    // Compactions: the log's boundaries, else (no log) the snapshots.
    let (requests, compactions) = log.as_ref().map_or((0, snapshots.len()), |log| {
        let requests = log.requests().count();
        let boundaries = log
            .timeline
            .iter()
            .filter(|item| matches!(item, TimelineItem::Compaction(boundary) if !boundary.row.sidechain))
            .count();
        (requests, boundaries)
    });
    let stored_bytes = kept_list
        .iter()
        .flat_map(|(name, generations)| {
            (1..=*generations).map(|generation| name.data_path(&kept_dir, generation))
        })
        .filter_map(|path| fs_err::symlink_metadata(path).ok())
        .map(|metadata| metadata.len())
        .sum();
    let parts = index
        .as_ref()
        .map(|index| earlier_parts(&kept_dir, &main, index))
        .unwrap_or_default();
    let index_length = index.as_ref().map_or(0, GenerationIndex::length);
    KeptSession {
        summary,
        transcript,
        transcript_present,
        cleanup,
        last_activity: last_activity_with(state, session, generations).map(second_of),
        // The session's other transcripts (resumed from another folder) kept too.
        size: index_length + parts.iter().map(GenerationIndex::length).sum::<u64>(),
        part_gone: parts
            .iter()
            .any(|part| !is_regular_file(Path::new(&part.header.source))),
        stored_bytes,
        generations,
        subagents: kept_list.iter().filter(|(name, _)| !name.is_main()).count(),
        requests,
        compactions,
        snapshots: snapshots.len(),
    }
}

/// What the opening of a transcript says: its first `cwd` and first timestamp.
#[derive(Debug, Default)]
struct Opening {
    cwd: Option<String>,
    time: Option<Time>,
}

/// How much of a kept transcript is read for its opening.
const OPENING_BYTES: u64 = 256 * 1024;

fn read_opening(kept_dir: &Path, name: &KeptName, index: &GenerationIndex) -> Option<Opening> {
    let length = index.length().min(OPENING_BYTES);
    let reader = kept::open_generation(kept_dir, name, index, length).ok()?;
    let mut opening = Opening::default();
    // Decompressed a little at a time: the first lines usually say both, and inflating a whole
    // MiB for each of a thousand sessions was most of `sessions`' time.
    let _ = split_opening_lines(reader.take(length), MAX_LINE_BYTES, |line| {
        if let Some(record) = line.bytes.and_then(Record::parse) {
            if opening.cwd.is_none() {
                opening.cwd = record.cwd.owned();
            }
            if opening.time.is_none() {
                opening.time = Time::of(record.timestamp.text());
            }
        }
        if opening.cwd.is_some() && opening.time.is_some() {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    Some(opening)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxhooks_shared::test_support::TempFolder;

    #[test]
    fn a_sub_agents_transcript_is_never_taken_for_the_sessions() {
        let temp = TempFolder::new("catalog-agent");
        let state = StateDir::at(temp.join("state"));
        let id = SessionId::parse("0123abcd-0000-4000-8000-000000000000").unwrap();
        state.ensure_session_dir(&id).unwrap();
        let project = temp.join("project");
        fs_err::create_dir_all(&project).unwrap();
        let agent = project.join("agent-a1.jsonl");
        let main = project.join(format!("{id}.jsonl"));
        let source = |transcript: &Path| {
            format!(
                "{{\"kind\":\"source\",\"transcript\":{},\"cwd\":\"/p\",\"version\":null}}\n",
                serde_json::to_string(&transcript.to_string_lossy()).unwrap()
            )
        };
        let summarize_now = || summarize(&state, &id, None, Utc::now()).transcript;
        // Nothing kept, and the log read a sub-agent's transcript first (the main one failed
        // to open in that run): the session's transcript is the main one, never the agent's.
        fs_err::write(&agent, b"{}\n").unwrap();
        fs_err::write(state.usage_log(&id), source(&agent)).unwrap();
        assert_eq!(summarize_now(), None);
        fs_err::write(
            state.usage_log(&id),
            [source(&agent), source(&main)].concat(),
        )
        .unwrap();
        assert_eq!(summarize_now(), Some(main.clone()));
        fs_err::write(&main, b"{}\n").unwrap();
        assert_eq!(summarize_now(), Some(main));
    }
}
