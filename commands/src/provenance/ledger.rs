//! The ledger extractor's input: the transcript as it is, except that the interrupt records at
//! the very end, when a runtime mark covers them, become one system record saying the runtime
//! (an automatic context refresh), not the user, cut the call off.

use std::io::{Read, Seek, SeekFrom, Write};

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value, json};

use super::analysis::Analysis;
use super::groups::{InterruptGroup, LineSpan};
use super::text::quoted;
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

/// Writes the transcript's bytes for the ledger extractor to `output`: every line
/// byte-identical, except that the trailing interrupt group, when a runtime mark covers it, is
/// replaced by one system record (placed where its first record was; non-conversation lines
/// between its records are kept). `transcript` is read again from its start, as far as the
/// analysis read it; only the group's first and last lines are parsed again.
pub fn write_ledger_input<R: Read + Seek>(
    analysis: &Analysis,
    report: &ProvenanceReport,
    mut transcript: R,
    output: &mut impl Write,
) -> Result<()> {
    let Some(group) = analysis.groups.last().filter(|group| group.relabelled()) else {
        return copy(&mut transcript, 0, analysis.length, output);
    };
    let (first, last) = (group.spans[0], group.spans[group.spans.len() - 1]);
    let first = Line::read(&mut transcript, first, analysis.length)?;
    let last = Line::read(&mut transcript, last, analysis.length)?;
    // The replacement ends as the last replaced line did; when that one had no line ending
    // (the end of the file) but lines follow the replacement, it ends as the first one did.
    let mut ending = last.ending;
    let after_first = analysis.line_count.saturating_sub(group.lines[0] + 1);
    if ending.is_empty() && group.lines.len() > 1 && after_first > group.lines.len() - 1 {
        ending = first.ending;
    }
    copy(&mut transcript, 0, group.spans[0].offset, output)?;
    output
        .write_all(&system_record(analysis, report, group, &first, &last))
        .and_then(|()| output.write_all(ending))
        .context("failed to write the ledger input")?;
    let mut position = first.end;
    for span in &group.spans[1..] {
        copy(&mut transcript, position, span.offset, output)?;
        position =
            span.offset + span.length + u64::from(span.offset + span.length < analysis.length);
    }
    copy(&mut transcript, position, analysis.length, output)
}

/// Copies the bytes `start..end` of `transcript` to `output`.
fn copy<R: Read + Seek>(
    transcript: &mut R,
    start: u64,
    end: u64,
    output: &mut impl Write,
) -> Result<()> {
    if end <= start {
        return Ok(());
    }
    transcript
        .seek(SeekFrom::Start(start))
        .context("failed to seek in the transcript")?;
    let copied = std::io::copy(&mut transcript.by_ref().take(end - start), output)
        .context("failed to copy the transcript to the ledger input")?;
    if copied < end - start {
        bail!("the transcript shrank while it was read");
    }
    Ok(())
}

/// A replaced line read again: its record, its ending and where the next line starts.
struct Line {
    record: Option<Value>,
    ending: &'static [u8],
    end: u64,
}

impl Line {
    /// Reads the line at `span` of a transcript that is `length` bytes long.
    fn read<R: Read + Seek>(transcript: &mut R, span: LineSpan, length: u64) -> Result<Self> {
        let mut bytes = Vec::new();
        transcript
            .seek(SeekFrom::Start(span.offset))
            .context("failed to seek in the transcript")?;
        transcript
            .by_ref()
            .take(span.length)
            .read_to_end(&mut bytes)
            .context("failed to read the transcript")?;
        let terminated = span.offset + span.length < length;
        let ending: &'static [u8] = match (terminated, bytes.last()) {
            (false, _) => b"",
            (true, Some(b'\r')) => b"\r\n",
            (true, _) => b"\n",
        };
        Ok(Self {
            // The fields the system record copies keep exactly their values (`null` included).
            record: serde_json::from_slice::<Value>(&bytes)
                .ok()
                .filter(Value::is_object),
            ending,
            end: span.offset + span.length + u64::from(terminated),
        })
    }
}

/// The one system record that replaces a covered trailing group: it says the runtime cut the
/// calls off, links into the chain where the group was, and names the mark.
fn system_record(
    analysis: &Analysis,
    report: &ProvenanceReport,
    group: &InterruptGroup,
    first: &Line,
    last: &Line,
) -> Vec<u8> {
    let (content, calls) = relabelled_calls(report, group);
    let first = first.record.as_ref();
    let last = last.record.as_ref();
    let mut record = Map::new();
    record.insert("type".into(), "system".into());
    record.insert("subtype".into(), RUNTIME_INTERRUPT_SUBTYPE.into());
    record.insert("level".into(), "info".into());
    // The chain stays linked: parentUuid from the first replaced record, uuid from the last
    // (the record after the group names it as its parent).
    let field = |line: Option<&Value>, name| line.and_then(|line| line.get(name)).cloned();
    let uuid = field(last, "uuid").or_else(|| field(first, "uuid"));
    let copied = ["sessionId", "timestamp", "isSidechain", "cwd", "version"]
        .map(|name| (name, field(first, name)));
    let linked = [("parentUuid", field(first, "parentUuid")), ("uuid", uuid)];
    let present = linked.into_iter().chain(copied);
    record.extend(present.filter_map(|(name, value)| Some((name.into(), value?))));
    record.insert("content".into(), content.into());
    record.insert(
        "ctxhooks".into(),
        json!({
            "relabelled": "runtime_interrupt",
            "calls": calls,
            "mark": group.covered_by.map(|mark| &analysis.sidecar.marks[mark]),
        }),
    );
    serde_json::to_vec(&Value::Object(record)).unwrap_or_default()
}

/// What the system record says (its `content`) and the calls it lists.
fn relabelled_calls(report: &ProvenanceReport, group: &InterruptGroup) -> (String, Vec<Value>) {
    let mut calls = Vec::new();
    let mut phrases = Vec::new();
    for id in group.call_ids() {
        let call = report.calls.iter().find(|call| call.tool_use_id == id);
        let name = call.and_then(|call| call.tool_name.clone());
        let summary = call.and_then(|call| call.summary.clone());
        let state = call.map_or(ToolState::Unknown, |call| call.state);
        phrases.push(format!(
            "{}{} ({id}): {}",
            name.as_deref().unwrap_or("a tool call"),
            quoted(summary.as_deref()),
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
        let (what, they) = if phrases.len() == 1 {
            ("this tool call", "It")
        } else {
            ("these tool calls", "They")
        };
        format!(
            "An automatic context refresh cut {what} off, not the user. {they} did not complete: \
             {}. Check the live effect, then re-run the step. This is not a rejection and not a \
             confirmation, and nothing is waiting on the user.",
            phrases.join("; ")
        )
    };
    (content, calls)
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
