//! The rule that matches runtime marks to interrupt groups, and the marks that match none.
//!
//! A mark may cover a group whose first timestamp lies in `[mark - MARK_WINDOW_BEFORE_MS, mark +
//! MARK_WINDOW_AFTER_MS]`, unless a real user prompt lies between the mark and the group, or the
//! group's calls began more than `MARK_CALL_SLACK_MS` after the mark. Marks are taken in time
//! order; each goes to the first group it may cover, covering it, or, when another mark already
//! covers it, spent on it.

use serde::Serialize;

use super::calls::ToolCalls;
use super::groups::InterruptGroup;
use super::sidecar::Sidecar;
use crate::render::sentence::sentence;
use ctxhooks_shared::store::sidecar::{RuntimeMark, ToolEventKind};

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

/// Why a runtime mark matched no interrupt record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnmatchedReason {
    #[error(
        "no interrupt record it may cover starts within {MARK_WINDOW_BEFORE_MS} ms before to \
         {MARK_WINDOW_AFTER_MS} ms after this mark (with no user prompt between, and for calls \
         already running when it was written): the interrupt has not reached the transcript \
         yet, or the SDK changed its interrupt wording or fields"
    )]
    NoInterruptInWindow,
    #[error("no tool hook event recorded the transcript's path")]
    NoTranscriptPath,
    #[error("{0}")]
    TranscriptUnreadable(String),
}

/// A runtime mark that no interrupt record in the transcript follows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnmatchedMark {
    pub mark: RuntimeMark,
    /// Why it matched nothing.
    #[serde(serialize_with = "sentence")]
    pub reason: UnmatchedReason,
}

impl UnmatchedMark {
    /// Each of `marks`, unmatched for `reason`.
    pub fn all(
        marks: impl IntoIterator<Item = RuntimeMark>,
        reason: &UnmatchedReason,
    ) -> Vec<Self> {
        marks
            .into_iter()
            .map(|mark| Self {
                mark,
                reason: reason.clone(),
            })
            .collect()
    }
}

/// Gives each group the mark that covers it and the marks spent on it, then notes, on every
/// group no mark covers, the mark lines whose time cannot be read that lie near it.
pub fn match_marks(groups: &mut [InterruptGroup], sidecar: &Sidecar, calls: &ToolCalls) {
    let mut order: Vec<usize> = (0..sidecar.marks.len()).collect();
    order.sort_by_key(|index| sidecar.marks[*index].time_ms);
    for mark_index in order {
        let mark_time = sidecar.marks[mark_index].time_ms;
        match groups
            .iter_mut()
            .find(|group| may_cover(mark_time, group, sidecar, calls))
        {
            Some(group) if group.covered_by.is_some() => group.spent_marks.push(mark_index),
            Some(group) => group.covered_by = Some(mark_index),
            None => {}
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
        for group in groups.iter_mut() {
            if group.covered_by.is_none()
                && group
                    .first_time_ms
                    .is_none_or(|time| time >= low && time <= high)
            {
                group.uncertain.push(problem.line);
            }
        }
    }
}

/// Whether the mark at `mark_time` may cover `group`: the group starts in the window, no real
/// prompt lies between the mark and the group, and none of its calls began more than
/// [`MARK_CALL_SLACK_MS`] after the mark.
fn may_cover(mark_time: u64, group: &InterruptGroup, sidecar: &Sidecar, calls: &ToolCalls) -> bool {
    let low = mark_time.saturating_sub(MARK_WINDOW_BEFORE_MS);
    let high = mark_time.saturating_add(MARK_WINDOW_AFTER_MS);
    group
        .first_time_ms
        .is_some_and(|first| (low..=high).contains(&first))
        && group
            .latest_prompt_ms
            .is_none_or(|prompt| prompt < mark_time)
        && !group.call_ids().any(|id| {
            call_start(id, sidecar, calls)
                .is_some_and(|start| start > mark_time.saturating_add(MARK_CALL_SLACK_MS))
        })
}

/// When a call began: the earlier of its `tool_use` records' timestamps and its `PreToolUse`
/// lines.
fn call_start(id: &str, sidecar: &Sidecar, calls: &ToolCalls) -> Option<u64> {
    let issued = calls.get(id).and_then(|call| call.earliest_ms);
    let started = sidecar
        .events_for(id)
        .filter(|event| event.event == ToolEventKind::Started)
        .map(|event| event.time_ms)
        .min();
    issued.into_iter().chain(started).min()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provenance::analysis::Analysis;
    use crate::provenance::ledger::write_ledger_input;
    use crate::provenance::verdict::{Verdict, provenance_report};
    use crate::test_support::{T0, at};
    use ctxhooks_shared::store::sidecar::RuntimeMark;
    use serde_json::json;

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

    fn transcript(records: &[serde_json::Value]) -> String {
        records.iter().fold(String::new(), |mut text, record| {
            text.push_str(&record.to_string());
            text.push('\n');
            text
        })
    }

    fn analysis(records: &[serde_json::Value], marks: Vec<RuntimeMark>) -> Analysis {
        let mut sidecar = Sidecar::default();
        sidecar.marks = marks;
        Analysis::scan(transcript(records).as_bytes(), sidecar).unwrap()
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
        // Nor is a local command's wrapper (the one definition the usage log's turns use too).
        records[3] = json!({"type": "user", "timestamp": at(98_000), "message": {"role": "user",
            "content": "<command-name>/mcp</command-name>"}});
        let analysis_with_command = analysis(&records, vec![mark(97_000)]);
        assert_eq!(analysis_with_command.groups[1].covered_by, Some(0));
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
        let report = provenance_report(&analysis);
        assert_eq!(report.calls.len(), 1);
        assert_eq!(report.calls[0].tool_use_id, "toolu_lost");
        assert_eq!(report.calls[0].verdict, Verdict::Runtime);
        assert!(report.calls[0].relabelled_in_ledger);
        let text = transcript(&records);
        let mut ledger = Vec::new();
        write_ledger_input(
            &analysis,
            &report,
            std::io::Cursor::new(text.as_bytes()),
            &mut ledger,
        )
        .unwrap();
        assert!(String::from_utf8(ledger).unwrap().contains("toolu_lost"));
    }
}
