//! The English of provenance: how each typed fact of the model reads for a person (the
//! `Display` of each), the stderr notes and the text report. `json.rs` puts the same sentences
//! in the JSON report.

use std::fmt::{self, Write as _};

use super::evidence::{StateEvidence, UnmatchedMark, UnmatchedReason, VerdictEvidence, Warning};
use super::marks::{MARK_WINDOW_AFTER_MS, MARK_WINDOW_BEFORE_MS};
use super::records::{DECISION_SOURCE_CONFIG, InterruptionClue, PermissionRefusal, ResultKind};
use super::sidecar::{MarkProblem, MarkProblemKind};
use super::verdict::{CallReport, ProvenanceReport};

impl fmt::Display for MarkProblemKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotJson { error } => write!(
                formatter,
                "a runtime_interrupt_mark line that is not JSON ({error}; Python's json.dumps \
                 writes NaN or Infinity, which JSON does not allow); its time cannot be read, so \
                 interrupts near it are judged unknown"
            ),
            Self::NoTime => formatter.write_str(
                "a runtime_interrupt_mark line whose time cannot be read (it has no time_ms), so \
                 interrupts near it are judged unknown",
            ),
            Self::BadTime { value } => write!(
                formatter,
                "a runtime_interrupt_mark line whose time cannot be read (its time_ms {value} is \
                 not a time in milliseconds), so interrupts near it are judged unknown"
            ),
        }
    }
}

impl fmt::Display for InterruptionClue {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownDenialKind(kind) => write!(formatter, "unknown toolDenialKind `{kind}`"),
            Self::StartedNeverFinished => formatter.write_str(
                "an error result for a call the PreToolUse hook saw start and no \
                 PostToolUse/PostToolUseFailure saw finish",
            ),
        }
    }
}

/// How a `tool_result` reads, in a sentence.
fn describe_kind(kind: &ResultKind) -> String {
    match kind {
        ResultKind::Rejected {
            before_run,
            stopped_while_running,
            plain_user_rejected,
        } => format!(
            "tool_result is the rejection text{}{}{}",
            if *before_run {
                " with toolDenialBeforeRun: true"
            } else {
                ""
            },
            if *plain_user_rejected {
                " with toolDenialKind \"user-rejected\""
            } else {
                ""
            },
            if *stopped_while_running {
                " with the \"stopped while running\" correction"
            } else {
                ""
            }
        ),
        ResultKind::RejectedWithFeedback => "tool_result is the rejection with feedback".into(),
        ResultKind::Interrupted { while_running } => format!(
            "tool_result says the call was interrupted{}",
            if *while_running {
                " (toolDenialKind \"interrupted\": cut off while running)"
            } else {
                ""
            }
        ),
        ResultKind::BatchCancelled => {
            "tool_result cancels this call because another call of its batch was rejected".into()
        }
        ResultKind::PermissionDenied(refusal) => describe_refusal(refusal),
        ResultKind::UnrecognisedInterruption { evidence } => {
            format!("unrecognised interruption: {evidence}")
        }
        ResultKind::Normal => "a normal result".into(),
    }
}

/// A permission refusal in words: who refused, and every field that says so.
fn describe_refusal(refusal: &PermissionRefusal) -> String {
    let reason = refusal.reason_code.as_deref().unwrap_or_default();
    let who = match refusal.decision_source.as_deref() {
        Some(DECISION_SOURCE_CONFIG) if reason.starts_with("rule:") => {
            "by a deny rule of the CLI's settings, not by a person"
        }
        Some(DECISION_SOURCE_CONFIG) if reason.starts_with("mode:") => {
            "by the CLI's permission mode, not by a person"
        }
        Some(DECISION_SOURCE_CONFIG) if refusal.needs_approval => {
            "by the CLI in print mode: the call needed a person's approval and none was asked, \
             so no person refused it"
        }
        Some(DECISION_SOURCE_CONFIG) => "by the CLI's own configuration, not by a person",
        Some("user_reject") => "by the program's permission handler (canUseTool)",
        _ if refusal.needs_approval => {
            "by the CLI: the call needed a person's approval and none was asked (print mode)"
        }
        _ => "at the permission step",
    };
    let mut facts = Vec::new();
    if let Some(source) = &refusal.decision_source {
        facts.push(match &refusal.reason_code {
            Some(code) => {
                format!("permissionDecision reject, source {source:?}, reasonCode {code:?}")
            }
            None => format!("permissionDecision reject, source {source:?}"),
        });
    }
    if refusal.needs_approval {
        facts.push("the result says the call \"needs approval\"".to_owned());
    }
    if let Some(kind) = &refusal.denial_kind {
        if kind == "user-rejected" {
            facts.push(
                "toolDenialKind \"user-rejected\", which the CLI writes for its own refusals too: \
                 no person is implied"
                    .to_owned(),
            );
        } else {
            facts.push(format!("toolDenialKind {kind:?}"));
        }
    }
    if facts.is_empty() {
        format!("tool_result is a permission denial {who}")
    } else {
        format!(
            "tool_result is a permission denial {who} ({})",
            facts.join("; ")
        )
    }
}

impl fmt::Display for VerdictEvidence {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Result(kind) => formatter.write_str(&describe_kind(kind)),
            Self::PermissionDecision => formatter
                .write_str("a permission decision refused the call; no interrupt was involved"),
            Self::SpentMark(mark) => write!(
                formatter,
                "the runtime mark at {} ms (reason {:?}) also fell just before these records (a \
                 retried interrupt?) and is spent on them",
                mark.time_ms, mark.reason
            ),
            Self::NovelMarker { line, text } => write!(
                formatter,
                "line {line}: {text:?} was taken as an interrupt marker because the harness wrote \
                 it (rowSource: \"harness\") right after interrupt content; its wording is \
                 unknown to ctxhooks (did the SDK change it?)"
            ),
            Self::CoveringMark { mark, delay_ms } => write!(
                formatter,
                "runtime mark at {} ms{}: reason {:?}{}{}",
                mark.time_ms,
                delay_ms.map_or_else(String::new, |delay| format!(
                    ", the interrupt records came {delay} ms after it"
                )),
                mark.reason,
                mark.source
                    .as_ref()
                    .map_or_else(String::new, |source| format!(", source {source:?}")),
                mark.gauge_pct
                    .map_or_else(String::new, |pct| format!(", gauge {pct}%")),
            ),
            Self::WordingSaysUser => formatter.write_str(
                "the transcript's wording says \"user\" for every interrupt; the mark says the \
                 runtime issued this one",
            ),
            Self::Feedback => formatter.write_str("a person typed feedback with the rejection"),
            Self::UnreadableMarkNearby { sidecar_line } => write!(
                formatter,
                "sidecar line {sidecar_line} is a runtime_interrupt_mark line whose time cannot \
                 be read, and these interrupt records could follow it: the runtime may have \
                 issued this interrupt"
            ),
            Self::RefusedBeforeRunUncovered => formatter.write_str(
                "refused at the permission step before it ran (a person at a permission prompt, \
                 or a canUseTool deny with interrupt: true) and no runtime mark covers it",
            ),
            Self::Uncovered => formatter.write_str(
                "no runtime mark covers these interrupt records, so the transcript's \"user\" \
                 stands",
            ),
            Self::UncoveredUnknownWording => {
                formatter.write_str("no runtime mark covers it and the wording is not known")
            }
            Self::NoResult => formatter.write_str(
                "the transcript holds no tool_result for this call (an abort, or the session was \
                 still running)",
            ),
            Self::LaterRecordsCovered(mark) => write!(
                formatter,
                "the interrupt records after it are covered by the runtime mark at {} ms (reason \
                 {:?})",
                mark.time_ms, mark.reason
            ),
            Self::MarkerFollowsUncovered => formatter.write_str(
                "an interrupt marker follows it and no runtime mark covers it, so the \
                 transcript's \"user\" stands",
            ),
        }
    }
}

impl fmt::Display for StateEvidence {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Completed { time_ms } => write!(formatter, "PostToolUse at {time_ms} ms"),
            Self::AbortedWhileRunning { time_ms } => write!(
                formatter,
                "PostToolUseFailure at {time_ms} ms with is_interrupt: true: the call was \
                 aborted while running, so it may have run in part or in full"
            ),
            Self::Failed {
                time_ms,
                is_interrupt,
            } => write!(
                formatter,
                "PostToolUseFailure at {time_ms} ms (is_interrupt: {is_interrupt:?})"
            ),
            Self::RefusedBeforeRun => {
                formatter.write_str("the transcript says the call was refused before it ran")
            }
            Self::PlainUserRejected => formatter.write_str(
                "toolDenialKind \"user-rejected\" on the plain rejection, with no \"stopped while \
                 running\" correction and no runtime mark: refused at the permission prompt (the \
                 CLIs that write toolDenialKind write a call stopped while running otherwise)",
            ),
            Self::StartedBeforeDecision { time_ms } => write!(
                formatter,
                "PreToolUse at {time_ms} ms, but PreToolUse runs before the permission decision"
            ),
            Self::StartedNotFinished { time_ms } => write!(
                formatter,
                "PreToolUse at {time_ms} ms and no PostToolUse/PostToolUseFailure: it may have \
                 run in part or in full"
            ),
            Self::NoStartWhileHookActive => formatter.write_str(
                "no PreToolUse line for this call although the hook wrote lines for this session \
                 before and after it",
            ),
            Self::SdkSaysRunningDisagrees => formatter.write_str(
                "but the SDK says it was stopped while running: the two disagree; check the live \
                 state",
            ),
            Self::NoHookLineSdkSaysRunning => formatter
                .write_str("no hook line for this call; the SDK says it was stopped while running"),
            Self::NoHookLine => formatter.write_str(
                "no hook line for this call; cannot tell whether it ran — check the live state \
                 (was `ctxhooks-tooluse` installed and working?)",
            ),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnreadableAfterGroup { line, group_line } => write!(
                formatter,
                "transcript line {line} after the interrupt records on line {group_line} is not \
                 a readable JSON record; it is counted as a real record, so nothing after it is \
                 relabelled"
            ),
            Self::NovelMarker { line, text } => write!(
                formatter,
                "transcript line {line}: the harness-written record {text:?} right after \
                 interrupt content was taken as an interrupt marker, but its wording is not one \
                 ctxhooks knows: the SDK's wording may have changed; check this verdict"
            ),
            Self::MarkProblem { line, problem } => write!(
                formatter,
                "sidecar line {line}: {problem}; fix the runtime that writes it (see \
                 docs/provenance.md)"
            ),
            Self::NoSessionId {
                transcript,
                session,
            } => write!(
                formatter,
                "the transcript `{}` names no sessionId; its records could not be checked \
                 against session `{session}`",
                transcript.display()
            ),
            Self::SeveralSessionIds { ids, session } => write!(
                formatter,
                "the transcript's records carry several sessionIds ({}); only session \
                 `{session}`'s sidecar was used",
                ids.join(", ")
            ),
            Self::LatestMarkNotTrailing { line } => write!(
                formatter,
                "the latest runtime mark covers interrupt records on line {line}, but real \
                 records follow them, so ledger-input relabels nothing; if the session ended \
                 with that interrupt, the records after it are ones ctxhooks does not recognise \
                 (changed SDK wording?)"
            ),
            Self::UnreadableSidecarLine { line, error } => {
                write!(formatter, "sidecar line {line} is unreadable: {error}")
            }
            Self::UnreadableTranscriptLines { count } => write!(
                formatter,
                "{count} transcript line(s) are not JSON records (a truncated last line?)"
            ),
        }
    }
}

impl fmt::Display for UnmatchedReason {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoInterruptInWindow => write!(
                formatter,
                "no interrupt record it may cover starts within {MARK_WINDOW_BEFORE_MS} ms \
                 before to {MARK_WINDOW_AFTER_MS} ms after this mark (with no user prompt \
                 between, and for calls already running when it was written): the interrupt \
                 has not reached the transcript yet, or the SDK changed its interrupt wording or \
                 fields"
            ),
            Self::NoTranscriptPath => {
                formatter.write_str("no tool hook event recorded the transcript's path")
            }
            Self::TranscriptUnreadable(error) => formatter.write_str(error),
        }
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

fn render_call(text: &mut String, call: &CallReport) {
    let (verdict, state): (&str, &str) = (call.verdict.into(), call.state.into());
    let _ = writeln!(
        text,
        "\n{} {}{} (line {})\n  verdict: {}{}\n  state:   {}",
        call.tool_name.as_deref().unwrap_or("?"),
        call.tool_use_id,
        call.summary
            .as_deref()
            .map_or_else(String::new, |summary| format!(" `{summary}`")),
        call.line,
        verdict,
        if call.relabelled_in_ledger {
            " (relabelled in ledger-input)"
        } else {
            ""
        },
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
