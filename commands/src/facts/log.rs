//! One session's usage log read back: requests once each (their last values), compaction
//! boundaries in order, and the sources; a rescan drops what its transcript gave before it.

use std::path::Path;

use anyhow::{Context, Result};

use crate::time::Time;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use ctxhooks_shared::store::rotation;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::store::usage_record::{
    BoundaryRow, SessionFacts, SkippedLinesRow, SourceRow, UsageRecord, UsageRow,
};
use ctxhooks_shared::transcript::file::TranscriptFile;
use ctxhooks_shared::transcript::lines::{MAX_LINE_BYTES, read_bounded_lines, split_lines};
use ctxhooks_shared::transcript::origin::Origin;
use ctxhooks_shared::usage::ingest::{Ingest, SourceState};

/// One session's usage log, read back: requests once each, in the order they first appeared.
#[derive(Debug, Clone, Default)]
pub struct SessionLog {
    /// Requests and boundaries in log order (a request at its first appearance, with its last
    /// values).
    pub timeline: Vec<TimelineItem>,
    /// Where each transcript ran.
    pub sources: Vec<SourceRow>,
    /// Lines skipped, summed per transcript, in the order transcripts first skipped one.
    pub skipped: Vec<SkippedLinesRow>,
    /// What the main transcript says of its session (the latest of each fact).
    pub session: SessionFacts,
    /// Lines of the usage log itself that are no record this version reads; `None` when every
    /// line was read (or the log came straight from a transcript).
    pub skipped_log_lines: Option<SkippedLogLines>,
}

/// Lines of a usage log that are no record this version reads (damaged bytes, a line that is
/// not JSON, a kind a newer ctxhooks wrote): skipped by the reader, counted and shown, never
/// dropped in silence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedLogLines {
    /// The usage log's path.
    pub usage_log: String,
    /// How many lines were skipped.
    pub unreadable: u64,
    /// The first skipped line's number, counted from 1.
    pub first_line: u64,
}

/// A usage log file read back: its records, and the lines that were none.
#[derive(Debug, Clone, Default)]
pub struct LogFile {
    /// Every readable record, in order.
    pub records: Vec<UsageRecord>,
    /// The lines that are no record, when there are any.
    pub skipped: Option<SkippedLogLines>,
}

/// A request or a boundary, in log order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimelineItem {
    /// An API request.
    Request(Timed<UsageRow>),
    /// A `compact_boundary`.
    Compaction(Timed<BoundaryRow>),
    /// A `microcompact_boundary`.
    MicroCompaction(Timed<BoundaryRow>),
}

/// A row of the log with its `time` read once, when the log is built, for every view that
/// compares or shows it (the row keeps the text as the hook wrote it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timed<T> {
    pub row: T,
    pub time: Option<Time>,
}

impl Timed<UsageRow> {
    pub fn new(row: UsageRow) -> Self {
        let time = Time::of(row.time.as_deref());
        Self { row, time }
    }
}

impl Timed<BoundaryRow> {
    pub fn new(row: BoundaryRow) -> Self {
        let time = Time::of(row.boundary.time.as_deref());
        Self { row, time }
    }
}

impl SessionLog {
    /// Every request row, in order.
    pub fn rows(&self) -> Vec<UsageRow> {
        self.requests().cloned().collect()
    }

    /// Every request row, in order, without copying them.
    pub fn requests(&self) -> impl Iterator<Item = &UsageRow> {
        self.timed_requests().map(|request| &request.row)
    }

    /// Every request row with its time, in order.
    pub fn timed_requests(&self) -> impl Iterator<Item = &Timed<UsageRow>> {
        self.timeline.iter().filter_map(|item| match item {
            TimelineItem::Request(request) => Some(request),
            _ => None,
        })
    }

    /// The CLI version of the latest main-chain request that names one.
    pub fn main_version(&self) -> Option<String> {
        let main = self.requests().filter(|row| !row.sidechain);
        main.filter_map(|row| row.facts.version.clone()).last()
    }

    /// The source of `transcript`, when the log read it.
    pub fn source_of(&self, transcript: &str) -> Option<&SourceRow> {
        self.sources
            .iter()
            .find(|source| source.transcript == transcript)
    }

    /// The first `cwd` any of its transcripts names.
    pub fn first_cwd(&self) -> Option<&str> {
        self.sources.iter().find_map(|source| source.cwd.as_deref())
    }

    /// The time of the first request that has one.
    pub fn first_time(&self) -> Option<Time> {
        self.timed_requests()
            .find_map(|request| request.time.clone())
    }

    /// The time of the last request that has one.
    pub fn last_time(&self) -> Option<Time> {
        self.timed_requests()
            .filter_map(|request| request.time.as_ref())
            .last()
            .cloned()
    }

    /// Drops what the log holds of `transcript` before its rescan: the hook rewrote the log
    /// without those rows, but a part rotated before the rescan still holds them.
    fn forget_transcript(
        &mut self,
        transcript: &str,
        request_index: &mut FxHashMap<String, usize>,
        boundary_seen: &mut FxHashSet<String>,
    ) {
        let of_transcript = |item: &TimelineItem| match item {
            TimelineItem::Request(request) => request.row.transcript == transcript,
            TimelineItem::Compaction(boundary) | TimelineItem::MicroCompaction(boundary) => {
                boundary.row.transcript == transcript
            }
        };
        if !self.timeline.iter().any(of_transcript) {
            return;
        }
        self.timeline.retain(|item| !of_transcript(item));
        request_index.clear();
        for (index, item) in self.timeline.iter().enumerate() {
            if let TimelineItem::Request(request) = item {
                request_index.insert(request.row.key.clone(), index);
            }
        }
        // The boundaries another transcript of the session holds too stay seen.
        boundary_seen.clear();
        for item in &self.timeline {
            if let TimelineItem::Compaction(boundary) | TimelineItem::MicroCompaction(boundary) =
                item
                && let Some(uuid) = &boundary.row.boundary.uuid
            {
                boundary_seen.insert(uuid.clone());
            }
        }
        self.skipped
            .retain(|skipped| skipped.transcript != transcript);
    }

    /// Folds records into a log: later versions of a request replace earlier ones (keeping the
    /// largest output count), repeated boundaries (same uuid, in any of the session's
    /// transcripts) count once, and a rescan drops what
    /// came before it of its transcript.
    pub fn from_records(records: impl IntoIterator<Item = UsageRecord>) -> Self {
        let mut log = Self::default();
        let mut request_index: FxHashMap<String, usize> = FxHashMap::default();
        let mut boundary_seen: FxHashSet<String> = FxHashSet::default();
        for record in records {
            match record {
                UsageRecord::Request(row) => {
                    if let Some(&index) = request_index.get(&row.key) {
                        if let TimelineItem::Request(request) = &mut log.timeline[index] {
                            request.time = Time::of(row.time.as_deref());
                            let known = &mut request.row;
                            let earlier = std::mem::replace(known, row);
                            let output = &mut known.tokens.output_tokens;
                            *output = (*output).max(earlier.tokens.output_tokens);
                            known.advisor |= earlier.advisor;
                            known.turn_start |= earlier.turn_start;
                            let mut facts = earlier.facts;
                            facts.absorb(&known.facts);
                            known.facts = facts;
                            if known.tool_result_bytes == 0 {
                                known.tool_result_bytes = earlier.tool_result_bytes;
                                known.largest_tool_result = earlier.largest_tool_result;
                            }
                        }
                    } else {
                        request_index.insert(row.key.clone(), log.timeline.len());
                        log.timeline
                            .push(TimelineItem::Request(Timed::<UsageRow>::new(row)));
                    }
                }
                // Once each, however many of the session's transcripts hold it: a session
                // resumed from another folder may open its new transcript with a copy of the
                // conversation before, uuids kept.
                UsageRecord::CompactBoundary(row) | UsageRecord::MicrocompactBoundary(row)
                    if (row.boundary.uuid.as_ref())
                        .is_some_and(|uuid| !boundary_seen.insert(uuid.clone())) => {}
                UsageRecord::CompactBoundary(row) => {
                    log.timeline
                        .push(TimelineItem::Compaction(Timed::<BoundaryRow>::new(row)));
                }
                UsageRecord::MicrocompactBoundary(row) => {
                    log.timeline
                        .push(TimelineItem::MicroCompaction(Timed::<BoundaryRow>::new(
                            row,
                        )));
                }
                UsageRecord::Rescan(row) => {
                    log.forget_transcript(&row.transcript, &mut request_index, &mut boundary_seen);
                }
                UsageRecord::Session(row) => log.session.absorb(&row.facts),
                UsageRecord::SkippedLines(row) => {
                    match log
                        .skipped
                        .iter_mut()
                        .find(|known| known.transcript == row.transcript)
                    {
                        Some(known) => {
                            known.unreadable = known.unreadable.saturating_add(row.unreadable);
                            known.overlong = known.overlong.saturating_add(row.overlong);
                        }
                        None => log.skipped.push(row),
                    }
                }
                UsageRecord::Source(row) if log.source_of(&row.transcript).is_none() => {
                    log.sources.push(row);
                }
                UsageRecord::Source(_) => {}
            }
        }
        log
    }
}

/// A usage log file read back, with its rotated parts before it (`store/rotation.rs`): every
/// line that is a record, and a count of those that are not (an empty line, such as the end
/// after the last newline, is none of either; lines are numbered across the parts).
pub fn read_log_file(path: &Path) -> Result<LogFile> {
    // Bytes, not text: one damaged line (invalid UTF-8) must not hide the others.
    let Some(bytes) = rotation::read_log(path).context("failed to read the usage log")? else {
        return Ok(LogFile::default());
    };
    let mut log = LogFile::default();
    for (index, line) in bytes.split(|byte| *byte == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        if let Ok(record) = serde_json::from_slice(line) {
            log.records.push(record);
        } else {
            let skipped = log.skipped.get_or_insert_with(|| SkippedLogLines {
                usage_log: path.display().to_string(),
                unreadable: 0,
                first_line: index as u64 + 1,
            });
            skipped.unreadable = skipped.unreadable.saturating_add(1);
        }
    }
    Ok(log)
}

/// One session's log, read back from the state folder, with the count of its lines that are no
/// record.
pub fn read_session_log(state: &StateDir, session: &SessionId) -> Result<SessionLog> {
    let file = read_log_file(&state.usage_log(session))?;
    let mut log = SessionLog::from_records(file.records);
    log.skipped_log_lines = file.skipped;
    Ok(log)
}

/// The records the usage ingest gives for the whole transcript `file`, found at `path`, each line
/// given to `feed` with the ingest (which feeds it, or passes it).
pub fn ingest_lines(
    path: &Path,
    mut file: TranscriptFile,
    mut feed: impl FnMut(&mut Ingest<'_>, &[u8]),
) -> Result<Vec<UsageRecord>> {
    let origin = Origin::from_file_name(path);
    let mut ingest = Ingest::new(&origin, SourceState::default());
    let read = read_bounded_lines(
        file.file_mut(),
        0,
        u64::MAX,
        true,
        MAX_LINE_BYTES,
        |_, line| feed(&mut ingest, line),
    )?;
    ingest.skipped_overlong(read.overlong_lines);
    Ok(ingest.finish().0)
}

/// Reads a whole transcript file at rest (no state folder) into a log, with the Stop hook's own
/// ingest, so that rows are derived one way. An `agent-<id>.jsonl` file is read as a sub-agent's.
pub fn log_from_transcript(transcript: &Path) -> Result<SessionLog> {
    let file = TranscriptFile::open_named(transcript)?;
    // A closure, not `Ingest::feed`: that is for one lifetime of the ingest, and the reader's
    // ingest has its own.
    let records = ingest_lines(transcript, file, |ingest, line| {
        ingest.feed(line);
    })?;
    Ok(SessionLog::from_records(records))
}

/// [`log_from_transcript`] for a transcript's bytes read from `reader` (a snapshot's copy, kept
/// compressed in the state folder), its kind (a session's or a sub-agent's) told by `name`.
pub fn log_from_reader(name: &Path, reader: impl std::io::Read) -> Result<SessionLog> {
    let origin = Origin::from_file_name(name);
    let mut ingest = Ingest::new(&origin, SourceState::default());
    let read = split_lines(reader, 0, true, MAX_LINE_BYTES, |line| {
        if let Some(bytes) = line.bytes {
            ingest.feed(bytes);
        }
        std::ops::ControlFlow::Continue(())
    })?;
    ingest.skipped_overlong(read.overlong_lines);
    Ok(SessionLog::from_records(ingest.finish().0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::usage_row;
    use ctxhooks_shared::store::usage_record::{Boundary, RescanReason, RescanRow};

    #[test]
    fn a_rescan_drops_what_came_before_it_of_its_transcript_in_a_rotated_part() {
        let rescan = |transcript: &str| {
            UsageRecord::Rescan(RescanRow {
                time: "2026-12-01T00:00:00.000Z".into(),
                transcript: transcript.into(),
                reason: RescanReason::Shrank,
            })
        };
        let mut other = usage_row("other", None, 1, 0);
        other.transcript = "u".into();
        // A part rotated before the rescan still holds the old rows; the log holds the new ones.
        let log = SessionLog::from_records([
            UsageRecord::Request(usage_row("old", None, 1, 0)),
            UsageRecord::Request(other),
            UsageRecord::Request(usage_row("kept", None, 1, 0)),
            rescan("t"),
            UsageRecord::Request(usage_row("kept", None, 2, 0)),
            UsageRecord::Request(usage_row("new", None, 3, 0)),
        ]);
        let keys: Vec<&str> = log.requests().map(|row| row.key.as_str()).collect();
        assert_eq!(keys, ["other", "kept", "new"]);
        assert_eq!(log.rows()[1].tokens.cache_creation_input_tokens, 2);
    }

    /// A session resumed from another folder whose new transcript opens with a copy of the
    /// conversation before (uuids kept): its compaction is one, read from either transcript,
    /// and a rescan of one transcript leaves the other's copy seen.
    #[test]
    fn a_boundary_two_transcripts_of_the_session_hold_counts_once() {
        let boundary = |transcript: &str| {
            UsageRecord::CompactBoundary(BoundaryRow {
                transcript: transcript.into(),
                sidechain: false,
                agent_id: None,
                boundary: Boundary {
                    uuid: Some("cb".into()),
                    pre_tokens: Some(90_000),
                    ..Boundary::default()
                },
            })
        };
        let compactions = |log: &SessionLog| {
            (log.timeline.iter())
                .filter(|item| matches!(item, TimelineItem::Compaction(_)))
                .count()
        };
        let log = SessionLog::from_records([boundary("a"), boundary("b")]);
        assert_eq!(compactions(&log), 1);
        let rescan = UsageRecord::Rescan(RescanRow {
            time: "2026-12-01T00:00:00.000Z".into(),
            transcript: "a".into(),
            reason: RescanReason::Shrank,
        });
        let log = SessionLog::from_records([boundary("a"), boundary("b"), rescan, boundary("a")]);
        assert_eq!(compactions(&log), 1);
    }

    #[test]
    fn a_request_written_again_takes_its_new_time_read_once() {
        let at = |time: &str| Some(time.to_owned());
        let log = SessionLog::from_records([
            UsageRecord::Request(usage_row("a", at("2026-01-01T00:00:00Z"), 1, 0)),
            UsageRecord::Request(usage_row("b", None, 1, 0)),
            UsageRecord::Request(usage_row("a", at("2026-01-01T00:00:09+01:00"), 1, 0)),
        ]);
        let times: Vec<Option<&str>> = log
            .timed_requests()
            .map(|request| request.time.as_ref().map(Time::text))
            .collect();
        assert_eq!(times, [Some("2026-01-01T00:00:09+01:00"), None]);
        let first = log.first_time().and_then(|time| time.instant());
        assert_eq!(
            first.map(|at| at.to_rfc3339()),
            Some("2025-12-31T23:00:09+00:00".into())
        );
        assert_eq!(log.last_time(), log.first_time());
    }
}
