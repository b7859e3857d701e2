//! Verdicts: for every tool call that did not complete normally, who cut it off (runtime, user,
//! permission denied, unknown), whether it ran (not started, started, completed, failed), and
//! the evidence for both.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use super::marks::{Analysis, InterruptGroup, UnmatchedMark, unmatched_reason};
use super::records::{RecordClass, ResultKind};
use crate::store::sidecar::{RuntimeMark, ToolEventKind};
use crate::store::tool_summary::summarize_tool_input;

/// Who cut a tool call off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
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
    pub verdict_evidence: Vec<String>,
    /// Why the state.
    pub state_evidence: Vec<String>,
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
    /// Runtime marks that no interrupt record follows (loud: see [`super::marks::unmatched_marks`]).
    pub unmatched_marks: Vec<UnmatchedMark>,
    /// Other things a reader must know (unreadable sidecar or transcript lines).
    pub warnings: Vec<String>,
}

struct ToolUse {
    name: Option<String>,
    summary: Option<String>,
    line: usize,
    time_ms: Option<u64>,
}

/// Builds the report for an analysed transcript.
pub fn provenance_report(analysis: &Analysis) -> ProvenanceReport {
    let mut uses: HashMap<String, ToolUse> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    for (index, line) in analysis.lines.iter().enumerate() {
        let Some(record) = &line.record else { continue };
        for (id, block) in super::records::tool_use_blocks(record) {
            let name = block.get("name").and_then(Value::as_str);
            let summary = name.and_then(|name| {
                summarize_tool_input(name, block.get("input").unwrap_or(&Value::Null))
            });
            if !uses.contains_key(id) {
                order.push(id.to_owned());
            }
            uses.insert(
                id.to_owned(),
                ToolUse {
                    name: name.map(str::to_owned),
                    summary,
                    line: index,
                    time_ms: line.time_ms(),
                },
            );
        }
    }

    let mut group_of_line: HashMap<usize, usize> = HashMap::new();
    for (group_index, group) in analysis.groups.iter().enumerate() {
        for line in &group.lines {
            group_of_line.insert(*line, group_index);
        }
    }

    let mut answered: HashSet<String> = HashSet::new();
    let mut calls = Vec::new();
    for (index, class) in analysis.classes.iter().enumerate() {
        let results = match class {
            RecordClass::InterruptOnly { results, .. } | RecordClass::Conversation { results } => {
                results
            }
            RecordClass::NotConversation | RecordClass::SyntheticNoResponse => continue,
        };
        for (id, kind) in results {
            answered.insert(id.clone());
            if *kind == ResultKind::Normal {
                continue;
            }
            let group = group_of_line
                .get(&index)
                .map(|group| &analysis.groups[*group]);
            let mark = group
                .and_then(|group| group.covered_by)
                .map(|mark| &analysis.sidecar.marks[mark]);
            let tool_use = uses.get(id);
            let (verdict, verdict_evidence) =
                judge(analysis, kind, group, mark, analysis.lines[index].time_ms());
            let (state, state_evidence) = state_of(analysis, id, Some(kind), tool_use);
            calls.push(CallReport {
                tool_use_id: id.clone(),
                tool_name: tool_use.and_then(|tool_use| tool_use.name.clone()),
                summary: tool_use.and_then(|tool_use| tool_use.summary.clone()),
                verdict,
                state,
                result_kind: Some(kind.clone()),
                verdict_evidence,
                state_evidence,
                mark: mark.cloned(),
                relabelled_in_ledger: group
                    .is_some_and(|group| group.trailing && group.covered_by.is_some()),
                line: index + 1,
            });
        }
    }
    for id in &order {
        if answered.contains(id) {
            continue;
        }
        let Some(tool_use) = uses.get(id) else {
            continue;
        };
        let group = analysis
            .groups
            .iter()
            .find(|group| group.unanswered.iter().any(|unanswered| unanswered == id));
        let mark = group
            .and_then(|group| group.covered_by)
            .map(|mark| &analysis.sidecar.marks[mark]);
        let mut verdict_evidence = vec![
            "the transcript holds no tool_result for this call (an abort, or the session was \
             still running)"
                .to_owned(),
        ];
        let verdict = match (group, mark) {
            (Some(_), Some(mark)) => {
                verdict_evidence.push(format!(
                    "the interrupt records after it are covered by the runtime mark at {} ms \
                     (reason {:?})",
                    mark.time_ms, mark.reason
                ));
                Verdict::Runtime
            }
            (Some(group), None) if !group.uncertain.is_empty() => {
                verdict_evidence.extend(group.uncertain.iter().cloned());
                Verdict::Unknown
            }
            (Some(_), None) => {
                verdict_evidence.push(
                    "an interrupt marker follows it and no runtime mark covers it, so the \
                     transcript's \"user\" stands"
                        .to_owned(),
                );
                Verdict::User
            }
            _ => Verdict::Unknown,
        };
        if let Some(group) = group {
            verdict_evidence.extend(group_evidence(analysis, group));
        }
        let (state, state_evidence) = state_of(analysis, id, None, Some(tool_use));
        calls.push(CallReport {
            tool_use_id: id.clone(),
            tool_name: tool_use.name.clone(),
            summary: tool_use.summary.clone(),
            verdict,
            state,
            result_kind: None,
            verdict_evidence,
            state_evidence,
            mark: mark.cloned(),
            relabelled_in_ledger: group
                .is_some_and(|group| group.trailing && group.covered_by.is_some()),
            line: tool_use.line + 1,
        });
    }
    calls.sort_by_key(|call| call.line);

    let unmatched_marks = analysis
        .unmatched()
        .into_iter()
        .map(|(_, mark)| UnmatchedMark {
            mark: mark.clone(),
            reason: unmatched_reason(),
        })
        .collect();
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
        warnings.push(format!(
            "the latest runtime mark covers interrupt records on line {}, but real records follow \
             them, so ledger-input relabels nothing; if the session ended with that interrupt, \
             the records after it are ones ctxhooks does not recognise (changed SDK wording?)",
            group.lines[0] + 1
        ));
    }
    for (line, error) in &analysis.sidecar.unreadable {
        warnings.push(format!("sidecar line {line} is unreadable: {error}"));
    }
    let unparsed = analysis
        .lines
        .iter()
        .filter(|line| line.record.is_none() && !line.raw.iter().all(u8::is_ascii_whitespace))
        .count();
    if unparsed > 0 {
        warnings.push(format!(
            "{unparsed} transcript line(s) are not JSON records (a truncated last line?)"
        ));
    }
    ProvenanceReport {
        calls,
        unmatched_marks,
        warnings,
    }
}

fn judge(
    analysis: &Analysis,
    kind: &ResultKind,
    group: Option<&InterruptGroup>,
    mark: Option<&RuntimeMark>,
    result_time: Option<u64>,
) -> (Verdict, Vec<String>) {
    let mut evidence = vec![describe_kind(kind)];
    if let ResultKind::PermissionDenied { .. } = kind {
        evidence.push("a permission decision refused the call; no interrupt was involved".into());
        return (Verdict::PermissionDenied, evidence);
    }
    if let Some(group) = group {
        evidence.extend(group_evidence(analysis, group));
    }
    if let Some(mark) = mark {
        let delay = result_time.map_or_else(String::new, |time| {
            let delay = i128::from(time) - i128::from(mark.time_ms);
            format!(", the interrupt records came {delay} ms after it")
        });
        evidence.push(format!(
            "runtime mark at {} ms{delay}: reason {:?}{}{}",
            mark.time_ms,
            mark.reason,
            mark.source
                .as_ref()
                .map_or_else(String::new, |source| format!(", source {source:?}")),
            mark.gauge_pct
                .map_or_else(String::new, |pct| format!(", gauge {pct}%")),
        ));
        evidence.push(
            "the transcript's wording says \"user\" for every interrupt; the mark says the \
             runtime issued this one"
                .into(),
        );
        return (Verdict::Runtime, evidence);
    }
    if matches!(kind, ResultKind::RejectedWithFeedback) {
        evidence.push("a person typed feedback with the rejection".into());
        return (Verdict::User, evidence);
    }
    if let Some(group) = group
        && !group.uncertain.is_empty()
    {
        evidence.extend(group.uncertain.iter().cloned());
        return (Verdict::Unknown, evidence);
    }
    match kind {
        ResultKind::Rejected {
            before_run: true, ..
        } => {
            evidence.push(
                "refused at the permission step before it ran (a person at a permission prompt, \
                 or a canUseTool deny with interrupt: true) and no runtime mark covers it"
                    .into(),
            );
            (Verdict::User, evidence)
        }
        ResultKind::Rejected { .. }
        | ResultKind::Interrupted { .. }
        | ResultKind::BatchCancelled => {
            evidence.push(
                "no runtime mark covers these interrupt records, so the transcript's \"user\" \
                 stands"
                    .into(),
            );
            (Verdict::User, evidence)
        }
        _ => {
            evidence.push("no runtime mark covers it and the wording is not known".into());
            (Verdict::Unknown, evidence)
        }
    }
}

/// What the group adds to every verdict in it: marks spent on it, markers in a new wording.
fn group_evidence(analysis: &Analysis, group: &InterruptGroup) -> Vec<String> {
    let mut evidence = Vec::new();
    for mark in &group.spent_marks {
        let mark = &analysis.sidecar.marks[*mark];
        evidence.push(format!(
            "the runtime mark at {} ms (reason {:?}) also fell just before these records (a \
             retried interrupt?) and is spent on them",
            mark.time_ms, mark.reason
        ));
    }
    for (line, text) in &group.novel_markers {
        evidence.push(format!(
            "line {}: {text:?} was taken as an interrupt marker because the harness wrote it \
             (rowSource: \"harness\") right after interrupt content; its wording is unknown to \
             ctxhooks (did the SDK change it?)",
            line + 1
        ));
    }
    evidence
}

fn describe_kind(kind: &ResultKind) -> String {
    match kind {
        ResultKind::Rejected {
            before_run,
            stopped_while_running,
        } => format!(
            "tool_result is the rejection text{}{}",
            if *before_run {
                " with toolDenialBeforeRun: true"
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
        ResultKind::PermissionDenied { denial_kind } => format!(
            "tool_result is a permission denial{}",
            denial_kind
                .as_ref()
                .map_or_else(String::new, |kind| format!(" (toolDenialKind {kind:?})"))
        ),
        ResultKind::UnrecognisedInterruption { evidence } => {
            format!("unrecognised interruption: {evidence}")
        }
        ResultKind::Normal => "a normal result".into(),
    }
}

fn state_of(
    analysis: &Analysis,
    id: &str,
    kind: Option<&ResultKind>,
    tool_use: Option<&ToolUse>,
) -> (ToolState, Vec<String>) {
    let mut evidence = Vec::new();
    let mut started = None;
    for event in analysis.sidecar.events_for(id) {
        match event.event {
            ToolEventKind::Completed => {
                evidence.push(format!("PostToolUse at {} ms", event.time_ms));
                return (ToolState::Completed, evidence);
            }
            ToolEventKind::Failed if event.is_interrupt == Some(true) => {
                evidence.push(format!(
                    "PostToolUseFailure at {} ms with is_interrupt: true: the call was aborted \
                     while running, so it may have run in part or in full",
                    event.time_ms
                ));
                return (ToolState::Started, evidence);
            }
            ToolEventKind::Failed => {
                evidence.push(format!(
                    "PostToolUseFailure at {} ms (is_interrupt: {:?})",
                    event.time_ms, event.is_interrupt
                ));
                return (ToolState::Failed, evidence);
            }
            ToolEventKind::Started => started = Some(event.time_ms),
        }
    }
    let denied_before_run = matches!(
        kind,
        Some(
            ResultKind::PermissionDenied { .. }
                | ResultKind::Rejected {
                    before_run: true,
                    ..
                }
        )
    );
    if denied_before_run {
        evidence.push("the transcript says the call was refused before it ran".into());
        if let Some(time) = started {
            evidence.push(format!(
                "PreToolUse at {time} ms, but PreToolUse runs before the permission decision"
            ));
        }
        return (ToolState::NotStarted, evidence);
    }
    if let Some(time) = started {
        evidence.push(format!(
            "PreToolUse at {time} ms and no PostToolUse/PostToolUseFailure: it may have run in \
             part or in full"
        ));
        return (ToolState::Started, evidence);
    }
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
    let call_time = tool_use.and_then(|tool_use| tool_use.time_ms);
    let hook_was_active = call_time.is_some_and(|time| analysis.sidecar.hook_active_around(time));
    if hook_was_active {
        evidence.push(
            "no PreToolUse line for this call although the hook wrote lines for this session \
             before and after it"
                .into(),
        );
        if said_running {
            // The hook may have failed for that call (see errors.log): do not call it safe.
            evidence.push(
                "but the SDK says it was stopped while running: the two disagree; check the live \
                 state"
                    .into(),
            );
            return (ToolState::Unknown, evidence);
        }
        return (ToolState::NotStarted, evidence);
    }
    if said_running {
        evidence
            .push("no hook line for this call; the SDK says it was stopped while running".into());
        return (ToolState::Started, evidence);
    }
    evidence.push(
        "no hook line for this call; cannot tell whether it ran — check the live state (was \
         `ctxhooks-tooluse` installed and working?)"
            .into(),
    );
    (ToolState::Unknown, evidence)
}
