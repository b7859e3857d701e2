//! A transcript line read straight into a [`Record`] in one pass, for the lines that hold
//! nothing unusual; anything else is left to the serde reader, which stays the definition.
//!
//! `serde_json` visits every key of a line through the derived visitors, and that, not the
//! scan, was most of `history`'s time. This reader walks the same bytes once, fills the
//! record's fields in place and skips what no field reads with a SWAR scan over strings. It
//! answers only where the answer is certain: it gives up ([`GiveUp`]) at any value of another
//! type than its field expects, a duplicated field, an escaped key of an object it reads, a
//! `\u` escape of a surrogate in a text it keeps, a count that is not a plain whole number,
//! deep nesting, or anything that is not JSON; [`Record::parse`] then reads the line with serde.
//! What it gives is the serde reader's record: the integration test
//! `direct_reader::every_line_reads_as_serde_reads_it` checks that on every line of every
//! fixture and capture and on lines changed around the cases above, and a property on
//! generated and damaged objects.

use std::borrow::Cow;

use super::content::{Block, Content, RawBlock, ResultContent, TextLength};
use super::record::{
    BoundaryMetadata, CacheCreationSplit, Iteration, Iterations, Message, OutputDetails,
    PermissionDecision, PreservedMessages, PreservedSegment, ProgressData, Record, RequestParams,
    Usage, Uuids,
};
use crate::json_scan::{checked_string_end, skip_blank, unescape};
use crate::lenient::Field;
use crate::tool_input::ToolInput;

/// This reader does not answer for the line: the serde reader does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GiveUp;

type Step<T> = Result<T, GiveUp>;

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
    reader.record(&mut record)?;
    reader.blank();
    if reader.at == reader.bytes.len() {
        Ok(record)
    } else {
        Err(GiveUp)
    }
}

/// The place of one string's content (between its quotes) in the line.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    escaped: bool,
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    depth: u32,
}

/// Notes field `bit` of a struct as read; a field read twice gives up (serde refuses it).
fn first_time(seen: &mut u32, bit: u32) -> Step<()> {
    if *seen & bit != 0 {
        return Err(GiveUp);
    }
    *seen |= bit;
    Ok(())
}

impl<'a> Reader<'a> {
    fn blank(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte that is not blank, not taken.
    fn peek(&mut self) -> Step<u8> {
        self.blank();
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

    fn string(&mut self) -> Step<Cow<'a, str>> {
        let span = self.span()?;
        self.text_of(span)
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
    fn skip_value(&mut self) -> Step<()> {
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
    fn object(&mut self, mut each: impl FnMut(&mut Self, Span) -> Step<()>) -> Step<()> {
        self.expect(b'{')?;
        self.enter()?;
        if self.peek()? == b'}' {
            self.at += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            let key = self.span()?;
            self.expect(b':')?;
            each(self, key)?;
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(GiveUp),
            }
        }
    }

    /// An array whose `[` is next: `each` reads every element.
    fn array(&mut self, mut each: impl FnMut(&mut Self) -> Step<()>) -> Step<()> {
        self.expect(b'[')?;
        self.enter()?;
        if self.peek()? == b']' {
            self.at += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            each(self)?;
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(GiveUp),
            }
        }
    }

    fn enter(&mut self) -> Step<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            Err(GiveUp)
        } else {
            Ok(())
        }
    }

    /// The key of an object this reader fills (an escaped one is not compared: give up).
    fn key(&self, span: Span) -> Step<&'a [u8]> {
        if span.escaped {
            Err(GiveUp)
        } else {
            Ok(&self.bytes[span.start..span.end])
        }
    }

    /// [`Reader::key`] as text.
    fn text_key(&self, span: Span) -> Step<&'a str> {
        self.key(span)?;
        self.text.get(span.start..span.end).ok_or(GiveUp)
    }

    /// `null` (absent) or what `read` makes of the value that starts with `first`; any other
    /// value gives up.
    fn field<T>(&mut self, first: u8, read: impl FnOnce(&mut Self) -> Step<T>) -> Step<Field<T>> {
        match self.peek()? {
            b'n' => self.literal(b"null").map(|()| Field::Absent),
            byte if byte == first => read(self).map(Field::Present),
            _ => Err(GiveUp),
        }
    }

    fn text_field(&mut self) -> Step<Field<Cow<'a, str>>> {
        self.field(b'"', Self::string)
    }

    fn flag_field(&mut self) -> Step<Field<bool>> {
        match self.peek()? {
            b't' => self.literal(b"true").map(|()| Field::Present(true)),
            b'f' => self.literal(b"false").map(|()| Field::Present(false)),
            b'n' => self.literal(b"null").map(|()| Field::Absent),
            _ => Err(GiveUp),
        }
    }

    /// A count: `null`, or digits with no sign, fraction or exponent that fit in a `u64`.
    fn count_field(&mut self) -> Step<Field<u64>> {
        match self.peek()? {
            b'n' => self.literal(b"null").map(|()| Field::Absent),
            b'0'..=b'9' => {
                let start = self.at;
                self.digits();
                let digits = &self.text[start..self.at];
                if (digits.len() > 1 && digits.starts_with('0'))
                    || matches!(self.bytes.get(self.at), Some(b'.' | b'e' | b'E'))
                {
                    return Err(GiveUp);
                }
                digits.parse().map(Field::Present).map_err(|_| GiveUp)
            }
            _ => Err(GiveUp),
        }
    }

    /// `read` for field `bit` of a struct, the first time it comes (a field read twice gives
    /// up: serde refuses it).
    fn once<T>(
        &mut self,
        seen: &mut u32,
        bit: u32,
        read: impl FnOnce(&mut Self) -> Step<T>,
    ) -> Step<T> {
        first_time(seen, bit)?;
        read(self)
    }

    fn record(&mut self, record: &mut Record<'a>) -> Step<()> {
        let mut seen = 0;
        self.object(|reader, key| {
            let seen = &mut seen;
            match reader.key(key)? {
                b"type" => record.kind = reader.once(seen, 1, Self::text_field)?,
                b"subtype" => record.subtype = reader.once(seen, 1 << 1, Self::text_field)?,
                b"uuid" => record.uuid = reader.once(seen, 1 << 2, Self::text_field)?,
                b"parentUuid" => {
                    record.parent_uuid = reader.once(seen, 1 << 3, Self::text_field)?;
                }
                b"timestamp" => record.timestamp = reader.once(seen, 1 << 4, Self::text_field)?,
                b"sessionId" => record.session_id = reader.once(seen, 1 << 5, Self::text_field)?,
                b"requestId" => record.request_id = reader.once(seen, 1 << 6, Self::text_field)?,
                b"requestRef" => {
                    record.request_ref = reader.once(seen, 1 << 7, Self::text_field)?;
                }
                b"isSidechain" => {
                    record.is_sidechain = reader.once(seen, 1 << 8, Self::flag_field)?;
                }
                b"agentId" => record.agent_id = reader.once(seen, 1 << 9, Self::text_field)?,
                b"cwd" => record.cwd = reader.once(seen, 1 << 10, Self::text_field)?,
                b"version" => record.version = reader.once(seen, 1 << 11, Self::text_field)?,
                b"isMeta" => record.is_meta = reader.once(seen, 1 << 12, Self::flag_field)?,
                b"isCompactSummary" => {
                    record.is_compact_summary = reader.once(seen, 1 << 13, Self::flag_field)?;
                }
                b"rowSource" => record.row_source = reader.once(seen, 1 << 14, Self::text_field)?,
                b"toolDenialKind" => {
                    record.tool_denial_kind = reader.once(seen, 1 << 15, Self::text_field)?;
                }
                b"toolDenialBeforeRun" => {
                    record.tool_denial_before_run = reader.once(seen, 1 << 16, Self::flag_field)?;
                }
                b"permissionDecision" => {
                    record.permission_decision = reader.once(seen, 1 << 17, |reader| {
                        reader.field(b'{', Self::permission_decision)
                    })?;
                }
                b"compactMetadata" => {
                    record.compact_metadata = reader.once(seen, 1 << 18, |reader| {
                        reader.field(b'{', |reader| reader.boundary_metadata().map(Box::new))
                    })?;
                }
                b"microcompactMetadata" => {
                    record.microcompact_metadata = reader.once(seen, 1 << 19, |reader| {
                        reader.field(b'{', |reader| reader.boundary_metadata().map(Box::new))
                    })?;
                }
                b"message" => {
                    record.message =
                        reader.once(seen, 1 << 20, |reader| reader.field(b'{', Self::message))?;
                }
                b"promptCacheRequested" => {
                    record.prompt_cache_requested = reader.once(seen, 1 << 21, Self::text_field)?;
                }
                b"params" => {
                    record.params = reader.once(seen, 1 << 22, |reader| {
                        reader.field(b'{', Self::request_params)
                    })?;
                }
                b"data" => {
                    record.data = reader.once(seen, 1 << 23, |reader| {
                        reader.field(b'{', Self::progress_data)
                    })?;
                }
                b"customTitle" => {
                    record.custom_title = reader.once(seen, 1 << 24, Self::text_field)?;
                }
                b"aiTitle" => record.ai_title = reader.once(seen, 1 << 25, Self::text_field)?,
                b"relocatedCwd" => {
                    record.relocated_cwd = reader.once(seen, 1 << 26, Self::text_field)?;
                }
                b"sessionKind" => {
                    record.session_kind = reader.once(seen, 1 << 27, Self::text_field)?;
                }
                b"entrypoint" => {
                    record.entrypoint = reader.once(seen, 1 << 28, Self::text_field)?;
                }
                b"interruptedMessageId" => {
                    record.interrupted_message_id = reader.once(seen, 1 << 29, Self::text_field)?;
                }
                _ => reader.skip_value()?,
            }
            Ok(())
        })
    }

    fn permission_decision(&mut self) -> Step<PermissionDecision<'a>> {
        let mut decision = PermissionDecision::default();
        let mut seen = 0;
        self.object(|reader, key| {
            let seen = &mut seen;
            match reader.key(key)? {
                b"decision" => decision.decision = reader.once(seen, 1, Self::text_field)?,
                b"source" => decision.source = reader.once(seen, 2, Self::text_field)?,
                b"reasonCode" => decision.reason_code = reader.once(seen, 4, Self::text_field)?,
                _ => reader.skip_value()?,
            }
            Ok(())
        })?;
        Ok(decision)
    }

    fn boundary_metadata(&mut self) -> Step<BoundaryMetadata<'a>> {
        let mut metadata = BoundaryMetadata::default();
        let mut seen = 0;
        self.object(|reader, key| {
            let seen = &mut seen;
            match reader.key(key)? {
                b"trigger" => metadata.trigger = reader.once(seen, 1, Self::text_field)?,
                b"preTokens" => metadata.pre_tokens = reader.once(seen, 2, Self::count_field)?,
                b"postTokens" => metadata.post_tokens = reader.once(seen, 4, Self::count_field)?,
                b"tokensSaved" => {
                    metadata.tokens_saved = reader.once(seen, 8, Self::count_field)?;
                }
                b"durationMs" => metadata.duration_ms = reader.once(seen, 16, Self::count_field)?,
                b"cumulativeDroppedTokens" => {
                    metadata.cumulative_dropped_tokens =
                        reader.once(seen, 32, Self::count_field)?;
                }
                b"preservedSegment" => {
                    metadata.preserved_segment = reader.once(seen, 64, |reader| {
                        reader.field(b'{', |reader| reader.preserved_segment().map(Box::new))
                    })?;
                }
                b"preservedMessages" => {
                    metadata.preserved_messages = reader.once(seen, 128, |reader| {
                        reader.field(b'{', |reader| reader.preserved_messages().map(Box::new))
                    })?;
                }
                _ => reader.skip_value()?,
            }
            Ok(())
        })?;
        Ok(metadata)
    }

    fn preserved_segment(&mut self) -> Step<PreservedSegment<'a>> {
        let mut segment = PreservedSegment::default();
        let mut seen = 0;
        self.object(|reader, key| {
            let seen = &mut seen;
            match reader.key(key)? {
                b"headUuid" => segment.head_uuid = reader.once(seen, 1, Self::text_field)?,
                b"anchorUuid" => segment.anchor_uuid = reader.once(seen, 2, Self::text_field)?,
                b"tailUuid" => segment.tail_uuid = reader.once(seen, 4, Self::text_field)?,
                _ => reader.skip_value()?,
            }
            Ok(())
        })?;
        Ok(segment)
    }

    fn preserved_messages(&mut self) -> Step<PreservedMessages<'a>> {
        let mut messages = PreservedMessages::default();
        let mut seen = 0;
        self.object(|reader, key| {
            let seen = &mut seen;
            match reader.key(key)? {
                b"anchorUuid" => messages.anchor_uuid = reader.once(seen, 1, Self::text_field)?,
                b"uuids" => {
                    messages.uuids =
                        reader.once(seen, 2, |reader| reader.field(b'[', Self::uuids))?;
                }
                _ => reader.skip_value()?,
            }
            Ok(())
        })?;
        Ok(messages)
    }

    /// An array of strings (anything else is left to serde).
    fn uuids(&mut self) -> Step<Uuids<'a>> {
        let mut uuids = Vec::new();
        self.array(|reader| {
            if reader.peek()? != b'"' {
                return Err(GiveUp);
            }
            uuids.push(reader.string()?);
            Ok(())
        })?;
        Ok(Uuids(uuids))
    }

    fn request_params(&mut self) -> Step<RequestParams> {
        let mut params = RequestParams::default();
        let mut seen = 0;
        self.object(|reader, key| {
            let seen = &mut seen;
            match reader.key(key)? {
                b"max_tokens" => params.max_tokens = reader.once(seen, 1, Self::count_field)?,
                _ => reader.skip_value()?,
            }
            Ok(())
        })?;
        Ok(params)
    }

    fn progress_data(&mut self) -> Step<ProgressData<'a>> {
        let mut data = ProgressData::default();
        let mut seen = 0;
        self.object(|reader, key| {
            let seen = &mut seen;
            match reader.key(key)? {
                b"hookName" => data.hook_name = reader.once(seen, 1, Self::text_field)?,
                _ => reader.skip_value()?,
            }
            Ok(())
        })?;
        Ok(data)
    }

    fn message(&mut self) -> Step<Message<'a>> {
        let mut message = Message::default();
        let mut seen = 0;
        self.object(|reader, key| {
            let seen = &mut seen;
            match reader.key(key)? {
                b"id" => message.id = reader.once(seen, 1, Self::text_field)?,
                b"model" => message.model = reader.once(seen, 2, Self::text_field)?,
                b"role" => message.role = reader.once(seen, 4, Self::text_field)?,
                b"usage" => {
                    message.usage =
                        reader.once(seen, 8, |reader| reader.field(b'{', Self::usage))?;
                }
                b"content" => message.content = reader.once(seen, 16, Self::content)?,
                _ => reader.skip_value()?,
            }
            Ok(())
        })?;
        Ok(message)
    }

    /// `message.content`: a string, or blocks.
    fn content(&mut self) -> Step<Field<Content<'a>>> {
        match self.peek()? {
            b'"' => Ok(Field::Present(Content::Text(self.string()?))),
            b'[' => Ok(Field::Present(Content::Blocks(self.blocks()?))),
            b'n' => self.literal(b"null").map(|()| Field::Absent),
            _ => Err(GiveUp),
        }
    }

    fn usage(&mut self) -> Step<Usage> {
        let mut usage = Usage::default();
        let mut seen = 0;
        self.object(|reader, key| {
            let seen = &mut seen;
            match reader.key(key)? {
                b"input_tokens" => usage.input_tokens = reader.once(seen, 1, Self::count_field)?,
                b"cache_creation_input_tokens" => {
                    usage.cache_creation_input_tokens = reader.once(seen, 2, Self::count_field)?;
                }
                b"cache_read_input_tokens" => {
                    usage.cache_read_input_tokens = reader.once(seen, 4, Self::count_field)?;
                }
                b"output_tokens" => {
                    usage.output_tokens = reader.once(seen, 8, Self::count_field)?;
                }
                b"cache_creation" => {
                    usage.cache_creation =
                        reader.once(seen, 16, |reader| reader.field(b'{', Self::cache_creation))?;
                }
                b"output_tokens_details" => {
                    usage.output_tokens_details =
                        reader.once(seen, 32, |reader| reader.field(b'{', Self::output_details))?;
                }
                b"iterations" => {
                    usage.iterations =
                        reader.once(seen, 64, |reader| reader.field(b'[', Self::iterations))?;
                }
                _ => reader.skip_value()?,
            }
            Ok(())
        })?;
        Ok(usage)
    }

    /// `usage.cache_creation`, as [`CacheCreationSplit`]'s reader sums it (every key, in order).
    fn cache_creation(&mut self) -> Step<CacheCreationSplit> {
        let mut split = CacheCreationSplit::default();
        self.object(|reader, key| {
            let key = reader.key(key)?;
            if let Field::Present(count) = reader.count_field()? {
                split.total = split.total.saturating_add(count);
                match key {
                    b"ephemeral_5m_input_tokens" => split.five_minutes = count,
                    b"ephemeral_1h_input_tokens" => split.one_hour = count,
                    _ => {}
                }
            }
            Ok(())
        })?;
        Ok(split)
    }

    fn output_details(&mut self) -> Step<OutputDetails> {
        let mut details = OutputDetails::default();
        let mut seen = 0;
        self.object(|reader, key| {
            let seen = &mut seen;
            match reader.key(key)? {
                b"thinking_tokens" => {
                    details.thinking_tokens = reader.once(seen, 1, Self::count_field)?;
                }
                _ => reader.skip_value()?,
            }
            Ok(())
        })?;
        Ok(details)
    }

    fn iterations(&mut self) -> Step<Iterations> {
        let mut iterations = Iterations::default();
        self.array(|reader| {
            if reader.peek()? != b'{' {
                return Err(GiveUp);
            }
            let entry = reader.iteration()?;
            iterations.add(&entry);
            Ok(())
        })?;
        Ok(iterations)
    }

    /// One entry of `usage.iterations`.
    fn iteration(&mut self) -> Step<Iteration<'a>> {
        let mut entry = Iteration::default();
        let mut seen = 0;
        self.object(|reader, key| {
            let seen = &mut seen;
            match reader.key(key)? {
                b"type" => entry.kind = reader.once(seen, 1, Self::text_field)?,
                b"model" => entry.model = reader.once(seen, 2, Self::text_field)?,
                b"input_tokens" => entry.input_tokens = reader.once(seen, 4, Self::count_field)?,
                b"cache_creation_input_tokens" => {
                    entry.cache_creation_input_tokens = reader.once(seen, 8, Self::count_field)?;
                }
                b"cache_read_input_tokens" => {
                    entry.cache_read_input_tokens = reader.once(seen, 16, Self::count_field)?;
                }
                b"output_tokens" => {
                    entry.output_tokens = reader.once(seen, 32, Self::count_field)?;
                }
                b"cache_creation" => {
                    entry.cache_creation =
                        reader.once(seen, 64, |reader| reader.field(b'{', Self::cache_creation))?;
                }
                _ => reader.skip_value()?,
            }
            Ok(())
        })?;
        Ok(entry)
    }

    fn blocks(&mut self) -> Step<Vec<Block<'a>>> {
        let mut blocks = Vec::new();
        self.array(|reader| {
            if reader.peek()? != b'{' {
                return Err(GiveUp);
            }
            blocks.push(Block::from(reader.raw_block()?));
            Ok(())
        })?;
        Ok(blocks)
    }

    fn raw_block(&mut self) -> Step<RawBlock<'a>> {
        let mut block = RawBlock::default();
        let mut seen = 0;
        self.object(|reader, key| {
            let seen = &mut seen;
            match reader.key(key)? {
                b"type" => block.kind = reader.once(seen, 1, Self::text_field)?,
                b"text" => block.text = reader.once(seen, 2, Self::text_field)?,
                b"id" => block.id = reader.once(seen, 4, Self::text_field)?,
                b"name" => block.name = reader.once(seen, 8, Self::text_field)?,
                b"input" => {
                    block.input =
                        reader.once(seen, 16, |reader| reader.field(b'{', Self::tool_input))?;
                }
                b"tool_use_id" => block.tool_use_id = reader.once(seen, 32, Self::text_field)?,
                b"is_error" => block.is_error = reader.once(seen, 64, Self::flag_field)?,
                b"content" => block.content = reader.once(seen, 128, Self::result_content)?,
                b"thinking" => {
                    block.thinking =
                        reader.once(seen, 256, |reader| reader.field(b'"', Self::text_length))?;
                }
                _ => reader.skip_value()?,
            }
            Ok(())
        })?;
        Ok(block)
    }

    /// A string's length once decoded, without keeping its text.
    fn text_length(&mut self) -> Step<TextLength> {
        let span = self.span()?;
        let length = if span.escaped {
            self.text_of(span)?.len()
        } else {
            span.end - span.start
        };
        Ok(TextLength(length as u64))
    }

    /// A tool's input: the fields a summary may name, each as written in JSON.
    fn tool_input(&mut self) -> Step<Box<ToolInput<'a>>> {
        let mut input = ToolInput::default();
        self.object(|reader, key| {
            let Some(name) = ToolInput::summary_field(reader.text_key(key)?) else {
                return reader.skip_value();
            };
            let start = skip_blank(reader.bytes, reader.at);
            reader.skip_value()?;
            input.insert(name, &reader.text[start..reader.at]);
            Ok(())
        })?;
        Ok(Box::new(input))
    }

    /// A `tool_result`'s `content`: a string, or the `text` of each part of an array.
    fn result_content(&mut self) -> Step<Field<ResultContent<'a>>> {
        match self.peek()? {
            b'"' => Ok(Field::Present(ResultContent::Text(self.string()?))),
            b'n' => self.literal(b"null").map(|()| Field::Absent),
            b'[' => {
                let mut texts = Vec::new();
                self.array(|reader| {
                    if reader.peek()? != b'{' {
                        return Err(GiveUp);
                    }
                    let mut seen = 0;
                    reader.object(|reader, key| match reader.key(key)? {
                        b"text" => {
                            first_time(&mut seen, 1)?;
                            if let Field::Present(text) = reader.text_field()? {
                                texts.push(text);
                            }
                            Ok(())
                        }
                        _ => reader.skip_value(),
                    })
                })?;
                Ok(Field::Present(ResultContent::Parts(texts)))
            }
            _ => Err(GiveUp),
        }
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
