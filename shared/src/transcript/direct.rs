//! The direct reader's machinery: a transcript line read straight into its typed values in one
//! pass, for the lines that hold nothing unusual; anything else is left to the serde reader.
//!
//! `serde_json` visits every key of a line through visitors, and that, not the scan, was most
//! of `history`'s time. This reader walks the same bytes once, fills the record's fields in
//! place and skips what no field reads with the eight-byte string scan of
//! [`crate::json_scan`]. Which key fills which field is not written here: [`super::schema`]'s
//! table generates both readers' dispatch (through `table!`), and each value that is not a plain
//! object of keys reads itself (`Direct`) beside its type; a line is read by
//! [`read_record`](super::record::read_record). It answers only where the answer is certain: it
//! gives up ([`GiveUp`]) at any value of another type than its field expects, a duplicated
//! field, an escaped key of an object it reads, a `\u` escape of a surrogate in a text it
//! keeps, a count that is not a plain whole number, deep nesting, or anything that is not
//! JSON; [`Record::parse`](super::record::Record::parse) then reads the line with serde. What it
//! gives is the serde reader's record: the integration test
//! `direct_reader::every_line_reads_as_serde_reads_it` checks that on every line of every
//! fixture and capture and on lines changed around the cases above, and a property on lines
//! built from the table and damaged.

use std::borrow::Cow;

use crate::json_scan::{checked_string_end, skip_blank, unescape};
use crate::lenient::Field;

/// This reader does not answer for the line: the serde reader does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GiveUp;

/// A read, or [`GiveUp`].
pub(super) type Step<T> = Result<T, GiveUp>;

/// How deep objects and arrays may nest here (`serde_json` refuses past 128).
const MAX_DEPTH: u32 = 100;

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
    /// A reader at the start of `text` (a line).
    pub(super) fn new(text: &'a str) -> Self {
        Self {
            text,
            bytes: text.as_bytes(),
            at: 0,
            depth: 0,
        }
    }

    /// Gives up unless nothing but blanks is left of the line.
    pub(super) fn end(mut self) -> Step<()> {
        self.at = skip_blank(self.bytes, self.at);
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            Err(GiveUp)
        }
    }

    /// The next byte that is not blank, not taken.
    pub(super) fn peek(&mut self) -> Step<u8> {
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
    pub(super) fn span(&mut self) -> Step<Span> {
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
    pub(super) fn text_of(&self, span: Span) -> Step<Cow<'a, str>> {
        let raw = self.text.get(span.start..span.end).ok_or(GiveUp)?;
        if span.escaped {
            unescape(raw).map(Cow::Owned).ok_or(GiveUp)
        } else {
            Ok(Cow::Borrowed(raw))
        }
    }

    /// A string's length once decoded, without keeping its text.
    pub(super) fn text_length(&mut self) -> Step<usize> {
        let span = self.span()?;
        if span.escaped {
            self.text_of(span).map(|text| text.len())
        } else {
            Ok(span.end - span.start)
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

    /// Any JSON value, checked, as written in the line.
    pub(super) fn raw_value(&mut self) -> Step<&'a str> {
        self.peek()?;
        let start = self.at;
        self.skip_value()?;
        let text = self.text;
        Ok(&text[start..self.at])
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
    pub(super) fn elements<T: Direct<'a>>(&mut self, mut each: impl FnMut(T)) -> Step<()> {
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
    pub(super) fn key_text(&self, span: Span) -> Step<&'a str> {
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
