//! One transcript line read once into a typed [`Record`]: the union of what the usage log and
//! interrupt provenance read, borrowed from the line where it holds no escape. Also the one
//! definition of a prompt a person typed, of an interrupt marker, and of the walk over an
//! assistant record's `tool_use` blocks. The record's keys and types are the table of
//! [`super::schema`]; the values that are not plain objects of keys are [`super::values`] and
//! [`super::content`].

use serde::de;
use serde::{Deserialize, Deserializer};

use super::content::{Block, Content, ToolResult, ToolUse};
use super::direct::{Reader, Step};
pub use super::schema::{BoundaryMetadata, Iteration, Message, Record, Usage};
use super::values::written;
use crate::json_scan::skip_blank;
use crate::lenient::Field;
use crate::store::clock::parse_timestamp_ms;
use crate::store::trigger::Trigger;
use crate::store::usage_record::{
    Boundary, CacheTtl, CompactionDetails, ModelUsage, PreservedSegment, TokenUsage,
};

/// The model name Claude Code writes on lines it generated itself (no API call).
pub const SYNTHETIC_MODEL: &str = "<synthetic>";

/// The text of the synthetic assistant answer Claude Code writes when a session is resumed.
pub const SYNTHETIC_NO_RESPONSE: &str = "No response requested.";

/// How the `user` record of the `/exit` command starts.
pub const EXIT_COMMAND: &str = "<command-name>/exit</command-name>";

/// The `hookName` of a `SessionStart` hook's progress when the session was resumed.
pub const SESSION_START_RESUME_HOOK: &str = "SessionStart:resume";

/// The name of the advisor server tool.
pub const ADVISOR_TOOL_NAME: &str = "advisor";

/// The start of both interrupt markers (`[Request interrupted by user]` and
/// `[Request interrupted by user for tool use]`).
pub const INTERRUPT_MARKER_PREFIX: &str = "[Request interrupted by user";

/// The first two sentences of every rejection `tool_result` (1.0.x through 2.1.332): a person's
/// refusal at a permission prompt, or a call stopped by an interrupt.
pub const REJECTION_PREFIX: &str =
    "The user doesn't want to proceed with this tool use. The tool use was rejected";

/// How text Claude Code wrote in a `user` record starts when no person typed it: a local
/// command's wrappers and a background task's notification (with the interrupt markers, the set
/// the Agent SDK's first-prompt logic skips too).
pub const NOT_TYPED_PREFIXES: [&str; 4] = [
    "<command-name>",
    "<local-command-stdout>",
    "<local-command-caveat>",
    "<task-notification>",
];

/// Where a response's session-model counts were read ([`Usage::session_counts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountsFrom {
    /// The top-level `usage` counts, as written.
    TopLevel,
    /// The sum of the `message` and `fallback_message` iterations: the top level held none.
    Iterations,
}

impl Usage {
    /// The top-level token counts, as written (what ccusage reads for the session's model).
    pub fn tokens(&self) -> TokenUsage {
        written!(self).tokens()
    }

    /// The session model's counts for this response, and where they come from. The top level
    /// as written, unless its four flat counts are all 0 (or absent) while its `message` and
    /// `fallback_message` iterations hold tokens: then the sum of those iterations (2.1.226
    /// wrote such a response, the whole request in its one `message` iteration). Either one or
    /// the other, never both, so nothing is counted twice; `advisor_message` iterations are
    /// never in them.
    pub fn session_counts(&self) -> (TokenUsage, CountsFrom) {
        let written = written!(self);
        if written.flat_counts_empty()
            && let Some(iterations) = self.iterations.get()
            && iterations.inferences != TokenUsage::default()
        {
            return (iterations.inferences, CountsFrom::Iterations);
        }
        (written.tokens(), CountsFrom::TopLevel)
    }

    /// The context the response's last inference read: the input side of the last `message`
    /// iteration when `iterations` has one, else of the top level (which, when the advisor ran,
    /// is the sum of two `message` iterations, not a context; and which 2.1.226 wrote as all 0
    /// with the request in its one `message` iteration).
    pub fn context_tokens(&self) -> u64 {
        self.last_message_tokens()
            .unwrap_or_else(|| self.tokens())
            .input_side()
    }

    /// The counts of the last `message` iteration, when `iterations` has one.
    pub fn last_message_tokens(&self) -> Option<TokenUsage> {
        self.iterations
            .get()
            .and_then(|iterations| iterations.last_message)
    }

    /// The advisor's counts by model (empty without advisor iterations).
    pub fn advisor_usage(&self) -> &[ModelUsage] {
        self.iterations
            .get()
            .map_or(&[], |iterations| iterations.advisor_usage.as_slice())
    }

    /// The top level's writes into the 1-hour cache (`cache_creation.ephemeral_1h_input_tokens`),
    /// when it gives the 5m/1h split: the API bills them at the 1-hour price, the rest of the
    /// writes at the 5-minute one.
    pub fn one_hour_writes(&self) -> Option<u64> {
        self.cache_creation.get().map(|split| split.one_hour)
    }

    /// The lifetime of the cache this response wrote, from its 5m/1h buckets (1h wins when both
    /// hold writes); `None` when it wrote nothing into either.
    pub fn cache_ttl(&self) -> Option<CacheTtl> {
        let split = self.cache_creation.get()?;
        if split.one_hour > 0 {
            Some(CacheTtl::OneHour)
        } else if split.five_minutes > 0 {
            Some(CacheTtl::FiveMinutes)
        } else {
            None
        }
    }

    /// `output_tokens_details.thinking_tokens`, when written and not 0.
    pub fn thinking_tokens(&self) -> Option<u64> {
        self.output_tokens_details
            .get()
            .and_then(|details| details.thinking_tokens.get().copied())
            .filter(|tokens| *tokens > 0)
    }
}

/// Which boundary a `system` record marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundaryKind {
    /// `compact_boundary`: the conversation was summarized.
    Compaction,
    /// `microcompact_boundary`: old tool results were trimmed in place.
    MicroCompaction,
}

/// Reads one line (`text`, a JSON object) into a record with the direct reader
/// ([`super::direct`]), or gives up.
pub fn read_record(text: &str) -> Step<Record<'_>> {
    let mut reader = Reader::new(text);
    let mut record = Record::default();
    record.fill(&mut reader)?;
    reader.end()?;
    Ok(record)
}

impl<'a> Record<'a> {
    /// Reads one line. `None` when it is not a JSON object (a bad, half-written or foreign line).
    pub fn parse(line: &'a [u8]) -> Option<Self> {
        if line.get(skip_blank(line, 0)) != Some(&b'{') {
            return None;
        }
        // A line that is UTF-8 as a whole (nearly all) is read as text, so that the parser does
        // not check each string it borrows again; the same bytes give the same record. The
        // whole-line check is SIMD (simdutf8): it was 5 % of `history`'s time with the standard
        // library's. The direct reader answers for the lines that hold nothing unusual (nearly
        // all); serde reads the rest.
        match simdutf8::basic::from_utf8(line) {
            Ok(text) => read_record(text)
                .ok()
                .or_else(|| serde_json::from_str(text).ok()),
            Err(_) => serde_json::from_slice(line).ok(),
        }
    }

    /// `type`.
    pub fn kind(&self) -> Option<&str> {
        self.kind.text()
    }

    /// Returns true if and only if `isSidechain` is `true`.
    pub fn is_sidechain(&self) -> bool {
        self.is_sidechain.is_true()
    }

    /// `timestamp` in milliseconds since the Unix epoch, when it reads as one.
    pub fn time_ms(&self) -> Option<u64> {
        self.timestamp.text().and_then(parse_timestamp_ms)
    }

    /// `message.content`.
    pub fn content(&self) -> Option<&Content<'a>> {
        self.message.get().and_then(|message| message.content.get())
    }

    /// The content blocks (none when the content is a string or missing).
    pub fn blocks(&self) -> &[Block<'a>] {
        match self.content() {
            Some(Content::Blocks(blocks)) => blocks,
            Some(Content::Text(_)) | None => &[],
        }
    }

    /// The `tool_use` blocks of an assistant record that have an id, with it (nothing for
    /// other records).
    pub fn tool_uses(&self) -> impl Iterator<Item = (&str, &ToolUse<'a>)> {
        let blocks = if self.kind() == Some("assistant") {
            self.blocks()
        } else {
            &[]
        };
        blocks.iter().filter_map(|block| match block {
            Block::ToolUse(tool_use) => Some((tool_use.id.text()?, tool_use)),
            _ => None,
        })
    }

    /// The `tool_result` blocks.
    pub fn tool_results(&self) -> impl Iterator<Item = &ToolResult<'a>> {
        self.blocks().iter().filter_map(|block| match block {
            Block::ToolResult(result) => Some(result),
            _ => None,
        })
    }

    /// The first text: the string content, or the first `text` block's text.
    pub fn first_text(&self) -> Option<&str> {
        match self.content()? {
            Content::Text(text) => Some(text),
            Content::Blocks(blocks) => blocks.iter().find_map(|block| match block {
                Block::Text(text) => Some(text.text()),
                _ => None,
            })?,
        }
    }

    /// Returns true if and only if this is a prompt a person typed: a `user` record that is not
    /// `isMeta`, not a compact summary, not the CLI's marker of an interrupted response (it names
    /// one in `interruptedMessageId`), holds no tool result, and whose first text is not empty,
    /// not an interrupt marker, not a local command's wrapper and not a task notification.
    pub fn is_real_prompt(&self) -> bool {
        self.kind() == Some("user")
            && !self.is_meta.is_true()
            && !self.is_compact_summary.is_true()
            && self.interrupted_message_id.get().is_none()
            && self.tool_results().next().is_none()
            && self.first_text().is_some_and(is_typed_text)
    }

    /// Returns true if and only if a block is an advisor call or an advisor result, or the
    /// usage names an advisor iteration.
    pub fn uses_advisor(&self) -> bool {
        let advisor_iteration = self
            .message
            .get()
            .and_then(|message| message.usage.get())
            .is_some_and(|usage| !usage.advisor_usage().is_empty());
        advisor_iteration
            || self.blocks().iter().any(|block| match block {
                Block::ServerToolUse(name) => name.text() == Some(ADVISOR_TOOL_NAME),
                Block::AdvisorToolResult => true,
                _ => false,
            })
    }

    /// Bytes of the text of the `thinking` blocks (0 when there are none, or when the CLI kept
    /// their text out of the transcript).
    pub fn thinking_bytes(&self) -> u64 {
        self.blocks()
            .iter()
            .map(|block| match block {
                Block::Thinking(length) => length.get().map_or(0, |length| length.0),
                _ => 0,
            })
            .sum()
    }

    /// The cache lifetime the response asked for (`promptCacheRequested`), else the one its
    /// writes used.
    pub fn cache_ttl(&self) -> Option<CacheTtl> {
        match self.prompt_cache_requested.text() {
            Some("5m") => Some(CacheTtl::FiveMinutes),
            Some("1h") => Some(CacheTtl::OneHour),
            _ => self
                .message
                .get()
                .and_then(|message| message.usage.get())
                .and_then(Usage::cache_ttl),
        }
    }

    /// Returns true if and only if this is the `<synthetic>` assistant record "No response
    /// requested." that Claude Code writes when a session is resumed (interactive resumes up to
    /// 2.1.42, and after an interrupted turn).
    pub fn is_synthetic_no_response(&self) -> bool {
        let Some(message) = self.message.get() else {
            return false;
        };
        if self.kind() != Some("assistant") || message.model.text() != Some(SYNTHETIC_MODEL) {
            return false;
        }
        match message.content.get() {
            Some(Content::Text(text)) => text.trim() == SYNTHETIC_NO_RESPONSE,
            Some(Content::Blocks(blocks)) => {
                !blocks.is_empty()
                    && blocks.iter().all(|block| {
                        matches!(block, Block::Text(text)
                            if text.text().map(str::trim) == Some(SYNTHETIC_NO_RESPONSE))
                    })
            }
            None => false,
        }
    }

    /// Returns true if and only if this is the `user` record of the `/exit` command (written
    /// when an interactive process ends, up to 2.1.42).
    pub fn is_exit_command(&self) -> bool {
        self.kind() == Some("user")
            && self
                .first_text()
                .is_some_and(|text| text.trim_start().starts_with(EXIT_COMMAND))
    }

    /// Returns true if and only if this is a `progress` record of a `SessionStart` hook run
    /// because the session was resumed.
    pub fn is_session_start_resume(&self) -> bool {
        self.kind() == Some("progress")
            && self
                .data
                .get()
                .and_then(|data| data.hook_name.text())
                .is_some_and(|name| name == SESSION_START_RESUME_HOOK)
    }

    /// The output limit an `api-request` record asked for.
    pub fn requested_max_tokens(&self) -> Option<u64> {
        self.params
            .get()
            .filter(|_| self.kind() == Some("api-request"))
            .and_then(|params| params.max_tokens.get().copied())
    }

    /// The usage of an API response: an `assistant` record with `message.usage` whose model is
    /// not [`SYNTHETIC_MODEL`] (Claude Code's own lines made no API call).
    pub fn response_usage(&self) -> Option<&Usage> {
        if self.kind() != Some("assistant") {
            return None;
        }
        let message = self.message.get()?;
        let usage = message.usage.get()?;
        (message.model.text() != Some(SYNTHETIC_MODEL)).then_some(usage)
    }

    /// The key that groups the lines of one API response: `message.id` and `requestId`, else
    /// `message.id`, else `requestId`, else `requestRef`, else the line's uuid. Written into `key`
    /// (cleared first), so that a reader of many lines reuses one buffer; false when the line has
    /// none (`key` is then empty).
    pub fn write_request_key(&self, key: &mut String) -> bool {
        key.clear();
        let message = self.message.get().and_then(|message| message.id.text());
        let parts: [&str; 3] = match (
            message,
            self.request_id.text(),
            self.request_ref.text(),
            self.uuid.text(),
        ) {
            (Some(message), Some(request), _, _) => [message, ":", request],
            (Some(message), None, _, _) => ["message:", message, ""],
            // The blocks of one response share `requestId` even without a `message.id`; keying
            // them on their line's uuid would count the request once per block.
            (None, Some(request), _, _) => ["req:", request, ""],
            (None, None, Some(reference), _) => ["ref:", reference, ""],
            (None, _, None, Some(uuid)) => ["line:", uuid, ""],
            (None, _, None, None) => return false,
        };
        for part in parts {
            key.push_str(part);
        }
        true
    }

    /// The boundary a `system` record marks, with its metadata when it has some.
    pub fn boundary(&self) -> Option<(BoundaryKind, Option<&BoundaryMetadata<'a>>)> {
        if self.kind() != Some("system") {
            return None;
        }
        let (kind, metadata) = match self.subtype.text()? {
            "compact_boundary" => (BoundaryKind::Compaction, &self.compact_metadata),
            "microcompact_boundary" => (BoundaryKind::MicroCompaction, &self.microcompact_metadata),
            _ => return None,
        };
        Some((kind, metadata.get().map(|metadata| &**metadata)))
    }

    /// Returns true if and only if a field the usage log reads has another type than it
    /// expects. The usage log has always counted such a line as unreadable rather than guess
    /// what it meant; this keeps its rows as they were.
    pub fn has_mistyped_usage_field(&self) -> bool {
        let text_fields = [
            &self.kind,
            &self.subtype,
            &self.uuid,
            &self.timestamp,
            &self.request_id,
            &self.request_ref,
            &self.agent_id,
            &self.cwd,
            &self.version,
        ];
        let flags = [&self.is_sidechain, &self.is_meta, &self.is_compact_summary];
        text_fields.iter().any(|field| field.is_mistyped())
            || flags.iter().any(|field| field.is_mistyped())
            || self.message.is_mistyped()
            || self.message.get().is_some_and(|message| {
                message.id.is_mistyped()
                    || message.model.is_mistyped()
                    || message.usage.is_mistyped()
                    || message.usage.get().is_some_and(|usage| {
                        written!(usage).mistyped()
                            || usage
                                .iterations
                                .get()
                                .is_some_and(|iterations| iterations.mistyped)
                    })
            })
    }
}

impl Boundary {
    /// The boundary `record` marks, as it states it: `metadata` is the record's
    /// `compactMetadata` or `microcompactMetadata` ([`Record::boundary`]).
    pub fn of(record: &Record, metadata: Option<&BoundaryMetadata>) -> Self {
        let owned = |text: Option<&str>| text.map(ToOwned::to_owned);
        let stated = Self {
            time: owned(record.timestamp.text()),
            uuid: owned(record.uuid.text()),
            ..Self::default()
        };
        let Some(metadata) = metadata else {
            return stated;
        };
        Self {
            trigger: metadata.trigger.text().map(Trigger::from_text),
            pre_tokens: metadata.pre_tokens.get().copied(),
            post_tokens: metadata.post_tokens.get().copied(),
            tokens_saved: metadata.tokens_saved.get().copied(),
            details: CompactionDetails {
                duration_ms: metadata.duration_ms.get().copied(),
                cumulative_dropped_tokens: metadata.cumulative_dropped_tokens.get().copied(),
                preserved_segment: metadata.preserved_segment.get().map(|segment| {
                    PreservedSegment {
                        head_uuid: owned(segment.head_uuid.text()),
                        anchor_uuid: owned(segment.anchor_uuid.text()),
                        tail_uuid: owned(segment.tail_uuid.text()),
                    }
                }),
                preserved_messages: (metadata.preserved_messages.get())
                    .and_then(|messages| messages.uuids.get())
                    .map(|uuids| uuids.0.iter().map(ToString::to_string).collect()),
            },
            ..stated
        }
    }
}

/// Returns true if and only if `text` (a user record's first text) is what a person typed: not
/// empty, not an interrupt marker, not a local command's wrapper, not a task notification.
fn is_typed_text(text: &str) -> bool {
    let text = text.trim_start();
    !text.is_empty()
        && !is_interrupt_marker_text(text)
        && !NOT_TYPED_PREFIXES
            .iter()
            .any(|prefix| text.starts_with(prefix))
}

/// Returns true if and only if a whole text block is an interrupt marker:
/// `[Request interrupted by user...]`, one short line, bracketed. A prompt that merely quotes
/// the marker is not one.
pub fn is_interrupt_marker_text(text: &str) -> bool {
    let text = text.trim();
    text.starts_with(INTERRUPT_MARKER_PREFIX)
        && text.ends_with(']')
        && text.len() <= 120
        && !text.contains('\n')
        && text[1..].find(']') == Some(text.len() - 2)
}

/// A whole line: a JSON object (anything else fails).
impl<'de: 'a, 'a> Deserialize<'de> for Record<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Field::<Self>::deserialize(deserializer)?
            .into_option()
            .ok_or_else(|| de::Error::custom("a transcript line is a JSON object"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(line: &str) -> Record<'_> {
        Record::parse(line.as_bytes()).expect("a JSON object")
    }

    #[test]
    fn keys_fall_back_in_order() {
        let key = |line| {
            let mut key = String::new();
            parsed(line).write_request_key(&mut key).then_some(key)
        };
        assert_eq!(
            key(
                r#"{"type":"assistant","uuid":"u1","requestId":"req_1","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1}}}"#
            )
            .as_deref(),
            Some("msg_1:req_1")
        );
        assert_eq!(
            key(r#"{"type":"assistant","uuid":"u1","message":{"id":"msg_1","usage":{}}}"#)
                .as_deref(),
            Some("message:msg_1")
        );
        assert_eq!(
            key(r#"{"type":"assistant","uuid":"u1","requestRef":"r9","message":{"usage":{}}}"#)
                .as_deref(),
            Some("ref:r9")
        );
        assert_eq!(
            key(r#"{"type":"assistant","uuid":"u1","requestId":"req_7","message":{"usage":{}}}"#)
                .as_deref(),
            Some("req:req_7")
        );
    }

    #[test]
    fn synthetic_and_progress_copies_are_not_responses() {
        let synthetic = r#"{"type":"assistant","message":{"id":"x","model":"<synthetic>","usage":{"input_tokens":0}}}"#;
        assert!(parsed(synthetic).response_usage().is_none());
        let progress = r#"{"type":"progress","data":{"message":{"type":"assistant","message":{"id":"m","usage":{"input_tokens":5}}}}}"#;
        assert!(parsed(progress).response_usage().is_none());
        assert!(Record::parse(b"not json").is_none());
        assert!(Record::parse(b"[1, 2]").is_none());
        assert!(Record::parse(b"  {\"type\":\"user\"}\r").is_some());
    }

    #[test]
    fn advisor_blocks_and_nested_cache_writes_are_seen() {
        let line = r#"{"type":"assistant","message":{"id":"m","content":[{"type":"server_tool_use","name":"advisor"}],"usage":{"cache_creation_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":3,"ephemeral_1h_input_tokens":4}}}}"#;
        let record = parsed(line);
        assert!(record.uses_advisor());
        let usage = record.response_usage().expect("a response");
        assert_eq!(usage.tokens().cache_creation_input_tokens, 7);
        // A bucket that holds no count makes the usage unreadable, as an odd flat field does.
        for odd in ["-5", "\"5\"", "5.5"] {
            let line = format!(
                r#"{{"type":"assistant","message":{{"usage":{{"cache_creation":{{"ephemeral_5m_input_tokens":{odd}}}}}}}}}"#
            );
            let record = Record::parse(line.as_bytes()).unwrap();
            assert!(record.has_mistyped_usage_field(), "{line}");
        }
        // The flat field wins when it is not 0.
        let line = r#"{"type":"assistant","message":{"usage":{"cache_creation_input_tokens":9,"cache_creation":{"ephemeral_5m_input_tokens":3}}}}"#;
        let record = parsed(line);
        assert_eq!(
            record
                .response_usage()
                .unwrap()
                .tokens()
                .cache_creation_input_tokens,
            9
        );
    }

    #[test]
    fn only_typed_prompts_are_real_prompts() {
        let prompt = |line| parsed(line).is_real_prompt();
        assert!(prompt(
            r#"{"type":"user","message":{"role":"user","content":"fix the bug"}}"#
        ));
        assert!(prompt(
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"and this"}]}}"#
        ));
        assert!(!prompt(
            r#"{"type":"user","isMeta":true,"message":{"role":"user","content":"caveat"}}"#
        ));
        assert!(!prompt(
            r#"{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}"#
        ));
        assert!(!prompt(
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#
        ));
        assert!(!prompt(
            r#"{"type":"user","message":{"role":"user","content":"<command-name>/compact</command-name>"}}"#
        ));
        assert!(!prompt(
            r#"{"type":"user","message":{"role":"user","content":"  <local-command-stdout>Goodbye!</local-command-stdout>"}}"#
        ));
        assert!(!prompt(
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}}"#
        ));
        assert!(!prompt(
            r#"{"type":"user","message":{"role":"user","content":[{"type":"image"}]}}"#
        ));
        assert!(!prompt(
            r#"{"type":"assistant","message":{"role":"assistant","content":"fix the bug"}}"#
        ));
    }

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
    fn boundaries_keep_their_metadata() {
        let line = r#"{"type":"system","subtype":"compact_boundary","uuid":"b","timestamp":"t","compactMetadata":{"trigger":"auto","preTokens":155250}}"#;
        let record = parsed(line);
        let Some((kind, Some(metadata))) = record.boundary() else {
            panic!("not a boundary with metadata")
        };
        assert_eq!(kind, BoundaryKind::Compaction);
        assert_eq!(metadata.pre_tokens.get(), Some(&155_250));
        assert_eq!(metadata.trigger.text(), Some("auto"));
        // Newer CLIs: how long it took, and what it kept verbatim.
        let line = r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":167257,"postTokens":15406,"durationMs":94025,"cumulativeDroppedTokens":151851,"preservedSegment":{"headUuid":"h","anchorUuid":"a","tailUuid":"t"},"preservedMessages":{"anchorUuid":"a","uuids":["u1","u2"]}}}"#;
        let record = parsed(line);
        let Some((_, Some(metadata))) = record.boundary() else {
            panic!("not a boundary with metadata")
        };
        assert_eq!(metadata.duration_ms.get(), Some(&94_025));
        assert_eq!(metadata.cumulative_dropped_tokens.get(), Some(&151_851));
        let segment = metadata.preserved_segment.get().unwrap();
        assert_eq!(
            (segment.head_uuid.text(), segment.tail_uuid.text()),
            (Some("h"), Some("t"))
        );
        let uuids = metadata
            .preserved_messages
            .get()
            .unwrap()
            .uuids
            .get()
            .unwrap();
        assert_eq!(uuids.0, ["u1", "u2"]);
    }

    #[test]
    fn tool_uses_and_results_are_walked_once_each() {
        let line = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"x"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls","other":[1]}},{"type":"tool_use","name":"NoId"},"stray"]}}"#;
        let record = parsed(line);
        let uses: Vec<(&str, Option<&str>, Option<String>)> = record
            .tool_uses()
            .map(|(id, tool_use)| {
                (
                    id,
                    tool_use.name.text(),
                    tool_use.input.get().and_then(|input| input.summary("Bash")),
                )
            })
            .collect();
        assert_eq!(uses, vec![("t1", Some("Bash"), Some("ls".to_owned()))]);
        let line = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"ab"},{"type":"image"},{"type":"text","text":"c"}]}]}}"#;
        let record = parsed(line);
        let result = record.tool_results().next().unwrap();
        assert_eq!(result.answered_id(), "t1");
        assert!(result.is_error.is_true());
        assert_eq!(result.text_bytes(), 3);
        assert_eq!(result.text(), "ab\nc");
    }

    #[test]
    fn the_facts_around_a_request_are_read() {
        // 2.1.332: the cache lifetime asked for, the thinking count, an advisor iteration.
        let line = r#"{"type":"assistant","promptCacheRequested":"1h","version":"2.1.332","message":{"id":"m","model":"claude-opus-5-5","content":[{"type":"thinking","thinking":"ab\ncd","signature":"s"},{"type":"thinking","thinking":"xyz"}],"usage":{"input_tokens":1,"output_tokens_details":{"thinking_tokens":640},"cache_creation":{"ephemeral_5m_input_tokens":9,"ephemeral_1h_input_tokens":0},"iterations":[{"type":"message"},{"type":"advisor_message"}]}}}"#;
        let record = parsed(line);
        assert_eq!(record.cache_ttl(), Some(CacheTtl::OneHour));
        assert_eq!(record.thinking_bytes(), 8);
        let usage = record.response_usage().unwrap();
        assert_eq!(usage.thinking_tokens(), Some(640));
        assert_eq!(usage.cache_ttl(), Some(CacheTtl::FiveMinutes));
        assert!(record.uses_advisor());
        // Older lines: the lifetime from the write buckets; no count of thinking tokens.
        let line = r#"{"type":"assistant","message":{"usage":{"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":7},"output_tokens_details":{"thinking_tokens":0},"iterations":[]}}}"#;
        let record = parsed(line);
        assert_eq!(record.cache_ttl(), Some(CacheTtl::OneHour));
        assert_eq!(record.response_usage().unwrap().thinking_tokens(), None);
        assert!(!record.uses_advisor());
        // Records that mark a process boundary, and the output limit of an api-request.
        assert!(parsed(r#"{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"No response requested."}],"usage":{"input_tokens":0}}}"#).is_synthetic_no_response());
        assert!(!parsed(r#"{"type":"assistant","message":{"model":"claude-x","content":[{"type":"text","text":"No response requested."}]}}"#).is_synthetic_no_response());
        assert!(parsed(r#"{"type":"user","message":{"role":"user","content":"<command-name>/exit</command-name>\n<command-message>exit</command-message>"}}"#).is_exit_command());
        assert!(!parsed(r#"{"type":"user","message":{"role":"user","content":"<command-name>/exitx</command-name>"}}"#).is_exit_command());
        assert!(parsed(r#"{"type":"progress","data":{"type":"hook_progress","hookEvent":"SessionStart","hookName":"SessionStart:resume"}}"#).is_session_start_resume());
        assert!(!parsed(r#"{"type":"progress","data":{"type":"hook_progress","hookName":"SessionStart:startup"}}"#).is_session_start_resume());
        assert_eq!(
            parsed(r#"{"type":"api-request","params":{"model":"m","max_tokens":128000}}"#)
                .requested_max_tokens(),
            Some(128_000)
        );
        assert_eq!(
            parsed(r#"{"type":"assistant","params":{"max_tokens":5}}"#).requested_max_tokens(),
            None
        );
    }

    #[test]
    fn the_context_is_the_last_message_iteration_and_the_advisor_counts_apart() {
        // The advisor ran: two `message` iterations around an `advisor_message` one; the top
        // level is the sum of the two `message` iterations (issue 22's 223,140 on a 200k window).
        let line = r#"{"type":"assistant","message":{"id":"m","model":"claude-opus-5","usage":{"input_tokens":2,"cache_creation_input_tokens":6352,"cache_read_input_tokens":216786,"output_tokens":900,"iterations":[{"type":"message","input_tokens":1,"cache_read_input_tokens":106805,"cache_creation_input_tokens":3176,"output_tokens":300},{"type":"advisor_message","model":"claude-fable-5","input_tokens":207281,"cache_read_input_tokens":0,"cache_creation_input_tokens":0,"output_tokens":7495},{"type":"message","input_tokens":1,"cache_read_input_tokens":109981,"cache_creation":{"ephemeral_1h_input_tokens":3176},"output_tokens":600}]}}}"#;
        let record = parsed(line);
        let usage = record.response_usage().unwrap();
        assert_eq!(usage.tokens().input_side(), 223_140);
        assert_eq!(usage.context_tokens(), 113_158);
        assert_eq!(usage.tokens().input_tokens, 2);
        assert_eq!(
            usage.advisor_usage(),
            [ModelUsage {
                model: Some("claude-fable-5".into()),
                tokens: TokenUsage {
                    input_tokens: 207_281,
                    cache_creation_input_tokens: 0,
                    cache_read_input_tokens: 0,
                    output_tokens: 7_495,
                },
            }]
        );
        assert!(record.uses_advisor());
        // 2.1.226: every top-level count 0, one `message` iteration holding the request.
        let line = r#"{"type":"assistant","message":{"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0,"iterations":[{"type":"message","input_tokens":2,"cache_read_input_tokens":204576,"cache_creation_input_tokens":87,"output_tokens":40}]}}}"#;
        // Its context is the iteration's.
        let record = parsed(line);
        let usage = record.response_usage().unwrap();
        assert_eq!(usage.tokens(), TokenUsage::default());
        assert_eq!(usage.context_tokens(), 204_665);
        // No `message` iteration: the top level.
        let line = r#"{"type":"assistant","message":{"usage":{"input_tokens":5,"cache_read_input_tokens":10,"iterations":[{"type":"compaction","input_tokens":9}]}}}"#;
        assert_eq!(parsed(line).response_usage().unwrap().context_tokens(), 15);
        // An odd count inside a read iteration makes the usage unreadable.
        let line = r#"{"type":"assistant","message":{"usage":{"iterations":[{"type":"message","input_tokens":"5"}]}}}"#;
        assert!(parsed(line).has_mistyped_usage_field());
        let line = r#"{"type":"assistant","message":{"usage":{"iterations":[{"type":"compaction","input_tokens":"5"}]}}}"#;
        assert!(!parsed(line).has_mistyped_usage_field());
        // The API's model fallback: the CLI (2.1.332) takes the context from the last `message`
        // or `fallback_message` iteration that read something.
        let line = r#"{"type":"assistant","message":{"usage":{"input_tokens":3,"cache_read_input_tokens":50000,"iterations":[{"type":"message","input_tokens":1,"cache_read_input_tokens":50000},{"type":"fallback_message","model":"claude-sonnet-5","input_tokens":2,"cache_creation_input_tokens":50300},{"type":"message","input_tokens":0}]}}}"#;
        assert_eq!(
            parsed(line).response_usage().unwrap().context_tokens(),
            50_302
        );
    }

    #[test]
    fn the_session_counts_are_the_top_level_unless_it_holds_none() {
        let counts = |line: &str| parsed(line).response_usage().unwrap().session_counts();
        let tokens = |input, cache_creation, cache_read, output| TokenUsage {
            input_tokens: input,
            cache_creation_input_tokens: cache_creation,
            cache_read_input_tokens: cache_read,
            output_tokens: output,
        };
        // 2.1.226: the four top-level counts 0, the request in its one `message` iteration (the
        // nested split filled from it or not): the row's counts are the iteration's.
        for split in [
            "",
            r#","cache_creation":{"ephemeral_5m_input_tokens":87,"ephemeral_1h_input_tokens":0}"#,
        ] {
            let line = format!(
                r#"{{"type":"assistant","message":{{"usage":{{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0{split},"iterations":[{{"type":"message","input_tokens":2,"cache_read_input_tokens":204576,"cache_creation_input_tokens":87,"output_tokens":1651}}]}}}}}}"#
            );
            assert_eq!(
                counts(&line),
                (tokens(2, 87, 204_576, 1_651), CountsFrom::Iterations),
                "{line}"
            );
        }
        // Several inferences and an advisor's: the session's `message` (and `fallback_message`)
        // iterations summed, the advisor's left to `advisor_usage`.
        let line = r#"{"type":"assistant","message":{"usage":{"input_tokens":0,"iterations":[{"type":"message","input_tokens":1,"cache_read_input_tokens":100,"output_tokens":3},{"type":"advisor_message","model":"claude-fable-5","input_tokens":500,"output_tokens":50},{"type":"message","input_tokens":1,"cache_read_input_tokens":110,"cache_creation":{"ephemeral_1h_input_tokens":4},"output_tokens":6},{"type":"fallback_message","model":"claude-sonnet-5","input_tokens":2,"output_tokens":1},{"type":"compaction","input_tokens":9}]}}}"#;
        assert_eq!(
            counts(line),
            (tokens(4, 4, 210, 10), CountsFrom::Iterations)
        );
        // A top level that holds tokens is the sum already: never added to its iterations.
        let line = r#"{"type":"assistant","message":{"usage":{"input_tokens":2,"cache_creation_input_tokens":6352,"cache_read_input_tokens":216786,"output_tokens":900,"iterations":[{"type":"message","input_tokens":1,"cache_read_input_tokens":106805,"cache_creation_input_tokens":3176,"output_tokens":300},{"type":"message","input_tokens":1,"cache_read_input_tokens":109981,"cache_creation_input_tokens":3176,"output_tokens":600}]}}}"#;
        assert_eq!(
            counts(line),
            (tokens(2, 6_352, 216_786, 900), CountsFrom::TopLevel)
        );
        // Only output on the top level (a count of the response): the top level.
        let line = r#"{"type":"assistant","message":{"usage":{"output_tokens":5,"iterations":[{"type":"message","input_tokens":7}]}}}"#;
        assert_eq!(counts(line), (tokens(0, 0, 0, 5), CountsFrom::TopLevel));
        // All 0 with only the advisor's iterations, or none, or empty ones: the top level (0).
        for iterations in [
            r#"[{"type":"advisor_message","model":"claude-fable-5","input_tokens":9}]"#,
            "[]",
            r#"[{"type":"message","input_tokens":0}]"#,
        ] {
            let line = format!(
                r#"{{"type":"assistant","message":{{"usage":{{"input_tokens":0,"iterations":{iterations}}}}}}}"#
            );
            assert_eq!(
                counts(&line),
                (TokenUsage::default(), CountsFrom::TopLevel),
                "{line}"
            );
        }
        // Before 2.1.152 the flat cache write could be 0 with the split holding it: no
        // iterations, the top level (the split) as before.
        let line = r#"{"type":"assistant","message":{"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":3}}}}"#;
        assert_eq!(counts(line), (tokens(0, 3, 0, 0), CountsFrom::TopLevel));
    }

    #[test]
    fn a_mistyped_field_is_skipped_and_the_usage_log_can_tell() {
        // A reader that does not look at `cwd` still reads the line; the usage log, which
        // always refused such lines, sees that a field it reads changed type.
        let record = parsed(
            r#"{"type":"user","cwd":5,"rowSource":7,"message":{"role":"user","content":"hi"}}"#,
        );
        assert!(record.is_real_prompt());
        assert!(record.has_mistyped_usage_field());
        let record = parsed(r#"{"type":"user","rowSource":7,"message":{"content":"hi"}}"#);
        assert!(!record.has_mistyped_usage_field());
        let record = parsed(r#"{"type":"assistant","message":{"usage":{"input_tokens":1.5}}}"#);
        assert!(record.has_mistyped_usage_field());
    }
}

#[cfg(test)]
mod size {
    use std::mem::size_of;

    use crate::lenient::Field;

    /// A record is built on the stack and moved whole several times per line: its size is the
    /// copying every line pays (1,680 bytes when a mismatch kept two strings, when `memmove`
    /// was 14 % of `history`'s profile; halving it cut `history`'s CPU by 15 to 21 %).
    #[test]
    fn a_record_and_its_fields_stay_small() {
        assert_eq!(size_of::<Field<u64>>(), 16);
        assert_eq!(
            size_of::<Field<std::borrow::Cow<str>>>(),
            size_of::<std::borrow::Cow<str>>()
        );
        assert!(
            size_of::<super::Record>() <= 1024,
            "{}",
            size_of::<super::Record>()
        );
        // A tool call's input is boxed: every block of every line is moved while the content is
        // read (a block was 240 bytes with the input inline; boxing it cut the record's parse
        // by 4 %).
        assert!(
            size_of::<super::Block>() <= 96,
            "{}",
            size_of::<super::Block>()
        );
    }
}

#[cfg(test)]
mod direct_reading {
    use super::*;
    use crate::transcript::direct::GiveUp;

    fn both(line: &str) -> (Step<String>, Option<String>) {
        let serde: Option<Record> = serde_json::from_str(line).ok();
        (
            read_record(line).map(|record| format!("{record:?}")),
            serde.map(|record| format!("{record:?}")),
        )
    }

    #[test]
    fn plain_lines_read_as_serde_reads_them() {
        for line in [
            r#"{"type":"assistant","uuid":"u","requestId":"r","message":{"id":"m","model":"claude","usage":{"input_tokens":3,"cache_creation":{"ephemeral_5m_input_tokens":4,"ephemeral_1h_input_tokens":null,"later":2},"iterations":[{"type":"advisor_message"}]},"content":[{"type":"thinking","thinking":"a\nb"},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls \"x\"","other":[1,2.5e3,-0]}}]},"toolUseResult":{"deep":[[{}],[]]}}"#,
            r#" {"type":"user","isMeta":false,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":[{"type":"text","text":"\u00e9\/"},{"type":"image"}]}]}} "#,
            r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":155250},"skipped":"\ud83d\ude00"}"#,
            r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":167257,"postTokens":15406,"durationMs":94025,"cumulativeDroppedTokens":151851,"preservedSegment":{"headUuid":"h","anchorUuid":"a","tailUuid":"t"},"preservedMessages":{"anchorUuid":"a","uuids":["u1","u2"],"allUuids":["u0","u1","u2"]}}}"#,
            r#"{"type":"progress","data":{"hookName":"SessionStart:resume","message":{"content":"x"}}}"#,
            r#"{"type":"custom-title","customTitle":"fix the \u00e9 parser","sessionId":"s"}"#,
            r#"{"type":"ai-title","aiTitle":"Parser fixes","sessionId":"s"}"#,
            r#"{"type":"relocated","relocatedCwd":"/p/other","sessionId":"s"}"#,
            r#"{"type":"user","sessionKind":"bg","entrypoint":"sdk-cli","interruptedMessageId":"msg_1","rowSource":"harness","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#,
            r#"{"type":"assistant","message":{"usage":{"input_tokens":0,"iterations":[{"type":"message","input_tokens":1,"cache_read_input_tokens":5,"cache_creation":{"ephemeral_1h_input_tokens":3},"output_tokens":2},{"type":"advisor_message","model":"claude-fable-5","input_tokens":9,"other":{"x":[1]}},{"type":"advisor_message","model":"claude-fable-5","output_tokens":4},{"type":"advisor_message","model":null},{"type":"message","input_tokens":2,"cache_creation_input_tokens":7}]}}}"#,
            "{}",
        ] {
            let (direct, serde) = both(line);
            assert_eq!(direct.ok(), serde, "{line}");
        }
    }

    #[test]
    fn what_is_not_certain_is_left_to_serde() {
        for line in [
            // Other types, a field twice, an escaped key, a surrogate kept, odd counts.
            r#"{"type":5}"#,
            r#"{"isSidechain":"yes"}"#,
            r#"{"type":"a","type":"b"}"#,
            r#"{"typ\u0065":"user"}"#,
            r#"{"uuid":"\ud83d\ude00"}"#,
            r#"{"message":{"usage":{"input_tokens":5.0}}}"#,
            r#"{"message":{"usage":{"input_tokens":-1}}}"#,
            r#"{"message":{"usage":{"input_tokens":18446744073709551616}}}"#,
            r#"{"message":{"content":[{"type":"text"},"stray"]}}"#,
            r#"{"message":{"usage":{"iterations":[{"type":"message","input_tokens":1.5}]}}}"#,
            r#"{"compactMetadata":{"preservedMessages":{"uuids":["u1",null]}}}"#,
            r#"{"message":{"usage":{"iterations":[{"type":"message","model":"a","model":"b"}]}}}"#,
            // Not JSON: cut short, a raw control character, a bad escape, trailing bytes.
            r#"{"type":"user""#,
            "{\"type\":\"us\ter\"}",
            r#"{"type":"\x"}"#,
            r#"{"type":"user"},"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
        ] {
            assert_eq!(read_record(line).err(), Some(GiveUp), "{line}");
        }
        let deep = format!("{{\"a\":{}1{}}}", "[".repeat(101), "]".repeat(101));
        assert_eq!(read_record(&deep).err(), Some(GiveUp));
    }
}
