//! Verdicts: for every tool call that did not complete normally, who cut it off (runtime, user,
//! permission denied, unknown), whether it ran (not started, started, completed, failed), and
//! the evidence for both, as typed facts (`text.rs` words them).

use serde::Serialize;

use super::analysis::{Analysis, NotableResult};
use super::calls::ToolCall;
use super::evidence::{StateEvidence, VerdictEvidence, Warning};
use super::groups::InterruptGroup;
use super::marks::UnmatchedMark;
use super::records::ResultKind;
use crate::render::sentence::sentences;
use ctxhooks_shared::store::sidecar::{RuntimeMark, ToolEventKind};

/// Who cut a tool call off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Verdict {
    /// The runtime: a runtime mark covers the interrupt records.
    Runtime,
    /// A person: the transcript says so and no runtime mark covers it.
    User,
    /// A permission rule, a `canUseTool` deny, a classifier or a missing permission handler.
    PermissionDenied,
    /// Nothing says who (no result at all, or a result whose wording is not known).
    Unknown,
}

/// Whether the call ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ToolState {
    /// It never started: safe to re-run.
    NotStarted,
    /// It started and never finished: its effect is unknown; check the live state first.
    Started,
    /// `PostToolUse` saw it complete.
    Completed,
    /// `PostToolUseFailure` saw it fail.
    Failed,
    /// No hook record and nothing in the transcript says: treat it like `started`.
    Unknown,
}

/// One tool call that did not complete normally.
#[derive(Debug, Clone, Serialize)]
pub struct CallReport {
    /// The call's id.
    pub tool_use_id: String,
    /// The tool's name, from the transcript's `tool_use` block.
    pub tool_name: Option<String>,
    /// A short summary of the call (a Bash command's start, a file path).
    pub summary: Option<String>,
    /// Who cut it off.
    pub verdict: Verdict,
    /// Whether it ran.
    pub state: ToolState,
    /// How the transcript's `tool_result` reads (`None`: the call has no result).
    pub result_kind: Option<ResultKind>,
    /// Why the verdict.
    #[serde(serialize_with = "sentences")]
    pub verdict_evidence: Vec<VerdictEvidence>,
    /// Why the state.
    #[serde(serialize_with = "sentences")]
    pub state_evidence: Vec<StateEvidence>,
    /// The runtime mark that covers it.
    pub mark: Option<RuntimeMark>,
    /// Whether `ledger-input` relabels it (covered, and in the transcript's trailing group).
    pub relabelled_in_ledger: bool,
    /// The 1-based transcript line of its result (or of its `tool_use` when it has none).
    pub line: usize,
}

/// Everything `ctxhooks provenance` says about one transcript.
#[derive(Debug, Clone, Serialize)]
pub struct ProvenanceReport {
    /// The calls that did not complete normally, in transcript order.
    pub calls: Vec<CallReport>,
    /// Runtime marks that no interrupt record follows (loud: see
    /// [`super::load::unmatched_marks`]).
    pub unmatched_marks: Vec<UnmatchedMark>,
    /// Other things a reader must know (unreadable sidecar or transcript lines).
    #[serde(serialize_with = "sentences")]
    pub warnings: Vec<Warning>,
}

/// Builds the report for an analysed transcript.
pub fn provenance_report(analysis: &Analysis) -> ProvenanceReport {
    let mut calls: Vec<CallReport> = analysis
        .results
        .iter()
        .map(|result| result_call(analysis, result))
        .collect();
    let unanswered = analysis.calls.issued_calls().filter(|call| !call.answered);
    calls.extend(unanswered.map(|call| unanswered_call(analysis, call)));
    calls.sort_by_key(|call| call.line);
    ProvenanceReport {
        calls,
        unmatched_marks: analysis.unmatched(),
        warnings: report_warnings(analysis),
    }
}

/// The mark that covers `group`.
fn covering_mark<'a>(
    analysis: &'a Analysis,
    group: Option<&InterruptGroup>,
) -> Option<&'a RuntimeMark> {
    group
        .and_then(|group| group.covered_by)
        .map(|mark| &analysis.sidecar.marks[mark])
}

/// The call a result that is not normal reports on.
fn result_call(analysis: &Analysis, result: &NotableResult) -> CallReport {
    let group = result.group.map(|group| &analysis.groups[group]);
    let mark = covering_mark(analysis, group);
    let judged = judge(analysis, &result.kind, group, mark, result.time_ms);
    call_report(analysis, judged, &result.tool_use_id, Some(result), group)
}

/// The report on a call no `tool_result` answers.
fn unanswered_call(analysis: &Analysis, tool_use: &ToolCall) -> CallReport {
    let id = &tool_use.id;
    let group = analysis
        .groups
        .iter()
        .find(|group| group.unanswered.iter().any(|unanswered| unanswered == id));
    let mut verdict_evidence = vec![VerdictEvidence::NoResult];
    let verdict = match (group, covering_mark(analysis, group)) {
        (Some(_), Some(mark)) => {
            verdict_evidence.push(VerdictEvidence::LaterRecordsCovered(mark.clone()));
            Verdict::Runtime
        }
        (Some(group), None) if !group.uncertain.is_empty() => {
            verdict_evidence.extend(uncertainty(group));
            Verdict::Unknown
        }
        (Some(_), None) => {
            verdict_evidence.push(VerdictEvidence::MarkerFollowsUncovered);
            Verdict::User
        }
        _ => Verdict::Unknown,
    };
    verdict_evidence.extend(group_evidence(analysis, group));
    call_report(analysis, (verdict, verdict_evidence), id, None, group)
}

/// The report on the call `id` (answered by `result`, in `group`) with its verdict and
/// evidence; its state is found here. Its line is its result's, else its `tool_use`'s.
fn call_report(
    analysis: &Analysis,
    (verdict, verdict_evidence): (Verdict, Vec<VerdictEvidence>),
    id: &str,
    result: Option<&NotableResult>,
    group: Option<&InterruptGroup>,
) -> CallReport {
    let tool_use = analysis.calls.get(id).filter(|call| call.issued);
    let kind = result.map(|result| &result.kind);
    let (state, state_evidence) =
        state_of(analysis, id, kind, tool_use, verdict == Verdict::Runtime);
    CallReport {
        tool_use_id: id.to_owned(),
        tool_name: tool_use.and_then(|tool_use| tool_use.name.clone()),
        summary: tool_use.and_then(|tool_use| tool_use.summary.clone()),
        verdict,
        state,
        result_kind: kind.cloned(),
        verdict_evidence,
        state_evidence,
        mark: covering_mark(analysis, group).cloned(),
        relabelled_in_ledger: group.is_some_and(InterruptGroup::relabelled),
        line: result
            .map(|result| result.line)
            .or(tool_use.map(|tool_use| tool_use.line))
            .unwrap_or_default()
            + 1,
    }
}

/// The report's warnings: the analysis's, then a latest mark that relabels nothing, unreadable
/// sidecar lines and unreadable transcript lines.
fn report_warnings(analysis: &Analysis) -> Vec<Warning> {
    let mut warnings = analysis.warnings.clone();
    let latest_mark = (0..analysis.sidecar.marks.len())
        .max_by_key(|index| analysis.sidecar.marks[*index].time_ms);
    if let Some(latest) = latest_mark
        && let Some(group) = analysis
            .groups
            .iter()
            .find(|group| group.covered_by == Some(latest))
        && !group.trailing
    {
        warnings.push(Warning::LatestMarkNotTrailing {
            line: group.lines[0] + 1,
        });
    }
    for (line, error) in &analysis.sidecar.unreadable {
        warnings.push(Warning::UnreadableSidecarLine {
            line: *line,
            error: error.clone(),
        });
    }
    if analysis.unreadable_lines > 0 {
        warnings.push(Warning::UnreadableTranscriptLines {
            count: analysis.unreadable_lines,
        });
    }
    warnings
}

/// Who cut off a call whose result reads as `kind`.
fn judge(
    analysis: &Analysis,
    kind: &ResultKind,
    group: Option<&InterruptGroup>,
    mark: Option<&RuntimeMark>,
    result_time: Option<u64>,
) -> (Verdict, Vec<VerdictEvidence>) {
    let mut evidence = vec![VerdictEvidence::Result(kind.clone())];
    if let ResultKind::PermissionDenied(_) = kind {
        evidence.push(VerdictEvidence::PermissionDecision);
        return (Verdict::PermissionDenied, evidence);
    }
    evidence.extend(group_evidence(analysis, group));
    if let Some(mark) = mark {
        evidence.push(VerdictEvidence::CoveringMark {
            mark: mark.clone(),
            delay_ms: result_time.map(|time| i128::from(time) - i128::from(mark.time_ms)),
        });
        evidence.push(VerdictEvidence::WordingSaysUser);
        return (Verdict::Runtime, evidence);
    }
    if matches!(kind, ResultKind::RejectedWithFeedback) {
        evidence.push(VerdictEvidence::Feedback);
        return (Verdict::User, evidence);
    }
    if let Some(group) = group
        && !group.uncertain.is_empty()
    {
        evidence.extend(uncertainty(group));
        return (Verdict::Unknown, evidence);
    }
    let (verdict, last) = match kind {
        ResultKind::Rejected {
            before_run,
            plain_user_rejected,
            ..
        } if *before_run || *plain_user_rejected => {
            (Verdict::User, VerdictEvidence::RefusedBeforeRunUncovered)
        }
        ResultKind::Rejected { .. }
        | ResultKind::Interrupted { .. }
        | ResultKind::BatchCancelled => (Verdict::User, VerdictEvidence::Uncovered),
        _ => (Verdict::Unknown, VerdictEvidence::UncoveredUnknownWording),
    };
    evidence.push(last);
    (verdict, evidence)
}

/// The mark lines whose time cannot be read near `group`.
fn uncertainty(group: &InterruptGroup) -> impl Iterator<Item = VerdictEvidence> + '_ {
    group
        .uncertain
        .iter()
        .map(|line| VerdictEvidence::UnreadableMarkNearby {
            sidecar_line: *line,
        })
}

/// What the group (when the call is in one) adds to every verdict in it: marks spent on it,
/// markers in a new wording.
fn group_evidence(analysis: &Analysis, group: Option<&InterruptGroup>) -> Vec<VerdictEvidence> {
    let spent = group
        .iter()
        .flat_map(|group| &group.spent_marks)
        .map(|mark| VerdictEvidence::SpentMark(analysis.sidecar.marks[*mark].clone()));
    let novel = group
        .iter()
        .flat_map(|group| &group.novel_markers)
        .map(|(line, text)| VerdictEvidence::NovelMarker {
            line: line + 1,
            text: text.clone(),
        });
    spent.chain(novel).collect()
}

/// Whether the call `id` ran: the hook's events first, then what the transcript says.
/// `runtime` is true when the call's verdict is the runtime's (a mark covers its interrupt).
fn state_of(
    analysis: &Analysis,
    id: &str,
    kind: Option<&ResultKind>,
    tool_use: Option<&ToolCall>,
    runtime: bool,
) -> (ToolState, Vec<StateEvidence>) {
    let mut started = None;
    for event in analysis.sidecar.events_for(id) {
        let (time_ms, is_interrupt) = (event.time_ms, event.is_interrupt);
        let (state, evidence) = match event.event {
            ToolEventKind::Completed => {
                (ToolState::Completed, StateEvidence::Completed { time_ms })
            }
            ToolEventKind::Failed if is_interrupt == Some(true) => (
                ToolState::Started,
                StateEvidence::AbortedWhileRunning { time_ms },
            ),
            ToolEventKind::Failed => (
                ToolState::Failed,
                StateEvidence::Failed {
                    time_ms,
                    is_interrupt,
                },
            ),
            ToolEventKind::Started => {
                started = Some(time_ms);
                continue;
            }
        };
        return (state, vec![evidence]);
    }
    // A plain "user-rejected" (no correction, no toolDenialBeforeRun) says refused at the
    // prompt only when the interrupt is the person's: a runtime's interrupt() is what stops
    // running calls.
    let refused = match kind {
        Some(
            ResultKind::PermissionDenied(_)
            | ResultKind::Rejected {
                before_run: true, ..
            },
        ) => Some(StateEvidence::RefusedBeforeRun),
        Some(ResultKind::Rejected {
            plain_user_rejected: true,
            ..
        }) if !runtime => Some(StateEvidence::PlainUserRejected),
        _ => None,
    };
    if let Some(refused) = refused {
        let mut evidence = vec![refused];
        evidence.extend(started.map(|time_ms| StateEvidence::StartedBeforeDecision { time_ms }));
        return (ToolState::NotStarted, evidence);
    }
    if let Some(time_ms) = started {
        return (
            ToolState::Started,
            vec![StateEvidence::StartedNotFinished { time_ms }],
        );
    }
    state_without_start(analysis, kind, tool_use)
}

/// Whether a call ran that no hook line says started or ended: the hook's activity around it
/// and what the SDK says.
fn state_without_start(
    analysis: &Analysis,
    kind: Option<&ResultKind>,
    tool_use: Option<&ToolCall>,
) -> (ToolState, Vec<StateEvidence>) {
    let said_running = matches!(
        kind,
        Some(
            ResultKind::Rejected {
                stopped_while_running: true,
                ..
            } | ResultKind::Interrupted {
                while_running: true
            }
        )
    );
    // The hook was active for this call only if it wrote lines both before and after the
    // call's tool_use: lines only before could mean the hook was removed or broke since.
    let hook_was_active = tool_use
        .and_then(|tool_use| tool_use.time_ms)
        .is_some_and(|time| analysis.sidecar.hook_active_around(time));
    match (hook_was_active, said_running) {
        // The hook may have failed for that call (see errors.log): do not call it safe.
        (true, true) => (
            ToolState::Unknown,
            vec![
                StateEvidence::NoStartWhileHookActive,
                StateEvidence::SdkSaysRunningDisagrees,
            ],
        ),
        (true, false) => (
            ToolState::NotStarted,
            vec![StateEvidence::NoStartWhileHookActive],
        ),
        (false, true) => (
            ToolState::Started,
            vec![StateEvidence::NoHookLineSdkSaysRunning],
        ),
        (false, false) => (ToolState::Unknown, vec![StateEvidence::NoHookLine]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provenance::sidecar::Sidecar;
    use crate::test_support::{T0, at};
    use ctxhooks_shared::store::sidecar::ToolEvent;
    use serde_json::{Value, json};

    /// A Bash call at 1 s, rejected at 2 s, then the marker.
    fn rejected_call() -> String {
        [
            json!({"type": "user", "timestamp": at(0), "message": {"role": "user", "content": "go"}}),
            json!({"type": "assistant", "timestamp": at(1_000), "message": {"role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_a", "name": "Bash",
                             "input": {"command": "sleep 5"}}]}}),
            json!({"type": "user", "timestamp": at(2_000), "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_a", "is_error": true,
                 "content": "The user doesn't want to proceed with this tool use. The tool use was rejected"}]}}),
            json!({"type": "user", "timestamp": at(2_001), "message": {"role": "user",
                "content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}]}}),
        ]
        .iter()
        .fold(String::new(), |mut text, record: &Value| {
            text.push_str(&record.to_string());
            text.push('\n');
            text
        })
    }

    fn mark(offset_ms: u64) -> RuntimeMark {
        RuntimeMark {
            time_ms: T0 + offset_ms,
            reason: "backstop".into(),
            source: None,
            gauge_pct: None,
            pid: None,
        }
    }

    fn report(sidecar: Sidecar) -> ProvenanceReport {
        let analysis = Analysis::scan(rejected_call().as_bytes(), sidecar).unwrap();
        provenance_report(&analysis)
    }

    const REJECTED: ResultKind = ResultKind::Rejected {
        before_run: false,
        stopped_while_running: false,
        plain_user_rejected: false,
    };

    #[test]
    fn an_uncovered_rejection_is_the_users_and_nothing_says_whether_it_ran() {
        let report = report(Sidecar::default());
        let call = &report.calls[0];
        assert_eq!(
            (call.verdict, call.state),
            (Verdict::User, ToolState::Unknown)
        );
        assert_eq!(
            call.verdict_evidence,
            vec![
                VerdictEvidence::Result(REJECTED),
                VerdictEvidence::Uncovered
            ]
        );
        assert_eq!(call.state_evidence, vec![StateEvidence::NoHookLine]);
        assert_eq!(call.summary.as_deref(), Some("sleep 5"));
        assert_eq!(call.line, 3);
        assert!(report.warnings.is_empty());
    }

    #[test]
    fn a_plain_user_rejected_is_refused_at_the_prompt_unless_a_mark_covers_it() {
        // 2.1.2xx: a person's "No" at the permission prompt writes toolDenialKind
        // "user-rejected" on the plain rejection, without toolDenialBeforeRun (issue 22: six such
        // calls got the state `unknown`).
        let transcript = rejected_call().replacen(
            r#""type":"user","#,
            r#""type":"user","toolDenialKind":"user-rejected","#,
            2,
        );
        let transcript = transcript.replacen(
            r#""type":"user","toolDenialKind":"user-rejected","#,
            r#""type":"user","#,
            1,
        );
        let analysis = Analysis::scan(transcript.as_bytes(), Sidecar::default()).unwrap();
        let call = &provenance_report(&analysis).calls[0];
        assert_eq!(
            (call.verdict, call.state),
            (Verdict::User, ToolState::NotStarted)
        );
        assert_eq!(call.state_evidence, vec![StateEvidence::PlainUserRejected]);
        assert_eq!(
            call.verdict_evidence.last(),
            Some(&VerdictEvidence::RefusedBeforeRunUncovered)
        );
        // A runtime's interrupt() stops running calls: with a covering mark the field says
        // nothing of whether it ran.
        let mut sidecar = Sidecar::default();
        sidecar.marks = vec![mark(1_900)];
        let analysis = Analysis::scan(transcript.as_bytes(), sidecar).unwrap();
        let call = &provenance_report(&analysis).calls[0];
        assert_eq!(
            (call.verdict, call.state),
            (Verdict::Runtime, ToolState::Unknown)
        );
    }

    #[test]
    fn a_marker_that_names_the_interrupted_response_is_one_in_any_wording() {
        let transcript =
            rejected_call().replace("[Request interrupted by user for tool use]", "Stopped.");
        let without = Analysis::scan(transcript.as_bytes(), Sidecar::default()).unwrap();
        assert_eq!(without.groups[0].markers, 0);
        let named = transcript.replace(
            r#""type":"user","timestamp":"2026-01-01T00:00:02.001Z""#,
            r#""type":"user","interruptedMessageId":"msg_1","timestamp":"2026-01-01T00:00:02.001Z""#,
        );
        assert_ne!(named, transcript);
        let analysis = Analysis::scan(named.as_bytes(), Sidecar::default()).unwrap();
        assert_eq!(analysis.groups[0].markers, 1);
        assert!(analysis.groups[0].trailing);
    }

    #[test]
    fn a_covering_mark_makes_it_the_runtimes_with_the_delay() {
        let mut sidecar = Sidecar::default();
        sidecar.marks = vec![mark(1_900)];
        sidecar.add_event(ToolEvent {
            event: ToolEventKind::Started,
            hook_event_name: None,
            time_ms: T0 + 1_010,
            tool_use_id: Some("toolu_a".into()),
            tool_name: None,
            summary: None,
            duration_ms: None,
            is_interrupt: None,
            interrupted: None,
            agent_id: None,
            transcript_path: None,
        });
        let report = report(sidecar);
        let call = &report.calls[0];
        assert_eq!(
            (call.verdict, call.state, call.relabelled_in_ledger),
            (Verdict::Runtime, ToolState::Started, true)
        );
        assert_eq!(
            call.verdict_evidence,
            vec![
                VerdictEvidence::Result(REJECTED),
                VerdictEvidence::CoveringMark {
                    mark: mark(1_900),
                    delay_ms: Some(100)
                },
                VerdictEvidence::WordingSaysUser
            ]
        );
        assert_eq!(
            call.state_evidence,
            vec![StateEvidence::StartedNotFinished {
                time_ms: T0 + 1_010
            }]
        );
    }

    #[test]
    fn an_unreadable_mark_line_nearby_makes_it_unknown() {
        let mut sidecar = Sidecar::default();
        sidecar.mark_problems = vec![crate::provenance::sidecar::MarkProblem {
            line: 4,
            problem: crate::provenance::sidecar::MarkProblemKind::NoTime,
            after_time_ms: Some(T0),
            before_time_ms: None,
        }];
        let report = report(sidecar);
        let call = &report.calls[0];
        assert_eq!(call.verdict, Verdict::Unknown);
        assert_eq!(
            call.verdict_evidence,
            vec![
                VerdictEvidence::Result(REJECTED),
                VerdictEvidence::UnreadableMarkNearby { sidecar_line: 4 }
            ]
        );
        assert!(matches!(
            report.warnings.as_slice(),
            [Warning::MarkProblem { line: 4, .. }]
        ));
    }
}
