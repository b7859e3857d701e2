//! Reading transcripts at rest for the history, fast: each file is read once and each line
//! parsed at most once, and the usage ingest is fed only the lines whose kind can matter
//! ([`Ingest::passes_unread`]; a line that starts with its `type` is told from its first bytes
//! and never parsed). The rows are the ingest's own: the same [`Ingest`] the Stop hook runs, fed
//! the same lines except those it says change nothing.
//!
//! [`Ingest`]: ctxhooks_shared::usage::ingest::Ingest
//! [`Ingest::passes_unread`]: ctxhooks_shared::usage::ingest::Ingest::passes_unread

use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::facts::log::ingest_lines;
use ctxhooks_shared::store::usage_record::UsageRecord;
use ctxhooks_shared::transcript::file::TranscriptFile;
use ctxhooks_shared::transcript::look::{leading_type, top_level_type};
use ctxhooks_shared::transcript::record::Record;

/// What reading one transcript gave.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TranscriptRead {
    /// The ingest's records, in transcript order.
    pub records: Vec<UsageRecord>,
    /// Lines the ingest was not fed (their kind changes nothing once the `cwd` is known).
    pub passed_lines: u64,
    /// Lines that were not blank.
    pub lines: u64,
    /// Lines with a top-level `type` string (read by the parse, or by the look at a line that
    /// does not parse).
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
    let file = TranscriptFile::open(path)?;
    let (mut passed_lines, mut lines, mut typed_lines) = (0, 0, 0);
    let records = ingest_lines(path, file, |ingest, line| {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        lines += 1;
        // A line that starts with its `type` (snapshots, summaries, queue operations, ...)
        // is told from its first bytes.
        let leading = leading_type(line);
        if let Some(kind) = leading {
            typed_lines += 1;
            if ingest.passes_unread(kind, line) {
                passed_lines += 1;
                return;
            }
        }
        // Any other line is parsed first: the conversation's lines, which the ingest reads
        // whole, are nearly all of them, and a parse skips what no reader needs faster
        // than a look can find a `type` written after dozens of fields. A line the ingest
        // passes (a progress line, an attachment) is then left unfed; one that does not
        // parse is looked at, so that a damaged line of such a kind is still passed.
        let record = Record::parse(line);
        let kind = match &record {
            Some(record) => record.kind().map(str::as_bytes),
            None => top_level_type(line),
        };
        typed_lines += u64::from(kind.is_some() && leading.is_none());
        if let Some(kind) = kind
            && ingest.passes_unread(kind, line)
        {
            passed_lines += 1;
        } else {
            ingest.feed_parsed(record);
        }
    })?;
    Ok(TranscriptRead {
        records,
        passed_lines,
        lines,
        typed_lines,
    })
}
