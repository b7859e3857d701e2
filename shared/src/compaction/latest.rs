//! The compaction a `SessionStart` with `source: "compact"` follows, as the hook can afford to
//! read it: the segment `PreCompact` recorded beside its snapshot (`segment.json`), and the
//! transcript only from where that segment ends (at most [`AFTER_BYTES`]), for the compaction's
//! boundary (what it kept word for word) and its summary; the summary `PostCompact` recorded
//! beside the snapshot when the transcript does not hold it (yet).

use std::path::Path;

use memchr::memmem;

use super::items::SegmentItems;
use super::naming::SummaryText;
use super::segment_file::{SegmentError, SegmentRecord};
use super::verdict::Preserved;
use crate::store::files::{self, FileError};
use crate::store::session_id::SessionId;
use crate::store::snapshot_metadata::{
    COMPACT_SUMMARY_FILE_NAME, CompactSummary, SnapshotListError, newest_snapshot,
};
use crate::store::state_dir::StateDir;
use crate::store::usage_record::Boundary;
use crate::transcript::file::{TranscriptError, TranscriptFile};
use crate::transcript::lines::{MAX_LINE_BYTES, read_bounded_lines};
use crate::transcript::record::{BoundaryKind, Record};

/// The most of the transcript read after the segment: a compaction appends its boundary, its
/// summary and a few attachments (tens of kilobytes); more means something else happened since
/// the snapshot, and the segment is not this compaction's to tell.
pub const AFTER_BYTES: u64 = 2 * 1024 * 1024;

/// Why what `PreCompact` and `PostCompact` recorded of the latest compaction, or the
/// transcript after it, could not be read (each variant's words are the ones a person reads).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs, reason = "each variant's message says what it is")]
pub enum LatestCompactionError {
    #[error("failed to read the transcript after the compaction")]
    ReadAfter(#[source] TranscriptError),
    #[error("failed to read the compaction's recorded summary")]
    ReadSummary(#[source] FileError),
    #[error("the compaction's recorded summary is not valid")]
    InvalidSummary(#[source] serde_json::Error),
    /// Finding the newest snapshot.
    #[error(transparent)]
    Snapshot(#[from] SnapshotListError),
    #[error(transparent)]
    Segment(#[from] SegmentError),
    /// Opening the transcript.
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
}

/// What the note needs of the latest compaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestCompaction {
    /// What the conversation held before it (since the previous compaction).
    pub items: SegmentItems,
    /// Its summary, when it could be read (from the transcript, else from `PostCompact`'s
    /// record).
    pub summary: Option<SummaryText>,
    /// What it kept word for word (nothing known when its boundary is not written yet).
    pub preserved: Preserved,
}

/// The latest compaction of `session`, whose transcript is `transcript`; `None` when what
/// `PreCompact` recorded cannot be told to be this compaction's (no segment recorded, another
/// transcript, a transcript cut or rewritten since, a compaction since, or too much written
/// since).
pub fn latest_compaction(
    state: &StateDir,
    session: &SessionId,
    transcript: &Path,
) -> Result<Option<LatestCompaction>, LatestCompactionError> {
    let Some(snapshot) = newest_snapshot(&state.archive_dir(session))? else {
        return Ok(None);
    };
    let Some(segment) = SegmentRecord::read(&snapshot)? else {
        return Ok(None);
    };
    if Path::new(&segment.transcript) != transcript {
        return Ok(None);
    }
    let Some(mut file) = TranscriptFile::open_if_present(transcript)? else {
        return Ok(None);
    };
    let size = file.size();
    if size < segment.offset || size - segment.offset > AFTER_BYTES {
        return Ok(None);
    }
    let after = read_after(&mut file, segment.offset, size)?;
    let (summary, preserved) = match after.boundaries {
        0 => (None, Preserved::default()),
        1 => (after.summary, after.preserved),
        // The snapshot began an earlier compaction than the latest (its PreCompact did not run).
        _ => return Ok(None),
    };
    let summary = match summary {
        Some(summary) => Some(summary),
        None => recorded_summary(&snapshot)?,
    };
    Ok(Some(LatestCompaction {
        items: segment.items,
        summary: summary.filter(|summary| !summary.is_empty()),
        preserved,
    }))
}

/// What the transcript holds after the segment.
#[derive(Debug, Default)]
struct After {
    /// Main-chain compaction boundaries.
    boundaries: usize,
    /// What the last one kept word for word.
    preserved: Preserved,
    /// The summary after the last boundary, when a readable one follows it.
    summary: Option<SummaryText>,
}

/// Reads the transcript from `offset` to `size`, parsing only the lines that can be a boundary
/// or a summary.
fn read_after(
    file: &mut TranscriptFile,
    offset: u64,
    size: u64,
) -> Result<After, LatestCompactionError> {
    let boundary = memmem::Finder::new(b"compact_boundary");
    let summary = memmem::Finder::new(b"isCompactSummary");
    let mut after = After::default();
    read_bounded_lines(
        file.file_mut(),
        offset,
        size,
        false,
        MAX_LINE_BYTES,
        |_, line| {
            if boundary.find(line).is_none() && summary.find(line).is_none() {
                return;
            }
            let Some(record) = Record::parse(line) else {
                return;
            };
            if record.is_sidechain() {
                return;
            }
            if let Some((BoundaryKind::Compaction, metadata)) = record.boundary() {
                after.boundaries += 1;
                after.preserved = Preserved::of(&Boundary::of(&record, metadata).details);
                after.summary = None;
            } else if record.kind() == Some("user")
                && record.is_compact_summary.is_true()
                && after.summary.is_none()
                && let Some(text) = record.first_text()
            {
                after.summary = Some(SummaryText::new(text));
            }
        },
    )
    .map_err(LatestCompactionError::ReadAfter)?;
    Ok(after)
}

/// The summary `PostCompact` recorded beside `snapshot`, if it did.
fn recorded_summary(snapshot: &Path) -> Result<Option<SummaryText>, LatestCompactionError> {
    let Some(bytes) = files::read_state_file_within(
        &snapshot.join(COMPACT_SUMMARY_FILE_NAME),
        files::SMALL_STATE_FILE_LIMIT,
    )
    .map_err(LatestCompactionError::ReadSummary)?
    else {
        return Ok(None);
    };
    let record: CompactSummary =
        serde_json::from_slice(&bytes).map_err(LatestCompactionError::InvalidSummary)?;
    Ok(Some(SummaryText::new(&record.compact_summary)))
}
