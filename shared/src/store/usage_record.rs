//! The records of `<state>/sessions/<id>/usage.jsonl`, one JSON object per line, tagged by `kind`.

use serde::{Deserialize, Serialize};

use super::trigger::Trigger;

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
    /// Lines one run skipped.
    SkippedLines(SkippedLinesRow),
}

/// The largest tool result sent to the model just before a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResultNote {
    /// The `tool_use` id it answered.
    pub tool_use_id: String,
    /// The tool's name, when its `tool_use` was read in the same run.
    #[serde(default)]
    pub tool_name: Option<String>,
    /// Bytes of text.
    pub bytes: u64,
}

/// One API request: the usage of one response, counted once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageRow {
    /// The timestamp of the response's first line.
    #[serde(default)]
    pub time: Option<String>,
    /// The transcript the row was read from.
    pub transcript: String,
    /// `message.id:requestId`, else `message:<id>`, `req:<requestId>`, `ref:<requestRef>` or
    /// `line:<uuid>`.
    pub key: String,
    /// `requestId`.
    #[serde(default)]
    pub request_id: Option<String>,
    /// `message.id`.
    #[serde(default)]
    pub message_id: Option<String>,
    /// `message.model`.
    #[serde(default)]
    pub model: Option<String>,
    /// Uncached input tokens.
    pub input_tokens: u64,
    /// Cache writes.
    pub cache_creation_input_tokens: u64,
    /// Cache reads.
    pub cache_read_input_tokens: u64,
    /// The largest `output_tokens` over the response's lines.
    pub output_tokens: u64,
    /// `input + cache_read + cache_creation`: the context the request sent.
    pub context_tokens: u64,
    /// True for sub-agent requests (`isSidechain`, or read from an agent transcript).
    pub sidechain: bool,
    /// The sub-agent's id, when known.
    #[serde(default)]
    pub agent_id: Option<String>,
    /// True when the response called the advisor tool.
    #[serde(default)]
    pub advisor: bool,
    /// Bytes of tool results sent since the previous request of the same chain.
    #[serde(default)]
    pub tool_result_bytes: u64,
    /// The largest of those tool results.
    #[serde(default)]
    pub largest_tool_result: Option<ToolResultNote>,
    /// True for the first request after a person's prompt (a turn's start; the tool loop's
    /// later requests are false). False in logs written before the field existed.
    #[serde(default)]
    pub turn_start: bool,
}

/// A compaction or micro-compaction boundary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoundaryRow {
    /// The boundary line's timestamp.
    #[serde(default)]
    pub time: Option<String>,
    /// The transcript it was read from.
    pub transcript: String,
    /// The boundary line's uuid.
    #[serde(default)]
    pub uuid: Option<String>,
    /// `auto` or `manual`.
    #[serde(default)]
    pub trigger: Option<Trigger>,
    /// `preTokens`: the context when compaction started.
    #[serde(default)]
    pub pre_tokens: Option<u64>,
    /// `postTokens`, written by newer versions.
    #[serde(default)]
    pub post_tokens: Option<u64>,
    /// `tokensSaved` (micro-compactions).
    #[serde(default)]
    pub tokens_saved: Option<u64>,
    /// True inside a sub-agent's chain.
    pub sidechain: bool,
    /// The sub-agent's id, when known.
    #[serde(default)]
    pub agent_id: Option<String>,
}

/// A transcript read again from its start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RescanRow {
    /// When (RFC 3339, UTC).
    pub time: String,
    /// The transcript.
    pub transcript: String,
    /// Why.
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
pub struct SkippedLinesRow {
    /// The transcript.
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
pub struct SourceRow {
    /// The transcript.
    pub transcript: String,
    /// The first `cwd` in it.
    #[serde(default)]
    pub cwd: Option<String>,
    /// The Claude Code version that wrote that line.
    #[serde(default)]
    pub version: Option<String>,
}

impl UsageRecord {
    /// The transcript the record came from.
    pub fn transcript(&self) -> &str {
        match self {
            Self::Request(row) => &row.transcript,
            Self::CompactBoundary(row) | Self::MicrocompactBoundary(row) => &row.transcript,
            Self::Rescan(row) => &row.transcript,
            Self::Source(row) => &row.transcript,
            Self::SkippedLines(row) => &row.transcript,
        }
    }
}
