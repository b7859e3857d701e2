//! Interrupt groups, found as the transcript streams by: runs of consecutive `user` records made
//! only of interrupt content (records that are not `user`/`assistant` do not break a run; a
//! `<synthetic>` "No response requested." assistant record right after one joins it; a line that
//! is not a readable record ends it).

use super::evidence::Warning;
use super::records::{RecordClass, ResultKind, harness_short_text};
use ctxhooks_shared::transcript::record::Record;

/// Where a line is in the transcript file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineSpan {
    /// Its first byte.
    pub offset: u64,
    /// Its length without its newline.
    pub length: u64,
}

/// A run of interrupt-only records.
#[derive(Debug, Clone, Default)]
pub struct InterruptGroup {
    /// Its lines (0-based indices into the transcript's lines), in order.
    pub lines: Vec<usize>,
    /// Where each of its lines is in the file, in the same order.
    pub spans: Vec<LineSpan>,
    /// The tool results in it, with their kinds.
    pub results: Vec<(String, ResultKind)>,
    /// Calls issued before the group (with no real user prompt between) that never got a
    /// `tool_result` anywhere: the unpaired `tool_use` older CLIs left when a tool was aborted.
    pub unanswered: Vec<String>,
    /// How many `[Request interrupted by user...]` markers it holds.
    pub markers: usize,
    /// The first timestamp in the group, in milliseconds.
    pub first_time_ms: Option<u64>,
    /// The latest timestamp of a real user prompt before the group.
    pub latest_prompt_ms: Option<u64>,
    /// Whether it is the transcript's trailing group (no real user/assistant record after it).
    pub trailing: bool,
    /// The index of the mark that covers it, in the sidecar's mark list.
    pub covered_by: Option<usize>,
    /// Other marks that fell in its window after the covering one (a retried `interrupt()`):
    /// spent on it, so that none is left to take a person's next interrupt.
    pub spent_marks: Vec<usize>,
    /// Harness-written records in it taken as interrupt markers although their wording is new
    /// (line index and text).
    pub novel_markers: Vec<(usize, String)>,
    /// The sidecar lines of mark lines whose time cannot be read that lie near it: when no mark
    /// covers it, its verdict must be `unknown` rather than `user`.
    pub uncertain: Vec<usize>,
    /// The tool calls issued before it with no real prompt between, answered or not (indices
    /// into the transcript's tool calls); the unanswered ones become [`Self::unanswered`].
    pub(super) calls_before: Vec<usize>,
}

impl InterruptGroup {
    /// Whether `ledger-input` relabels its calls: it is the trailing group, and a mark covers it.
    pub fn relabelled(&self) -> bool {
        self.trailing && self.covered_by.is_some()
    }

    /// The ids of the calls it cuts off: its tool results, then its unanswered calls.
    pub fn call_ids(&self) -> impl Iterator<Item = &str> {
        self.results
            .iter()
            .map(|(id, _)| id.as_str())
            .chain(self.unanswered.iter().map(String::as_str))
    }
}

/// Finds the groups one line at a time. Also keeps what the groups need from the lines before
/// them: the calls issued since the last real prompt and that prompt's time.
#[derive(Debug, Default)]
pub struct GroupFinder {
    groups: Vec<InterruptGroup>,
    warnings: Vec<Warning>,
    /// A group is open: the last conversation record was interrupt content.
    open: bool,
    /// The last conversation record (unreadable lines aside) was interrupt content: a
    /// harness-written short record now may be a marker in a new wording.
    after_interrupt: bool,
    calls_since_prompt: Vec<usize>,
    latest_prompt_ms: Option<u64>,
}

impl GroupFinder {
    /// A non-blank line that is not a JSON record (half-written, invalid UTF-8): it may be a
    /// real record, so it ends an open group.
    pub fn unreadable(&mut self, index: usize) {
        if self.open
            && let Some(group) = self.groups.last()
        {
            self.warnings.push(Warning::UnreadableAfterGroup {
                line: index + 1,
                group_line: group.lines[0] + 1,
            });
        }
        self.open = false;
    }

    /// The record on line `index` (at `span`), with its class, its time and the tool calls it
    /// issues (indices into the transcript's tool calls); returns the index of the group it
    /// joined.
    pub fn record(
        &mut self,
        index: usize,
        span: LineSpan,
        record: &Record,
        class: RecordClass,
        time_ms: Option<u64>,
        calls: &[usize],
    ) -> Option<usize> {
        let (class, novel) = self.reclassify(record, class);
        let mut joined = None;
        match class {
            RecordClass::NotConversation => {}
            RecordClass::Conversation { .. } => {
                self.open = false;
                if record.is_real_prompt() {
                    self.calls_since_prompt.clear();
                    // `None` orders below every time: the latest known one stays.
                    self.latest_prompt_ms = self.latest_prompt_ms.max(time_ms);
                }
            }
            RecordClass::SyntheticNoResponse => {
                if self.open
                    && let Some(group) = self.groups.last_mut()
                {
                    group.lines.push(index);
                    group.spans.push(span);
                    joined = Some(self.groups.len() - 1);
                }
            }
            RecordClass::InterruptOnly { results, markers } => {
                self.interrupt_only(index, span, results, markers, time_ms, novel);
                joined = Some(self.groups.len() - 1);
            }
        }
        self.calls_since_prompt.extend_from_slice(calls);
        joined
    }

    /// A harness-written short record right after interrupt content (only non-conversation
    /// records between) is taken as an interrupt marker in a wording ctxhooks does not know.
    fn reclassify(&mut self, record: &Record, class: RecordClass) -> (RecordClass, Option<String>) {
        let novel = match &class {
            RecordClass::NotConversation => return (class, None),
            RecordClass::Conversation { results } if self.after_interrupt && results.is_empty() => {
                harness_short_text(record)
            }
            RecordClass::InterruptOnly { .. }
            | RecordClass::SyntheticNoResponse
            | RecordClass::Conversation { .. } => None,
        };
        self.after_interrupt =
            novel.is_some() || !matches!(class, RecordClass::Conversation { .. });
        if novel.is_some() {
            let marker = RecordClass::InterruptOnly {
                results: Vec::new(),
                markers: 1,
            };
            return (marker, novel);
        }
        (class, novel)
    }

    fn interrupt_only(
        &mut self,
        index: usize,
        span: LineSpan,
        results: Vec<(String, ResultKind)>,
        markers: usize,
        time_ms: Option<u64>,
        novel: Option<String>,
    ) {
        if !self.open || self.groups.is_empty() {
            self.groups.push(InterruptGroup {
                latest_prompt_ms: self.latest_prompt_ms,
                calls_before: std::mem::take(&mut self.calls_since_prompt),
                ..InterruptGroup::default()
            });
            self.open = true;
        }
        let Some(group) = self.groups.last_mut() else {
            return;
        };
        group.lines.push(index);
        group.spans.push(span);
        group.results.extend(results);
        group.markers += markers;
        group.first_time_ms = group.first_time_ms.or(time_ms);
        if let Some(text) = novel {
            self.warnings.push(Warning::NovelMarker {
                line: index + 1,
                text: text.clone(),
            });
            group.novel_markers.push((index, text));
        }
    }

    /// The groups (the last one marked trailing when nothing real followed it) and the warnings
    /// found on the way.
    pub fn finish(mut self) -> (Vec<InterruptGroup>, Vec<Warning>) {
        if self.open
            && let Some(group) = self.groups.last_mut()
        {
            group.trailing = true;
        }
        (self.groups, self.warnings)
    }
}
