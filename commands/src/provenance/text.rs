//! The English of provenance beside the facts' own sentences (`evidence.rs`): a permission
//! refusal in words, the stderr notes and the text report. `json.rs` puts the same sentences in
//! the JSON report.

use std::fmt::{self, Write as _};

use super::evidence::Warning;
use super::marks::UnmatchedMark;
use super::records::{DECISION_SOURCE_CONFIG, PermissionRefusal, when};
use super::sidecar::MarkProblem;
use super::verdict::{CallReport, ProvenanceReport};

/// A permission refusal in words: who refused, and every field that says so.
impl fmt::Display for PermissionRefusal {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reason = self.reason_code.as_deref().unwrap_or_default();
        let who = match self.decision_source.as_deref() {
            Some(DECISION_SOURCE_CONFIG) if reason.starts_with("rule:") => {
                "by a deny rule of the CLI's settings, not by a person"
            }
            Some(DECISION_SOURCE_CONFIG) if reason.starts_with("mode:") => {
                "by the CLI's permission mode, not by a person"
            }
            Some(DECISION_SOURCE_CONFIG) if self.needs_approval => {
                "by the CLI in print mode: the call needed a person's approval and none was asked, \
             so no person refused it"
            }
            Some(DECISION_SOURCE_CONFIG) => "by the CLI's own configuration, not by a person",
            Some("user_reject") => "by the program's permission handler (canUseTool)",
            _ if self.needs_approval => {
                "by the CLI: the call needed a person's approval and none was asked (print mode)"
            }
            _ => "at the permission step",
        };
        let mut facts = Vec::new();
        if let Some(source) = &self.decision_source {
            let mut fact = format!("permissionDecision reject, source {source:?}");
            if let Some(code) = &self.reason_code {
                let _ = write!(fact, ", reasonCode {code:?}");
            }
            facts.push(fact);
        }
        if self.needs_approval {
            facts.push("the result says the call \"needs approval\"".to_owned());
        }
        facts.extend(self.denial_kind.as_deref().map(|kind| {
            match kind {
                "user-rejected" => {
                    "toolDenialKind \"user-rejected\", which the CLI writes for its \
                                own refusals too: no person is implied"
                        .to_owned()
                }
                kind => format!("toolDenialKind {kind:?}"),
            }
        }));
        write!(formatter, "tool_result is a permission denial {who}")?;
        if !facts.is_empty() {
            write!(formatter, " ({})", facts.join("; "))?;
        }
        Ok(())
    }
}

/// The stderr warning for a mark that matched no interrupt record.
pub fn unmatched_note(unmatched: &UnmatchedMark) -> String {
    format!(
        "ctxhooks: WARNING: runtime mark at {} ms ({:?}) matched no interrupt record: {}",
        unmatched.mark.time_ms, unmatched.mark.reason, unmatched.reason
    )
}

/// The stderr warning for a mark line whose time cannot be read.
pub fn mark_problem_note(problem: &MarkProblem) -> String {
    format!(
        "ctxhooks: WARNING: sidecar line {} is a runtime mark that cannot be read as JSON: {}",
        problem.line, problem.problem
    )
}

/// The stderr warning for any other warning.
pub fn warning_note(warning: &Warning) -> String {
    format!("ctxhooks: warning: {warning}")
}

/// The text report of `ctxhooks provenance`.
pub fn render_report(report: &ProvenanceReport, transcript: &str) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "transcript: {transcript}");
    if report.calls.is_empty() {
        let _ = writeln!(text, "every tool call completed normally");
    }
    for call in &report.calls {
        render_call(&mut text, call);
    }
    for unmatched in &report.unmatched_marks {
        let _ = writeln!(
            text,
            "\nWARNING: runtime mark at {} ms ({:?}) matched NO interrupt record: {}",
            unmatched.mark.time_ms, unmatched.mark.reason, unmatched.reason
        );
    }
    for warning in &report.warnings {
        let _ = writeln!(text, "\nwarning: {warning}");
    }
    text
}

/// A call's summary as the reports show it after its name: `` `summary` ``, or nothing.
pub(super) fn quoted(summary: Option<&str>) -> String {
    summary.map_or_else(String::new, |summary| format!(" `{summary}`"))
}

fn render_call(text: &mut String, call: &CallReport) {
    let (verdict, state): (&str, &str) = (call.verdict.into(), call.state.into());
    let _ = writeln!(
        text,
        "\n{} {}{} (line {})\n  verdict: {}{}\n  state:   {}",
        call.tool_name.as_deref().unwrap_or("?"),
        call.tool_use_id,
        quoted(call.summary.as_deref()),
        call.line,
        verdict,
        when(call.relabelled_in_ledger, " (relabelled in ledger-input)"),
        state,
    );
    for evidence in &call.verdict_evidence {
        let _ = writeln!(text, "  - verdict: {evidence}");
    }
    for evidence in &call.state_evidence {
        let _ = writeln!(text, "  - state: {evidence}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provenance::evidence::{StateEvidence, VerdictEvidence};
    use crate::provenance::marks::UnmatchedReason;
    use crate::provenance::records::{InterruptionClue, ResultKind};
    use crate::provenance::sidecar::MarkProblemKind;
    use ctxhooks_shared::store::sidecar::RuntimeMark;

    fn mark() -> RuntimeMark {
        RuntimeMark {
            time_ms: 1000,
            reason: "backstop".into(),
            source: Some("runtime".into()),
            gauge_pct: Some(78.5),
            pid: None,
        }
    }

    /// Every sentence, word for word as `provenance` has always printed it.
    #[test]
    fn every_fact_reads_as_it_always_did() {
        let verdicts = [
            (
                VerdictEvidence::Result(ResultKind::Rejected {
                    before_run: true,
                    stopped_while_running: true,
                    plain_user_rejected: false,
                }),
                "tool_result is the rejection text with toolDenialBeforeRun: true with the \"stopped while running\" correction",
            ),
            (
                VerdictEvidence::Result(ResultKind::PermissionDenied(PermissionRefusal {
                    denial_kind: Some("permission-rule".into()),
                    decision_source: None,
                    reason_code: None,
                    needs_approval: false,
                })),
                "tool_result is a permission denial at the permission step (toolDenialKind \"permission-rule\")",
            ),
            (
                VerdictEvidence::Result(ResultKind::Interrupted {
                    while_running: true,
                }),
                "tool_result says the call was interrupted (toolDenialKind \"interrupted\": cut off while running)",
            ),
            (
                VerdictEvidence::Result(ResultKind::UnrecognisedInterruption {
                    evidence: InterruptionClue::StartedNeverFinished,
                }),
                "unrecognised interruption: an error result for a call the PreToolUse hook saw start and no PostToolUse/PostToolUseFailure saw finish",
            ),
            (
                VerdictEvidence::Result(ResultKind::UnrecognisedInterruption {
                    evidence: InterruptionClue::UnknownDenialKind("new".into()),
                }),
                "unrecognised interruption: unknown toolDenialKind `new`",
            ),
            (
                VerdictEvidence::SpentMark(mark()),
                "the runtime mark at 1000 ms (reason \"backstop\") also fell just before these records (a retried interrupt?) and is spent on them",
            ),
            (
                VerdictEvidence::NovelMarker {
                    line: 24,
                    text: "[Stopped]".into(),
                },
                "line 24: \"[Stopped]\" was taken as an interrupt marker because the harness wrote it (rowSource: \"harness\") right after interrupt content; its wording is unknown to ctxhooks (did the SDK change it?)",
            ),
            (
                VerdictEvidence::CoveringMark {
                    mark: mark(),
                    delay_ms: Some(-3),
                },
                "runtime mark at 1000 ms, the interrupt records came -3 ms after it: reason \"backstop\", source \"runtime\", gauge 78.5%",
            ),
            (
                VerdictEvidence::UnreadableMarkNearby { sidecar_line: 2 },
                "sidecar line 2 is a runtime_interrupt_mark line whose time cannot be read, and these interrupt records could follow it: the runtime may have issued this interrupt",
            ),
            (
                VerdictEvidence::LaterRecordsCovered(mark()),
                "the interrupt records after it are covered by the runtime mark at 1000 ms (reason \"backstop\")",
            ),
            (
                VerdictEvidence::MarkerFollowsUncovered,
                "an interrupt marker follows it and no runtime mark covers it, so the transcript's \"user\" stands",
            ),
        ];
        for (evidence, expected) in verdicts {
            assert_eq!(evidence.to_string(), expected);
        }
        let states = [
            (
                StateEvidence::Failed {
                    time_ms: 5,
                    is_interrupt: Some(false),
                },
                "PostToolUseFailure at 5 ms (is_interrupt: Some(false))",
            ),
            (
                StateEvidence::NoHookLine,
                "no hook line for this call; cannot tell whether it ran — check the live state (was `ctxhooks-tooluse` installed and working?)",
            ),
        ];
        for (evidence, expected) in states {
            assert_eq!(evidence.to_string(), expected);
        }
        let warnings = [
            (
                Warning::UnreadableAfterGroup {
                    line: 25,
                    group_line: 22,
                },
                "transcript line 25 after the interrupt records on line 22 is not a readable JSON record; it is counted as a real record, so nothing after it is relabelled",
            ),
            (
                Warning::MarkProblem {
                    line: 3,
                    problem: MarkProblemKind::NoTime,
                },
                "sidecar line 3: a runtime_interrupt_mark line whose time cannot be read (it has no time_ms), so interrupts near it are judged unknown; fix the runtime that writes it (see docs/provenance.md)",
            ),
            (
                Warning::SeveralSessionIds {
                    ids: vec!["a".into(), "b".into()],
                    session: ctxhooks_shared::store::session_id::SessionId::parse("a").unwrap(),
                },
                "the transcript's records carry several sessionIds (a, b); only session `a`'s sidecar was used",
            ),
            (
                Warning::UnreadableTranscriptLines { count: 2 },
                "2 transcript line(s) are not JSON records (a truncated last line?)",
            ),
        ];
        for (warning, expected) in warnings {
            assert_eq!(warning.to_string(), expected);
        }
        assert_eq!(
            UnmatchedReason::NoInterruptInWindow.to_string(),
            "no interrupt record it may cover starts within 250 ms before to 5000 ms after this mark (with no user prompt between, and for calls already running when it was written): the interrupt has not reached the transcript yet, or the SDK changed its interrupt wording or fields"
        );
    }
}
