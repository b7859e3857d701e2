//! The compaction ledger of one transcript, read once from its start: for every compaction (a
//! main-chain `compact_boundary`, with the summary record that follows it), what the
//! conversation since the previous one (or the start) held, gathered by the hooks' own
//! [`SegmentItems::observe`], and what became of each item ([`Judge`]: named by the summary,
//! kept word for word, left out, or not known when the summary cannot be read).

use std::io::Read;
use std::ops::ControlFlow;

use anyhow::{Context, Result};
use memchr::memmem;
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use crate::output::fields_by_name;
use crate::time::Time;
use ctxhooks_shared::compaction::items::{
    CommandItem, ErrorItem, FileItem, LEDGER_LIMITS, PendingCall, PromptItem, SegmentItems,
};
use ctxhooks_shared::compaction::naming::{Named, SummaryText};
use ctxhooks_shared::compaction::verdict::{Judge, Preserved, Verdict};
use ctxhooks_shared::store::usage_record::Boundary;
use ctxhooks_shared::transcript::lines::{MAX_LINE_BYTES, split_lines};
use ctxhooks_shared::transcript::look::top_level_type_before;
use ctxhooks_shared::transcript::record::{BoundaryKind, Record};

/// The ledger of one transcript.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Ledger {
    /// Its compactions, in order.
    pub compactions: Vec<CompactionEntry>,
    /// What the conversation holds since the last compaction (not in any compaction yet).
    pub since_last: Counts,
    /// Lines that are not a JSON object.
    pub unreadable_lines: u64,
    /// Lines longer than the reader's limit, passed unread.
    pub overlong_lines: u64,
}

/// One compaction: its boundary, and what the conversation before it held.
#[derive(Debug, Clone, Serialize)]
pub struct CompactionEntry {
    /// From 1.
    pub number: usize,
    /// The boundary's `timestamp`, read.
    pub time: Option<Time>,
    /// What the boundary record states (its trigger, `preTokens`, `postTokens`, `durationMs`,
    /// what it kept word for word), as the report's compaction holds it.
    #[serde(flatten, serialize_with = "stated_facts")]
    pub boundary: Boundary,
    /// False when the transcript holds nothing of the conversation before it: the first
    /// boundary, with no main-chain `user` or `assistant` record before it (a transcript that
    /// begins at its compaction, its first part in another file or not kept). Its items are
    /// then not known, which is not the same as a conversation that held none.
    pub before_in_transcript: bool,
    pub summary: Summary,
    pub preserved: PreservedCount,
    pub items: JudgedItems,
    pub counts: Counts,
}

/// The boundary's facts the ledger writes, after the entry's time: each written, null when not
/// known.
fn stated_facts<S: Serializer>(boundary: &Boundary, serializer: S) -> Result<S::Ok, S::Error> {
    let mut fields = serializer.serialize_struct("Boundary", 5)?;
    fields_by_name! { fields, boundary; uuid, trigger, pre_tokens, post_tokens }
    fields.serialize_field("duration_ms", &boundary.details.duration_ms)?;
    fields.end()
}

/// The summary that follows a boundary, as read.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Summary {
    /// Read: its own text (the wrapper Claude Code puts around it left out).
    Read { text: String },
    /// No summary record follows the boundary (before the next one, or the end).
    Missing,
    /// The record after the boundary that holds the summary cannot be read (a damaged line).
    Unreadable,
}

/// What the compaction kept word for word, as its boundary says.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PreservedCount {
    /// Messages listed as kept (`preservedMessages.uuids`).
    pub messages: usize,
    /// The boundary says messages were kept without listing them: items it kept may be counted
    /// as left out.
    pub unlisted: bool,
}

/// An item with what became of it.
#[derive(Debug, Clone, Serialize)]
pub struct Judged<T> {
    #[serde(flatten)]
    pub item: T,
    pub verdict: Verdict,
}

/// Every item of one segment, judged.
#[derive(Debug, Clone, Default, Serialize)]
pub struct JudgedItems {
    pub edited: Vec<Judged<FileItem>>,
    pub read: Vec<Judged<FileItem>>,
    pub commands: Vec<Judged<CommandItem>>,
    pub errors: Vec<Judged<ErrorItem>>,
    pub prompts: Vec<Judged<PromptItem>>,
    /// Calls whose result never came before the compaction.
    pub without_result: Vec<PendingCall>,
}

/// How many items got each verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub items: usize,
    pub named: usize,
    pub kept_verbatim: usize,
    pub left_out: usize,
    pub not_checked: usize,
}

impl Counts {
    fn add(&mut self, verdict: Verdict) {
        self.items += 1;
        match verdict {
            Verdict::Named => self.named += 1,
            Verdict::KeptVerbatim => self.kept_verbatim += 1,
            Verdict::LeftOut => self.left_out += 1,
            Verdict::NotChecked => self.not_checked += 1,
        }
    }
}

/// A boundary read, waiting for its summary.
struct Open {
    boundary: Boundary,
    /// See [`CompactionEntry::before_in_transcript`].
    before_in_transcript: bool,
    /// What the boundary says was kept word for word.
    preserved: Preserved,
    /// What the conversation before it held.
    items: SegmentItems,
    /// A line that names a compact summary but cannot be read came after the boundary.
    damaged_summary: bool,
}

/// What followed a boundary when its compaction is closed.
enum Followed {
    /// No summary record (another boundary, or the end).
    Nothing,
    /// A summary record whose text cannot be read.
    Unreadable,
    /// A summary.
    By(SummaryText),
}

/// Builds the ledger line by line.
#[derive(Default)]
struct Reading {
    ledger: Ledger,
    segment: SegmentItems,
    open: Option<Open>,
    /// The transcript holds part of the conversation before what comes next: a main-chain
    /// `user` or `assistant` record, or a compaction boundary, was read.
    conversation_seen: bool,
}

/// The kinds of line the ledger reads; any other is passed unparsed.
fn may_matter(line: &[u8]) -> bool {
    // 2.1.332 writes a conversation record's `type` after its `message`: such a line is parsed.
    top_level_type_before(line, Some(b"message"))
        .is_none_or(|kind| matches!(kind, b"user" | b"assistant" | b"system"))
}

/// Reads the ledger of the transcript `reader` holds, from its start.
pub fn read_ledger(reader: impl Read) -> Result<Ledger> {
    let mut reading = Reading::default();
    let summary_key = memmem::Finder::new(b"isCompactSummary");
    let read = split_lines(reader, 0, true, MAX_LINE_BYTES, |line| {
        if let Some(bytes) = line.bytes
            && may_matter(bytes)
        {
            match Record::parse(bytes) {
                Some(record) => reading.feed(&record),
                None if !bytes.iter().all(u8::is_ascii_whitespace) => {
                    reading.ledger.unreadable_lines += 1;
                    if let Some(open) = &mut reading.open
                        && summary_key.find(bytes).is_some()
                    {
                        open.damaged_summary = true;
                    }
                }
                None => {}
            }
        }
        ControlFlow::Continue(())
    })
    .context("failed to read the transcript")?;
    reading.ledger.overlong_lines = read.overlong_lines;
    reading.close(Followed::Nothing);
    reading.ledger.since_last = Counts {
        items: item_count(&reading.segment),
        ..Counts::default()
    };
    Ok(reading.ledger)
}

fn item_count(items: &SegmentItems) -> usize {
    items.edited.len()
        + items.read.len()
        + items.commands.len()
        + items.errors.len()
        + items.prompts.len()
}

impl Reading {
    fn feed(&mut self, record: &Record) {
        if record.is_sidechain() {
            return;
        }
        if let Some((BoundaryKind::Compaction, metadata)) = record.boundary() {
            self.close(Followed::Nothing);
            let boundary = Boundary::of(record, metadata);
            self.open = Some(Open {
                preserved: Preserved::of(&boundary.details),
                boundary,
                before_in_transcript: self.conversation_seen,
                items: std::mem::take(&mut self.segment),
                damaged_summary: false,
            });
            // What follows, up to the next boundary, is in this transcript from its start.
            self.conversation_seen = true;
            return;
        }
        if matches!(record.kind(), Some("user" | "assistant")) {
            self.conversation_seen = true;
        }
        if self.open.is_some()
            && record.kind() == Some("user")
            && record.is_compact_summary.is_true()
        {
            let summary = record.first_text().map_or(Followed::Unreadable, |text| {
                Followed::By(SummaryText::new(text))
            });
            self.close(summary);
            return;
        }
        self.segment.observe(record, &LEDGER_LIMITS);
    }

    /// Ends the open compaction, followed by what came after its boundary.
    fn close(&mut self, followed: Followed) {
        let Some(Open {
            boundary,
            before_in_transcript,
            preserved,
            items,
            damaged_summary,
        }) = self.open.take()
        else {
            return;
        };
        let (summary, text) = match followed {
            Followed::By(text) => (
                Summary::Read {
                    text: text.text().to_owned(),
                },
                Some(text),
            ),
            Followed::Unreadable => (Summary::Unreadable, None),
            Followed::Nothing if damaged_summary => (Summary::Unreadable, None),
            Followed::Nothing => (Summary::Missing, None),
        };
        let judge = Judge {
            summary: text.as_ref(),
            preserved: &preserved,
        };
        let mut counts = Counts::default();
        let items = judge_items(items, &judge, &mut counts);
        self.ledger.compactions.push(CompactionEntry {
            number: self.ledger.compactions.len() + 1,
            time: Time::of(boundary.time.as_deref()),
            boundary,
            before_in_transcript,
            summary,
            preserved: PreservedCount {
                messages: preserved.uuids.len(),
                unlisted: preserved.unlisted,
            },
            items,
            counts,
        });
    }
}

/// Every item of `items` with its verdict, counted.
fn judge_items(items: SegmentItems, judge: &Judge, counts: &mut Counts) -> JudgedItems {
    let mut verdict = |named: Named, uuid: &Option<String>| {
        let verdict = judge.verdict(named, uuid.as_deref());
        counts.add(verdict);
        verdict
    };
    JudgedItems {
        edited: judge_each(items.edited, |item| {
            verdict(Named::File(&item.path), &item.uuid)
        }),
        read: judge_each(items.read, |item| {
            verdict(Named::File(&item.path), &item.uuid)
        }),
        commands: judge_each(items.commands, |item| {
            verdict(Named::Command(&item.command), &item.uuid)
        }),
        errors: judge_each(items.errors, |item| {
            verdict(Named::Error(&item.message), &item.uuid)
        }),
        prompts: judge_each(items.prompts, |item| {
            verdict(Named::Prompt(&item.text), &item.uuid)
        }),
        without_result: items.pending,
    }
}

/// Each of `items` with the verdict `verdict` gives it.
fn judge_each<T>(items: Vec<T>, mut verdict: impl FnMut(&T) -> Verdict) -> Vec<Judged<T>> {
    items
        .into_iter()
        .map(|item| Judged {
            verdict: verdict(&item),
            item,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry writes the boundary's facts after its number and time, each of them (null when
    /// not written), then what the ledger adds; the boundary's other details stay out.
    #[test]
    fn an_entry_writes_its_boundarys_facts_in_the_ledgers_order() {
        let transcript = concat!(
            r#"{"type":"user","uuid":"u1","message":{"role":"user","content":"edit main.rs"}}"#,
            "\n",
            r#"{"type":"system","subtype":"compact_boundary","timestamp":"2026-01-01T00:00:00Z","uuid":"b","compactMetadata":{"trigger":"auto","preTokens":170000,"cumulativeDroppedTokens":9,"preservedMessages":{"uuids":["u1","u1"]}}}"#,
            "\n",
        );
        let ledger = read_ledger(transcript.as_bytes()).unwrap();
        let json = serde_json::to_value(&ledger.compactions[0]).unwrap();
        let keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "number",
                "time",
                "uuid",
                "trigger",
                "pre_tokens",
                "post_tokens",
                "duration_ms",
                "before_in_transcript",
                "summary",
                "preserved",
                "items",
                "counts"
            ]
        );
        assert_eq!(json["time"], "2026-01-01T00:00:00Z");
        assert_eq!(json["trigger"], "auto");
        assert_eq!(json["pre_tokens"], 170_000);
        assert!(json["post_tokens"].is_null() && json["duration_ms"].is_null());
        // The kept messages counted once each, as the judge holds them.
        assert_eq!(json["preserved"]["messages"], 1);
        assert_eq!(json["summary"]["state"], "missing");
    }
}
