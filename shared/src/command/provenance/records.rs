//! Recognising interrupt, rejection and denial records in a transcript: structured fields
//! first (`toolDenialKind`, `toolDenialBeforeRun`, `rowSource`), then every known wording, always
//! as a whole text block or a whole `tool_result` prefix, never as a substring anywhere.

use serde::Serialize;
use serde_json::Value;

use super::sidecar::Sidecar;
use crate::store::sidecar::ToolEventKind;

/// The first two sentences of every rejection `tool_result` (1.0.x through 2.1.332).
pub const REJECTION_PREFIX: &str =
    "The user doesn't want to proceed with this tool use. The tool use was rejected";

/// What follows the rejection's first sentences when the person typed feedback (the turn goes on).
pub const FEEDBACK_INTRODUCTION: &str = "To tell you how to proceed, the user said:";

/// The phrase that introduces what the person typed with a rejection (1.0.x through 2.1.332).
pub const FEEDBACK_PHRASE: &str = "the user said:";

/// The addendum 2.1.332 puts in a rejection written for a call stopped while running.
pub const RUNNING_CORRECTION: &str = "Correction to the text above:";

/// The `tool_result` the CLI writes for the other calls of a parallel batch when one is rejected.
pub const BATCH_CANCELLED_PREFIX: &str = "The user doesn't want to take this action right now.";

/// The start of both interrupt markers (`[Request interrupted by user]` and
/// `[Request interrupted by user for tool use]`).
pub const INTERRUPT_MARKER_PREFIX: &str = "[Request interrupted by user";

/// A synthetic `tool_result` some versions write for a call that never got a result.
pub const INTERRUPTED_BY_USER: &str = "Interrupted by user";

/// The start of the error a session without a permission handler gets.
pub const PERMISSION_NOT_GRANTED_PREFIX: &str = "Claude requested permissions to ";

/// What one `tool_result` says about how its call ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ResultKind {
    /// The rejection prose (or `toolDenialKind: "user-rejected"`) with no feedback: a person at
    /// a permission prompt, or an `interrupt()`, or a `canUseTool` deny with `interrupt: true`.
    Rejected {
        /// `toolDenialBeforeRun: true`: refused before the tool ran.
        before_run: bool,
        /// The 2.1.332 "Correction to the text above" addendum: stopped while running.
        stopped_while_running: bool,
    },
    /// The rejection prose followed by what the person typed: only a person does this.
    RejectedWithFeedback,
    /// `[Request interrupted by user for tool use]` / `Interrupted by user` as the result, or
    /// `toolDenialKind` `interrupted` / `cancelled`.
    Interrupted {
        /// `toolDenialKind: "interrupted"` (2.1.270's form for a call cut off in flight): the
        /// SDK says the call was running.
        while_running: bool,
    },
    /// The other calls of a parallel batch when one was rejected.
    BatchCancelled,
    /// Refused by a permission rule, a `canUseTool` deny, a classifier, or no permission handler.
    PermissionDenied {
        /// The `toolDenialKind` when there was one.
        denial_kind: Option<String>,
    },
    /// An error result the wording tables do not know, but that looks like an interruption: an
    /// unknown `toolDenialKind`, or the sidecar saw the call start and never finish.
    UnrecognisedInterruption {
        /// What made it look like one.
        evidence: String,
    },
    /// A normal result (success or an ordinary tool error).
    Normal,
}

impl ResultKind {
    /// Whether this is interrupt content for the trailing-record walk: something a runtime's
    /// `interrupt()` (or a person's stop) writes, as opposed to a decision that lets the turn go on.
    pub fn is_interrupt_content(&self) -> bool {
        matches!(
            self,
            Self::Rejected { .. }
                | Self::Interrupted { .. }
                | Self::BatchCancelled
                | Self::UnrecognisedInterruption { .. }
        )
    }
}

/// Whether a whole text block is an interrupt marker: `[Request interrupted by user...]`, one
/// short line, bracketed. A prompt that merely quotes the marker is not one.
pub fn is_interrupt_marker_text(text: &str) -> bool {
    let text = text.trim();
    text.starts_with(INTERRUPT_MARKER_PREFIX)
        && text.ends_with(']')
        && text.len() <= 120
        && !text.contains('\n')
        && text[1..].find(']') == Some(text.len() - 2)
}

/// The text of a `tool_result`'s `content` (a string, or the text blocks joined).
pub fn tool_result_text(block: &Value) -> String {
    match block.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Classifies one `tool_result` `block` of the user `record`; `sidecar` adds the structured
/// "started, never finished" evidence when the hook was installed.
pub fn classify_tool_result(
    record: &Value,
    block: &Value,
    sidecar: Option<&Sidecar>,
) -> ResultKind {
    let is_error = block.get("is_error").and_then(Value::as_bool) == Some(true);
    let before_run = record.get("toolDenialBeforeRun").and_then(Value::as_bool) == Some(true);
    let text = tool_result_text(block);
    let text = text.trim_start();
    let rejection = text.starts_with(REJECTION_PREFIX);
    if let Some(kind) = record.get("toolDenialKind").and_then(Value::as_str) {
        match kind {
            "user-rejected" => return rejection_kind(text, before_run),
            "interrupted" => {
                return ResultKind::Interrupted {
                    while_running: true,
                };
            }
            "cancelled" => {
                return ResultKind::Interrupted {
                    while_running: false,
                };
            }
            "permission-rule" => {
                return ResultKind::PermissionDenied {
                    denial_kind: Some(kind.to_owned()),
                };
            }
            other if other.contains("classifier") || other.contains("auto") => {
                return ResultKind::PermissionDenied {
                    denial_kind: Some(kind.to_owned()),
                };
            }
            other => {
                return ResultKind::UnrecognisedInterruption {
                    evidence: format!("unknown toolDenialKind `{other}`"),
                };
            }
        }
    }
    if is_error {
        if rejection {
            return rejection_kind(text, before_run);
        }
        if text.starts_with(BATCH_CANCELLED_PREFIX) {
            return ResultKind::BatchCancelled;
        }
        if is_interrupt_marker_text(text) || text.trim() == INTERRUPTED_BY_USER {
            return ResultKind::Interrupted {
                while_running: false,
            };
        }
        if text.starts_with(PERMISSION_NOT_GRANTED_PREFIX)
            && text.contains("but you haven't granted it yet")
        {
            return ResultKind::PermissionDenied { denial_kind: None };
        }
        if let (Some(sidecar), Some(id)) =
            (sidecar, block.get("tool_use_id").and_then(Value::as_str))
        {
            let mut started = false;
            let mut finished = false;
            for event in sidecar.events_for(id) {
                match event.event {
                    ToolEventKind::Started => started = true,
                    ToolEventKind::Completed | ToolEventKind::Failed => finished = true,
                }
            }
            if started && !finished {
                return ResultKind::UnrecognisedInterruption {
                    evidence: "an error result for a call the PreToolUse hook saw start and no \
                               PostToolUse/PostToolUseFailure saw finish"
                        .to_owned(),
                };
            }
        }
    }
    ResultKind::Normal
}

fn rejection_kind(text: &str, before_run: bool) -> ResultKind {
    // Feedback is recognised by its phrase, not by where the fixed second sentence ends: the
    // sentence's wording (and its parentheses) may change, the phrase has been stable.
    if text.contains(FEEDBACK_PHRASE) {
        return ResultKind::RejectedWithFeedback;
    }
    ResultKind::Rejected {
        before_run,
        stopped_while_running: text.contains(RUNNING_CORRECTION),
    }
}

/// How one transcript record relates to interrupts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordClass {
    /// Not a `user` or `assistant` record (system, progress, snapshots...): skipped by the walk.
    NotConversation,
    /// A `user` record made only of interrupt content.
    InterruptOnly {
        /// The tool results it holds, with their kinds.
        results: Vec<(String, ResultKind)>,
        /// How many `[Request interrupted by user...]` text blocks it holds.
        markers: usize,
    },
    /// The `<synthetic>` assistant record "No response requested." the CLI writes after an
    /// interrupted turn: it extends an interrupt group, and never starts one.
    SyntheticNoResponse,
    /// A real user or assistant record; the tool results it holds (any kind) are listed.
    Conversation {
        /// The tool results it holds, with their kinds.
        results: Vec<(String, ResultKind)>,
    },
}

/// The text of the synthetic assistant answer written after an interrupted turn.
pub const SYNTHETIC_NO_RESPONSE: &str = "No response requested.";

fn is_synthetic_no_response(record: &Value) -> bool {
    let Some(message) = record.get("message") else {
        return false;
    };
    if message.get("model").and_then(Value::as_str) != Some("<synthetic>") {
        return false;
    }
    match message.get("content") {
        Some(Value::String(text)) => text.trim() == SYNTHETIC_NO_RESPONSE,
        Some(Value::Array(blocks)) => {
            !blocks.is_empty()
                && blocks.iter().all(|block| {
                    block.get("type").and_then(Value::as_str) == Some("text")
                        && block.get("text").and_then(Value::as_str).map(str::trim)
                            == Some(SYNTHETIC_NO_RESPONSE)
                })
        }
        _ => false,
    }
}

/// The `rowSource` of a record a person typed.
pub const ROW_SOURCE_LOCAL: &str = "local";

/// The `rowSource` of a record the harness (the CLI itself) wrote, such as the interrupt marker.
pub const ROW_SOURCE_HARNESS: &str = "harness";

/// The longest text a harness-written record may have to be taken as an interrupt marker whose
/// wording is new.
pub const NOVEL_MARKER_MAX_CHARS: usize = 160;

/// The text of a `user` record the harness wrote (`rowSource: "harness"`) that is one short
/// line of text and nothing else (not `isMeta`): a candidate interrupt marker in a wording this
/// version does not know. Whether it is one depends on what precedes it (see
/// [`super::marks::Analysis::new`]).
pub fn harness_short_text(record: &Value) -> Option<String> {
    if record.get("type").and_then(Value::as_str) != Some("user")
        || record.get("rowSource").and_then(Value::as_str) != Some(ROW_SOURCE_HARNESS)
        || record.get("isMeta").and_then(Value::as_bool) == Some(true)
    {
        return None;
    }
    let text = match record
        .get("message")
        .and_then(|message| message.get("content"))?
    {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => {
            let mut texts = Vec::new();
            for block in blocks {
                if block.get("type").and_then(Value::as_str) != Some("text") {
                    return None;
                }
                texts.push(block.get("text").and_then(Value::as_str)?.to_owned());
            }
            texts.join("\n")
        }
        _ => return None,
    };
    let trimmed = text.trim();
    (!trimmed.is_empty()
        && !trimmed.contains('\n')
        && trimmed.chars().count() <= NOVEL_MARKER_MAX_CHARS)
        .then(|| trimmed.to_owned())
}

/// Classifies one parsed transcript record.
pub fn classify_record(record: &Value, sidecar: Option<&Sidecar>) -> RecordClass {
    let kind = record.get("type").and_then(Value::as_str);
    if kind != Some("user") && kind != Some("assistant") {
        return RecordClass::NotConversation;
    }
    let content = record
        .get("message")
        .and_then(|message| message.get("content"));
    if kind == Some("assistant") {
        if is_synthetic_no_response(record) {
            return RecordClass::SyntheticNoResponse;
        }
        return RecordClass::Conversation {
            results: Vec::new(),
        };
    }
    let mut results = Vec::new();
    let mut markers = 0;
    let mut other = 0;
    match content {
        Some(Value::String(text)) => {
            if is_interrupt_marker_text(text) {
                markers += 1;
            } else {
                other += 1;
            }
        }
        Some(Value::Array(blocks)) => {
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("tool_result") => {
                        let id = block
                            .get("tool_use_id")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned();
                        results.push((id, classify_tool_result(record, block, sidecar)));
                    }
                    Some("text")
                        if block
                            .get("text")
                            .and_then(Value::as_str)
                            .is_some_and(is_interrupt_marker_text) =>
                    {
                        markers += 1;
                    }
                    _ => other += 1,
                }
            }
        }
        _ => other += 1,
    }
    if record.get("rowSource").and_then(Value::as_str) == Some(ROW_SOURCE_LOCAL) {
        // Typed by a person: never an interrupt marker, whatever it says.
        other += markers;
        markers = 0;
    }
    let all_interrupt = results.iter().all(|(_, kind)| kind.is_interrupt_content());
    if other == 0 && all_interrupt && (markers > 0 || !results.is_empty()) {
        RecordClass::InterruptOnly { results, markers }
    } else {
        RecordClass::Conversation { results }
    }
}

/// The `tool_use` blocks of an assistant record, with their ids (nothing for other records).
pub fn tool_use_blocks(record: &Value) -> impl Iterator<Item = (&str, &Value)> {
    let is_assistant = record.get("type").and_then(Value::as_str) == Some("assistant");
    record
        .get("message")
        .and_then(|message| message.get("content"))
        .and_then(Value::as_array)
        .filter(|_| is_assistant)
        .into_iter()
        .flatten()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_use"))
        .filter_map(|block| Some((block.get("id").and_then(Value::as_str)?, block)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn marker_text_is_a_whole_short_bracketed_line() {
        assert!(is_interrupt_marker_text("[Request interrupted by user]"));
        assert!(is_interrupt_marker_text(
            "[Request interrupted by user for tool use]"
        ));
        assert!(!is_interrupt_marker_text(
            "Operation stopped by hook: Another session is active: \"[Request interrupted by user for tool use]\""
        ));
        assert!(!is_interrupt_marker_text(
            "[Request interrupted by user] and then [something]"
        ));
        assert!(!is_interrupt_marker_text(
            "[Request interrupted by user]\nmore"
        ));
    }

    #[test]
    fn structured_kind_wins_over_prose() {
        let block = json!({"type": "tool_result", "tool_use_id": "t", "is_error": true,
            "content": "Not allowed by policy"});
        let record = json!({"type": "user", "toolDenialKind": "permission-rule"});
        assert_eq!(
            classify_tool_result(&record, &block, None),
            ResultKind::PermissionDenied {
                denial_kind: Some("permission-rule".into())
            }
        );
        let record = json!({"type": "user", "toolDenialKind": "something-new"});
        assert!(matches!(
            classify_tool_result(&record, &block, None),
            ResultKind::UnrecognisedInterruption { .. }
        ));
    }

    #[test]
    fn rejection_with_and_without_feedback_and_correction() {
        let record = json!({"type": "user"});
        let plain = json!({"type": "tool_result", "tool_use_id": "t", "is_error": true,
            "content": "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."});
        assert_eq!(
            classify_tool_result(&record, &plain, None),
            ResultKind::Rejected {
                before_run: false,
                stopped_while_running: false
            }
        );
        let corrected = json!({"type": "tool_result", "tool_use_id": "t", "is_error": true,
            "content": [{"type": "text", "text": "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed. Correction to the text above: this call was stopped while running, not refused before it ran."}]});
        assert_eq!(
            classify_tool_result(&record, &corrected, None),
            ResultKind::Rejected {
                before_run: false,
                stopped_while_running: true
            }
        );
        // Not an error: a file that happens to hold the prose is a normal result.
        let quoted = json!({"type": "tool_result", "tool_use_id": "t",
            "content": "The user doesn't want to proceed with this tool use. The tool use was rejected"});
        assert_eq!(
            classify_tool_result(&record, &quoted, None),
            ResultKind::Normal
        );
    }

    #[test]
    fn feedback_is_found_by_its_phrase_whatever_the_second_sentence_says() {
        // A reworded second sentence with no ")." before the feedback: still feedback.
        let record = json!({"type": "user"});
        let block = json!({"type": "tool_result", "tool_use_id": "t", "is_error": true,
            "content": "The user doesn't want to proceed with this tool use. The tool use was rejected and nothing was written. To tell you how to proceed, the user said:\nuse the other file"});
        assert_eq!(
            classify_tool_result(&record, &block, None),
            ResultKind::RejectedWithFeedback
        );
    }

    #[test]
    fn a_marker_typed_by_a_person_is_conversation() {
        let record = json!({"type": "user", "rowSource": "local", "message": {"role": "user",
            "content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}]}});
        assert!(matches!(
            classify_record(&record, None),
            RecordClass::Conversation { .. }
        ));
        let harness = json!({"type": "user", "rowSource": "harness", "message": {"role": "user",
            "content": [{"type": "text", "text": "[Stopped]"}]}});
        assert_eq!(harness_short_text(&harness).as_deref(), Some("[Stopped]"));
        let mut meta = harness.clone();
        meta["isMeta"] = json!(true);
        assert_eq!(harness_short_text(&meta), None);
    }
}
