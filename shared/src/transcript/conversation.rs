//! A transcript read as a conversation, for people and for the model to read back: each line
//! of the main chain becomes what was said (a person's prompt, the model's text, tool calls with
//! their whole input, tool results, a compaction's summary), and `compact_boundary` records
//! mark where each compaction cut the context. What a line means (a boundary, a summary, a
//! sidechain or meta record) is [`Record`]'s to say; the blocks' full content is read here.

use serde_json::Value;

use super::record::{BoundaryKind, Record};

/// Who said it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Speaker {
    /// A person (or the runtime speaking as one).
    User,
    /// The model.
    Assistant,
    /// Tool results returned to the model.
    Tool,
    /// The summary a compaction left in place of the conversation before it.
    Summary,
}

impl Speaker {
    /// The speaker as the text rendering names it.
    pub fn label(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::Tool => "tool result",
            Self::Summary => "compaction summary",
        }
    }
}

/// One part of a message.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// A tool call.
    ToolCall {
        /// The tool, such as `Bash`.
        name: String,
        /// Its whole input, as compact JSON.
        input: String,
        /// The block's `id`, which its result (and an interrupt's verdict) names; not written
        /// with the rest (`recall --json` says what was said).
        #[serde(skip)]
        id: Option<String>,
    },
    /// The model's thinking (read only when asked: [`read_entry_with_thinking`]).
    Thinking {
        /// Its text.
        text: String,
    },
    /// A tool's result.
    ToolResult {
        /// Its text (the parts' texts joined).
        text: String,
        /// Whether the tool reported an error.
        is_error: bool,
    },
}

impl Part {
    /// The part's text (a call's name and input).
    pub fn searchable(&self) -> String {
        match self {
            Self::Text { text } | Self::Thinking { text } | Self::ToolResult { text, .. } => {
                text.clone()
            }
            Self::ToolCall { name, input, .. } => format!("{name} {input}"),
        }
    }
}

/// One line of the transcript, read as a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// Something said.
    Message {
        /// Who said it.
        speaker: Speaker,
        /// When (the record's `timestamp`).
        time: Option<String>,
        /// The model's `message.id` (one response is written as one record per block).
        message_id: Option<String>,
        /// What was said.
        parts: Vec<Part>,
    },
    /// A compaction's boundary.
    Compaction,
}

/// Reads one transcript line. `None` for what is not part of the conversation: meta records,
/// system records other than a compaction boundary, thinking, lines that are not JSON, and
/// sub-agent (sidechain) records unless the line is one of a sub-agent's own transcript
/// (`subagent`), whose every record is a sidechain record.
pub fn read_entry(line: &[u8], subagent: bool) -> Option<Entry> {
    read_entry_with_thinking(line, subagent, false)
}

/// [`read_entry`], with the model's thinking blocks read too when `thinking` is true (a
/// response's thinking and its words are records of one `message.id`: the reader joining them
/// keeps them in one message).
pub fn read_entry_with_thinking(line: &[u8], subagent: bool, thinking: bool) -> Option<Entry> {
    let record = Record::parse(line)?;
    if record.is_sidechain() && !subagent {
        return None;
    }
    match record.kind() {
        Some("system") => match record.boundary() {
            Some((BoundaryKind::Compaction, _)) => Some(Entry::Compaction),
            _ => None,
        },
        Some(kind @ ("user" | "assistant")) => {
            if record.is_meta.is_true() {
                return None;
            }
            let (message, parts) = message_and_parts(line, thinking)?;
            let speaker = match kind {
                _ if record.is_compact_summary.is_true() => Speaker::Summary,
                "assistant" => Speaker::Assistant,
                _ if parts
                    .iter()
                    .all(|part| matches!(part, Part::ToolResult { .. })) =>
                {
                    Speaker::Tool
                }
                _ => Speaker::User,
            };
            Some(Entry::Message {
                speaker,
                time: record.timestamp.text().map(ToOwned::to_owned),
                message_id: message
                    .get("id")
                    .and_then(Value::as_str)
                    .map(ToOwned::to_owned),
                parts,
            })
        }
        _ => None,
    }
}

/// The parts of a line [`read_entry`] reads as a message, as it reads them (thinking left out),
/// from its `message` alone: for a line known to be one (the same bytes read before, as search's
/// snippets know by the line's hash), without reading its record's other fields again. `None`
/// when it has none.
pub fn message_parts(line: &[u8]) -> Option<Vec<Part>> {
    message_and_parts(line, false).map(|(_, parts)| parts)
}

/// A line's `message` and the parts of its content (`None` when it has none). Only `message` is
/// read into values: the rest of the line (a tool's result again in `toolUseResult`, often as
/// large) is skipped over.
fn message_and_parts(line: &[u8], thinking: bool) -> Option<(Value, Vec<Part>)> {
    let message = serde_json::from_slice::<MessageOnly>(line).ok()?.message?;
    let parts = parts_of(message.get("content")?, thinking);
    (!parts.is_empty()).then_some((message, parts))
}

/// A line's `message`; every other member skipped.
#[derive(serde::Deserialize)]
struct MessageOnly {
    message: Option<Value>,
}

/// The parts of a message's `content` (a string, or blocks).
fn parts_of(content: &Value, thinking: bool) -> Vec<Part> {
    match content {
        Value::String(text) if !text.trim().is_empty() => vec![Part::Text { text: text.clone() }],
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| part_of(block, thinking))
            .collect(),
        _ => Vec::new(),
    }
}

fn part_of(block: &Value, thinking: bool) -> Option<Part> {
    let field = |key| block.get(key).and_then(Value::as_str);
    match field("type")? {
        "thinking" if thinking => {
            (field("thinking").filter(|text| !text.trim().is_empty())).map(|text| Part::Thinking {
                text: text.to_owned(),
            })
        }
        "text" => (field("text").filter(|text| !text.trim().is_empty())).map(|text| Part::Text {
            text: text.to_owned(),
        }),
        "tool_use" | "server_tool_use" => Some(Part::ToolCall {
            name: field("name").unwrap_or("?").to_owned(),
            input: block.get("input").map(Value::to_string).unwrap_or_default(),
            id: field("id").map(ToOwned::to_owned),
        }),
        "tool_result" => Some(Part::ToolResult {
            text: result_text(block.get("content")),
            is_error: block.get("is_error").and_then(Value::as_bool) == Some(true),
        }),
        "image" => Some(Part::Text {
            text: "[image]".to_owned(),
        }),
        _ => None,
    }
}

/// A `tool_result`'s text: the string, or the texts of its parts joined by newlines.
fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| match part.get("type").and_then(Value::as_str) {
                Some("text") => part.get("text").and_then(Value::as_str).map(str::to_owned),
                Some("image") => Some("[image]".to_owned()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_prompts_answers_calls_results_and_boundaries() {
        let prompt = br#"{"type":"user","timestamp":"t1","message":{"role":"user","content":"remember the word avocado"}}"#;
        let Some(Entry::Message { speaker, parts, .. }) = read_entry(prompt, false) else {
            panic!("no message");
        };
        assert_eq!(speaker, Speaker::User);
        assert_eq!(
            parts,
            [Part::Text {
                text: "remember the word avocado".into()
            }]
        );
        let call = br#"{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls -la"}}]}}"#;
        let Some(Entry::Message {
            speaker,
            parts,
            message_id,
            ..
        }) = read_entry(call, false)
        else {
            panic!("no message");
        };
        assert_eq!(
            (speaker, message_id.as_deref()),
            (Speaker::Assistant, Some("m1"))
        );
        assert_eq!(
            parts,
            [Part::ToolCall {
                name: "Bash".into(),
                input: r#"{"command":"ls -la"}"#.into(),
                id: Some("t".into()),
            }]
        );
        let result = br#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"a\nb"}],"is_error":true}]}}"#;
        assert!(matches!(
            read_entry(result, false),
            Some(Entry::Message { speaker: Speaker::Tool, ref parts, .. })
                if parts == &[Part::ToolResult { text: "a\nb".into(), is_error: true }]
        ));
        let boundary =
            br#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"manual"}}"#;
        assert_eq!(read_entry(boundary, false), Some(Entry::Compaction));
        let summary = br#"{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}"#;
        assert!(matches!(
            read_entry(summary, false),
            Some(Entry::Message {
                speaker: Speaker::Summary,
                ..
            })
        ));
        let side = br#"{"type":"user","isSidechain":true,"message":{"role":"user","content":"x"}}"#;
        assert_eq!(read_entry(side, false), None);
        assert!(matches!(
            read_entry(side, true),
            Some(Entry::Message {
                speaker: Speaker::User,
                ..
            })
        ));
        assert_eq!(read_entry(b"not json", false), None);
        // Thinking only when asked; an empty one (a redacted block) is none.
        let thought = br#"{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"thinking","thinking":"let me see"},{"type":"thinking","thinking":""}]}}"#;
        assert_eq!(read_entry(thought, false), None);
        assert!(matches!(
            read_entry_with_thinking(thought, false, true),
            Some(Entry::Message { ref parts, .. })
                if parts == &[Part::Thinking { text: "let me see".into() }]
        ));
    }
}
