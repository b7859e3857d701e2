//! The transcript format as ctxhooks reads it, written once: one table of every key a reader
//! looks at, the field it fills and the field's type. The table generates the structs, their
//! serde reading (each field a lenient [`Field`], unknown keys skipped, a repeated key refused
//! as serde's derive refuses it), the direct reader's key dispatch ([`super::direct`]), and the
//! [`Shape`] a test builds lines from, so the two readers cannot disagree on a key, its nesting
//! or its type. What a record means is [`super::record`]'s; the values that are not plain
//! objects of keys (content, iterations, the cache split, a tool's input) read themselves.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::content::{Content, ResultContent, TextLength};
use super::direct::{Direct, Reader, Step};
use super::record::{CacheCreationSplit, Iterations, Uuids};
use crate::lenient::{Field, Lenient};
#[cfg(any(test, feature = "test-support"))]
use crate::test_support::{Shape, Shaped};
use crate::tool_input::ToolInput;

/// Generates each struct of the table with a field per `"key" => field: Type` line, and reads
/// it both ways. A struct's own docs say what it is; each field's doc names its key.
macro_rules! table {
    ($(
        $(#[$meta:meta])*
        pub struct $name:ident $(<$lifetime:lifetime>)? {
            $(
                $(#[$field_meta:meta])*
                $key:literal => $field:ident: $type:ty,
            )*
        }
    )*) => {$(
        $(#[$meta])*
        #[derive(Debug, Default)]
        pub struct $name $(<$lifetime>)? {
            $(
                $(#[$field_meta])*
                #[doc = ""]
                #[doc = concat!("Key `", $key, "`.")]
                pub $field: $type,
            )*
        }
        impl<'de $(: $lifetime, $lifetime)?> Lenient<'de> for $name $(<$lifetime>)? {
            const EXPECTED: &'static str = "an object";

            fn from_map<A: MapAccess<'de>>(map: A) -> Result<Option<Self>, A::Error> {
                table!(@from_map map $($key => $field),*)
            }
        }

        // `'r` is the line's lifetime; a struct that borrows from it has it as its own (the two
        // bounds make them one).
        impl<'r $(: $lifetime, $lifetime: 'r)?> Direct<'r> for $name $(<$lifetime>)? {
            fn read(reader: &mut Reader<'r>) -> Step<Self> {
                let mut value = Self::default();
                value.fill(reader)?;
                Ok(value)
            }
        }

        impl<'r $(: $lifetime, $lifetime: 'r)?> $name $(<$lifetime>)? {
            /// Reads an object into these fields, straight from the line (the direct reader).
            pub(super) fn fill(&mut self, reader: &mut Reader<'r>) -> Step<()> {
                table!(@read self reader $($key => $field),*)
            }
        }

        #[cfg(any(test, feature = "test-support"))]
        impl $(<$lifetime>)? Shaped for $name $(<$lifetime>)? {
            fn shape() -> Shape {
                Shape::Object(vec![$(($key, <$type as Shaped>::shape())),*])
            }
        }
    )*};

    // serde: each key found among the struct's by its index, its value read as its field's
    // type; a key seen twice fails the object, as serde's derive does.
    (@from_map $map:ident $($key:literal => $field:ident),*) => {{
        #[allow(non_camel_case_types, reason = "one variant per field, named as the field")]
        enum Slot { $($field),* }
        const KEYS: &[&str] = &[$($key),*];
        const { assert!(KEYS.len() <= 64, "one bit per field") };
        let mut map = $map;
        let mut value = Self::default();
        let mut seen = 0_u64;
        while let Some(index) = map.next_key_seed(KeyIndex(KEYS))? {
            let Some(index) = index else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if seen & (1 << index) != 0 {
                return Err(serde::de::Error::duplicate_field(KEYS[index]));
            }
            seen |= 1 << index;
            match index {
                $(slot if slot == Slot::$field as usize => value.$field = map.next_value()?,)*
                _ => map.next_value::<IgnoredAny>().map(drop)?,
            }
        }
        Ok(Some(value))
    }};

    // The direct reader: each key matched as it is written, its value read straight into its
    // field; a key seen twice gives up. The keys are matched as byte strings: a `match` on
    // those is a decision tree on the length and the bytes, where one on `&str` compares with
    // each key in turn.
    (@read $value:ident $reader:ident $($key:literal => $field:ident),*) => {{
        #[allow(non_camel_case_types, reason = "one variant per field, named as the field")]
        enum Slot { $($field),* }
        struct Key;
        #[allow(non_upper_case_globals, reason = "one key per field, named as the field")]
        impl Key { $(const $field: &'static [u8] = $key.as_bytes();)* }
        let mut seen = 0_u64;
        $reader.object(|reader, key| {
            match reader.key(key)? {
                $(Key::$field => $value.$field = reader.once(&mut seen, Slot::$field as u32)?,)*
                _ => reader.skip_value()?,
            }
            Ok(())
        })
    }};
}

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

/// A key of an object, as its index among the keys given (a struct's of the table, the fields a
/// tool's summary names); `None` for any other key (read without copying an escaped key).
pub(crate) struct KeyIndex(pub(crate) &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for KeyIndex {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for KeyIndex {
    type Value = Option<usize>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a field name")
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().position(|known| *known == key))
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
