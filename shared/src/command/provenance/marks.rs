//! Interrupt groups in a transcript and the rule that matches runtime marks to them.
//!
//! A group is a run of consecutive `user` records made only of interrupt content (records that
//! are not `user`/`assistant` do not break a run; a `<synthetic>` "No response requested."
//! assistant record right after one joins it). A mark may cover a group whose first timestamp
//! lies in `[mark - MARK_WINDOW_BEFORE_MS, mark + MARK_WINDOW_AFTER_MS]`, unless a real user
//! prompt lies between the mark and the group, or the group's calls began more than
//! `MARK_CALL_SLACK_MS` after the mark. Marks are taken in time order; each goes to the first
//! group it may cover, covering it, or, when another mark already covers it, spent on it.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::{Context, Result};
use serde::Serialize;
use serde_json::Value;

use super::records::{RecordClass, ResultKind, classify_record, harness_short_text};
use super::sidecar::{Sidecar, read_sidecar};
use super::transcript_lines::{TranscriptLine, read_transcript};
use crate::store::session_id::SessionId;
use crate::store::sidecar::RuntimeMark;
use crate::store::state_dir::StateDir;

/// How long before a mark an interrupt group may start and still be covered (clock rounding:
/// transcript timestamps have millisecond precision, and the runtime writes the mark before it
/// calls `interrupt()`, so the records normally come after it).
pub const MARK_WINDOW_BEFORE_MS: u64 = 250;

/// How long after a mark an interrupt group may start and still be covered. The real captures
/// (Agent SDK 0.3.332) show the interrupt records 16–60 ms after the mark; 5 s leaves room for a
/// loaded machine while keeping a person's interrupt a few seconds later out of reach.
pub const MARK_WINDOW_AFTER_MS: u64 = 5_000;

/// A mark covers only calls already running when it was written: a call whose `tool_use`
/// record (or `PreToolUse` line) comes more than this after the mark began after it (1 s allows
/// for the race with a response still streaming).
pub const MARK_CALL_SLACK_MS: u64 = 1_000;

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
    /// Other marks that fell in its window after the covering one (a retried `interrupt()`):
    /// spent on it, so that none is left to take a person's next interrupt.
    pub spent_marks: Vec<usize>,
    /// Harness-written records in it taken as interrupt markers although their wording is new
    /// (line index and text).
    pub novel_markers: Vec<(usize, String)>,
    /// Why its verdict must be `unknown` rather than `user` when no mark covers it (a mark line
    /// whose time cannot be read lies near it).
    pub uncertain: Vec<String>,
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
    /// Things a reader must know (new marker wording, unreadable lines, bad mark lines).
    pub warnings: Vec<String>,
}

impl Analysis {
    /// Classifies `lines`, finds the groups and matches `sidecar`'s marks to them.
    pub fn new(lines: Vec<TranscriptLine>, sidecar: Sidecar) -> Self {
        let mut classes: Vec<RecordClass> = lines
            .iter()
            .map(|line| {
                line.record
                    .as_ref()
                    .map_or(RecordClass::NotConversation, |record| {
                        classify_record(record, Some(&sidecar))
                    })
            })
            .collect();
        let mut warnings = Vec::new();
        let novel = novel_markers(&lines, &mut classes);
        let mut groups: Vec<InterruptGroup> = Vec::new();
        let mut open = false;
        for (index, class) in classes.iter().enumerate() {
            let unreadable = lines[index].record.is_none()
                && !lines[index].raw.iter().all(u8::is_ascii_whitespace);
            if unreadable {
                // A line that is not a JSON record (half-written, invalid UTF-8) may be a real
                // record: after a group, it stops the group from being trailing.
                if open && let Some(group) = groups.last() {
                    warnings.push(format!(
                        "transcript line {} after the interrupt records on line {} is not a \
                         readable JSON record; it is counted as a real record, so nothing after \
                         it is relabelled",
                        index + 1,
                        group.lines[0] + 1
                    ));
                }
                open = false;
                continue;
            }
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
                            spent_marks: Vec::new(),
                            novel_markers: Vec::new(),
                            uncertain: Vec::new(),
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
                        if let Some((_, text)) = novel.iter().find(|(line, _)| *line == index) {
                            group.novel_markers.push((index, text.clone()));
                            warnings.push(format!(
                                "transcript line {}: the harness-written record {text:?} right \
                                 after interrupt content was taken as an interrupt marker, but \
                                 its wording is not one ctxhooks knows: the SDK's wording may \
                                 have changed; check this verdict",
                                index + 1
                            ));
                        }
                    }
                }
            }
        }
        if open && let Some(group) = groups.last_mut() {
            group.trailing = true;
        }
        attach_unanswered(&lines, &classes, &mut groups);
        let call_start = call_start_times(&lines, &sidecar);
        let prompts: Vec<(usize, u64)> = lines
            .iter()
            .enumerate()
            .filter(|(index, line)| {
                matches!(classes[*index], RecordClass::Conversation { .. })
                    && line.record.as_ref().is_some_and(is_real_prompt)
            })
            .filter_map(|(index, line)| line.time_ms().map(|time| (index, time)))
            .collect();
        let mut order: Vec<usize> = (0..sidecar.marks.len()).collect();
        order.sort_by_key(|index| sidecar.marks[*index].time_ms);
        for mark_index in order {
            let mark_time = sidecar.marks[mark_index].time_ms;
            let eligible = groups.iter().position(|group| {
                may_cover(
                    mark_time,
                    group,
                    &prompts,
                    &call_start,
                    &analysis_ids(&classes, group),
                )
            });
            if let Some(group) = eligible.map(|index| &mut groups[index]) {
                if group.covered_by.is_none() {
                    group.covered_by = Some(mark_index);
                } else {
                    group.spent_marks.push(mark_index);
                }
            }
        }
        for problem in &sidecar.mark_problems {
            let low = problem
                .after_time_ms
                .unwrap_or(0)
                .saturating_sub(MARK_WINDOW_BEFORE_MS);
            let high = problem
                .before_time_ms
                .map_or(u64::MAX, |time| time.saturating_add(MARK_WINDOW_AFTER_MS));
            for group in &mut groups {
                if group.covered_by.is_none()
                    && group
                        .first_time_ms
                        .is_none_or(|time| time >= low && time <= high)
                {
                    group.uncertain.push(format!(
                        "sidecar line {} is a runtime_interrupt_mark line whose time cannot be \
                         read, and these interrupt records could follow it: the runtime may have \
                         issued this interrupt",
                        problem.line
                    ));
                }
            }
        }
        for problem in &sidecar.mark_problems {
            warnings.push(format!(
                "sidecar line {}: {}; fix the runtime that writes it (see docs/provenance.md)",
                problem.line, problem.problem
            ));
        }
        Self {
            lines,
            classes,
            groups,
            sidecar,
            warnings,
        }
    }

    /// The marks that cover no interrupt group, with their index in the sidecar's mark list.
    pub fn unmatched(&self) -> Vec<(usize, &RuntimeMark)> {
        self.sidecar
            .marks
            .iter()
            .enumerate()
            .filter(|(index, _)| {
                !self.groups.iter().any(|group| {
                    group.covered_by == Some(*index) || group.spent_marks.contains(index)
                })
            })
            .collect()
    }
}

/// The ids of the calls a group cuts off: its tool results, then its unanswered calls.
pub fn analysis_ids(classes: &[RecordClass], group: &InterruptGroup) -> Vec<String> {
    let mut ids = Vec::new();
    for line in &group.lines {
        if let RecordClass::InterruptOnly { results, .. } = &classes[*line] {
            ids.extend(results.iter().map(|(id, _)| id.clone()));
        }
    }
    ids.extend(group.unanswered.iter().cloned());
    ids
}

/// Whether the mark at `mark_time` may cover `group`: the group starts in the window, no real
/// prompt lies between the mark and the group, and none of its calls began more than
/// [`MARK_CALL_SLACK_MS`] after the mark.
fn may_cover(
    mark_time: u64,
    group: &InterruptGroup,
    prompts: &[(usize, u64)],
    call_start: &HashMap<String, u64>,
    ids: &[String],
) -> bool {
    let low = mark_time.saturating_sub(MARK_WINDOW_BEFORE_MS);
    let high = mark_time.saturating_add(MARK_WINDOW_AFTER_MS);
    let Some(first_time) = group.first_time_ms else {
        return false;
    };
    if first_time < low || first_time > high {
        return false;
    }
    let first_line = group.lines[0];
    if prompts
        .iter()
        .any(|(line, time)| *line < first_line && *time >= mark_time)
    {
        return false;
    }
    !ids.iter().any(|id| {
        call_start
            .get(id)
            .is_some_and(|start| *start > mark_time.saturating_add(MARK_CALL_SLACK_MS))
    })
}

/// When each call began: the earlier of its `tool_use` record's timestamp and its `PreToolUse`
/// line.
fn call_start_times(lines: &[TranscriptLine], sidecar: &Sidecar) -> HashMap<String, u64> {
    let mut starts: HashMap<String, u64> = HashMap::new();
    let mut note = |id: &str, time: u64| {
        starts
            .entry(id.to_owned())
            .and_modify(|start| *start = (*start).min(time))
            .or_insert(time);
    };
    for line in lines {
        let Some(record) = &line.record else { continue };
        let Some(time) = line.time_ms() else { continue };
        for (id, _) in super::records::tool_use_blocks(record) {
            note(id, time);
        }
    }
    for (id, time) in sidecar.starts() {
        note(id, time);
    }
    starts
}

/// Harness-written short records (`rowSource: "harness"`) in a wording ctxhooks does not know
/// that directly follow interrupt content (only non-conversation records between): they are
/// reclassified as interrupt markers and returned with their text.
fn novel_markers(lines: &[TranscriptLine], classes: &mut [RecordClass]) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut previous_is_interrupt = false;
    for index in 0..lines.len() {
        match &classes[index] {
            RecordClass::NotConversation => {}
            RecordClass::InterruptOnly { .. } | RecordClass::SyntheticNoResponse => {
                previous_is_interrupt = true;
            }
            RecordClass::Conversation { results } => {
                let candidate = if previous_is_interrupt && results.is_empty() {
                    lines[index].record.as_ref().and_then(harness_short_text)
                } else {
                    None
                };
                previous_is_interrupt = false;
                if let Some(text) = candidate {
                    classes[index] = RecordClass::InterruptOnly {
                        results: Vec::new(),
                        markers: 1,
                    };
                    previous_is_interrupt = true;
                    found.push((index, text));
                }
            }
        }
    }
    found
}

/// Whether a record is a real user prompt: a `user` record that is not only tool results, not
/// `isMeta`, not a compact summary and not an interrupt marker.
pub fn is_real_prompt(record: &Value) -> bool {
    record.get("type").and_then(Value::as_str) == Some("user")
        && record.get("isMeta").and_then(Value::as_bool) != Some(true)
        && record.get("isCompactSummary").and_then(Value::as_bool) != Some(true)
        && is_prompt(record)
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
                    && is_real_prompt(record) =>
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
    let sidecar = read_sidecar(&state.sidecar(session))?;
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
            Err(error) => read_sidecar(&state.sidecar(&session))?
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
        "no interrupt record it may cover starts within {MARK_WINDOW_BEFORE_MS} ms before to \
         {MARK_WINDOW_AFTER_MS} ms after this mark (with no user prompt between, and for calls \
         already running when it was written): the interrupt has not reached the transcript \
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
    let sidecar_for = |session: &SessionId| read_sidecar(&state.sidecar(session));
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
    let mut analysis = Analysis::new(lines, sidecar);
    if let Some(session) = &session {
        let ids: std::collections::BTreeSet<&str> = analysis
            .lines
            .iter()
            .filter_map(|line| line.record.as_ref())
            .filter(|record| {
                matches!(
                    record.get("type").and_then(Value::as_str),
                    Some("user" | "assistant")
                )
            })
            .filter_map(|record| record.get("sessionId").and_then(Value::as_str))
            .collect();
        if ids.is_empty() {
            analysis.warnings.push(format!(
                "the transcript `{}` names no sessionId; its records could not be checked \
                 against session `{session}`",
                transcript.display()
            ));
        } else if !ids.contains(session.as_str()) {
            anyhow::bail!(
                "the transcript `{}` belongs to session {}, not to `{session}`: refusing to \
                 judge it with another session's marks",
                transcript.display(),
                ids.iter()
                    .map(|id| format!("`{id}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        } else if ids.len() > 1 {
            analysis.warnings.push(format!(
                "the transcript's records carry several sessionIds ({}); only session \
                 `{session}`'s sidecar was used",
                ids.iter().copied().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    Ok(Loaded {
        analysis,
        session,
        transcript,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::provenance::transcript_lines::split_transcript;
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
        let mut sidecar = Sidecar::default();
        sidecar.marks = marks;
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

    /// Two interrupts of a streaming answer (markers only, no tool call): at 10 s and 100 s.
    fn two_streaming_interrupts() -> Vec<serde_json::Value> {
        vec![prompt(0), marker(10_000), prompt(50_000), marker(100_000)]
    }

    #[test]
    fn window_edges_are_inclusive() {
        // The second group starts at 100 000 ms: a mark 250 ms after it, or 5 000 ms before it,
        // still covers it; 251 ms after or 5 001 ms before does not.
        for (offset, covered) in [
            (100_250, true),
            (100_251, false),
            (95_000, true),
            (94_999, false),
        ] {
            let analysis = analysis(&two_streaming_interrupts(), vec![mark(offset)]);
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
    fn a_mark_never_covers_a_call_that_began_more_than_a_second_after_it() {
        // toolu_b's tool_use is at 99 000 ms, its records at 100 000 ms: a mark at 98 000 ms
        // (1 000 ms before the call) covers it, one at 97 999 ms does not.
        let covered = analysis(&two_interrupts(), vec![mark(98_000)]);
        assert_eq!(covered.groups[1].covered_by, Some(0));
        let early = analysis(&two_interrupts(), vec![mark(97_999)]);
        assert!(early.groups[1].covered_by.is_none());
        assert_eq!(early.unmatched().len(), 1);
    }

    #[test]
    fn a_real_prompt_between_the_mark_and_the_records_keeps_the_mark_away() {
        let mut records = two_streaming_interrupts();
        // A prompt at 98 000 ms, after a mark at 97 000 ms, before the records at 100 000 ms.
        records.insert(3, prompt(98_000));
        let analysis_with_prompt = analysis(&records, vec![mark(97_000)]);
        assert!(analysis_with_prompt.groups[1].covered_by.is_none());
        // An isMeta user record there is no prompt.
        let mut meta = prompt(98_000);
        meta["isMeta"] = json!(true);
        records[3] = meta;
        let analysis_with_meta = analysis(&records, vec![mark(97_000)]);
        assert_eq!(analysis_with_meta.groups[1].covered_by, Some(0));
    }

    #[test]
    fn every_mark_before_one_covered_group_is_spent_on_it() {
        // A retried interrupt(): marks at 99 500 and 99 900 ms, the runtime's records at
        // 100 000 ms; then the model answers and a person stops the stream at 102 000 ms.
        let mut records = two_interrupts();
        records.push(
            json!({"type": "assistant", "timestamp": at(101_000), "message": {
            "role": "assistant", "content": [{"type": "text", "text": "Stopped."}]}}),
        );
        records.push(marker(102_000));
        let analysis = analysis(&records, vec![mark(99_500), mark(99_900)]);
        assert_eq!(analysis.groups[1].covered_by, Some(0));
        assert_eq!(analysis.groups[1].spent_marks, vec![1]);
        assert!(
            analysis.groups[2].covered_by.is_none(),
            "the person's stays the person's"
        );
        assert!(analysis.unmatched().is_empty());
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
        let report = crate::command::provenance::verdict::provenance_report(&analysis);
        assert_eq!(report.calls.len(), 1);
        assert_eq!(report.calls[0].tool_use_id, "toolu_lost");
        assert_eq!(
            report.calls[0].verdict,
            crate::command::provenance::verdict::Verdict::Runtime
        );
        assert!(report.calls[0].relabelled_in_ledger);
        let ledger = crate::command::provenance::ledger::ledger_input(&analysis, &report);
        assert!(String::from_utf8(ledger).unwrap().contains("toolu_lost"));
    }
}
