//! Appending to one session's usage log what a transcript gained since the last run (the Stop,
//! `SubagentStop` and `PreCompact` hooks), under the session's usage lock.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{SecondsFormat, Utc};

use crate::causes::Causes;
use crate::compaction::items::{HOOK_LIMITS, SegmentItems};
use crate::notes::Notes;
use crate::store::files::FileError;
use crate::store::rotation::{self, LogError, SESSION_LOG_LIMIT};
use crate::store::session_id::SessionId;
use crate::store::state_dir::StateDir;
use crate::store::usage_record::{RescanReason, RescanRow, UsageRecord};
use crate::store::{env_vars, files};
use crate::transcript::file::{TranscriptError, TranscriptFile};
use crate::transcript::lines::{MAX_LINE_BYTES, fingerprint_before, read_bounded_lines};
use crate::transcript::origin::Origin;
use crate::transcript::record::Record;
use crate::usage::cursor::{CursorError, CursorFile, TranscriptCursor};
use crate::usage::ingest::{ChainGauge, Ingest, SourceState};

/// Why an ingest or a rotation of the session's usage log failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs, reason = "each variant's message says what it is")]
pub enum IngestError {
    #[error("failed to open the usage lock")]
    OpenLock(#[source] FileError),
    /// Another ingest of the session held the usage lock for all of `wait`.
    #[error(
        "the usage log is busy: another ctxhooks process held its lock for {} ms; skipped \
         (the next Stop run catches up)",
        .wait.as_millis()
    )]
    Busy { wait: Duration, source: FileError },
    #[error("failed to check the end of the usage log")]
    CheckEnd(#[source] FileError),
    #[error("failed to inspect the usage log")]
    Inspect(#[source] io::Error),
    #[error("failed to open the usage log")]
    Open(#[source] io::Error),
    #[error("failed to read the usage log's tail")]
    ReadTail(#[source] io::Error),
    #[error("failed to read the usage log")]
    Read(#[source] LogError),
    #[error("failed to serialize a usage record")]
    Serialize(#[source] serde_json::Error),
    #[error("failed to keep the usage log before its rescan")]
    KeepBeforeRescan(#[source] FileError),
    #[error("failed to rewrite the usage log")]
    Rewrite(#[source] FileError),
    #[error("failed to append to the usage log")]
    Append(#[source] FileError),
    #[error("failed to rotate the usage log")]
    Rotate(#[source] LogError),
    /// The cursor's confirmed length could not be set back after the log was rotated.
    #[error("failed to rotate the usage log")]
    RotateCursor(#[source] CursorError),
    #[error("failed to compress the usage log's part")]
    Compress(#[source] LogError),
    /// The session's folder, where no step is named.
    #[error(transparent)]
    File(#[from] FileError),
    #[error(transparent)]
    Cursor(#[from] CursorError),
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    /// Anything else the file system said where no step is named.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// What an ingest read past and notes: the ingest went on, and the next run does not read it
/// again (each variant's words are the ones a person reads).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(
    missing_docs,
    reason = "each variant's message says what it is; its fields are named for what they hold"
)]
pub enum IngestProblem {
    /// `reason` says why `cursor.json` could not be read.
    #[error(
        "the usage cursor could not be read ({reason}); `{}` was read from its start (its rows \
         are keyed, so none is duplicated)",
        .transcript.display()
    )]
    CursorUnreadable { reason: String, transcript: PathBuf },
    #[error(
        "skipped {lines} unreadable line(s) in `{}`: not a JSON object, or a usage field with a \
         value no Claude Code writes (`ctxhooks usage` counts them)",
        .transcript.display()
    )]
    UnreadableLines { lines: u64, transcript: PathBuf },
    #[error(
        "skipped {lines} line(s) longer than {MAX_LINE_BYTES} bytes in `{}`",
        .transcript.display()
    )]
    OverlongLines { lines: u64, transcript: PathBuf },
}

/// The most one ingest reads (about 10 s at the 56 MB/s measured on this project's machines),
/// so that a Stop hook stays well inside its budget on a transcript of any size.
pub const RUN_BYTES: u64 = 512 * 1024 * 1024;

/// How one ingest reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IngestOptions<'text> {
    /// A response text to look out for (the Stop payload's `last_assistant_message`); the
    /// outcome says whether a main-chain response holding it was read.
    pub expected_text: Option<&'text str>,
    /// The most this run reads, when less than [`RUN_BYTES`]; the rest waits for the next run,
    /// from the saved cursor.
    pub max_bytes: Option<u64>,
    /// The transcript is at rest (`SessionEnd`: Claude Code has written its last line): a last
    /// line without its newline is read too when it is a whole JSON object, and the cursor then
    /// stands just after it. A live reader leaves it (Claude Code may still be writing it); a
    /// line the CLI later ends with its newline is not read again, as the cursor's next read
    /// starts with that newline, a blank line every reader passes.
    pub whole_last_line: bool,
    /// The most this run waits for another ingest of the session, when less than
    /// `CTXHOOKS_LOCK_WAIT_MS` (default 10 s) says: a run with little time left (the catch-up of
    /// an ended session, in another session's Stop hook) gives up sooner, as
    /// [`IngestError::Busy`].
    pub lock_wait: Option<Duration>,
}

/// What one ingest did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestOutcome {
    /// Main-chain compaction boundaries this run read.
    pub main_compactions_read: usize,
    /// The response text the caller looked out for was read in this run.
    pub saw_expected_text: bool,
    /// The run read from somewhere else than a good cursor, or read something: what the cursor
    /// says of the transcript (and so the gauge) may have changed.
    pub moved: bool,
    /// Byte offset reached.
    pub offset: u64,
    /// The run read up to the transcript's size at open: no byte limit stopped it (a last line
    /// it left without its newline is no byte it could read).
    pub caught_up: bool,
    /// Complete lines skipped (and passed) because they were longer than
    /// [`MAX_LINE_BYTES`]: they are not read again, so they are reported once.
    pub overlong_lines: u64,
    /// Complete lines this run could not read and passed: not a JSON object, or a usage field
    /// with a value no CLI writes (`-5`, `"5"`, `1e400`, a key twice). Counted in the log's
    /// `skipped_lines` record too, which `usage` and `report` show.
    pub unreadable_lines: u64,
    /// Why `cursor.json` could not be read, if it could not (the transcript was then read from
    /// its start).
    pub cursor_unreadable: Option<String>,
    /// What the gauge needs of the main chain as this run leaves it (main transcripts only).
    pub gauge: Option<ChainGauge>,
    /// What the main chain held since its last compaction, as this run leaves it (empty for a
    /// sub-agent's transcript).
    pub segment: SegmentItems,
}

impl IngestOutcome {
    /// Gives `notes` what went wrong without stopping the ingest, one error each.
    fn note_problems(&self, notes: &dyn Notes, transcript: &Path) {
        let transcript = transcript.to_owned();
        if let Some(reason) = &self.cursor_unreadable {
            notes.note(Box::new(IngestProblem::CursorUnreadable {
                reason: reason.clone(),
                transcript: transcript.clone(),
            }));
        }
        if self.unreadable_lines > 0 {
            notes.note(Box::new(IngestProblem::UnreadableLines {
                lines: self.unreadable_lines,
                transcript: transcript.clone(),
            }));
        }
        if self.overlong_lines > 0 {
            notes.note(Box::new(IngestProblem::OverlongLines {
                lines: self.overlong_lines,
                transcript,
            }));
        }
    }
}

/// [`ingest_transcript_then`] in a hook run, with nothing after.
pub fn log_usage(
    state: &StateDir,
    notes: &dyn Notes,
    session: &SessionId,
    transcript: &mut TranscriptFile,
    origin: &Origin,
) -> Result<(), IngestError> {
    let options = IngestOptions::default();
    ingest_transcript_then(state, notes, session, transcript, origin, options, |_| ()).map(drop)
}

/// Appends to the session's usage log what the open `transcript` gained since the last ingest
/// (the cursor in `cursor.json`), reading no further than its size at open, in one write under
/// the session's usage lock. A shrunk or rewritten transcript is read again from its start and
/// its old records are replaced, so rows are never duplicated. `origin` marks a sub-agent's own
/// transcript (`SubagentStop`'s `agent_transcript_path`). What the ingest skipped or could not
/// read goes to `notes` (the hook's error log); only a failed ingest is an error.
///
/// Then `then` with its outcome, still under the session's usage lock: what `then` reads and
/// writes of the session (the gauge) is in step with the log and the cursor, and no other ingest
/// of the session runs meanwhile. `options` say what to look out for and how much to read at
/// most.
pub fn ingest_transcript_then<T>(
    state: &StateDir,
    notes: &dyn Notes,
    session: &SessionId,
    transcript: &mut TranscriptFile,
    origin: &Origin,
    options: IngestOptions<'_>,
    then: impl FnOnce(&IngestOutcome) -> T,
) -> Result<(IngestOutcome, T), IngestError> {
    state.ensure_session_dir(session)?;
    let lock = files::open_lock_file(&state.usage_lock(session)).map_err(IngestError::OpenLock)?;
    let wait = options
        .lock_wait
        .map_or_else(lock_wait, |wait| wait.min(lock_wait()));
    files::lock_within(lock.file(), wait).map_err(|source| IngestError::Busy { wait, source })?;
    let locked = ingest_locked(state, session, transcript, origin, options)
        .map(|outcome| (then(&outcome), outcome));
    let _ = lock.file().unlock();
    let (after, outcome) = locked?;
    outcome.note_problems(notes, transcript.path());
    Ok((outcome, after))
}

/// Rotates the session's usage log when it is past [`SESSION_LOG_LIMIT`] (one `lstat` when it
/// is not; `store/rotation.rs`): renamed to its next part under the usage lock, the cursor's
/// confirmed length set back to 0 for the new log, then the part compressed with the lock
/// released. A lock another ingest holds leaves it to the next run. Returns the part's number
/// when it rotated.
pub fn rotate_usage_log(state: &StateDir, session: &SessionId) -> Result<Option<u32>, IngestError> {
    let log_path = state.usage_log(session);
    match fs_err::symlink_metadata(&log_path) {
        Ok(metadata) if metadata.len() > SESSION_LOG_LIMIT.in_force().bytes => {}
        _ => return Ok(None),
    }
    let lock = files::open_lock_file(&state.usage_lock(session)).map_err(IngestError::OpenLock)?;
    if files::lock_within(lock.file(), ROTATION_LOCK_WAIT).is_err() {
        return Ok(None);
    }
    let renamed = rotation::rename_if_over(
        &log_path,
        SESSION_LOG_LIMIT,
        rotation::Writers::CallerHoldsTheirLock,
    )
    .map_err(IngestError::Rotate)
    .and_then(|renamed| {
        if renamed.is_some() {
            let cursor_path = state.cursor_file(session);
            // An unreadable cursor makes the next ingest rescan, which needs no length.
            if let Ok(mut cursors) = CursorFile::load(&cursor_path) {
                cursors.log_length = Some(0);
                cursors
                    .save(&cursor_path)
                    .map_err(IngestError::RotateCursor)?;
            }
        }
        Ok(renamed)
    });
    let _ = lock.file().unlock();
    let renamed = renamed?;
    if renamed.is_some() {
        rotation::finish_parts(&log_path, SESSION_LOG_LIMIT).map_err(IngestError::Compress)?;
    }
    Ok(renamed)
}

/// How long a rotation waits for the usage lock (an ingest holds it for a turn's read).
const ROTATION_LOCK_WAIT: Duration = Duration::from_millis(500);

/// How long an ingest waits for another one of the same session (`CTXHOOKS_LOCK_WAIT_MS`,
/// default 10 s). A hook must never wait out Claude Code's timeout: `PreCompact`'s would delay the
/// compaction. What is skipped is caught up by the next run, from the cursor.
fn lock_wait() -> Duration {
    env_vars::number(env_vars::CTXHOOKS_LOCK_WAIT_MS)
        .map_or(Duration::from_secs(10), Duration::from_millis)
}

fn ingest_locked(
    state: &StateDir,
    session: &SessionId,
    transcript: &mut TranscriptFile,
    origin: &Origin,
    options: IngestOptions<'_>,
) -> Result<IngestOutcome, IngestError> {
    let cursor_path = state.cursor_file(session);
    let log_path = state.usage_log(session);
    // An unreadable cursor means a rescan (keyed rows make that safe), and is reported.
    let (mut cursors, cursor_unreadable) = match CursorFile::load(&cursor_path) {
        Ok(cursors) => (cursors, None),
        Err(error) => (CursorFile::default(), Some(Causes(&error).to_string())),
    };
    // Every writer of the log holds the lock we hold: a partial line at its end is what an ingest
    // stopped in the middle of its append left. Cut off, it cannot swallow this run's first row.
    files::cut_to_last_line(&log_path).map_err(IngestError::CheckEnd)?;
    let mut unconfirmed = UnconfirmedTail::default();
    if cursor_unreadable.is_none() {
        unconfirmed = UnconfirmedTail::read(&log_path, cursors.log_length)?;
        if cursors.log_length.is_none() {
            // The first ingest with this cursor: mark where the log ends before appending, so
            // that if this run is stopped after its append, the next one knows those lines.
            cursors.log_length = Some(unconfirmed.log_length);
            cursors.save(&cursor_path)?;
        }
    }
    let size = transcript.size();
    let file = transcript.file_mut();
    let cursor = cursors.transcripts.remove(&origin.transcript);
    let rescan = match &cursor {
        Some(cursor) if cursor.offset > size => Some(RescanReason::Shrank),
        Some(cursor) if fingerprint_before(file, cursor.offset)? != cursor.fingerprint => {
            Some(RescanReason::FingerprintChanged)
        }
        None if cursor_unreadable.is_some() && log_path.exists() => {
            Some(RescanReason::CursorUnreadable)
        }
        _ => None,
    };
    // Whether this run starts from a good cursor.
    let resumed = cursor.is_some() && rescan.is_none();
    let (start, mut source_state) = cursor
        .filter(|_| resumed)
        .map_or((0, SourceState::default()), |cursor| {
            (cursor.offset, cursor.state)
        });
    // Every line this run appends, written at once at the end.
    let mut lines = Vec::new();
    if let Some(reason) = &rescan {
        drop_source_records(&log_path, &origin.transcript)?;
        // The rewrite removed this transcript's lines, stopped run's included.
        unconfirmed = UnconfirmedTail::default();
        push_json_line(
            &mut lines,
            &UsageRecord::Rescan(RescanRow {
                time: Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
                transcript: origin.transcript.clone(),
                reason: *reason,
            }),
        )?;
    }
    if resumed && source_state.gauge.is_none() && !origin.is_agent_file {
        // A cursor from before the gauge: what the log already holds of this transcript is
        // counted once, so the compactions so far are all counted.
        source_state.gauge = Some(gauge_from_log(&log_path, &origin.transcript)?);
    }
    let mut ingest = Ingest::new(origin, source_state);
    ingest.gather_segment(HOOK_LIMITS);
    if let Some(text) = options.expected_text {
        ingest.expect_text(text);
    }
    // Read no further than the size seen at open, and at most RUN_BYTES per run (less when the
    // caller says): a huge backlog is caught up over several runs, each one leaving a saved
    // cursor.
    let max_bytes = options.max_bytes.unwrap_or(RUN_BYTES).min(RUN_BYTES);
    let until = size.min(start.saturating_add(max_bytes));
    let read = read_bounded_lines(file, start, until, false, MAX_LINE_BYTES, |_, line| {
        ingest.feed(line);
    })?;
    let mut offset = read.offset;
    if options.whole_last_line && until == size && offset < size {
        offset = take_whole_last_line(file, &mut ingest, offset, size)?;
    }
    ingest.skipped_overlong(read.overlong_lines);
    let saw_expected_text = ingest.saw_expected_text();
    let (records, source_state) = ingest.finish();
    let (mut unreadable_lines, mut main_compactions_read) = (0, 0);
    for record in &records {
        match record {
            UsageRecord::SkippedLines(skipped) => unreadable_lines += skipped.unreadable,
            UsageRecord::CompactBoundary(row) if !row.sidechain => main_compactions_read += 1,
            _ => {}
        }
        let start_of_line = lines.len();
        push_json_line(&mut lines, record)?;
        // A line the stopped run already appended is not appended again.
        if unconfirmed.lines.contains(&lines[start_of_line..]) {
            lines.truncate(start_of_line);
        }
    }
    files::append_lines(&log_path, &lines).map_err(IngestError::Append)?;
    let outcome = IngestOutcome {
        main_compactions_read,
        saw_expected_text,
        moved: !(resumed && offset == start),
        offset,
        caught_up: until == size,
        overlong_lines: read.overlong_lines,
        unreadable_lines,
        cursor_unreadable,
        gauge: source_state.gauge.clone(),
        segment: source_state.segment.clone(),
    };
    // Nothing read since a good cursor and nothing appended: the reader's state moves only with
    // the lines it reads, so the cursor file already says all there is (no rewrite, no fsync, no
    // second hash).
    if resumed && offset == start && lines.is_empty() && unconfirmed.lines.is_empty() {
        return Ok(outcome);
    }
    let fingerprint = fingerprint_before(file, offset)?;
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
    // The log as this run leaves it is confirmed by the cursor saved with it.
    cursors.log_length = Some(fs_err::metadata(&log_path).map_or(0, |metadata| metadata.len()));
    cursors.save(&cursor_path)?;
    Ok(outcome)
}

/// Reads the line from `offset` to `size`, the file's last, which has no newline: when it is a
/// whole JSON object, `ingest` reads it and the offset after it is returned; otherwise (half
/// written, or longer than [`MAX_LINE_BYTES`], never buffered) it is left and `offset` returned.
fn take_whole_last_line(
    file: &mut fs_err::File,
    ingest: &mut Ingest<'_>,
    offset: u64,
    size: u64,
) -> Result<u64, IngestError> {
    let mut taken = false;
    read_bounded_lines(file, offset, size, true, MAX_LINE_BYTES, |_, line| {
        if let Some(record) = Record::parse(line) {
            ingest.feed_parsed(Some(record));
            taken = true;
        }
    })?;
    Ok(if taken { size } else { offset })
}

/// The gauge's counts for `transcript` from what the usage log holds of it: read once, for a
/// session whose cursor was written before the gauge existed.
fn gauge_from_log(log_path: &Path, transcript: &str) -> Result<ChainGauge, IngestError> {
    let mut gauge = ChainGauge::default();
    let Some(bytes) = rotation::read_log(log_path).map_err(IngestError::Read)? else {
        return Ok(gauge);
    };
    for line in bytes.split(|byte| *byte == b'\n') {
        if let Ok(record) = serde_json::from_slice::<UsageRecord>(line)
            && record.transcript() == transcript
        {
            gauge.count(&record);
        }
    }
    Ok(gauge)
}

/// The most of an unconfirmed tail an ingest reads back: one run appends at most the rows of
/// `RUN_BYTES` of transcript; a larger tail is not compared (its rows may then repeat, which
/// readers fold).
const MAX_UNCONFIRMED_TAIL: u64 = 64 * 1024 * 1024;

/// The lines an ingest that was stopped (killed, or past its budget) appended after the last
/// saved cursor. The run that reads the same transcript bytes again leaves out the lines already
/// there, so a stopped first ingest of a long transcript does not append all its rows twice.
#[derive(Debug, Default)]
struct UnconfirmedTail {
    log_length: u64,
    /// The tail's lines, each with its newline.
    lines: std::collections::HashSet<Vec<u8>>,
}

impl UnconfirmedTail {
    /// The lines of `log_path` past `confirmed` (the length the cursor recorded), if any.
    fn read(log_path: &Path, confirmed: Option<u64>) -> Result<Self, IngestError> {
        let log_length = files::present(fs_err::metadata(log_path))
            .map_err(IngestError::Inspect)?
            .map_or(0, |metadata| metadata.len());
        let mut tail = Self {
            log_length,
            ..Self::default()
        };
        let Some(confirmed) = confirmed.filter(|confirmed| {
            *confirmed < log_length && log_length - confirmed <= MAX_UNCONFIRMED_TAIL
        }) else {
            return Ok(tail);
        };
        let mut log = fs_err::File::open(log_path).map_err(IngestError::Open)?;
        io::Seek::seek(&mut log, io::SeekFrom::Start(confirmed))?;
        let mut bytes = Vec::new();
        io::Read::read_to_end(&mut log, &mut bytes).map_err(IngestError::ReadTail)?;
        tail.lines = bytes
            .split_inclusive(|byte| *byte == b'\n')
            .filter(|line| line.ends_with(b"\n"))
            .map(<[u8]>::to_vec)
            .collect();
        Ok(tail)
    }
}

/// Adds `record` as one JSON line to `lines`.
fn push_json_line(lines: &mut Vec<u8>, record: &UsageRecord) -> Result<(), IngestError> {
    serde_json::to_writer(&mut *lines, record).map_err(IngestError::Serialize)?;
    lines.push(b'\n');
    Ok(())
}

/// The start of the name of a copy of the usage log as it was before a rescan
/// (`usage.before-rescan-<time>.jsonl`).
const BEFORE_RESCAN_PREFIX: &str = "usage.before-rescan-";

/// How many copies of the usage log from before a rescan are kept (the newest): every rescan
/// writes one as large as the log, and a session whose transcript is cut short again and again
/// must not fill the disk with them.
pub const KEPT_RESCAN_COPIES: usize = 3;

/// Rewrites the log without `transcript`'s records (rescans are kept as history). The log as it
/// was is kept beside it first (`usage.before-rescan-<time>.jsonl`): the rows of the last rescans
/// are never lost, even when the transcript they came from was cut short; copies older than the
/// newest [`KEPT_RESCAN_COPIES`] are removed. Lines it cannot read stay byte for byte.
fn drop_source_records(log_path: &Path, transcript: &str) -> Result<(), IngestError> {
    if !log_path.exists() {
        return Ok(());
    }
    let bytes = fs_err::read(log_path).map_err(|error| IngestError::Read(error.into()))?;
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
        let previous = log_path.with_file_name(format!("{BEFORE_RESCAN_PREFIX}{stamp}.jsonl"));
        files::write_atomic(&previous, &bytes, files::PRIVATE_FILE_MODE)
            .map_err(IngestError::KeepBeforeRescan)?;
    }
    files::write_atomic(log_path, &kept, files::PRIVATE_FILE_MODE).map_err(IngestError::Rewrite)?;
    remove_old_rescan_copies(log_path);
    Ok(())
}

/// Removes the copies of the log from before a rescan, beside `log_path`, but the newest
/// [`KEPT_RESCAN_COPIES`] (their names sort by time). No command reads them; only regular files
/// are removed. Best effort: a copy that cannot be removed costs only its room, and the next
/// rescan tries again, while failing here would stop an ingest whose log is already rewritten.
fn remove_old_rescan_copies(log_path: &Path) {
    let Some(folder) = log_path.parent() else {
        return;
    };
    let Ok(entries) = fs_err::read_dir(folder) else {
        return;
    };
    let mut copies: Vec<std::path::PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.starts_with(BEFORE_RESCAN_PREFIX)
                && name.ends_with(".jsonl")
                && entry.file_type().is_ok_and(|kind| kind.is_file())
        })
        .map(|entry| entry.path())
        .collect();
    copies.sort_unstable();
    let old = copies.len().saturating_sub(KEPT_RESCAN_COPIES);
    for copy in &copies[..old] {
        let _ = fs_err::remove_file(copy);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Dropped;

    impl Notes for Dropped {
        fn note(&self, _: crate::notes::Problem) {}
    }

    #[test]
    fn the_file_systems_error_behind_a_step_is_found_in_the_chain_of_causes() {
        let full = || io::Error::from(io::ErrorKind::StorageFull);
        let step = IngestError::Append(FileError::Io(full()));
        assert!(crate::store::io_kind::is_io_kind(
            &step,
            &[io::ErrorKind::StorageFull]
        ));
    }

    #[test]
    fn a_folder_where_the_usage_lock_belongs_fails_the_ingest_at_the_lock() {
        let temp = crate::test_support::TempFolder::new("ingest-lock");
        let state = StateDir::at(temp.join("state"));
        let session = SessionId::parse("s1").unwrap();
        fs_err::create_dir_all(state.usage_lock(&session)).unwrap();
        let path = temp.join("s1.jsonl");
        fs_err::write(&path, "{}\n").unwrap();
        let mut transcript = TranscriptFile::open(&path).unwrap();
        let origin = Origin::from_file_name(&path);
        let error = log_usage(&state, &Dropped, &session, &mut transcript, &origin).unwrap_err();
        assert!(matches!(error, IngestError::OpenLock(_)), "{error:?}");
    }
}
