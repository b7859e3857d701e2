//! The content of a transcript record's message: a string or blocks (text, `tool_use`,
//! `tool_result`, the advisor's blocks), each read leniently; any other block is kept only as
//! "another block". Blocks are read from the table's `RawBlock` by [`super::schema`]; the values
//! inside them that are not objects of keys (a text's length, a tool's input) read themselves
//! here.

use std::borrow::Cow;

use super::direct::{Direct, Reader, Step};
#[cfg(any(test, feature = "test-support"))]
use super::shape::{Shape, Shaped};
use crate::lenient::{Field, Lenient};
#[cfg(any(test, feature = "test-support"))]
use crate::store::tool_summary::SUMMARY_FIELDS;
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

/// A string's length once decoded, without keeping its text.
impl Direct<'_> for TextLength {
    fn read(reader: &mut Reader<'_>) -> Step<Self> {
        reader.text_length().map(|length| Self(length as u64))
    }
}

/// A tool's input: the fields a summary may name, each as written in JSON.
impl<'a> Direct<'a> for ToolInput<'a> {
    fn read(reader: &mut Reader<'a>) -> Step<Self> {
        let mut input = ToolInput::default();
        reader.object(|reader, key| {
            let Some(name) = ToolInput::summary_field(reader.key_text(key)?) else {
                return reader.skip_value();
            };
            input.insert(name, reader.raw_value()?);
            Ok(())
        })?;
        Ok(input)
    }
}

#[cfg(any(test, feature = "test-support"))]
impl Shaped for TextLength {
    fn shape() -> Shape {
        Shape::Text
    }
}

#[cfg(any(test, feature = "test-support"))]
impl Shaped for ToolInput<'_> {
    fn shape() -> Shape {
        Shape::Object(
            SUMMARY_FIELDS
                .iter()
                .map(|key| (*key, Shape::Text))
                .collect(),
        )
    }
}
