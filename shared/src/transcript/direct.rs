//! A transcript line read straight into a [`Record`] in one pass, for the lines that hold
//! nothing unusual; anything else is left to the serde reader.
//!
//! `serde_json` visits every key of a line through visitors, and that, not the scan, was most
//! of `history`'s time. This reader walks the same bytes once, fills the record's fields in
//! place and skips what no field reads with the eight-byte string scan of
//! [`crate::json_scan`]. Which key fills which field is not written here: [`super::schema`]'s
//! table generates both readers' dispatch. It answers only where the answer is certain: it
//! gives up ([`GiveUp`]) at any value of another type than its field expects, a duplicated
//! field, an escaped key of an object it reads, a `\u` escape of a surrogate in a text it
//! keeps, a count that is not a plain whole number, deep nesting, or anything that is not
//! JSON; [`Record::parse`] then reads the line with serde. What it gives is the serde reader's
//! record: the integration test `direct_reader::every_line_reads_as_serde_reads_it` checks that
//! on every line of every fixture and capture and on lines changed around the cases above, and
//! a property on lines built from the table and damaged.

use std::borrow::Cow;

use super::content::{Block, Content, ResultContent, TextLength};
use super::record::{CacheCreationSplit, Iteration, Iterations, Record, Uuids};
use super::schema::{Part, RawBlock};
use crate::json_scan::{checked_string_end, skip_blank, unescape};
use crate::lenient::Field;
use crate::tool_input::ToolInput;

/// This reader does not answer for the line: the serde reader does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GiveUp;

/// A read, or [`GiveUp`].
pub(super) type Step<T> = Result<T, GiveUp>;

/// How deep objects and arrays may nest here (`serde_json` refuses past 128).
const MAX_DEPTH: u32 = 100;

/// Reads one line (`text`, a JSON object) into a record, or gives up.
pub fn read_record(text: &str) -> Step<Record<'_>> {
    let mut reader = Reader {
        text,
        bytes: text.as_bytes(),
        at: 0,
        depth: 0,
    };
    let mut record = Record::default();
    record.fill(&mut reader)?;
    reader.at = skip_blank(reader.bytes, reader.at);
    if reader.at == reader.bytes.len() {
        Ok(record)
    } else {
        Err(GiveUp)
    }
}

/// A type read straight from a line's bytes.
pub(super) trait Direct<'a>: Sized {
    /// Reads the value that comes next, or gives up.
    fn read(reader: &mut Reader<'a>) -> Step<Self>;
}

/// The place of one string's content (between its quotes) in the line.
#[derive(Debug, Clone, Copy)]
pub(super) struct Span {
    start: usize,
    end: usize,
    escaped: bool,
}

/// A line being read, and how far.
pub(super) struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    depth: u32,
}

impl<'a> Reader<'a> {
    /// The next byte that is not blank, not taken.
    fn peek(&mut self) -> Step<u8> {
        self.at = skip_blank(self.bytes, self.at);
        self.bytes.get(self.at).copied().ok_or(GiveUp)
    }

    fn expect(&mut self, byte: u8) -> Step<()> {
        if self.peek()? == byte {
            self.at += 1;
            Ok(())
        } else {
            Err(GiveUp)
        }
    }

    fn literal(&mut self, word: &[u8]) -> Step<()> {
        if self.bytes[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(())
        } else {
            Err(GiveUp)
        }
    }

    /// A string whose opening quote is next: where its content is, checked as JSON.
    fn span(&mut self) -> Step<Span> {
        self.expect(b'"')?;
        let start = self.at;
        let (end, escaped) = checked_string_end(self.bytes, start).ok_or(GiveUp)?;
        self.at = end + 1;
        Ok(Span {
            start,
            end,
            escaped,
        })
    }

    /// A string's text, borrowed when it holds no escape.
    fn text_of(&self, span: Span) -> Step<Cow<'a, str>> {
        let raw = self.text.get(span.start..span.end).ok_or(GiveUp)?;
        if span.escaped {
            unescape(raw).map(Cow::Owned).ok_or(GiveUp)
        } else {
            Ok(Cow::Borrowed(raw))
        }
    }

    /// A number, checked as JSON, skipped.
    fn skip_number(&mut self) -> Step<()> {
        if self.bytes.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.bytes.get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(GiveUp),
        }
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            self.at_least_one_digit()?;
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.at) {
                self.at += 1;
            }
            self.at_least_one_digit()?;
        }
        Ok(())
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    fn at_least_one_digit(&mut self) -> Step<()> {
        if !matches!(self.bytes.get(self.at), Some(b'0'..=b'9')) {
            return Err(GiveUp);
        }
        self.digits();
        Ok(())
    }

    /// Any JSON value, checked, skipped.
    pub(super) fn skip_value(&mut self) -> Step<()> {
        match self.peek()? {
            b'"' => self.span().map(|_| ()),
            b'{' => self.object(|reader, _| reader.skip_value()),
            b'[' => self.array(Self::skip_value),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.skip_number(),
            _ => Err(GiveUp),
        }
    }

    /// An object whose `{` is next: `each` reads the value of every key.
    pub(super) fn object(&mut self, mut each: impl FnMut(&mut Self, Span) -> Step<()>) -> Step<()> {
        self.nested(b'{', b'}', |reader| {
            let key = reader.span()?;
            reader.expect(b':')?;
            each(reader, key)
        })
    }

    /// An array whose `[` is next: `each` reads every element.
    fn array(&mut self, each: impl FnMut(&mut Self) -> Step<()>) -> Step<()> {
        self.nested(b'[', b']', each)
    }

    /// The entries between `open` (next) and `close`, separated by commas, each read by `each`.
    #[inline]
    fn nested(
        &mut self,
        open: u8,
        close: u8,
        mut each: impl FnMut(&mut Self) -> Step<()>,
    ) -> Step<()> {
        self.expect(open)?;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(GiveUp);
        }
        if self.peek()? != close {
            loop {
                each(self)?;
                match self.peek()? {
                    b',' => self.at += 1,
                    byte if byte == close => break,
                    _ => return Err(GiveUp),
                }
            }
        }
        self.at += 1;
        self.depth -= 1;
        Ok(())
    }

    /// Every element of an array read as `T`, in order.
    fn elements<T: Direct<'a>>(&mut self, mut each: impl FnMut(T)) -> Step<()> {
        self.array(|reader| T::read(reader).map(&mut each))
    }

    /// The key of an object this reader fills (an escaped one is not compared: give up).
    pub(super) fn key(&self, span: Span) -> Step<&'a [u8]> {
        if span.escaped {
            Err(GiveUp)
        } else {
            Ok(&self.bytes[span.start..span.end])
        }
    }

    /// [`Reader::key`] as text.
    fn key_text(&self, span: Span) -> Step<&'a str> {
        self.key(span)?;
        self.text.get(span.start..span.end).ok_or(GiveUp)
    }

    /// The field numbered `slot` of a struct, read as `T` the first time it comes (a field read
    /// twice gives up: serde refuses it).
    #[inline]
    pub(super) fn once<T: Direct<'a>>(&mut self, seen: &mut u64, slot: u32) -> Step<T> {
        if *seen & (1 << slot) != 0 {
            return Err(GiveUp);
        }
        *seen |= 1 << slot;
        T::read(self)
    }
}

/// `null` is an absent field; anything else is read as `T` or gives up.
impl<'a, T: Direct<'a>> Direct<'a> for Field<T> {
    #[inline]
    fn read(reader: &mut Reader<'a>) -> Step<Self> {
        if reader.peek()? == b'n' {
            reader.literal(b"null").map(|()| Field::Absent)
        } else {
            T::read(reader).map(Field::Present)
        }
    }
}

impl<'a, T: Direct<'a>> Direct<'a> for Box<T> {
    fn read(reader: &mut Reader<'a>) -> Step<Self> {
        T::read(reader).map(Box::new)
    }
}

impl<'a> Direct<'a> for Cow<'a, str> {
    #[inline]
    fn read(reader: &mut Reader<'a>) -> Step<Self> {
        let span = reader.span()?;
        reader.text_of(span)
    }
}

impl Direct<'_> for bool {
    #[inline]
    fn read(reader: &mut Reader<'_>) -> Step<Self> {
        match reader.peek()? {
            b't' => reader.literal(b"true").map(|()| true),
            b'f' => reader.literal(b"false").map(|()| false),
            _ => Err(GiveUp),
        }
    }
}

/// A count: digits with no sign, fraction or exponent that fit in a `u64`.
impl Direct<'_> for u64 {
    #[inline]
    fn read(reader: &mut Reader<'_>) -> Step<Self> {
        if !reader.peek()?.is_ascii_digit() {
            return Err(GiveUp);
        }
        let start = reader.at;
        reader.digits();
        let digits = &reader.text[start..reader.at];
        if (digits.len() > 1 && digits.starts_with('0'))
            || matches!(reader.bytes.get(reader.at), Some(b'.' | b'e' | b'E'))
        {
            return Err(GiveUp);
        }
        digits.parse().map_err(|_| GiveUp)
    }
}

/// A string's length once decoded, without keeping its text.
impl Direct<'_> for TextLength {
    fn read(reader: &mut Reader<'_>) -> Step<Self> {
        let span = reader.span()?;
        let length = if span.escaped {
            reader.text_of(span)?.len()
        } else {
            span.end - span.start
        };
        Ok(TextLength(length as u64))
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

/// `usage.iterations`: each entry an object, counted as it comes.
impl Direct<'_> for Iterations {
    fn read(reader: &mut Reader<'_>) -> Step<Self> {
        let mut iterations = Self::default();
        reader.elements(|entry: Iteration| iterations.add(&entry))?;
        Ok(iterations)
    }
}

/// An array of strings (anything else is left to serde).
impl<'a> Direct<'a> for Uuids<'a> {
    fn read(reader: &mut Reader<'a>) -> Step<Self> {
        let mut uuids = Vec::new();
        reader.elements(|uuid| uuids.push(uuid))?;
        Ok(Uuids(uuids))
    }
}

/// `usage.cache_creation`: every key's count, in order.
impl Direct<'_> for CacheCreationSplit {
    fn read(reader: &mut Reader<'_>) -> Step<Self> {
        let mut split = Self::default();
        reader.object(|reader, key| {
            let key = reader.key_text(key)?;
            split.add(key, &Field::read(reader)?);
            Ok(())
        })?;
        Ok(split)
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
            reader.peek()?;
            let start = reader.at;
            reader.skip_value()?;
            input.insert(name, &reader.text[start..reader.at]);
            Ok(())
        })?;
        Ok(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
