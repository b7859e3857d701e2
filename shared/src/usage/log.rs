//! The usage log of one session: appending what a transcript gained since the last run, and
//! reading the log back with one row per request.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use chrono::{SecondsFormat, Utc};
use fs_err::os::unix::fs::OpenOptionsExt;

use super::cursor::{CURSOR_FILE_NAME, CursorFile, TranscriptCursor};
use super::ingest::{Ingest, Origin, SourceState};
use super::record::{BoundaryRow, RescanRow, SourceRow, UsageRecord, UsageRow};
use crate::archive::snapshot::check_transcript;
use crate::files;
use crate::session_id::SessionId;
use crate::state::StateDir;
use crate::transcript::{
    MAX_LINE_BYTES, fingerprint_before, read_bounded_lines, read_complete_lines,
};

/// The usage log's name inside a session's folder.
pub const USAGE_FILE_NAME: &str = "usage.jsonl";

/// The most one ingest reads (about 10 s at the 56 MB/s measured on this project's machines),
/// so that a Stop hook stays well inside its budget on a transcript of any size.
pub const RUN_BYTES: u64 = 512 * 1024 * 1024;

/// The lock file that serializes ingests of one session (Stop and `SubagentStop` may overlap).
pub const LOCK_FILE_NAME: &str = "usage.lock";

/// One session's usage log, read back: requests once each, in the order they first appeared.
#[derive(Debug, Clone, Default)]
pub struct SessionLog {
    /// Requests and boundaries in log order (a request at its first appearance, with its last
    /// values).
    pub timeline: Vec<TimelineItem>,
    /// Where each transcript ran.
    pub sources: Vec<SourceRow>,
    /// Rescans the hook did.
    pub rescans: Vec<RescanRow>,
}

/// A request or a boundary, in log order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimelineItem {
    /// An API request.
    Request(UsageRow),
    /// A `compact_boundary`.
    Compaction(BoundaryRow),
    /// A `microcompact_boundary`.
    MicroCompaction(BoundaryRow),
}

impl SessionLog {
    /// Every request row, in order.
    pub fn rows(&self) -> Vec<UsageRow> {
        self.timeline
            .iter()
            .filter_map(|item| match item {
                TimelineItem::Request(row) => Some(row.clone()),
                _ => None,
            })
            .collect()
    }

    /// Folds records into a log: later versions of a request replace earlier ones (keeping the
    /// largest output count), repeated boundaries (same uuid) count once.
    pub fn from_records(records: impl IntoIterator<Item = UsageRecord>) -> Self {
        let mut log = Self::default();
        let mut request_index: HashMap<String, usize> = HashMap::new();
        let mut boundary_seen: HashSet<String> = HashSet::new();
        for record in records {
            match record {
                UsageRecord::Request(row) => {
                    if let Some(&index) = request_index.get(&row.key) {
                        if let TimelineItem::Request(known) = &mut log.timeline[index] {
                            let output = known.output_tokens.max(row.output_tokens);
                            let advisor = known.advisor || row.advisor;
                            let turn_start = known.turn_start || row.turn_start;
                            let bytes = known.tool_result_bytes;
                            let largest = known.largest_tool_result.take();
                            *known = row;
                            known.output_tokens = output;
                            known.advisor = advisor;
                            known.turn_start = turn_start;
                            if known.tool_result_bytes == 0 {
                                known.tool_result_bytes = bytes;
                                known.largest_tool_result = largest;
                            }
                        }
                    } else {
                        request_index.insert(row.key.clone(), log.timeline.len());
                        log.timeline.push(TimelineItem::Request(row));
                    }
                }
                UsageRecord::CompactBoundary(row) | UsageRecord::MicrocompactBoundary(row)
                    if row.uuid.as_ref().is_some_and(|uuid| {
                        !boundary_seen.insert(format!("{}:{uuid}", row.transcript))
                    }) => {}
                UsageRecord::CompactBoundary(row) => {
                    log.timeline.push(TimelineItem::Compaction(row));
                }
                UsageRecord::MicrocompactBoundary(row) => {
                    log.timeline.push(TimelineItem::MicroCompaction(row));
                }
                UsageRecord::Rescan(row) => log.rescans.push(row),
                UsageRecord::Source(row) => {
                    if !log
                        .sources
                        .iter()
                        .any(|known| known.transcript == row.transcript)
                    {
                        log.sources.push(row);
                    }
                }
            }
        }
        log
    }
}

/// The usage log's path for a session.
pub fn usage_log_path(state: &StateDir, session: &SessionId) -> PathBuf {
    state.session_dir(session).join(USAGE_FILE_NAME)
}

/// Every readable record of a usage log file (lines that are not records are skipped).
pub fn read_records(path: &Path) -> Result<Vec<UsageRecord>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    // Bytes, not text: one damaged line (invalid UTF-8) must not hide the others.
    let bytes = fs_err::read(path).context("failed to read the usage log")?;
    Ok(bytes
        .split(|byte| *byte == b'\n')
        .filter_map(|line| serde_json::from_slice(line).ok())
        .collect())
}

/// One session's log, read back from the state folder.
pub fn read_session_log(state: &StateDir, session: &SessionId) -> Result<SessionLog> {
    Ok(SessionLog::from_records(read_records(&usage_log_path(
        state, session,
    ))?))
}

/// One session's request rows (one per request, last values, largest output), in order.
pub fn read_rows(state: &StateDir, session: &SessionId) -> Result<Vec<UsageRow>> {
    Ok(read_session_log(state, session)?.rows())
}

/// Reads a whole transcript file at rest (no state folder) into a log. `agent_id` marks a
/// sub-agent's own transcript.
pub fn log_from_transcript(transcript: &Path, agent_id: Option<&str>) -> Result<SessionLog> {
    let origin = origin_for(transcript, agent_id);
    let mut file = fs_err::File::open(transcript).context("failed to open the transcript")?;
    let mut ingest = Ingest::new(&origin, SourceState::default());
    read_complete_lines(&mut file, 0, true, |_, line| ingest.feed(line))?;
    let (records, _) = ingest.finish();
    Ok(SessionLog::from_records(records))
}

fn origin_for(transcript: &Path, agent_id: Option<&str>) -> Origin {
    let file_name = transcript
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let from_name = file_name
        .strip_prefix("agent-")
        .and_then(|rest| rest.strip_suffix(".jsonl"))
        .map(ToOwned::to_owned);
    let agent_id = agent_id.map(ToOwned::to_owned).or(from_name);
    Origin {
        transcript: transcript.to_string_lossy().into_owned(),
        is_agent_file: agent_id.is_some(),
        agent_id,
    }
}

/// What one ingest did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestOutcome {
    /// Records appended.
    pub appended: usize,
    /// Byte offset reached.
    pub offset: u64,
    /// Why the transcript was read from its start again, if it was.
    pub rescan: Option<String>,
    /// Complete lines skipped (and passed) because they were longer than
    /// [`MAX_LINE_BYTES`]: they are not read again, so they are reported once.
    pub overlong_lines: u64,
}

/// Appends to the session's usage log what `transcript` gained since the last ingest (the
/// cursor in `cursor.json`). A shrunk or rewritten transcript is read again from its start and
/// its old records are replaced, so rows are never duplicated. `agent_id` marks a sub-agent's
/// own transcript (`SubagentStop`'s `agent_transcript_path`).
pub fn ingest_transcript(
    state: &StateDir,
    session: &SessionId,
    transcript: &Path,
    agent_id: Option<&str>,
) -> Result<IngestOutcome> {
    let session_dir = state.ensure_session_dir(session)?;
    let lock = fs_err::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(files::PRIVATE_FILE_MODE)
        .open(session_dir.join(LOCK_FILE_NAME))
        .context("failed to open the usage lock")?;
    let wait = lock_wait();
    files::lock_within(lock.file(), wait).with_context(|| {
        format!(
            "the usage log is busy: another ctxhooks process held its lock for {} ms; skipped \
             (the next Stop run catches up)",
            wait.as_millis()
        )
    })?;
    let outcome = ingest_locked(&session_dir, transcript, agent_id);
    let _ = lock.file().unlock();
    outcome
}

/// How long an ingest waits for another one of the same session (`CTXHOOKS_LOCK_WAIT_MS`,
/// default 10 s). A hook must never wait out Claude Code's timeout: `PreCompact`'s would delay the
/// compaction. What is skipped is caught up by the next run, from the cursor.
fn lock_wait() -> std::time::Duration {
    std::env::var(crate::env_vars::CTXHOOKS_LOCK_WAIT_MS)
        .ok()
        .and_then(|text| text.trim().parse::<u64>().ok())
        .map_or(
            std::time::Duration::from_secs(10),
            std::time::Duration::from_millis,
        )
}

fn ingest_locked(
    session_dir: &Path,
    transcript: &Path,
    agent_id: Option<&str>,
) -> Result<IngestOutcome> {
    let origin = origin_for(transcript, agent_id);
    let cursor_path = session_dir.join(CURSOR_FILE_NAME);
    let log_path = session_dir.join(USAGE_FILE_NAME);
    // An unreadable cursor means a rescan; keyed rows make that safe.
    let (mut cursors, cursor_broken) = match CursorFile::load(&cursor_path) {
        Ok(cursors) => (cursors, false),
        Err(_) => (CursorFile::default(), true),
    };
    // A FIFO would block the open, a device such as /dev/zero never ends, a symbolic link
    // may point anywhere: refuse them all before opening, and check the handle again.
    check_transcript(transcript)?;
    let mut file = fs_err::File::open(transcript).context("failed to open the transcript")?;
    let metadata = file
        .metadata()
        .context("failed to read the transcript's size")?;
    if !metadata.is_file() {
        bail!(
            "the transcript `{}` is not a regular file",
            transcript.display()
        );
    }
    let size = metadata.len();
    let known = cursors.transcripts.remove(&origin.transcript);
    let mut rescan = None;
    let (start, source_state) = match known {
        Some(cursor) if cursor.offset > size => {
            rescan = Some("shrank".to_owned());
            (0, SourceState::default())
        }
        Some(cursor) if fingerprint_before(&mut file, cursor.offset)? != cursor.fingerprint => {
            rescan = Some("fingerprint_changed".to_owned());
            (0, SourceState::default())
        }
        Some(cursor) => (cursor.offset, cursor.state),
        None if cursor_broken && log_path.exists() => {
            rescan = Some("cursor_unreadable".to_owned());
            (0, SourceState::default())
        }
        None => (0, SourceState::default()),
    };
    if let Some(reason) = &rescan {
        drop_source_records(&log_path, &origin.transcript)?;
        files::append_json_line(
            &log_path,
            &UsageRecord::Rescan(RescanRow {
                time: Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
                transcript: origin.transcript.clone(),
                reason: reason.clone(),
            }),
        )?;
    }
    let mut ingest = Ingest::new(&origin, source_state);
    // Read no further than the size seen at open, and at most RUN_BYTES per run: a huge
    // backlog is caught up over several runs, each one leaving a saved cursor.
    let until = size.min(start.saturating_add(RUN_BYTES));
    let read = read_bounded_lines(&mut file, start, until, false, MAX_LINE_BYTES, |_, line| {
        ingest.feed(line);
    })?;
    let offset = read.offset;
    let (records, source_state) = ingest.finish();
    for record in &records {
        files::append_json_line(&log_path, record)?;
    }
    let fingerprint = fingerprint_before(&mut file, offset)?;
    // A sub-agent's transcript is read at its SubagentStop, when the agent is done: its cursor
    // keeps the offset and fingerprint only, so cursor.json does not grow by a reader's state
    // for every agent the session ever ran.
    let source_state = if origin.is_agent_file {
        source_state.finished()
    } else {
        source_state
    };
    cursors.transcripts.insert(
        origin.transcript.clone(),
        TranscriptCursor {
            offset,
            fingerprint,
            state: source_state,
        },
    );
    cursors.save(&cursor_path)?;
    Ok(IngestOutcome {
        appended: records.len(),
        offset,
        rescan,
        overlong_lines: read.overlong_lines,
    })
}

/// Rewrites the log without `transcript`'s records (rescans are kept as history). The log as it
/// was is kept beside it first (`usage.before-rescan-<time>.jsonl`): rows are never lost, even
/// when the transcript they came from was cut short. Lines it cannot read stay byte for byte.
fn drop_source_records(log_path: &Path, transcript: &str) -> Result<()> {
    if !log_path.exists() {
        return Ok(());
    }
    let bytes = fs_err::read(log_path).context("failed to read the usage log")?;
    let mut kept = Vec::with_capacity(bytes.len());
    for line in bytes.split_inclusive(|byte| *byte == b'\n') {
        let drop = serde_json::from_slice::<UsageRecord>(line).is_ok_and(|record| {
            record.transcript() == transcript && !matches!(record, UsageRecord::Rescan(_))
        });
        if !drop {
            kept.extend_from_slice(line);
            if !line.ends_with(b"\n") {
                kept.push(b'\n');
            }
        }
    }
    if kept.len() < bytes.len() {
        let stamp = Utc::now().format("%Y%m%dT%H%M%S%.6fZ");
        let previous = log_path.with_file_name(format!("usage.before-rescan-{stamp}.jsonl"));
        files::write_atomic(&previous, &bytes, files::PRIVATE_FILE_MODE)
            .context("failed to keep the usage log before its rescan")?;
    }
    files::write_atomic(log_path, &kept, files::PRIVATE_FILE_MODE)
        .context("failed to rewrite the usage log")
}
