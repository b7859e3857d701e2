//! The content of a transcript record's message: a string or blocks (text, `tool_use`,
//! `tool_result`, the advisor's blocks), each read leniently; any other block is kept only as
//! "another block".

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::SeqAccess;
use serde::de::value::SeqAccessDeserializer;

use super::schema::{Part, RawBlock};
use crate::lenient::{Field, Lenient};
use crate::tool_input::ToolInput;

/// `message.content`: a string, or content blocks.
#[derive(Debug)]
pub enum Content<'a> {
    /// A string.
    Text(Cow<'a, str>),
    /// An array of blocks.
    Blocks(Vec<Block<'a>>),
}

/// One content block.
#[derive(Debug)]
pub enum Block<'a> {
    /// `text`, with its text when it is a string.
    Text(Field<Cow<'a, str>>),
    /// `tool_use`.
    ToolUse(ToolUse<'a>),
    /// `tool_result`.
    ToolResult(ToolResult<'a>),
    /// `server_tool_use`, with its name.
    ServerToolUse(Field<Cow<'a, str>>),
    /// `advisor_tool_result`.
    AdvisorToolResult,
    /// `thinking`, with the length of its text.
    Thinking(Field<TextLength>),
    /// Any other block (image, redacted thinking, ...), or an element that is not an object.
    Other,
}

/// The length in bytes of a string field whose text is not needed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextLength(pub u64);

impl Lenient<'_> for TextLength {
    const EXPECTED: &'static str = "a string";

    fn from_text(value: Cow<'_, str>) -> Option<Self> {
        Some(Self(value.len() as u64))
    }

    fn from_decoded_text(value: &str) -> Option<Self> {
        Some(Self(value.len() as u64))
    }
}

/// A `tool_use` block.
#[derive(Debug)]
pub struct ToolUse<'a> {
    /// `id` (`toolu_...`).
    pub id: Field<Cow<'a, str>>,
    /// `name`, such as `Bash`.
    pub name: Field<Cow<'a, str>>,
    /// The input fields a summary may name (never the whole input).
    pub input: Field<Box<ToolInput<'a>>>,
}

/// A `tool_result` block.
#[derive(Debug)]
pub struct ToolResult<'a> {
    /// `tool_use_id`: the call it answers.
    pub tool_use_id: Field<Cow<'a, str>>,
    /// `is_error`.
    pub is_error: Field<bool>,
    /// `content`.
    pub content: Field<ResultContent<'a>>,
}

impl ToolResult<'_> {
    /// The id of the call it answers (empty when missing).
    pub fn answered_id(&self) -> &str {
        self.tool_use_id.text().unwrap_or_default()
    }

    /// Bytes of its text content (images are not counted).
    pub fn text_bytes(&self) -> u64 {
        match self.content.get() {
            Some(ResultContent::Text(text)) => text.len() as u64,
            Some(ResultContent::Parts(parts)) => parts.iter().map(|part| part.len() as u64).sum(),
            None => 0,
        }
    }

    /// Its text: the string, or the parts' texts joined by newlines.
    pub fn text(&self) -> Cow<'_, str> {
        match self.content.get() {
            Some(ResultContent::Text(text)) => Cow::Borrowed(text.as_ref()),
            Some(ResultContent::Parts(parts)) => Cow::Owned(parts.join("\n")),
            None => Cow::Borrowed(""),
        }
    }
}

/// A `tool_result`'s `content`.
#[derive(Debug)]
pub enum ResultContent<'a> {
    /// A string.
    Text(Cow<'a, str>),
    /// The `text` of every part that has one (an image part has none).
    Parts(Vec<Cow<'a, str>>),
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
