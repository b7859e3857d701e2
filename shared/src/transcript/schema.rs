//! The transcript format as ctxhooks reads it, written once: one table of every key a reader
//! looks at, the field it fills and the field's type. The table (the `table!` macro of
//! `table.rs`) generates the structs, their serde reading (each field a lenient [`Field`],
//! unknown keys skipped, a repeated key refused as serde's derive refuses it), the direct
//! reader's key dispatch ([`super::direct`]), and the `Shape` a test builds lines from
//! (`shape.rs`), so the two readers cannot disagree on a key, its nesting or its type.
//! What a record means is [`super::record`]'s. The values that are not plain objects of keys
//! read themselves beside their types ([`super::values`], [`super::content`]), but for the ones
//! made of the table's own entries, which are read here: the content's blocks (each a
//! [`RawBlock`]), a tool result's parts ([`Part`]) and the usage's iterations ([`Iteration`]).

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::SeqAccess;
use serde::de::value::SeqAccessDeserializer;

use super::content::{Block, Content, ResultContent, TextLength, ToolResult, ToolUse};
use super::direct::{Direct, Reader, Step};
#[cfg(any(test, feature = "test-support"))]
use super::shape::{Shape, Shaped};
use super::table::table;
use super::values::{CacheCreationSplit, Iterations, Uuids, written};
use crate::lenient::{Field, Lenient};
use crate::tool_input::ToolInput;

table! {
    /// One transcript line: every field a ctxhooks reader looks at, each read leniently (see
    /// [`Field`]); every other field is skipped unread.
    pub struct Record<'a> {
        /// `user`, `assistant`, `system`, `progress`, ...
        "type" => kind: Field<Cow<'a, str>>,
        /// On `system` records.
        "subtype" => subtype: Field<Cow<'a, str>>,
        "uuid" => uuid: Field<Cow<'a, str>>,
        "parentUuid" => parent_uuid: Field<Cow<'a, str>>,
        /// RFC 3339.
        "timestamp" => timestamp: Field<Cow<'a, str>>,
        "sessionId" => session_id: Field<Cow<'a, str>>,
        "requestId" => request_id: Field<Cow<'a, str>>,
        /// Written by some versions instead of `requestId`.
        "requestRef" => request_ref: Field<Cow<'a, str>>,
        "isSidechain" => is_sidechain: Field<bool>,
        "agentId" => agent_id: Field<Cow<'a, str>>,
        "cwd" => cwd: Field<Cow<'a, str>>,
        /// The writing CLI's version.
        "version" => version: Field<Cow<'a, str>>,
        /// Text Claude Code injected.
        "isMeta" => is_meta: Field<bool>,
        /// The summary after a compaction.
        "isCompactSummary" => is_compact_summary: Field<bool>,
        /// `local` (a person typed it) or `harness` (the CLI wrote it).
        "rowSource" => row_source: Field<Cow<'a, str>>,
        /// From about 2.1.205.
        "toolDenialKind" => tool_denial_kind: Field<Cow<'a, str>>,
        "toolDenialBeforeRun" => tool_denial_before_run: Field<bool>,
        /// 2.1.332.
        "permissionDecision" => permission_decision: Field<PermissionDecision<'a>>,
        /// On a `compact_boundary`. Boxed, as `microcompactMetadata` (on a
        /// `microcompact_boundary`): rare, and a record is moved whole per line.
        "compactMetadata" => compact_metadata: Field<Box<BoundaryMetadata<'a>>>,
        "microcompactMetadata" => microcompact_metadata: Field<Box<BoundaryMetadata<'a>>>,
        /// The API message (`user` and `assistant` records).
        "message" => message: Field<Message<'a>>,
        /// 2.1.332 assistant records: the model as the CLI named it (`[1m]` included, which
        /// `message.model`, the API's name, never carries).
        "requestedModel" => requested_model: Field<Cow<'a, str>>,
        /// 2.1.332 assistant records: the cache lifetime the CLI asked for, `5m` or `1h`.
        "promptCacheRequested" => prompt_cache_requested: Field<Cow<'a, str>>,
        /// 2.1.332 `api-request` records: what the request asked for.
        "params" => params: Field<RequestParams>,
        /// `progress` records: what made progress, such as a hook.
        "data" => data: Field<ProgressData<'a>>,
        /// `custom-title` records: the name a person gave the session (`/rename`).
        "customTitle" => custom_title: Field<Cow<'a, str>>,
        /// `ai-title` records: the title the CLI had a model write for the session.
        "aiTitle" => ai_title: Field<Cow<'a, str>>,
        /// `relocated` records: the session's new working folder, after the CLI moved its
        /// transcript to that folder's project.
        "relocatedCwd" => relocated_cwd: Field<Cow<'a, str>>,
        /// 2.1.2xx conversation records: `bg` for a background session.
        "sessionKind" => session_kind: Field<Cow<'a, str>>,
        /// What started the CLI (`cli`, `claude-desktop`, `sdk-cli`, `sdk-ts`, ...).
        "entrypoint" => entrypoint: Field<Cow<'a, str>>,
        /// 2.1.2xx: on the interrupt marker the CLI writes, the response the interrupt cut off.
        "interruptedMessageId" => interrupted_message_id: Field<Cow<'a, str>>,
    }

    /// `params` of an `api-request` record.
    pub struct RequestParams {
        /// The output limit the request asked for.
        "max_tokens" => max_tokens: Field<u64>,
    }

    /// `data` of a `progress` record.
    pub struct ProgressData<'a> {
        /// Such as `SessionStart:resume` (a hook's progress).
        "hookName" => hook_name: Field<Cow<'a, str>>,
    }

    /// `permissionDecision`: how the permission step decided a call.
    pub struct PermissionDecision<'a> {
        /// `accept`, `reject`, ...
        "decision" => decision: Field<Cow<'a, str>>,
        /// `config` (the CLI's rules, mode or print-mode refusal), `user_reject` (a program's
        /// `canUseTool`), ...
        "source" => source: Field<Cow<'a, str>>,
        /// Such as `rule:projectSettings`, `mode:dontAsk` or `unknown`.
        "reasonCode" => reason_code: Field<Cow<'a, str>>,
    }

    /// `compactMetadata` / `microcompactMetadata`.
    pub struct BoundaryMetadata<'a> {
        /// `auto`, `manual`.
        "trigger" => trigger: Field<Cow<'a, str>>,
        "preTokens" => pre_tokens: Field<u64>,
        /// Newer versions.
        "postTokens" => post_tokens: Field<u64>,
        /// Micro-compactions.
        "tokensSaved" => tokens_saved: Field<u64>,
        /// How long the compaction took.
        "durationMs" => duration_ms: Field<u64>,
        /// `preTokens` − `postTokens` as the CLI counts them.
        "cumulativeDroppedTokens" => cumulative_dropped_tokens: Field<u64>,
        /// The run of messages the compaction kept verbatim. Boxed, as the messages below:
        /// rare, and a record is moved whole per line.
        "preservedSegment" => preserved_segment: Field<Box<PreservedSegment<'a>>>,
        /// The messages the compaction kept verbatim, by uuid.
        "preservedMessages" => preserved_messages: Field<Box<PreservedMessages<'a>>>,
    }

    /// `compactMetadata.preservedSegment`: what a compaction kept verbatim is not "left out".
    pub struct PreservedSegment<'a> {
        /// Its first message.
        "headUuid" => head_uuid: Field<Cow<'a, str>>,
        /// The message the summary is attached to.
        "anchorUuid" => anchor_uuid: Field<Cow<'a, str>>,
        /// Its last message.
        "tailUuid" => tail_uuid: Field<Cow<'a, str>>,
    }

    /// `compactMetadata.preservedMessages`.
    pub struct PreservedMessages<'a> {
        "anchorUuid" => anchor_uuid: Field<Cow<'a, str>>,
        /// The messages kept verbatim.
        "uuids" => uuids: Field<Uuids<'a>>,
    }

    /// `message`.
    pub struct Message<'a> {
        "id" => id: Field<Cow<'a, str>>,
        "model" => model: Field<Cow<'a, str>>,
        "role" => role: Field<Cow<'a, str>>,
        /// Only this top-level copy counts, never those nested in `progress` lines.
        "usage" => usage: Field<Usage>,
        "content" => content: Field<Content<'a>>,
    }

    /// `message.usage`, as written.
    pub struct Usage {
        "input_tokens" => input_tokens: Field<u64>,
        "cache_creation_input_tokens" => cache_creation_input_tokens: Field<u64>,
        "cache_read_input_tokens" => cache_read_input_tokens: Field<u64>,
        "output_tokens" => output_tokens: Field<u64>,
        /// The 5m/1h split.
        "cache_creation" => cache_creation: Field<CacheCreationSplit>,
        /// 2.1.332: the thinking part of the output.
        "output_tokens_details" => output_tokens_details: Field<OutputDetails>,
        /// 2.1.332: the inferences one response was made of.
        "iterations" => iterations: Field<Iterations>,
    }

    /// `usage.output_tokens_details`.
    pub struct OutputDetails {
        /// Output tokens spent thinking.
        "thinking_tokens" => thinking_tokens: Field<u64>,
    }

    /// One entry of `usage.iterations`, as written.
    pub struct Iteration<'a> {
        /// `message`, `advisor_message`, ...
        "type" => kind: Field<Cow<'a, str>>,
        /// Advisor iterations name theirs.
        "model" => model: Field<Cow<'a, str>>,
        "input_tokens" => input_tokens: Field<u64>,
        "cache_creation_input_tokens" => cache_creation_input_tokens: Field<u64>,
        "cache_read_input_tokens" => cache_read_input_tokens: Field<u64>,
        "output_tokens" => output_tokens: Field<u64>,
        /// The 5m/1h split.
        "cache_creation" => cache_creation: Field<CacheCreationSplit>,
    }

    /// One content block as written: every field any block kind has; which ones count depends
    /// on `type` ([`super::content::Block`] keeps those).
    pub struct RawBlock<'a> {
        "type" => kind: Field<Cow<'a, str>>,
        "text" => text: Field<Cow<'a, str>>,
        "id" => id: Field<Cow<'a, str>>,
        "name" => name: Field<Cow<'a, str>>,
        /// Boxed: every block of every line is moved while the content is read.
        "input" => input: Field<Box<ToolInput<'a>>>,
        "tool_use_id" => tool_use_id: Field<Cow<'a, str>>,
        "is_error" => is_error: Field<bool>,
        "content" => content: Field<ResultContent<'a>>,
        /// Only its length is kept.
        "thinking" => thinking: Field<TextLength>,
    }

    /// One part of a `tool_result`'s content array.
    pub struct Part<'a> {
        "text" => text: Field<Cow<'a, str>>,
    }
}

// The values made of the table's own entries, read both ways.

impl<'a> From<RawBlock<'a>> for Block<'a> {
    fn from(raw: RawBlock<'a>) -> Self {
        match raw.kind.text() {
            Some("text") => Self::Text(raw.text),
            Some("tool_use") => Self::ToolUse(ToolUse {
                id: raw.id,
                name: raw.name,
                input: raw.input,
            }),
            Some("tool_result") => Self::ToolResult(ToolResult {
                tool_use_id: raw.tool_use_id,
                is_error: raw.is_error,
                content: raw.content,
            }),
            Some("server_tool_use") => Self::ServerToolUse(raw.name),
            Some("advisor_tool_result") => Self::AdvisorToolResult,
            Some("thinking") => Self::Thinking(raw.thinking),
            _ => Self::Other,
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Block<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Field::<RawBlock<'a>>::deserialize(deserializer)?
            .into_option()
            .map_or(Self::Other, Self::from))
    }
}

impl<'de: 'a, 'a> Lenient<'de> for Content<'a> {
    const EXPECTED: &'static str = "a string or an array";

    fn from_text(value: Cow<'de, str>) -> Option<Self> {
        Some(Self::Text(value))
    }

    fn from_seq<A: SeqAccess<'de>>(seq: A) -> Result<Option<Self>, A::Error> {
        Vec::deserialize(SeqAccessDeserializer::new(seq)).map(|blocks| Some(Self::Blocks(blocks)))
    }
}

impl<'de: 'a, 'a> Lenient<'de> for ResultContent<'a> {
    const EXPECTED: &'static str = "a string or an array";

    fn from_text(value: Cow<'de, str>) -> Option<Self> {
        Some(Self::Text(value))
    }

    fn from_seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Option<Self>, A::Error> {
        let mut texts = Vec::new();
        while let Some(part) = seq.next_element::<Field<Part<'a>>>()? {
            if let Some(text) = part.into_option().and_then(|part| part.text.into_option()) {
                texts.push(text);
            }
        }
        Ok(Some(Self::Parts(texts)))
    }
}

/// `message.content`: a string, or blocks (each an object).
impl<'a> Direct<'a> for Content<'a> {
    fn read(reader: &mut Reader<'a>) -> Step<Self> {
        if reader.peek()? == b'"' {
            return Cow::read(reader).map(Content::Text);
        }
        let mut blocks = Vec::new();
        reader.elements(|raw: RawBlock<'a>| blocks.push(Block::from(raw)))?;
        Ok(Content::Blocks(blocks))
    }
}

/// A `tool_result`'s `content`: a string, or the `text` of each part of an array (each an
/// object).
impl<'a> Direct<'a> for ResultContent<'a> {
    fn read(reader: &mut Reader<'a>) -> Step<Self> {
        if reader.peek()? == b'"' {
            return Cow::read(reader).map(ResultContent::Text);
        }
        let mut texts = Vec::new();
        reader.elements(|part: Part<'a>| texts.extend(part.text.into_option()))?;
        Ok(ResultContent::Parts(texts))
    }
}

/// Counts one entry of `usage.iterations` into `iterations`.
fn count(iterations: &mut Iterations, entry: &Iteration) {
    iterations.add(entry.kind.text(), entry.model.text(), &written!(entry));
}

impl<'de> Lenient<'de> for Iterations {
    const EXPECTED: &'static str = "an array";

    fn from_seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Option<Self>, A::Error> {
        let mut iterations = Self::default();
        while let Some(entry) = seq.next_element::<Field<Iteration<'de>>>()? {
            if let Some(entry) = entry.get() {
                count(&mut iterations, entry);
            }
        }
        Ok(Some(iterations))
    }
}

/// `usage.iterations`: each entry an object, counted as it comes.
impl Direct<'_> for Iterations {
    fn read(reader: &mut Reader<'_>) -> Step<Self> {
        let mut iterations = Self::default();
        reader.elements(|entry: Iteration| count(&mut iterations, &entry))?;
        Ok(iterations)
    }
}

#[cfg(any(test, feature = "test-support"))]
impl Shaped for Content<'_> {
    fn shape() -> Shape {
        Shape::TextOrArray(Box::new(RawBlock::shape()))
    }
}

#[cfg(any(test, feature = "test-support"))]
impl Shaped for ResultContent<'_> {
    fn shape() -> Shape {
        Shape::TextOrArray(Box::new(Part::shape()))
    }
}

#[cfg(any(test, feature = "test-support"))]
impl Shaped for Iterations {
    fn shape() -> Shape {
        Shape::Array(Box::new(Iteration::shape()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_twice_fails_the_object_as_serde_derive_would() {
        let error = serde_json::from_str::<Field<Message>>(r#"{"id": "a", "id": "b"}"#)
            .unwrap_err()
            .to_string();
        assert!(error.contains("duplicate field `id`"), "{error}");
        let message: Field<Message> =
            serde_json::from_str(r#"{"id": "a", "other": [1, {"id": 2}], "model": 5}"#).unwrap();
        let message = message.get().unwrap();
        assert_eq!(message.id.text(), Some("a"));
        assert!(message.model.is_mistyped());
    }
}
