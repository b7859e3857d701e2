//! Interrupt groups in a transcript and the rule that matches runtime marks to them.
//!
//! A group is a run of consecutive `user` records made only of interrupt content (records that
//! are not `user`/`assistant` do not break a run; a `<synthetic>` "No response requested."
//! assistant record right after one joins it). A mark covers the first not yet covered group
//! whose first timestamp lies in `[mark - MARK_WINDOW_BEFORE_MS, mark + MARK_WINDOW_AFTER_MS]`;
//! marks are taken in time order and each covers at most one group.

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde::Serialize;

use super::records::{RecordClass, ResultKind, classify_record};
use super::sidecar::{RuntimeMark, Sidecar, read_sidecar, sidecar_path};
use super::transcript_lines::{TranscriptLine, read_transcript};
use crate::session_id::SessionId;
use crate::state::StateDir;

/// How long before a mark an interrupt group may start and still be covered (clock rounding:
/// transcript timestamps have millisecond precision, and the runtime writes the mark before it
/// calls `interrupt()`, so the records normally come after it).
pub const MARK_WINDOW_BEFORE_MS: u64 = 250;

/// How long after a mark an interrupt group may start and still be covered.
pub const MARK_WINDOW_AFTER_MS: u64 = 30_000;

/// A run of interrupt-only records.
#[derive(Debug, Clone)]
pub struct InterruptGroup {
    /// Indices into the transcript's lines, in order.
    pub lines: Vec<usize>,
    /// The tool results in it, with their kinds.
    pub results: Vec<(String, ResultKind)>,
    /// How many `[Request interrupted by user...]` markers it holds.
    pub markers: usize,
    /// The first timestamp in the group, in milliseconds.
    pub first_time_ms: Option<u64>,
    /// Whether it is the transcript's trailing group (no real user/assistant record after it).
    pub trailing: bool,
    /// The index of the mark that covers it, in the sidecar's mark list.
    pub covered_by: Option<usize>,
}

/// The transcript's records classified, its groups found and the marks matched.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The transcript's lines.
    pub lines: Vec<TranscriptLine>,
    /// One class per line.
    pub classes: Vec<RecordClass>,
    /// The interrupt groups, in transcript order.
    pub groups: Vec<InterruptGroup>,
    /// The sidecar that was used.
    pub sidecar: Sidecar,
}

impl Analysis {
    /// Classifies `lines`, finds the groups and matches `sidecar`'s marks to them.
    pub fn new(lines: Vec<TranscriptLine>, sidecar: Sidecar) -> Self {
        let classes: Vec<RecordClass> = lines
            .iter()
            .map(|line| {
                line.record
                    .as_ref()
                    .map_or(RecordClass::NotConversation, |record| {
                        classify_record(record, Some(&sidecar))
                    })
            })
            .collect();
        let mut groups: Vec<InterruptGroup> = Vec::new();
        let mut open = false;
        for (index, class) in classes.iter().enumerate() {
            match class {
                RecordClass::NotConversation => {}
                RecordClass::Conversation { .. } => open = false,
                RecordClass::SyntheticNoResponse => {
                    if open && let Some(group) = groups.last_mut() {
                        group.lines.push(index);
                    }
                }
                RecordClass::InterruptOnly { results, markers } => {
                    if !open {
                        groups.push(InterruptGroup {
                            lines: Vec::new(),
                            results: Vec::new(),
                            markers: 0,
                            first_time_ms: None,
                            trailing: false,
                            covered_by: None,
                        });
                        open = true;
                    }
                    if let Some(group) = groups.last_mut() {
                        group.lines.push(index);
                        group.results.extend(results.iter().cloned());
                        group.markers += markers;
                        if group.first_time_ms.is_none() {
                            group.first_time_ms = lines[index].time_ms();
                        }
                    }
                }
            }
        }
        if open && let Some(group) = groups.last_mut() {
            group.trailing = true;
        }
        let mut order: Vec<usize> = (0..sidecar.marks.len()).collect();
        order.sort_by_key(|index| sidecar.marks[*index].time_ms);
        for mark_index in order {
            let mark_time = sidecar.marks[mark_index].time_ms;
            let low = mark_time.saturating_sub(MARK_WINDOW_BEFORE_MS);
            let high = mark_time.saturating_add(MARK_WINDOW_AFTER_MS);
            if let Some(group) = groups.iter_mut().find(|group| {
                group.covered_by.is_none()
                    && group
                        .first_time_ms
                        .is_some_and(|time| time >= low && time <= high)
            }) {
                group.covered_by = Some(mark_index);
            }
        }
        Self {
            lines,
            classes,
            groups,
            sidecar,
        }
    }

    /// The marks that cover no interrupt group, with their index in the sidecar's mark list.
    pub fn unmatched(&self) -> Vec<(usize, &RuntimeMark)> {
        self.sidecar
            .marks
            .iter()
            .enumerate()
            .filter(|(index, _)| {
                !self
                    .groups
                    .iter()
                    .any(|group| group.covered_by == Some(*index))
            })
            .collect()
    }
}

/// A runtime mark that no interrupt record in the transcript follows.
#[derive(Debug, Clone, Serialize)]
pub struct UnmatchedMark {
    /// The mark.
    pub mark: RuntimeMark,
    /// Why it matched nothing, for a person to read.
    pub reason: String,
}

/// Reads a session's sidecar and transcript (its path as the hook events recorded it) and
/// returns the runtime marks that no interrupt record follows. A non-empty answer means either
/// the interrupt has not reached the transcript yet, or the SDK's wording or fields changed and
/// ctxhooks no longer recognises its interrupt records: look before trusting any verdict.
pub fn unmatched_marks(state: &StateDir, session: &SessionId) -> Result<Vec<UnmatchedMark>> {
    let sidecar = read_sidecar(&sidecar_path(state, session))?;
    if sidecar.marks.is_empty() {
        return Ok(Vec::new());
    }
    let Some(transcript) = sidecar.transcript_path().map(PathBuf::from) else {
        return Ok(sidecar
            .marks
            .into_iter()
            .map(|mark| UnmatchedMark {
                mark,
                reason: "no tool hook event recorded the transcript's path".to_owned(),
            })
            .collect());
    };
    let lines = read_transcript(&transcript)
        .with_context(|| format!("failed to read `{}`", transcript.display()))?;
    let analysis = Analysis::new(lines, sidecar);
    Ok(analysis
        .unmatched()
        .into_iter()
        .map(|(_, mark)| UnmatchedMark {
            mark: mark.clone(),
            reason: unmatched_reason(),
        })
        .collect())
}

/// The explanation given for every unmatched mark.
pub fn unmatched_reason() -> String {
    format!(
        "no interrupt record starts within {MARK_WINDOW_BEFORE_MS} ms before to \
         {MARK_WINDOW_AFTER_MS} ms after this mark: the interrupt has not reached the transcript \
         yet, or the SDK changed its interrupt wording or fields"
    )
}

/// What [`load_analysis`] found and used.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The analysis.
    pub analysis: Analysis,
    /// The session whose sidecar was used, if any.
    pub session: Option<SessionId>,
    /// The transcript that was read.
    pub transcript: PathBuf,
}

/// Reads a transcript and the matching sidecar. With only `session`, the transcript is the one
/// the session's hook events recorded; with only `transcript`, the session is the transcript's
/// `sessionId` (its sidecar is used when it exists).
pub fn load_analysis(
    state: &StateDir,
    session: Option<&SessionId>,
    transcript: Option<&std::path::Path>,
) -> Result<Loaded> {
    let sidecar_for = |session: &SessionId| read_sidecar(&sidecar_path(state, session));
    let (session, sidecar, transcript) = match (session, transcript) {
        (Some(session), Some(transcript)) => (
            Some(session.clone()),
            sidecar_for(session)?,
            transcript.to_path_buf(),
        ),
        (Some(session), None) => {
            let sidecar = sidecar_for(session)?;
            let Some(path) = sidecar.transcript_path().map(PathBuf::from) else {
                anyhow::bail!(
                    "no tool hook event of session `{session}` recorded its transcript's path \
                     (is `ctxhooks-tooluse` installed?); pass --transcript PATH"
                );
            };
            (Some(session.clone()), sidecar, path)
        }
        (None, Some(transcript)) => {
            let lines = read_transcript(transcript)?;
            let session = lines
                .iter()
                .filter_map(|line| line.record.as_ref())
                .find_map(|record| record.get("sessionId").and_then(serde_json::Value::as_str))
                .and_then(|id| SessionId::parse(id).ok());
            let sidecar = match &session {
                Some(session) => sidecar_for(session)?,
                None => Sidecar::default(),
            };
            return Ok(Loaded {
                analysis: Analysis::new(lines, sidecar),
                session,
                transcript: transcript.to_path_buf(),
            });
        }
        (None, None) => anyhow::bail!("give --session ID or --transcript PATH"),
    };
    let lines = read_transcript(&transcript)
        .with_context(|| format!("failed to read `{}`", transcript.display()))?;
    Ok(Loaded {
        analysis: Analysis::new(lines, sidecar),
        session,
        transcript,
    })
}
