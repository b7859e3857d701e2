//! One transcript line turned into what the usage log needs: a part of an API response, tool
//! results, a compaction boundary, or nothing of interest.

use serde::Deserialize;
use serde_json::Value;

/// The model name Claude Code writes on lines it generated itself (no API call).
pub const SYNTHETIC_MODEL: &str = "<synthetic>";

/// The name of the advisor server tool.
pub const ADVISOR_TOOL_NAME: &str = "advisor";

/// Token counts of one API response, as written in `message.usage`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenUsage {
    /// Uncached input tokens.
    pub input_tokens: u64,
    /// Cache writes (the nested 5m + 1h split when the flat field is 0).
    pub cache_creation_input_tokens: u64,
    /// Cache reads.
    pub cache_read_input_tokens: u64,
    /// Output tokens (a streaming placeholder in many older versions).
    pub output_tokens: u64,
}

/// One `assistant` line: a single content block of an API response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssistantPart {
    /// `message.id`.
    pub message_id: Option<String>,
    /// `requestId`.
    pub request_id: Option<String>,
    /// `requestRef`, written by some versions instead of `requestId`.
    pub request_ref: Option<String>,
    /// The line's own `uuid`, the last resort for a key.
    pub uuid: Option<String>,
    /// `message.model`.
    pub model: Option<String>,
    /// `timestamp`.
    pub timestamp: Option<String>,
    /// `isSidechain`.
    pub sidechain: bool,
    /// `agentId`.
    pub agent_id: Option<String>,
    /// The usage on this line.
    pub usage: TokenUsage,
    /// True when the block is an advisor call or an advisor result.
    pub advisor: bool,
    /// `(id, name)` of each `tool_use` block.
    pub tool_uses: Vec<(String, String)>,
}

impl AssistantPart {
    /// The key that groups the lines of one API request: `message.id` and `requestId`, else
    /// `message.id`, else `requestId`, else `requestRef`, else the line's uuid.
    pub fn request_key(&self) -> Option<String> {
        match (
            &self.message_id,
            &self.request_id,
            &self.request_ref,
            &self.uuid,
        ) {
            (Some(message), Some(request), _, _) => Some(format!("{message}:{request}")),
            (Some(message), None, _, _) => Some(format!("message:{message}")),
            // The blocks of one response share `requestId` even without a `message.id`; keying
            // them on their line's uuid would count the request once per block.
            (None, Some(request), _, _) => Some(format!("req:{request}")),
            (None, None, Some(reference), _) => Some(format!("ref:{reference}")),
            (None, _, None, Some(uuid)) => Some(format!("line:{uuid}")),
            (None, _, None, None) => None,
        }
    }
}

/// One `tool_result` block of a `user` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// The `tool_use` it answers.
    pub tool_use_id: String,
    /// Bytes of its text content (images are not counted).
    pub bytes: u64,
}

/// Which boundary a `system` line marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundaryKind {
    /// `compact_boundary`: the conversation was summarized.
    Compaction,
    /// `microcompact_boundary`: old tool results were trimmed in place.
    MicroCompaction,
}

/// A compaction boundary and its metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Boundary {
    /// Which boundary.
    pub kind: BoundaryKind,
    /// The line's `uuid`.
    pub uuid: Option<String>,
    /// `timestamp`.
    pub timestamp: Option<String>,
    /// `trigger` (`auto`, `manual`).
    pub trigger: Option<String>,
    /// `preTokens`.
    pub pre_tokens: Option<u64>,
    /// `postTokens` (newer versions).
    pub post_tokens: Option<u64>,
    /// `tokensSaved` (micro-compactions).
    pub tokens_saved: Option<u64>,
    /// `isSidechain`.
    pub sidechain: bool,
}

/// What one transcript line means for the usage log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A part of an API response with its usage.
    Assistant(AssistantPart),
    /// Tool results sent back to the model.
    ToolResults {
        /// `isSidechain`.
        sidechain: bool,
        /// The results.
        results: Vec<ToolResult>,
    },
    /// A compaction boundary.
    Boundary(Boundary),
    /// A prompt a person typed (a `user` line that is not tool results only, not `isMeta`, not a
    /// compact summary, not an interrupt marker nor a local command's wrapper): the next
    /// request of its chain starts a turn.
    Prompt {
        /// `isSidechain`.
        sidechain: bool,
        /// `cwd`.
        cwd: Option<String>,
        /// `version`.
        version: Option<String>,
    },
    /// Anything else; `cwd` and `version` are kept when the line has them.
    Other {
        /// `cwd`.
        cwd: Option<String>,
        /// `version`.
        version: Option<String>,
    },
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawLine {
    #[serde(rename = "type")]
    kind: Option<String>,
    subtype: Option<String>,
    uuid: Option<String>,
    timestamp: Option<String>,
    #[serde(rename = "requestId")]
    request_id: Option<String>,
    #[serde(rename = "requestRef")]
    request_ref: Option<String>,
    #[serde(rename = "isSidechain")]
    is_sidechain: Option<bool>,
    #[serde(rename = "agentId")]
    agent_id: Option<String>,
    cwd: Option<String>,
    version: Option<String>,
    message: Option<RawMessage>,
    #[serde(rename = "isMeta")]
    is_meta: Option<bool>,
    #[serde(rename = "isCompactSummary")]
    is_compact_summary: Option<bool>,
    #[serde(rename = "compactMetadata")]
    compact_metadata: Option<Value>,
    #[serde(rename = "microcompactMetadata")]
    microcompact_metadata: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawMessage {
    id: Option<String>,
    model: Option<String>,
    usage: Option<RawUsage>,
    content: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawUsage {
    input_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_creation: Option<Value>,
}

impl RawUsage {
    fn tokens(&self) -> TokenUsage {
        let flat = self.cache_creation_input_tokens.unwrap_or(0);
        // Before 2.1.152 the flat field could be 0 while the nested split held the writes.
        let nested: u64 = self
            .cache_creation
            .as_ref()
            .and_then(Value::as_object)
            .map_or(0, |split| split.values().filter_map(Value::as_u64).sum());
        TokenUsage {
            input_tokens: self.input_tokens.unwrap_or(0),
            cache_creation_input_tokens: if flat == 0 { nested } else { flat },
            cache_read_input_tokens: self.cache_read_input_tokens.unwrap_or(0),
            output_tokens: self.output_tokens.unwrap_or(0),
        }
    }
}

/// Reads one transcript line. `None` when it is not a JSON object (a bad or foreign line).
/// Only top-level `message.usage` is read: copies nested in `progress` lines never count.
pub fn parse_line(line: &[u8]) -> Option<Entry> {
    let raw: RawLine = serde_json::from_slice(line).ok()?;
    let sidechain = raw.is_sidechain.unwrap_or(false);
    match raw.kind.as_deref() {
        Some("assistant") => Some(assistant(raw, sidechain)),
        Some("user") => Some(user(raw, sidechain)),
        Some("system") => Some(system(raw, sidechain)),
        _ => Some(Entry::Other {
            cwd: raw.cwd,
            version: raw.version,
        }),
    }
}

fn other(raw: RawLine) -> Entry {
    Entry::Other {
        cwd: raw.cwd,
        version: raw.version,
    }
}

fn assistant(mut raw: RawLine, sidechain: bool) -> Entry {
    let Some(message) = raw.message.take() else {
        return other(raw);
    };
    let Some(usage) = message.usage.as_ref() else {
        return other(raw);
    };
    if message.model.as_deref() == Some(SYNTHETIC_MODEL) {
        return other(raw);
    }
    let mut advisor = false;
    let mut tool_uses = Vec::new();
    for block in content_blocks(message.content.as_ref()) {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
        let name = block.get("name").and_then(Value::as_str).unwrap_or("");
        match kind {
            "server_tool_use" if name == ADVISOR_TOOL_NAME => advisor = true,
            "advisor_tool_result" => advisor = true,
            "tool_use" => {
                if let Some(id) = block.get("id").and_then(Value::as_str) {
                    tool_uses.push((id.to_owned(), name.to_owned()));
                }
            }
            _ => {}
        }
    }
    Entry::Assistant(AssistantPart {
        message_id: message.id.clone(),
        request_id: raw.request_id,
        request_ref: raw.request_ref,
        uuid: raw.uuid,
        model: message.model.clone(),
        timestamp: raw.timestamp,
        sidechain,
        agent_id: raw.agent_id,
        usage: usage.tokens(),
        advisor,
        tool_uses,
    })
}

fn user(mut raw: RawLine, sidechain: bool) -> Entry {
    let Some(message) = raw.message.take() else {
        return other(raw);
    };
    let results: Vec<ToolResult> = content_blocks(message.content.as_ref())
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_result"))
        .map(|block| ToolResult {
            tool_use_id: block
                .get("tool_use_id")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            bytes: text_bytes(block.get("content")),
        })
        .collect();
    if !results.is_empty() {
        return Entry::ToolResults { sidechain, results };
    }
    let automatic = raw.is_meta.unwrap_or(false) || raw.is_compact_summary.unwrap_or(false);
    if automatic || !is_human_text(message.content.as_ref()) {
        return other(raw);
    }
    Entry::Prompt {
        sidechain,
        cwd: raw.cwd,
        version: raw.version,
    }
}

/// Text a person typed: some text that is not an interrupt marker, a local command's wrapper
/// or a task notification (the set the Agent SDK's first-prompt logic skips too).
fn is_human_text(content: Option<&Value>) -> bool {
    const NOT_TYPED: [&str; 5] = [
        "[Request interrupted by user",
        "<command-name>",
        "<local-command-stdout>",
        "<local-command-caveat>",
        "<task-notification>",
    ];
    let first_text = match content {
        Some(Value::String(text)) => Some(text.as_str()),
        other => content_blocks(other)
            .find(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .and_then(|block| block.get("text").and_then(Value::as_str)),
    };
    first_text.is_some_and(|text| {
        let text = text.trim_start();
        !text.is_empty() && !NOT_TYPED.iter().any(|prefix| text.starts_with(prefix))
    })
}

fn system(raw: RawLine, sidechain: bool) -> Entry {
    let (kind, metadata) = match raw.subtype.as_deref() {
        Some("compact_boundary") => (BoundaryKind::Compaction, raw.compact_metadata.as_ref()),
        Some("microcompact_boundary") => (
            BoundaryKind::MicroCompaction,
            raw.microcompact_metadata.as_ref(),
        ),
        _ => return other(raw),
    };
    let number = |name: &str| {
        metadata
            .and_then(|value| value.get(name))
            .and_then(Value::as_u64)
    };
    Entry::Boundary(Boundary {
        kind,
        trigger: metadata
            .and_then(|value| value.get("trigger"))
            .and_then(Value::as_str)
            .map(ToOwned::to_owned),
        pre_tokens: number("preTokens"),
        post_tokens: number("postTokens"),
        tokens_saved: number("tokensSaved"),
        uuid: raw.uuid,
        timestamp: raw.timestamp,
        sidechain,
    })
}

fn content_blocks(content: Option<&Value>) -> impl Iterator<Item = &Value> {
    content
        .and_then(Value::as_array)
        .into_iter()
        .flat_map(|blocks| blocks.iter())
}

/// Bytes of text in a tool result's content: a string, or an array of blocks with `text`.
fn text_bytes(content: Option<&Value>) -> u64 {
    match content {
        Some(Value::String(text)) => text.len() as u64,
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .map(|text| text.len() as u64)
            .sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_fall_back_in_order() {
        let line = br#"{"type":"assistant","uuid":"u1","requestId":"req_1","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1}}}"#;
        let Some(Entry::Assistant(part)) = parse_line(line) else {
            panic!("not an assistant part")
        };
        assert_eq!(part.request_key().as_deref(), Some("msg_1:req_1"));
        let line = br#"{"type":"assistant","uuid":"u1","message":{"id":"msg_1","usage":{}}}"#;
        let Some(Entry::Assistant(part)) = parse_line(line) else {
            panic!("not an assistant part")
        };
        assert_eq!(part.request_key().as_deref(), Some("message:msg_1"));
        let line = br#"{"type":"assistant","uuid":"u1","requestRef":"r9","message":{"usage":{}}}"#;
        let Some(Entry::Assistant(part)) = parse_line(line) else {
            panic!("not an assistant part")
        };
        assert_eq!(part.request_key().as_deref(), Some("ref:r9"));
        let line =
            br#"{"type":"assistant","uuid":"u1","requestId":"req_7","message":{"usage":{}}}"#;
        let Some(Entry::Assistant(part)) = parse_line(line) else {
            panic!("not an assistant part")
        };
        assert_eq!(part.request_key().as_deref(), Some("req:req_7"));
    }

    #[test]
    fn synthetic_and_progress_copies_are_not_requests() {
        let synthetic = br#"{"type":"assistant","message":{"id":"x","model":"<synthetic>","usage":{"input_tokens":0}}}"#;
        assert!(matches!(parse_line(synthetic), Some(Entry::Other { .. })));
        let progress = br#"{"type":"progress","data":{"message":{"type":"assistant","message":{"id":"m","usage":{"input_tokens":5}}}}}"#;
        assert!(matches!(parse_line(progress), Some(Entry::Other { .. })));
        assert_eq!(parse_line(b"not json"), None);
    }

    #[test]
    fn advisor_blocks_and_nested_cache_writes_are_seen() {
        let line = br#"{"type":"assistant","message":{"id":"m","content":[{"type":"server_tool_use","name":"advisor"}],"usage":{"cache_creation_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":3,"ephemeral_1h_input_tokens":4}}}}"#;
        let Some(Entry::Assistant(part)) = parse_line(line) else {
            panic!("not an assistant part")
        };
        assert!(part.advisor);
        assert_eq!(part.usage.cache_creation_input_tokens, 7);
    }

    #[test]
    fn only_typed_prompts_start_a_turn() {
        let prompt = |line: &[u8]| matches!(parse_line(line), Some(Entry::Prompt { .. }));
        assert!(prompt(
            br#"{"type":"user","message":{"role":"user","content":"fix the bug"}}"#
        ));
        assert!(prompt(
            br#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"and this"}]}}"#
        ));
        assert!(!prompt(
            br#"{"type":"user","isMeta":true,"message":{"role":"user","content":"caveat"}}"#
        ));
        assert!(!prompt(
            br#"{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}"#
        ));
        assert!(!prompt(
            br#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#
        ));
        assert!(!prompt(
            br#"{"type":"user","message":{"role":"user","content":"<command-name>/compact</command-name>"}}"#
        ));
        assert!(!prompt(
            br#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}}"#
        ));
    }

    #[test]
    fn boundaries_keep_their_metadata() {
        let line = br#"{"type":"system","subtype":"compact_boundary","uuid":"b","timestamp":"t","compactMetadata":{"trigger":"auto","preTokens":155250}}"#;
        let Some(Entry::Boundary(boundary)) = parse_line(line) else {
            panic!("not a boundary")
        };
        assert_eq!(boundary.kind, BoundaryKind::Compaction);
        assert_eq!(boundary.pre_tokens, Some(155_250));
        assert_eq!(boundary.trigger.as_deref(), Some("auto"));
    }
}
