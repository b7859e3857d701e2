//! Turning transcript lines into usage records, one run at a time: what a run must remember for
//! the next one (the last requests' values, tool results waiting for their request) lives in
//! [`SourceState`], which the Stop hook keeps in the cursor file.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::compaction::items::{Limits, SegmentItems};
use crate::model_name::RequestModel;
use crate::store::trigger::Trigger;
use crate::store::usage_record::{
    Boundary, BoundaryRow, ContextCache, RequestFacts, RequestMarker, SessionFacts, SessionRow,
    SkippedLinesRow, SourceRow, TokenUsage, ToolResultNote, UsageRecord, UsageRow, bounded_title,
};
use crate::transcript::content::Block;
use crate::transcript::origin::Origin;
use crate::transcript::record::{
    BoundaryKind, BoundaryMetadata, CountsFrom, Message, Record, SESSION_START_RESUME_HOOK, Usage,
};

/// How many of the last requests' values a source remembers between runs: enough for a
/// response whose blocks are split over two runs (the last one or two requests), bounded so
/// the cursor file stays small however long the session runs.
pub const RECENT_REQUESTS: usize = 8;

/// How many of the last tool calls' names a source remembers between runs (one response may
/// call many tools at once; each entry is only an id and a name).
pub const RECENT_TOOL_NAMES: usize = 64;

/// The shortest text block taken as the end of an expected response text (a shorter one, such as
/// `.`, could end any text).
const MIN_TEXT_TAIL: usize = 16;

/// What reading one transcript has to remember between runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SourceState {
    /// The last requests written, oldest first (at most [`RECENT_REQUESTS`]).
    pub recent: Vec<UsageRow>,
    /// Tool-result bytes of the main chain not yet followed by a request.
    pub pending_main: PendingResults,
    /// Tool-result bytes of the sidechain not yet followed by a request.
    pub pending_sidechain: PendingResults,
    /// `(tool_use id, tool name)` of the last tool calls, to name their results in a later run.
    pub tool_names: Vec<(String, String)>,
    /// True once the source's `cwd` was recorded.
    pub source_recorded: bool,
    /// Lines that were not JSON objects, over all runs.
    pub unreadable_lines: u64,
    /// What the gauge needs of the main chain (main transcripts only): counted here and saved
    /// with the cursor, so a rescan counts it again from the start and a run killed before its
    /// cursor was saved counts nothing twice. `None` in a cursor written before the gauge
    /// existed: the ingest then counts it once from the usage log (`usage/log.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gauge: Option<ChainGauge>,
    /// What the main transcript said of its session so far (the last [`UsageRecord::Session`]
    /// written).
    #[serde(skip_serializing_if = "SessionFacts::is_empty")]
    pub session: SessionFacts,
    /// What the main chain held since its last compaction (a bounded list, gathered only by
    /// the hooks' ingest, see [`Ingest::gather_segment`]): `PreCompact` records it beside its
    /// snapshot for the note after the compaction.
    #[serde(skip_serializing_if = "SegmentItems::is_empty")]
    pub segment: SegmentItems,
}

/// What the gauge (`store/gauge.rs`) needs of a main transcript's chain, kept up to date at every
/// ingest in constant time: the compactions so far and the latest request's context.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ChainGauge {
    /// Full compactions of the main chain read so far (`compact_boundary` records).
    pub compactions: u64,
    /// The context the last automatic compaction fired at (its `preTokens`), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_automatic_pre_tokens: Option<u64>,
    /// The latest main-chain request with a context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest: Option<LatestRequest>,
    /// A full compaction came after `latest`: what it left.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compacted_since: Option<CompactedSince>,
    /// The session's title ([`SessionFacts::title`]), for the status line's `{title}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Per model, the highest context of a main-chain request after which the CLI checked and
    /// did not compact (the next request came with no compaction between and no fall): T is
    /// above it (at most [`REACHED_MODELS`] models, the latest kept).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reached_without_compaction: Vec<ReachedContext>,
}

/// How many models' [`ChainGauge::reached_without_compaction`] are kept.
pub const REACHED_MODELS: usize = 8;

/// The highest context one model's request reached without a compaction after it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct ReachedContext {
    /// The request's model as named ([`RequestModel::as_named`]).
    pub model: Option<String>,
    pub context_tokens: u64,
}

/// The latest main-chain request: its context and what the trigger rule needs of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatestRequest {
    /// The response's timestamp.
    pub time: Option<String>,
    /// input + cache read + cache write.
    pub context_tokens: u64,
    /// `message.model`.
    pub model: Option<String>,
    /// `requestedModel`, when it is not `message.model` (`[1m]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_model: Option<String>,
    /// The Claude Code version that sent it.
    pub version: Option<String>,
    /// The output limit the CLI asked for (`api-request`, 2.1.332).
    pub max_output_tokens: Option<u64>,
}

impl LatestRequest {
    /// The model the request was for, by the API's name and the CLI's.
    pub fn request_model(&self) -> RequestModel<'_> {
        RequestModel {
            api: self.model.as_deref(),
            requested: self.requested_model.as_deref(),
        }
    }
}

/// A compaction after the latest request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CompactedSince {
    /// The boundary's timestamp.
    pub time: Option<String>,
    /// The context it left (`postTokens`), when written.
    pub post_tokens: Option<u64>,
}

impl ChainGauge {
    /// Counts one record of a main transcript, in transcript order (sidechain records and
    /// requests with no context change nothing).
    pub fn count(&mut self, record: &UsageRecord) {
        match record {
            UsageRecord::Request(row) => self.count_request(row),
            UsageRecord::CompactBoundary(row) if !row.sidechain => {
                let boundary = &row.boundary;
                self.compactions += 1;
                if boundary.trigger.as_ref().is_some_and(Trigger::is_automatic)
                    && boundary.pre_tokens.is_some()
                {
                    self.last_automatic_pre_tokens = boundary.pre_tokens;
                }
                self.compacted_since = Some(CompactedSince {
                    time: boundary.time.clone(),
                    post_tokens: boundary.post_tokens,
                });
            }
            UsageRecord::Session(row) => {
                if let Some(title) = row.facts.title() {
                    self.title = Some(title.to_owned());
                }
            }
            _ => {}
        }
    }

    /// Counts one request row.
    pub fn count_request(&mut self, row: &UsageRow) {
        if row.sidechain || row.context_tokens == 0 {
            return;
        }
        // The previous request was checked before this one was sent: with no compaction between
        // and no fall (a fall may be a compaction the transcript does not record, which the
        // report tells by its shape), its context did not trigger one.
        if let Some(previous) = &self.latest
            && self.compacted_since.is_none()
            && row.context_tokens >= previous.context_tokens
        {
            let model = previous.request_model().as_named();
            if let Some(reached) = self
                .reached_without_compaction
                .iter_mut()
                .find(|reached| reached.model.as_deref() == model)
            {
                reached.context_tokens = reached.context_tokens.max(previous.context_tokens);
            } else {
                if self.reached_without_compaction.len() == REACHED_MODELS {
                    self.reached_without_compaction.remove(0);
                }
                self.reached_without_compaction.push(ReachedContext {
                    model: model.map(ToOwned::to_owned),
                    context_tokens: previous.context_tokens,
                });
            }
        }
        // Counted for every request of a session: the texts are copied into the buffers the
        // previous latest request left.
        let latest = self.latest.get_or_insert_with(LatestRequest::default);
        latest.time.clone_from(&row.time);
        latest.context_tokens = row.context_tokens;
        latest.model.clone_from(&row.model);
        latest
            .requested_model
            .clone_from(&row.facts.requested_model);
        latest.version.clone_from(&row.facts.version);
        latest.max_output_tokens = row.facts.max_output_tokens;
        self.compacted_since = None;
    }

    /// The highest context the requests of `model` (as named, [`RequestModel::as_named`])
    /// reached without a compaction after them.
    pub fn reached_for(&self, model: Option<&str>) -> Option<u64> {
        self.reached_without_compaction
            .iter()
            .find(|reached| reached.model.as_deref() == model)
            .map(|reached| reached.context_tokens)
    }
}

impl SourceState {
    /// True when there is nothing to remember (the default state).
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// What is worth keeping once a sub-agent's transcript was read at its `SubagentStop`: the
    /// agent has finished, so no response of it is split over runs and no tool result waits;
    /// only the counters stay (a resumed agent's later lines are still read from the offset).
    #[must_use]
    pub fn finished(self) -> Self {
        Self {
            source_recorded: self.source_recorded,
            unreadable_lines: self.unreadable_lines,
            ..Self::default()
        }
    }
}

/// Tool results (and a typed prompt) waiting for the request that will carry them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct PendingResults {
    /// Their total bytes.
    pub bytes: u64,
    pub largest: Option<ToolResultNote>,
    /// True when a person's prompt came since the chain's last request.
    #[serde(default)]
    pub turn_start: bool,
    /// True when a tool result came since the chain's last request.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tool_results: bool,
    /// Records since the chain's last request that mark a resume or a compaction.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<RequestMarker>,
    /// The output limit of the last `api-request` record since the chain's last request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
}

impl PendingResults {
    fn mark(&mut self, marker: RequestMarker) {
        if !self.markers.contains(&marker) {
            self.markers.push(marker);
        }
    }
}

/// One run over new transcript lines.
pub struct Ingest<'origin> {
    origin: &'origin Origin,
    state: SourceState,
    /// What this run read, in transcript order: a request's row where its response's first
    /// line came, updated in place by its later lines.
    records: Vec<UsageRecord>,
    /// Each request's index in `records`, by key.
    requests: FxHashMap<String, usize>,
    /// The key of the line being read (one buffer, so that a response's later lines allocate
    /// nothing to find their row).
    key: String,
    /// Unreadable lines counted before this run.
    unreadable_before: u64,
    /// Lines this run passed for their length.
    overlong: u64,
    /// A response text to look for (the Stop payload's `last_assistant_message`).
    expected_text: Option<String>,
    /// A main-chain response holding `expected_text` was read.
    saw_expected_text: bool,
    /// This run changed [`SourceState::session`].
    session_changed: bool,
    /// Gather the main chain's segment into [`SourceState::segment`], within these bounds.
    segment_limits: Option<Limits>,
}

impl<'origin> Ingest<'origin> {
    /// Starts a run from what the previous run left.
    pub fn new(origin: &'origin Origin, state: SourceState) -> Self {
        Self {
            origin,
            unreadable_before: state.unreadable_lines,
            state,
            records: Vec::new(),
            requests: FxHashMap::default(),
            key: String::new(),
            overlong: 0,
            expected_text: None,
            saw_expected_text: false,
            session_changed: false,
            segment_limits: None,
        }
    }

    /// Gathers what the main chain holds since its last compaction into
    /// [`SourceState::segment`], within `limits` (a main transcript only: a sub-agent's own
    /// transcript has no compaction of the session).
    pub fn gather_segment(&mut self, limits: Limits) {
        if !self.origin.is_agent_file {
            self.segment_limits = Some(limits);
        }
    }

    /// Looks out for a main-chain response whose text block is `text` (or ends it: a response
    /// of several text blocks), as the Stop payload's `last_assistant_message` gives it.
    pub fn expect_text(&mut self, text: &str) {
        let text = text.trim();
        if !text.is_empty() {
            self.expected_text = Some(text.to_owned());
        }
    }

    /// Returns true if and only if the text [`Ingest::expect_text`] named was read.
    pub fn saw_expected_text(&self) -> bool {
        self.saw_expected_text
    }

    /// Notes a main-chain response that holds the expected text.
    fn look_for_expected_text(&mut self, record: &Record) {
        let Some(expected) = &self.expected_text else {
            return;
        };
        if self.saw_expected_text || record.is_sidechain() || self.origin.is_agent_file {
            return;
        }
        let holds_expected = |text: &str| {
            !text.is_empty()
                && (text == expected || (text.len() >= MIN_TEXT_TAIL && expected.ends_with(text)))
        };
        self.saw_expected_text = record.blocks().iter().any(|block| {
            matches!(block, Block::Text(text) if text.text().map(str::trim).is_some_and(holds_expected))
        });
    }

    /// Reads one line.
    pub fn feed(&mut self, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        self.feed_parsed(Record::parse(line));
    }

    /// Reads one line that is not blank, already parsed by [`Record::parse`] (`None`: not a JSON
    /// object).
    pub fn feed_parsed(&mut self, record: Option<Record>) {
        let Some(record) = record.filter(|record| !record.has_mistyped_usage_field()) else {
            self.state.unreadable_lines += 1;
            return;
        };
        let sidechain = record.is_sidechain();
        if !sidechain && !self.origin.is_agent_file {
            self.note_session(&record);
            if let Some(limits) = &self.segment_limits {
                if matches!(record.boundary(), Some((BoundaryKind::Compaction, _))) {
                    self.state.segment = SegmentItems::default();
                } else {
                    self.state.segment.observe(&record, limits);
                }
            }
        }
        match record.kind() {
            Some("assistant") => {
                self.look_for_expected_text(&record);
                if let (Some(message), Some(usage)) =
                    (record.message.get(), record.response_usage())
                {
                    self.assistant(&record, message, usage);
                } else {
                    if record.is_synthetic_no_response() {
                        self.pending(sidechain)
                            .mark(RequestMarker::SyntheticNoResponse);
                    }
                    self.source(&record);
                }
            }
            Some("user") if record.message.get().is_some() => {
                let mut results = record.tool_results().peekable();
                if results.peek().is_some() {
                    self.pending(sidechain).tool_results = true;
                    for result in results {
                        self.tool_result(
                            sidechain,
                            result.answered_id().to_owned(),
                            result.text_bytes(),
                        );
                    }
                } else {
                    if record.is_real_prompt() {
                        // A prompt a person typed: the next request of its chain starts a turn.
                        self.pending(sidechain).turn_start = true;
                    } else if record.is_compact_summary.is_true() {
                        self.pending(sidechain).mark(RequestMarker::CompactSummary);
                    } else if record.is_exit_command() {
                        self.pending(sidechain).mark(RequestMarker::ExitCommand);
                    }
                    self.source(&record);
                }
            }
            Some("system") => match record.boundary() {
                Some((kind, metadata)) => self.boundary(&record, kind, metadata),
                None => self.source(&record),
            },
            Some("cost-state") => self.pending(sidechain).mark(RequestMarker::CostState),
            Some("queue-operation") => self.pending(sidechain).mark(RequestMarker::QueueOperation),
            Some("progress") if record.is_session_start_resume() => {
                self.pending(sidechain)
                    .mark(RequestMarker::SessionStartResume);
                self.source(&record);
            }
            Some("api-request") => {
                if let Some(limit) = record.requested_max_tokens() {
                    self.pending(sidechain).max_output_tokens = Some(limit);
                }
            }
            _ => self.source(&record),
        }
    }

    /// Notes what a main-chain record says of the session: a title, a new working folder, the
    /// session's kind and entrypoint (read from `user` and `assistant` records only, which no
    /// reader passes unread, so that every reader ends with the same facts).
    fn note_session(&mut self, record: &Record) {
        let facts = &mut self.state.session;
        let mut changed = false;
        let mut set = |known: &mut Option<String>, said: Option<&str>| {
            if let Some(said) = said
                && known.as_deref() != Some(said)
            {
                *known = Some(said.to_owned());
                changed = true;
            }
        };
        let title = |text: Option<&str>| text.map(bounded_title);
        match record.kind() {
            Some("custom-title") => set(
                &mut facts.custom_title,
                title(record.custom_title.text()).as_deref(),
            ),
            Some("ai-title") => set(
                &mut facts.ai_title,
                title(record.ai_title.text()).as_deref(),
            ),
            Some("relocated") => set(&mut facts.relocated_cwd, record.relocated_cwd.text()),
            Some("user" | "assistant") => {
                set(&mut facts.session_kind, record.session_kind.text());
                set(&mut facts.entrypoint, record.entrypoint.text());
            }
            _ => {}
        }
        self.session_changed |= changed;
    }

    /// Returns true if and only if a well-formed line whose top-level `type` is `kind` (as its
    /// record or [`crate::transcript::look::top_level_type`] reads it) would change nothing that
    /// [`Self::feed`] records, so that a reader of a file at rest need not feed it. That
    /// is, once the transcript's `cwd` is recorded: every kind `feed` hands to `source` only
    /// (attachments, file-history snapshots, summaries, ...; not the titles and `relocated`,
    /// which [`Self::note_session`] reads), and a `progress` line whose
    /// bytes do not name the `SessionStart:resume` hook (Claude Code writes that name plainly).
    /// Kept beside `feed`, whose match it mirrors. A damaged line of such a kind (not JSON, or a
    /// field this reads written with another type) is not counted as unreadable.
    pub fn passes_unread(&self, kind: &[u8], line: &[u8]) -> bool {
        if !self.state.source_recorded {
            return false;
        }
        match kind {
            b"assistant" | b"user" | b"system" | b"cost-state" | b"queue-operation"
            | b"api-request" | b"custom-title" | b"ai-title" | b"relocated" => false,
            b"progress" => {
                memchr::memmem::find(line, SESSION_START_RESUME_HOOK.as_bytes()).is_none()
            }
            _ => true,
        }
    }

    fn boundary(
        &mut self,
        record: &Record,
        kind: BoundaryKind,
        metadata: Option<&BoundaryMetadata>,
    ) {
        let row = BoundaryRow {
            transcript: self.origin.transcript.clone(),
            sidechain: record.is_sidechain() || self.origin.is_agent_file,
            agent_id: self.origin.agent_id.clone(),
            boundary: Boundary::of(record, metadata),
        };
        let record = match kind {
            BoundaryKind::Compaction => UsageRecord::CompactBoundary(row),
            BoundaryKind::MicroCompaction => UsageRecord::MicrocompactBoundary(row),
        };
        self.records.push(record);
    }

    /// What waits for the next request of the chain a line belongs to.
    fn pending(&mut self, sidechain: bool) -> &mut PendingResults {
        if sidechain || self.origin.is_agent_file {
            &mut self.state.pending_sidechain
        } else {
            &mut self.state.pending_main
        }
    }

    /// Records where the transcript ran, at the first line that says.
    fn source(&mut self, record: &Record) {
        if !self.state.source_recorded && record.cwd.get().is_some() {
            self.state.source_recorded = true;
            self.records.push(UsageRecord::Source(SourceRow {
                transcript: self.origin.transcript.clone(),
                cwd: record.cwd.owned(),
                version: record.version.owned(),
            }));
        }
    }

    fn tool_result(&mut self, sidechain: bool, tool_use_id: String, bytes: u64) {
        let tool_name = self
            .state
            .tool_names
            .iter()
            .rfind(|(id, _)| *id == tool_use_id)
            .map(|(_, name)| name.clone());
        let pending = self.pending(sidechain);
        pending.bytes = pending.bytes.saturating_add(bytes);
        if pending
            .largest
            .as_ref()
            .is_none_or(|largest| bytes > largest.bytes)
        {
            pending.largest = Some(ToolResultNote {
                tool_use_id,
                tool_name,
                bytes,
            });
        }
    }

    /// Reads one `assistant` line of an API response: a single content block, with the usage. A
    /// response's later lines only update its row.
    fn assistant(&mut self, record: &Record, message: &Message, usage: &Usage) {
        let has_key = record.write_request_key(&mut self.key);
        for (id, tool_use) in record.tool_uses() {
            let name = tool_use.name.text().unwrap_or("");
            self.state.tool_names.push((id.to_owned(), name.to_owned()));
        }
        let excess = self
            .state
            .tool_names
            .len()
            .saturating_sub(RECENT_TOOL_NAMES);
        self.state.tool_names.drain(..excess);
        if !has_key {
            self.state.unreadable_lines += 1;
            return;
        }
        let sidechain = record.is_sidechain() || self.origin.is_agent_file;
        if let Some(&index) = self.requests.get(&self.key) {
            if let UsageRecord::Request(row) = &mut self.records[index] {
                merge(row, record, message, usage);
            }
            return;
        }
        let key = &self.key;
        let mut row = if let Some(previous) = self.state.recent.iter().find(|row| row.key == *key) {
            previous.clone()
        } else {
            let pending = std::mem::take(self.pending(sidechain));
            UsageRow {
                time: record.timestamp.owned(),
                transcript: self.origin.transcript.clone(),
                key: self.key.clone(),
                request_id: record.request_id.owned(),
                message_id: message.id.owned(),
                sidechain,
                agent_id: (self.origin.agent_id.clone()).or_else(|| record.agent_id.owned()),
                tool_result_bytes: pending.bytes,
                largest_tool_result: pending.largest,
                turn_start: pending.turn_start,
                facts: RequestFacts {
                    carries_tool_results: pending.tool_results,
                    markers: pending.markers,
                    max_output_tokens: pending.max_output_tokens,
                    ..RequestFacts::default()
                },
                ..UsageRow::default()
            }
        };
        merge(&mut row, record, message, usage);
        self.requests.insert(row.key.clone(), self.records.len());
        self.records.push(UsageRecord::Request(row));
    }

    /// Counts lines the line reader passed without reading them (longer than its limit).
    pub fn skipped_overlong(&mut self, lines: u64) {
        self.overlong += lines;
    }

    /// Ends the run: the records to append (in transcript order; a request only when it is new
    /// or its values changed; last, the session's facts if they changed and the lines it
    /// skipped, if any) and the state for the next run.
    pub fn finish(mut self) -> (Vec<UsageRecord>, SourceState) {
        if self.session_changed {
            self.records.push(UsageRecord::Session(SessionRow {
                transcript: self.origin.transcript.clone(),
                facts: self.state.session.clone(),
            }));
        }
        let unreadable = self.state.unreadable_lines - self.unreadable_before;
        if unreadable > 0 || self.overlong > 0 {
            self.records
                .push(UsageRecord::SkippedLines(SkippedLinesRow {
                    transcript: self.origin.transcript.clone(),
                    unreadable,
                    overlong: self.overlong,
                }));
        }
        // A sub-agent's own transcript has no main chain: no gauge.
        let mut gauge =
            (!self.origin.is_agent_file).then(|| self.state.gauge.take().unwrap_or_default());
        // The requests remembered for the next run, oldest first, at most RECENT_REQUESTS: those
        // of the runs before, then the last ones this run writes (counted while the run goes,
        // and copied from the records kept only at the end).
        let mut before = VecDeque::from(std::mem::take(&mut self.state.recent));
        let mut written = 0;
        self.records.retain(|record| {
            if let Some(gauge) = &mut gauge {
                gauge.count(record);
            }
            if let UsageRecord::Request(row) = record {
                // A request of a run before that this run read again (a response split over
                // two runs): written again only if its values changed. Every key of this run
                // is new to it, so only the rows of the runs before can match.
                if let Some(position) = before.iter().position(|known| known.key == row.key) {
                    if before[position] == *row {
                        return false;
                    }
                    before.remove(position);
                }
                // Past the bound, the oldest row of the runs before goes first.
                written += 1;
                if before.len() + written > RECENT_REQUESTS && before.pop_front().is_none() {
                    written -= 1;
                }
            }
            true
        });
        let last_written = self.records.iter().rev().filter_map(|record| match record {
            UsageRecord::Request(row) => Some(row.clone()),
            _ => None,
        });
        let mut last_written: Vec<UsageRow> = last_written.take(written).collect();
        last_written.reverse();
        before.extend(last_written);
        self.state.recent = before.into();
        self.state.gauge = gauge;
        (self.records, self.state)
    }
}

/// Adds a line of a response to its row (a new row has only the request's identity and what
/// came before it): input-side fields and the context from the latest line (they agree), output
/// tokens as the maximum (older versions wrote placeholders), advisor if any line says so (its
/// counts from the latest line that has some). The session model's counts are the top level,
/// or the sum of its `message` iterations when the top level holds none
/// ([`Usage::session_counts`]); the context is the response's last inference's.
fn merge(row: &mut UsageRow, record: &Record, message: &Message, usage: &Usage) {
    let (tokens, from) = usage.session_counts();
    row.tokens = TokenUsage {
        output_tokens: row.tokens.output_tokens.max(tokens.output_tokens),
        ..tokens
    };
    row.facts.counts_from_iterations = from == CountsFrom::Iterations;
    // The split of the top level's writes, when the counts are the top level's.
    row.facts.cache_write_1h = match from {
        CountsFrom::TopLevel => usage.one_hour_writes(),
        CountsFrom::Iterations => None,
    };
    row.context_tokens = usage.context_tokens();
    row.advisor |= record.uses_advisor();
    let advisor_usage = usage.advisor_usage();
    if !advisor_usage.is_empty() {
        row.advisor_usage = advisor_usage.to_vec();
    }
    if row.model.is_none() {
        row.model = message.model.owned();
    }
    let facts = &mut row.facts;
    if facts.requested_model.is_none() {
        facts.requested_model = record
            .requested_model
            .owned()
            .filter(|requested| row.model.as_deref() != Some(requested.as_str()));
    }
    // The cache counts of the last `message` iteration, when there is one.
    if let Some(last) = usage.last_message_tokens() {
        facts.iterations = true;
        facts.context_cache = Some(ContextCache {
            read: last.cache_read_input_tokens,
            write: last.cache_creation_input_tokens,
        });
    }
    if facts.version.is_none() {
        facts.version = record.version.owned();
    }
    if let Some(ttl) = record.cache_ttl() {
        facts.cache_ttl = Some(ttl);
    }
    // Each line holds one block: the thinking text adds up; the reported count is the
    // response's, repeated on every line.
    facts.thinking_bytes += record.thinking_bytes();
    facts.thinking_tokens = facts.thinking_tokens.max(usage.thinking_tokens());
}
