//! The records of `<state>/sessions/<id>/usage.jsonl`, one JSON object per line, tagged by `kind`.

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

use super::trigger::Trigger;
use crate::model_name::RequestModel;
use crate::version::ClaudeVersion;

/// One line of the usage log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UsageRecord {
    /// One API request (a later version of the same `key` replaces an earlier one).
    Request(UsageRow),
    /// A `compact_boundary` line.
    CompactBoundary(BoundaryRow),
    /// A `microcompact_boundary` line.
    MicrocompactBoundary(BoundaryRow),
    /// The hook read a transcript again from its start.
    Rescan(RescanRow),
    /// Where a transcript's session ran (first `cwd` seen).
    Source(SourceRow),
    /// What a main transcript says of its session (title, kind, new working folder), written
    /// when it changes.
    Session(SessionRow),
    /// Lines one run skipped.
    SkippedLines(SkippedLinesRow),
}

/// The token counts of one API response (or a sum of them), as the usage log keeps them: JSON
/// fields of their own names, flattened into the record that holds them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    /// Uncached input.
    pub input_tokens: u64,
    /// Cache writes (from a transcript: the nested 5m + 1h split when the flat field is 0).
    pub cache_creation_input_tokens: u64,
    /// Cache reads.
    pub cache_read_input_tokens: u64,
    /// Output (a streaming placeholder in many older versions' lines).
    pub output_tokens: u64,
}

impl TokenUsage {
    /// input + cache read + cache write: what the model read (saturating).
    pub fn input_side(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.cache_creation_input_tokens)
            .saturating_add(self.cache_read_input_tokens)
    }

    /// The sum of both, count by count (saturating: a count no API returns must not wrap).
    #[must_use]
    pub fn saturating_add(self, more: Self) -> Self {
        Self {
            input_tokens: self.input_tokens.saturating_add(more.input_tokens),
            cache_creation_input_tokens: self
                .cache_creation_input_tokens
                .saturating_add(more.cache_creation_input_tokens),
            cache_read_input_tokens: self
                .cache_read_input_tokens
                .saturating_add(more.cache_read_input_tokens),
            output_tokens: self.output_tokens.saturating_add(more.output_tokens),
        }
    }
}

/// The tokens one model other than the session's spent inside a response: the advisor's
/// `advisor_message` iterations of `usage.iterations`, summed per model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelUsage {
    /// The iteration's `model` (`null` when it named none).
    pub model: Option<String>,
    /// The model's counts, summed over its iterations in the response.
    #[serde(flatten)]
    pub tokens: TokenUsage,
}

/// Adds `more` into `sums`, one entry per model, in the order each model was first seen.
pub fn add_by_model(sums: &mut Vec<ModelUsage>, more: &[ModelUsage]) {
    for usage in more {
        if let Some(sum) = sums.iter_mut().find(|sum| sum.model == usage.model) {
            sum.tokens = sum.tokens.saturating_add(usage.tokens);
        } else {
            sums.push(usage.clone());
        }
    }
}

/// The largest tool result sent to the model just before a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResultNote {
    /// The `tool_use` id it answered.
    pub tool_use_id: String,
    /// The tool's name, when its `tool_use` was read in the same run.
    pub tool_name: Option<String>,
    /// Bytes of text.
    pub bytes: u64,
}

/// One API request: the usage of one response, counted once.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct UsageRow {
    /// The timestamp of the response's first line.
    pub time: Option<String>,
    /// The transcript the row was read from.
    pub transcript: String,
    /// `message.id:requestId`, else `message:<id>`, `req:<requestId>`, `ref:<requestRef>` or
    /// `line:<uuid>`.
    pub key: String,
    /// `requestId`.
    pub request_id: Option<String>,
    /// `message.id`.
    pub message_id: Option<String>,
    /// `message.model`.
    pub model: Option<String>,
    /// The response's counts for the session's model (its `output_tokens` the largest over the
    /// response's lines): the top level, or its `message` iterations' sum when the top level
    /// holds none (`facts.counts_from_iterations`).
    #[serde(flatten)]
    pub tokens: TokenUsage,
    /// The context the request sent: input + cache read + cache write of its last `message`
    /// iteration when the response has `usage.iterations`, else of the top level.
    pub context_tokens: u64,
    /// True for sub-agent requests (`isSidechain`, or read from an agent transcript).
    pub sidechain: bool,
    pub agent_id: Option<String>,
    /// True when the response called the advisor tool.
    #[serde(default)]
    pub advisor: bool,
    /// The advisor's own tokens inside this response (its `advisor_message` iterations), by
    /// model: not the session model's, so never in the counts above.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub advisor_usage: Vec<ModelUsage>,
    /// Bytes of tool results sent since the previous request of the same chain.
    #[serde(default)]
    pub tool_result_bytes: u64,
    /// The largest of those tool results.
    pub largest_tool_result: Option<ToolResultNote>,
    /// True for the first request after a person's prompt (a turn's start; the tool loop's
    /// later requests are false). False in logs written before the field existed.
    #[serde(default)]
    pub turn_start: bool,
    /// The facts about the request that explain a change of context: which CLI sent it, what
    /// came before it in the transcript. Every one is optional (absent in logs written before
    /// they were recorded, and left out of the line when empty).
    #[serde(flatten)]
    pub facts: RequestFacts,
}

/// What the transcript says around one request besides its token counts (all optional; see
/// `docs/usage.md`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestFacts {
    /// `version`: the Claude Code version that wrote the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The cache lifetime the request asked for (`promptCacheRequested`), else the one its
    /// writes used (`usage.cache_creation` 5m/1h buckets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_ttl: Option<CacheTtl>,
    /// Of the cache writes, those into the 1-hour cache
    /// (`usage.cache_creation.ephemeral_1h_input_tokens`), when the response gave the 5m/1h
    /// split and the counts are its top level's: what prices its writes (the rest at the
    /// 5-minute price). Absent: priced by `cache_ttl`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_1h: Option<u64>,
    /// Bytes of the response's `thinking` text.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub thinking_bytes: u64,
    /// The response's `usage.output_tokens_details.thinking_tokens`, when written and not 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_tokens: Option<u64>,
    /// True when the request carried tool results (it continues a tool loop).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub carries_tool_results: bool,
    /// Records seen since the previous request of the same chain that mark a resume or a
    /// compaction (each kind once, in the order first seen).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<RequestMarker>,
    /// `requestedModel` (2.1.332), when it is not `message.model`: the model as the CLI named it
    /// (`claude-sonnet-4-5-20250929[1m]`), which decides the request's window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_model: Option<String>,
    /// `params.max_tokens` of the `api-request` record before the request (2.1.332): the output
    /// limit the CLI reserves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    /// True when the response wrote `usage.iterations` with a `message` iteration: its context
    /// is that iteration's, and a fall after it is never an advisor round trip.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub iterations: bool,
    /// True when the response's top-level counts were all 0 and the row's counts are the sum
    /// of its `message` and `fallback_message` iterations instead (2.1.226; ccusage counts 0
    /// for such a response).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub counts_from_iterations: bool,
    /// The cache read and write of the iteration the context is from (the last `message`
    /// iteration), when the response wrote `usage.iterations`: the top-level counts are then
    /// the response's, summed over its iterations, and say nothing of that context's cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_cache: Option<ContextCache>,
}

/// The cache counts of one inference.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextCache {
    /// Tokens read from the cache.
    pub read: u64,
    /// Tokens written to the cache.
    pub write: u64,
}

impl UsageRow {
    /// The model the request was for, by the API's name and the CLI's.
    pub fn request_model(&self) -> RequestModel<'_> {
        RequestModel {
            api: self.model.as_deref(),
            requested: self.facts.requested_model.as_deref(),
        }
    }

    /// The cache read and write of the inference whose context is `context_tokens`: the last
    /// `message` iteration's, else the top level's.
    pub fn context_cache(&self) -> ContextCache {
        self.facts.context_cache.unwrap_or(ContextCache {
            read: self.tokens.cache_read_input_tokens,
            write: self.tokens.cache_creation_input_tokens,
        })
    }
}

impl RequestFacts {
    /// The CLI version written ([`ClaudeVersion::find_in`] of `version`).
    pub fn claude_version(&self) -> Option<ClaudeVersion> {
        self.version.as_deref().and_then(ClaudeVersion::find_in)
    }

    /// The response's thinking in tokens: the count the API reported, else an estimate at
    /// 4 bytes per token of the thinking text (0 when there was none, or its text was kept out
    /// of the transcript).
    pub fn thinking_tokens_estimate(&self) -> u64 {
        self.thinking_tokens
            .unwrap_or(self.thinking_bytes / THINKING_BYTES_PER_TOKEN)
    }

    /// Adds what a later version of the same request says (its facts are cumulative, or new).
    pub fn absorb(&mut self, later: &Self) {
        // The first version and maximum written, the last cache lifetime.
        self.version = self.version.take().or_else(|| later.version.clone());
        self.cache_ttl = later.cache_ttl.or(self.cache_ttl);
        self.cache_write_1h = later.cache_write_1h.or(self.cache_write_1h);
        self.thinking_bytes = self.thinking_bytes.max(later.thinking_bytes);
        self.thinking_tokens = self.thinking_tokens.max(later.thinking_tokens);
        self.carries_tool_results |= later.carries_tool_results;
        for marker in &later.markers {
            if !self.markers.contains(marker) {
                self.markers.push(*marker);
            }
        }
        self.max_output_tokens = self.max_output_tokens.or(later.max_output_tokens);
    }
}

/// Bytes of thinking text per token in the thinking estimate (a rough rule for English).
pub const THINKING_BYTES_PER_TOKEN: u64 = 4;

/// A record between two requests that says what happened there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestMarker {
    /// A `user` record with `isCompactSummary: true`: the summary a compaction starts with.
    CompactSummary,
    /// The `<synthetic>` assistant record "No response requested." written when an
    /// interactive session is resumed (up to 2.1.42).
    SyntheticNoResponse,
    /// A `cost-state` record: written when a process ends (2.1.332).
    CostState,
    /// The `/exit` command's records: an interactive process ended (up to 2.1.42).
    ExitCommand,
    /// A `SessionStart:resume` hook's `progress` record.
    SessionStartResume,
    /// `queue-operation` records: a prompt was queued. Every `claude -p` process starts with
    /// them, but a prompt typed while the model works writes them too: not proof of a resume.
    QueueOperation,
}

impl RequestMarker {
    /// Returns true if and only if the marker proves that a new Claude Code process took over
    /// (a resume).
    pub fn proves_resume(self) -> bool {
        matches!(
            self,
            Self::SyntheticNoResponse
                | Self::CostState
                | Self::ExitCommand
                | Self::SessionStartResume
        )
    }
}

/// The cache lifetime a response's writes (or its request) used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr)]
pub enum CacheTtl {
    /// Five minutes (the API's default; API-key sign-ins).
    #[serde(rename = "5m")]
    #[strum(serialize = "5m")]
    FiveMinutes,
    /// One hour (subscription sign-ins, or asked for).
    #[serde(rename = "1h")]
    #[strum(serialize = "1h")]
    OneHour,
}

impl CacheTtl {
    /// The lifetime in seconds.
    pub fn seconds(self) -> u64 {
        match self {
            Self::FiveMinutes => 300,
            Self::OneHour => 3_600,
        }
    }

    /// The text Claude Code and the API write for it.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// A compaction or micro-compaction boundary of the usage log: where it was read, and the
/// boundary. Its line keeps the keys in the order the hooks have always written them.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct BoundaryRow {
    /// The transcript it was read from.
    pub transcript: String,
    /// True inside a sub-agent's chain.
    pub sidechain: bool,
    /// The sub-agent whose chain it is in.
    pub agent_id: Option<String>,
    /// What the record states.
    #[serde(flatten)]
    pub boundary: Boundary,
}

impl Serialize for BoundaryRow {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let boundary = &self.boundary;
        let mut line = serializer.serialize_struct("BoundaryRow", 13)?;
        line.serialize_field("time", &boundary.time)?;
        line.serialize_field("transcript", &self.transcript)?;
        line.serialize_field("uuid", &boundary.uuid)?;
        line.serialize_field("trigger", &boundary.trigger)?;
        line.serialize_field("pre_tokens", &boundary.pre_tokens)?;
        line.serialize_field("post_tokens", &boundary.post_tokens)?;
        line.serialize_field("tokens_saved", &boundary.tokens_saved)?;
        line.serialize_field("sidechain", &self.sidechain)?;
        line.serialize_field("agent_id", &self.agent_id)?;
        boundary.details.serialize_fields(&mut line)?;
        line.end()
    }
}

/// A `compact_boundary` or `microcompact_boundary` record as the transcript states it, read
/// once (`Boundary::of`, beside the record's reader in `transcript/record.rs`): what the usage
/// log's row, the report's compaction and the compaction ledger's entry each hold whole.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Boundary {
    /// The record's `timestamp`.
    pub time: Option<String>,
    /// The record's `uuid`.
    pub uuid: Option<String>,
    /// `auto`, `manual`, or what the CLI wrote.
    pub trigger: Option<Trigger>,
    /// `preTokens`: the context when compaction started.
    pub pre_tokens: Option<u64>,
    /// `postTokens`, written by newer versions.
    pub post_tokens: Option<u64>,
    /// `tokensSaved` (micro-compactions).
    pub tokens_saved: Option<u64>,
    /// What newer CLIs write besides.
    #[serde(flatten)]
    pub details: CompactionDetails,
}

/// What `compactMetadata` says of a compaction besides its trigger and counts (2.1.2xx on).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct CompactionDetails {
    /// `durationMs`: how long the compaction took.
    pub duration_ms: Option<u64>,
    /// `cumulativeDroppedTokens`.
    pub cumulative_dropped_tokens: Option<u64>,
    /// `preservedSegment`: the run of messages kept verbatim (not "left out").
    pub preserved_segment: Option<PreservedSegment>,
    /// `preservedMessages.uuids`: the messages kept verbatim.
    pub preserved_messages: Option<Vec<String>>,
}

impl CompactionDetails {
    /// Adds the details written to the JSON object `fields` is writing, each by its name and
    /// left out when not written (they follow the keys of the object that holds them).
    pub fn serialize_fields<S: SerializeStruct>(&self, fields: &mut S) -> Result<(), S::Error> {
        if let Some(duration) = &self.duration_ms {
            fields.serialize_field("duration_ms", duration)?;
        }
        if let Some(dropped) = &self.cumulative_dropped_tokens {
            fields.serialize_field("cumulative_dropped_tokens", dropped)?;
        }
        if let Some(segment) = &self.preserved_segment {
            fields.serialize_field("preserved_segment", segment)?;
        }
        if let Some(messages) = &self.preserved_messages {
            fields.serialize_field("preserved_messages", messages)?;
        }
        Ok(())
    }
}

/// `compactMetadata.preservedSegment`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreservedSegment {
    /// `headUuid`: its first message.
    pub head_uuid: Option<String>,
    /// `anchorUuid`: the message the summary is attached to.
    pub anchor_uuid: Option<String>,
    /// `tailUuid`: its last message.
    pub tail_uuid: Option<String>,
}

/// A transcript read again from its start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct RescanRow {
    /// When (RFC 3339, UTC).
    pub time: String,
    pub transcript: String,
    pub reason: RescanReason,
}

/// Why a transcript was read again from its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RescanReason {
    /// The transcript is shorter than the cursor's offset.
    Shrank,
    /// The bytes before the cursor changed (the file was rewritten).
    FingerprintChanged,
    /// The cursor file could not be read.
    CursorUnreadable,
}

/// Lines of a transcript one run could not read and skipped (each is counted once, by the run
/// that passed it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct SkippedLinesRow {
    pub transcript: String,
    /// Lines that are not a JSON object, or whose usage fields have an unexpected type.
    #[serde(default)]
    pub unreadable: u64,
    /// Lines longer than the reader's limit (64 MiB), passed without being read.
    #[serde(default)]
    pub overlong: u64,
}

/// Where a transcript's session ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct SourceRow {
    pub transcript: String,
    /// The first `cwd` in it.
    pub cwd: Option<String>,
    /// The Claude Code version that wrote that line.
    pub version: Option<String>,
}

/// The longest title kept, in characters (a longer one is cut): enough for any title a person
/// or the CLI gives, small enough for the cursor and the gauge.
pub const MAX_TITLE_CHARS: usize = 200;

/// What a main transcript says of its session itself (2.1.2xx metadata), each fact the latest
/// the transcript wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionFacts {
    /// The last `custom-title` record's `customTitle`: the name a person gave the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_title: Option<String>,
    /// The last `ai-title` record's `aiTitle`: the title the CLI had a model write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ai_title: Option<String>,
    /// The last `relocated` record's `relocatedCwd`: the working folder the session moved to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relocated_cwd: Option<String>,
    /// The latest main-chain `sessionKind` (`bg`: a background session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_kind: Option<String>,
    /// The latest main-chain `entrypoint` (`cli`, `claude-desktop`, `sdk-cli`, `sdk-ts`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entrypoint: Option<String>,
}

impl SessionFacts {
    /// True when the transcript said none of them.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// The session's title: the name a person gave it, else the CLI's title (as the CLI and
    /// the Agent SDK pick it).
    pub fn title(&self) -> Option<&str> {
        self.custom_title.as_deref().or(self.ai_title.as_deref())
    }

    /// Adds what `later` says (a fact it does not say stays as it was).
    pub fn absorb(&mut self, later: &Self) {
        let fields = [
            (&mut self.custom_title, &later.custom_title),
            (&mut self.ai_title, &later.ai_title),
            (&mut self.relocated_cwd, &later.relocated_cwd),
            (&mut self.session_kind, &later.session_kind),
            (&mut self.entrypoint, &later.entrypoint),
        ];
        for (known, later) in fields {
            if later.is_some() {
                known.clone_from(later);
            }
        }
    }
}

/// A title cut to [`MAX_TITLE_CHARS`] characters.
pub fn bounded_title(title: &str) -> String {
    match title.char_indices().nth(MAX_TITLE_CHARS) {
        Some((end, _)) => title[..end].to_owned(),
        None => title.to_owned(),
    }
}

/// [`SessionFacts`] of one main transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct SessionRow {
    pub transcript: String,
    /// What it says (every fact known so far, not only the one that changed).
    #[serde(flatten)]
    pub facts: SessionFacts,
}

impl UsageRecord {
    /// The transcript the record came from.
    pub fn transcript(&self) -> &str {
        match self {
            Self::Request(row) => &row.transcript,
            Self::CompactBoundary(row) | Self::MicrocompactBoundary(row) => &row.transcript,
            Self::Rescan(row) => &row.transcript,
            Self::Source(row) => &row.transcript,
            Self::Session(row) => &row.transcript,
            Self::SkippedLines(row) => &row.transcript,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::record::Record;

    /// A boundary read from its record is written to the usage log with the keys in the order
    /// the hooks have always written them (the row's own between the boundary's, the details
    /// last and only when written), and read back whole.
    #[test]
    fn a_boundary_row_keeps_its_line_and_reads_back_whole() {
        let lines = [
            (
                r#"{"type":"system","subtype":"compact_boundary","timestamp":"2026-01-01T00:00:00Z","uuid":"b","compactMetadata":{"trigger":"auto","preTokens":170000,"postTokens":2638,"durationMs":61,"cumulativeDroppedTokens":167362,"preservedSegment":{"headUuid":"h","tailUuid":"t"},"preservedMessages":{"uuids":["h","t"]}}}"#,
                r#"{"kind":"compact_boundary","time":"2026-01-01T00:00:00Z","transcript":"/t.jsonl","uuid":"b","trigger":"auto","pre_tokens":170000,"post_tokens":2638,"tokens_saved":null,"sidechain":false,"agent_id":null,"duration_ms":61,"cumulative_dropped_tokens":167362,"preserved_segment":{"head_uuid":"h","anchor_uuid":null,"tail_uuid":"t"},"preserved_messages":["h","t"]}"#,
            ),
            (
                r#"{"type":"system","subtype":"compact_boundary","uuid":"m"}"#,
                r#"{"kind":"compact_boundary","time":null,"transcript":"/t.jsonl","uuid":"m","trigger":null,"pre_tokens":null,"post_tokens":null,"tokens_saved":null,"sidechain":true,"agent_id":"a1"}"#,
            ),
        ];
        for (number, (line, written)) in lines.into_iter().enumerate() {
            let record = Record::parse(line.as_bytes()).unwrap();
            let (_, metadata) = record.boundary().unwrap();
            let row = UsageRecord::CompactBoundary(BoundaryRow {
                transcript: "/t.jsonl".into(),
                sidechain: number == 1,
                agent_id: (number == 1).then(|| "a1".into()),
                boundary: Boundary::of(&record, metadata),
            });
            assert_eq!(serde_json::to_string(&row).unwrap(), written);
            assert_eq!(serde_json::from_str::<UsageRecord>(written).unwrap(), row);
        }
        // A line of an older log, without the keys written later, reads as a boundary that
        // states nothing of them.
        let old = r#"{"kind":"compact_boundary","transcript":"/t.jsonl","sidechain":false}"#;
        let UsageRecord::CompactBoundary(row) = serde_json::from_str(old).unwrap() else {
            panic!("not a boundary: {old}");
        };
        assert_eq!(row.boundary, Boundary::default());
    }
}
