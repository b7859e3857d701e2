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
    /// Calls issued before the group (with no real user record between) that never got a
    /// `tool_result` anywhere: the unpaired `tool_use` older CLIs left when a tool was aborted.
    pub unanswered: Vec<String>,
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
                            unanswered: Vec::new(),
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
        attach_unanswered(&lines, &classes, &mut groups);
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

/// Gives each group the unanswered calls issued before it: a `tool_use` whose id no
/// `tool_result` answers belongs to the first group after it, unless a real user record lies
/// between them.
fn attach_unanswered(
    lines: &[TranscriptLine],
    classes: &[RecordClass],
    groups: &mut [InterruptGroup],
) {
    let mut answered = std::collections::HashSet::new();
    for class in classes {
        if let RecordClass::InterruptOnly { results, .. } | RecordClass::Conversation { results } =
            class
        {
            answered.extend(results.iter().map(|(id, _)| id.as_str()));
        }
    }
    let mut pending: Vec<String> = Vec::new();
    let mut next_group = 0;
    for (index, line) in lines.iter().enumerate() {
        if next_group < groups.len() && groups[next_group].lines[0] == index {
            groups[next_group].unanswered.append(&mut pending);
            next_group += 1;
            continue;
        }
        let Some(record) = &line.record else { continue };
        match record.get("type").and_then(serde_json::Value::as_str) {
            Some("assistant") => {
                let blocks = record
                    .get("message")
                    .and_then(|message| message.get("content"))
                    .and_then(serde_json::Value::as_array);
                for block in blocks.into_iter().flatten() {
                    if block.get("type").and_then(serde_json::Value::as_str) == Some("tool_use")
                        && let Some(id) = block.get("id").and_then(serde_json::Value::as_str)
                        && !answered.contains(id)
                    {
                        pending.push(id.to_owned());
                    }
                }
            }
            Some("user")
                if matches!(classes[index], RecordClass::Conversation { .. })
                    && is_prompt(record) =>
            {
                pending.clear();
            }
            _ => {}
        }
    }
}

/// Whether a user record is a prompt (string content, or a block other than a `tool_result`).
fn is_prompt(record: &serde_json::Value) -> bool {
    match record
        .get("message")
        .and_then(|message| message.get("content"))
    {
        Some(serde_json::Value::String(_)) => true,
        Some(serde_json::Value::Array(blocks)) => blocks.iter().any(|block| {
            block.get("type").and_then(serde_json::Value::as_str) != Some("tool_result")
        }),
        _ => false,
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

/// [`unmatched_marks`] for every session of the state folder that has marks (for
/// `ctxhooks doctor`). A session whose transcript cannot be read reports each of its marks as
/// unmatched, with the reading error as the reason.
pub fn unmatched_marks_in_all_sessions(
    state: &StateDir,
) -> Result<Vec<(SessionId, Vec<UnmatchedMark>)>> {
    let mut found = Vec::new();
    for session in state.session_ids()? {
        let unmatched = match unmatched_marks(state, &session) {
            Ok(unmatched) => unmatched,
            Err(error) => read_sidecar(&sidecar_path(state, &session))?
                .marks
                .into_iter()
                .map(|mark| UnmatchedMark {
                    mark,
                    reason: format!("{error:#}"),
                })
                .collect(),
        };
        if !unmatched.is_empty() {
            found.push((session, unmatched));
        }
    }
    Ok(found)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provenance::transcript_lines::split_transcript;
    use serde_json::json;

    const T0: u64 = 1_767_225_600_000; // 2026-01-01T00:00:00.000Z

    fn at(offset_ms: u64) -> String {
        chrono::DateTime::from_timestamp_millis(i64::try_from(T0 + offset_ms).unwrap())
            .unwrap()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    }

    fn prompt(offset_ms: u64) -> serde_json::Value {
        json!({"type": "user", "timestamp": at(offset_ms), "message": {"role": "user", "content": "go"}})
    }

    fn tool_use(offset_ms: u64, id: &str) -> serde_json::Value {
        json!({"type": "assistant", "timestamp": at(offset_ms), "message": {"role": "assistant",
            "content": [{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "sleep 5"}}]}})
    }

    fn rejection(offset_ms: u64, id: &str) -> serde_json::Value {
        json!({"type": "user", "timestamp": at(offset_ms), "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "is_error": true,
             "content": "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."}]}})
    }

    fn marker(offset_ms: u64) -> serde_json::Value {
        json!({"type": "user", "timestamp": at(offset_ms), "message": {"role": "user",
            "content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}]}})
    }

    fn mark(offset_ms: i64) -> RuntimeMark {
        RuntimeMark {
            time_ms: T0.checked_add_signed(offset_ms).unwrap(),
            reason: "backstop".into(),
            source: None,
            gauge_pct: None,
            pid: None,
        }
    }

    fn analysis(records: &[serde_json::Value], marks: Vec<RuntimeMark>) -> Analysis {
        let text: String = records.iter().fold(String::new(), |mut text, record| {
            text.push_str(&record.to_string());
            text.push('\n');
            text
        });
        let sidecar = Sidecar {
            marks,
            ..Sidecar::default()
        };
        Analysis::new(split_transcript(text.as_bytes()), sidecar)
    }

    /// Two interrupts: at 10 s (a person) and at 100 s (the runtime), each a rejection + marker.
    fn two_interrupts() -> Vec<serde_json::Value> {
        vec![
            prompt(0),
            tool_use(9_000, "toolu_a"),
            rejection(10_000, "toolu_a"),
            marker(10_001),
            prompt(50_000),
            tool_use(99_000, "toolu_b"),
            rejection(100_000, "toolu_b"),
            marker(100_001),
        ]
    }

    #[test]
    fn window_edges_are_inclusive() {
        // The second group starts at 100 000 ms: a mark 250 ms after it, or 30 000 ms before it,
        // still covers it; 251 ms after or 30 001 ms before does not.
        for (offset, covered) in [
            (100_250, true),
            (100_251, false),
            (70_000, true),
            (69_999, false),
        ] {
            let analysis = analysis(&two_interrupts(), vec![mark(offset)]);
            assert_eq!(
                analysis.groups[1].covered_by.is_some(),
                covered,
                "mark at +{offset} ms"
            );
            assert!(analysis.groups[0].covered_by.is_none());
            assert_eq!(analysis.unmatched().is_empty(), covered);
        }
    }

    #[test]
    fn each_mark_covers_one_group_and_the_earliest_first() {
        // One mark 5 s before both groups' window: only the first group is covered.
        let analysis_one = analysis(&two_interrupts(), vec![mark(9_500)]);
        assert_eq!(analysis_one.groups[0].covered_by, Some(0));
        assert!(analysis_one.groups[1].covered_by.is_none());
        // Two marks, given out of order in the file, cover one group each.
        let analysis_two = analysis(&two_interrupts(), vec![mark(99_990), mark(9_990)]);
        assert_eq!(analysis_two.groups[0].covered_by, Some(1));
        assert_eq!(analysis_two.groups[1].covered_by, Some(0));
        assert!(analysis_two.groups[1].trailing);
        assert!(!analysis_two.groups[0].trailing);
    }

    #[test]
    fn an_unpaired_tool_use_belongs_to_the_group_after_it() {
        // Older CLIs left a tool_use without a tool_result when a tool was aborted.
        let records = vec![
            prompt(0),
            tool_use(1_000, "toolu_done"),
            json!({"type": "user", "timestamp": at(1_500), "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_done", "content": "ok"}]}}),
            tool_use(2_000, "toolu_lost"),
            marker(3_000),
        ];
        let analysis = analysis(&records, vec![mark(2_900)]);
        assert_eq!(analysis.groups.len(), 1);
        assert_eq!(analysis.groups[0].unanswered, vec!["toolu_lost".to_owned()]);
        let report = crate::provenance::provenance_report(&analysis);
        assert_eq!(report.calls.len(), 1);
        assert_eq!(report.calls[0].tool_use_id, "toolu_lost");
        assert_eq!(report.calls[0].verdict, crate::provenance::Verdict::Runtime);
        assert!(report.calls[0].relabelled_in_ledger);
        let ledger = crate::provenance::ledger_input(&analysis, &report);
        assert!(String::from_utf8(ledger).unwrap().contains("toolu_lost"));
    }
}
