//! Reading transcripts at rest for the history, fast: every core reads whole sessions from one
//! shared queue, each file is read once, and a line is parsed only when the usage ingest says
//! its kind can matter ([`Ingest::passes_unread`], asked with the cheap look of
//! [`top_level_type_before`]). The rows are the ingest's own: the same [`Ingest`] the Stop hook runs,
//! fed the same lines except those it says change nothing.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::command::usage::log::SessionLog;
use crate::hook::ingest::{Ingest, Origin, SourceState};
use crate::store::usage_record::UsageRecord;
use crate::transcript::file::TranscriptFile;
use crate::transcript::lines::{MAX_LINE_BYTES, read_bounded_lines};
use crate::transcript::look::top_level_type_before;

/// What reading one transcript gave.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TranscriptRead {
    /// The ingest's records, in transcript order.
    pub records: Vec<UsageRecord>,
    /// Lines passed unparsed (their kind changes nothing once the `cwd` is known).
    pub passed_lines: u64,
    /// Lines that were not blank.
    pub lines: u64,
    /// Lines whose top-level `type` the look found (before any `message`).
    pub typed_lines: u64,
}

impl TranscriptRead {
    /// Returns true if and only if no line is a Claude Code record: none has a `type` the look
    /// could read, and the ingest found no request, boundary or `cwd` in them.
    pub fn is_foreign(&self) -> bool {
        self.lines > 0
            && self.typed_lines == 0
            && self
                .records
                .iter()
                .all(|record| matches!(record, UsageRecord::SkippedLines(_)))
    }

    /// Lines the ingest could not read.
    pub fn unreadable_lines(&self) -> u64 {
        self.records
            .iter()
            .map(|record| match record {
                UsageRecord::SkippedLines(row) => row.unreadable,
                _ => 0,
            })
            .sum()
    }
}

/// Reads a whole transcript at rest (a last line without its newline included) with the usage
/// ingest, passing the lines it says change nothing. An `agent-<id>.jsonl` file is read as a
/// sub-agent's.
pub fn read_transcript(path: &Path) -> Result<TranscriptRead> {
    let origin = Origin::from_file_name(path);
    let mut file = TranscriptFile::open(path)?;
    let mut ingest = Ingest::new(&origin, SourceState::default());
    let mut passed_lines = 0;
    let mut lines = 0;
    let mut typed_lines = 0;
    let read = read_bounded_lines(
        file.file_mut(),
        0,
        u64::MAX,
        true,
        MAX_LINE_BYTES,
        |_, line| {
            if line.iter().all(u8::is_ascii_whitespace) {
                return;
            }
            lines += 1;
            // Every line with a top-level `message` is parsed (the ingest reads all of them), so
            // the look stops there.
            let kind = top_level_type_before(line, Some(b"message"));
            if kind.is_some() {
                typed_lines += 1;
            }
            if let Some(kind) = kind
                && ingest.passes_unread(kind, line)
            {
                passed_lines += 1;
            } else {
                ingest.feed(line);
            }
        },
    )?;
    ingest.skipped_overlong(read.overlong_lines);
    let (records, _) = ingest.finish();
    Ok(TranscriptRead {
        records,
        passed_lines,
        lines,
        typed_lines,
    })
}

/// [`read_transcript`] folded into a log, as [`crate::command::usage::log::log_from_transcript`]
/// folds the full read (the two must agree on every real transcript; the tests check it).
pub fn log_of_transcript(path: &Path) -> Result<SessionLog> {
    Ok(SessionLog::from_records(read_transcript(path)?.records))
}

/// Runs `work` on every item with one thread per core (at most one per item), taking items
/// from one shared queue in order, and returns the results in the items' order.
pub fn for_each_parallel<T, R, F>(items: &[T], work: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(items.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut mine = Vec::new();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else { break };
                    mine.push((index, work(item)));
                }
                if let Ok(mut results) = results.lock() {
                    results.extend(mine);
                }
            });
        }
    });
    let mut results = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    results.sort_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, result)| result).collect()
}
