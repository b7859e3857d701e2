//! The ledger extractor's input: the transcript as it is, except that the interrupt records at
//! the very end, when a runtime mark covers them, become one system record saying the runtime
//! (an automatic context refresh), not the user, cut the call off.

use serde_json::{Map, Value, json};

use super::marks::{Analysis, InterruptGroup, analysis_ids};
use super::verdict::{ProvenanceReport, ToolState};

/// The rule to put in the extraction prompt.
pub const PROMPT_RULE: &str = "A record of type \"system\" with subtype \"runtime_interrupt\" \
means an automatic context refresh stopped the turn, not the user. A system interrupt is never \
\"waiting on the user\", never a rejection and never a confirmation: do not record the step as \
refused, declined, approved or waiting on anyone. Record the interrupted step as not completed, \
with its effect unknown until checked: the next session must check the live state of what the \
call was doing, then re-run the step.";

/// The `subtype` of the system record that replaces relabelled interrupt records.
pub const RUNTIME_INTERRUPT_SUBTYPE: &str = "runtime_interrupt";

/// The transcript's bytes for the ledger extractor: every line byte-identical, except that the
/// trailing interrupt group, when a runtime mark covers it, is replaced by one system record
/// (placed where its first record was; non-conversation lines between its records are kept).
pub fn ledger_input(analysis: &Analysis, report: &ProvenanceReport) -> Vec<u8> {
    let mut output = Vec::with_capacity(
        analysis
            .lines
            .iter()
            .map(|line| line.raw.len())
            .sum::<usize>()
            + 1024,
    );
    let group = analysis
        .groups
        .last()
        .filter(|group| group.trailing && group.covered_by.is_some());
    let Some(group) = group else {
        for line in &analysis.lines {
            output.extend_from_slice(&line.raw);
        }
        return output;
    };
    let first = group.lines[0];
    let last = group.lines[group.lines.len() - 1];
    // The replacement ends as the last replaced line did; when that one had no line ending
    // (the end of the file) but lines follow the replacement, it ends as the first one did.
    let mut ending = line_ending(&analysis.lines[last].raw);
    if ending.is_empty() && analysis.lines.len() > first + 1 && last != first {
        let follows = (first + 1..analysis.lines.len()).any(|index| !group.lines.contains(&index));
        if follows {
            ending = line_ending(&analysis.lines[first].raw);
        }
    }
    for (index, line) in analysis.lines.iter().enumerate() {
        if index == first {
            output.extend_from_slice(&system_record(analysis, report, group));
            output.extend_from_slice(ending);
        } else if !group.lines.contains(&index) {
            output.extend_from_slice(&line.raw);
        }
    }
    output
}

/// A line's ending: `\r\n`, `\n`, or nothing (the last line of a file without a final newline).
fn line_ending(raw: &[u8]) -> &'static [u8] {
    if raw.ends_with(b"\r\n") {
        b"\r\n"
    } else if raw.ends_with(b"\n") {
        b"\n"
    } else {
        b""
    }
}

/// The one system record that replaces a covered trailing group.
fn system_record(
    analysis: &Analysis,
    report: &ProvenanceReport,
    group: &InterruptGroup,
) -> Vec<u8> {
    let ids = analysis_ids(&analysis.classes, group);
    let first = analysis.lines[group.lines[0]].record.as_ref();
    let mark = group.covered_by;
    let mut calls = Vec::new();
    let mut phrases = Vec::new();
    for id in &ids {
        let call = report.calls.iter().find(|call| &call.tool_use_id == id);
        let name = call.and_then(|call| call.tool_name.clone());
        let summary = call.and_then(|call| call.summary.clone());
        let state = call.map_or(ToolState::Unknown, |call| call.state);
        phrases.push(format!(
            "{}{} ({id}): {}",
            name.as_deref().unwrap_or("a tool call"),
            summary
                .as_deref()
                .map_or_else(String::new, |summary| format!(" `{summary}`")),
            state_phrase(state)
        ));
        calls.push(json!({
            "tool_use_id": id,
            "tool_name": name,
            "summary": summary,
            "state": state,
        }));
    }
    let content = if phrases.is_empty() {
        "An automatic context refresh cut this turn off, not the user. The turn did not \
         complete; check the live effect of its last step, then re-run that step. This is not a \
         rejection and not a confirmation, and nothing is waiting on the user."
            .to_owned()
    } else {
        format!(
            "An automatic context refresh cut {} off, not the user. {} did not complete: {}. \
             Check the live effect, then re-run the step. This is not a rejection and not a \
             confirmation, and nothing is waiting on the user.",
            if phrases.len() == 1 {
                "this tool call"
            } else {
                "these tool calls"
            },
            if phrases.len() == 1 { "It" } else { "They" },
            phrases.join("; ")
        )
    };
    let mut record = Map::new();
    record.insert("type".into(), "system".into());
    record.insert("subtype".into(), RUNTIME_INTERRUPT_SUBTYPE.into());
    record.insert("level".into(), "info".into());
    // The chain stays linked: parentUuid from the first replaced record, uuid from the last
    // (the record after the group names it as its parent).
    let last = analysis.lines[group.lines[group.lines.len() - 1]]
        .record
        .as_ref();
    if let Some(value) = first.and_then(|first| first.get("parentUuid")) {
        record.insert("parentUuid".into(), value.clone());
    }
    if let Some(value) = last
        .and_then(|last| last.get("uuid"))
        .or_else(|| first.and_then(|first| first.get("uuid")))
    {
        record.insert("uuid".into(), value.clone());
    }
    for field in ["sessionId", "timestamp", "isSidechain", "cwd", "version"] {
        if let Some(value) = first.and_then(|first| first.get(field)) {
            record.insert(field.into(), value.clone());
        }
    }
    record.insert("content".into(), content.into());
    record.insert(
        "ctxhooks".into(),
        json!({
            "relabelled": "runtime_interrupt",
            "calls": calls,
            "mark": mark.map(|mark| &analysis.sidecar.marks[mark]),
        }),
    );
    serde_json::to_vec(&Value::Object(record)).unwrap_or_default()
}

fn state_phrase(state: ToolState) -> &'static str {
    match state {
        ToolState::NotStarted => "it never started, safe to re-run",
        ToolState::Started => {
            "it started and did not finish, so it may have run in part or in full"
        }
        ToolState::Completed => "it completed before the cut",
        ToolState::Failed => "it failed",
        ToolState::Unknown => "whether it ran is unknown",
    }
}
