//! The fleet export's records: one flat JSON line per request, compaction, drop, session,
//! snapshot, tool event and provenance verdict, each with the same envelope (`schema`, `kind`,
//! `id`, `host`, `project`, `session`, `time`, `source`). Their JSON Schemas are in
//! `docs/schema/`; `docs/fleet.md` documents them.

use serde::Serialize;

use crate::facts::drops::{Basis, Confidence};
use crate::facts::estimates::Derivation;
use crate::provenance::verdict::{ToolState, Verdict};
use crate::time::Time;
use ctxhooks_shared::store::sidecar::ToolEventKind;
use ctxhooks_shared::store::trigger::Trigger;
use ctxhooks_shared::store::usage_record::{ModelUsage, TokenUsage};

/// Version of every export record's layout.
pub const EXPORT_SCHEMA: u32 = 2;

/// Where a record's facts were read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A transcript in a projects folder.
    Transcript,
    /// A session's usage log in the state folder (its transcript is gone or elsewhere).
    UsageLog,
    /// The state folder's snapshots and sidecars.
    State,
}

/// What every record carries.
#[derive(Debug, Clone, Serialize)]
pub struct Envelope<T: Serialize> {
    /// [`EXPORT_SCHEMA`].
    pub schema: u32,
    pub kind: &'static str,
    /// A stable id: the same fact exported twice has the same id (for deduplication when
    /// exports overlap).
    pub id: String,
    pub host: String,
    /// The project folder's name (Claude Code's slug of the project's path), when known.
    pub project: Option<String>,
    pub session: String,
    /// When it happened (RFC 3339), when known.
    pub time: Option<Time>,
    pub source: Source,
    /// The kind's own fields.
    #[serde(flatten)]
    pub body: T,
}

/// `kind: "request"`: one API request.
#[derive(Debug, Clone, Serialize)]
pub struct RequestRecord {
    /// The transcript it was read from.
    pub transcript: String,
    /// The dedup key (`message.id:requestId`, ...).
    pub key: String,
    /// Its number along the main chain (from 1); null for a sub-agent's.
    pub request: Option<usize>,
    /// True for a sub-agent's request.
    pub sidechain: bool,
    /// The sub-agent's id.
    pub agent_id: Option<String>,
    /// `message.model`.
    pub model: Option<String>,
    /// The CLI version.
    pub version: Option<String>,
    /// Its tokens (output: the largest over the response's lines).
    #[serde(flatten)]
    pub tokens: TokenUsage,
    /// The context: input + cache read + cache write of the last `message` iteration when the
    /// response has `usage.iterations`, else of the top level.
    pub context_tokens: u64,
    /// The first request after a typed prompt.
    pub turn_start: bool,
    /// The response called the advisor.
    pub advisor: bool,
    /// The advisor's own tokens in this response, by model (not in the counts above).
    pub advisor_usage: Vec<ModelUsage>,
}

/// `kind: "compaction"`: one compaction of the main chain.
#[derive(Debug, Clone, Serialize)]
pub struct CompactionRecord {
    /// Its number in the session (from 1).
    pub number: usize,
    pub basis: Basis,
    /// For a heuristic one.
    pub confidence: Option<Confidence>,
    /// `auto`, `manual`, ...
    pub trigger: Option<Trigger>,
    /// The boundary's `preTokens`.
    pub pre_tokens: Option<u64>,
    /// The boundary's `postTokens`: what the compaction left (newer CLIs).
    pub post_tokens: Option<u64>,
    /// The boundary's `durationMs`: how long the compaction took (newer CLIs).
    pub duration_ms: Option<u64>,
    /// The main-chain context before it.
    pub context_before: Option<u64>,
    /// The main-chain context after it.
    pub context_after: Option<u64>,
    /// The first main-chain request after it (from 1).
    pub next_request: usize,
    /// The session's T, when known.
    pub trigger_tokens: Option<u64>,
    /// The snapshot matched to it.
    pub snapshot: Option<String>,
}

/// `kind: "session"`: one session's summary as of the export.
#[derive(Debug, Clone, Serialize)]
pub struct SessionRecord {
    /// The first `cwd` it names.
    pub cwd: Option<String>,
    /// The CLI version of its latest main-chain request.
    pub version: Option<String>,
    /// The time of its first request.
    pub first_time: Option<Time>,
    pub requests: usize,
    pub main_requests: usize,
    /// The largest main-chain context.
    pub peak_context: Option<u64>,
    /// T, when known.
    pub trigger_tokens: Option<u64>,
    /// How T was derived.
    pub trigger_derivation: Derivation,
    /// The cap W.
    pub cap_tokens: u64,
    pub floor_tokens: Option<u64>,
    /// Peak / T.
    pub peak_to_trigger: Option<f64>,
    pub compactions: usize,
    pub drops: usize,
    /// Its requests' tokens, summed.
    #[serde(flatten)]
    pub tokens: TokenUsage,
    /// The advisor's own tokens, summed by model (not in the sums above).
    pub advisor_usage: Vec<ModelUsage>,
}

/// `kind: "snapshot"`: one transcript snapshot taken before a compaction.
#[derive(Debug, Clone, Serialize)]
pub struct SnapshotRecord {
    /// Its folder's name.
    pub name: String,
    /// What started the compaction.
    pub trigger: Trigger,
    /// The main transcript's size.
    pub size: u64,
    pub files: usize,
}

/// `kind: "tool_event"`: one tool hook event from the sidecar.
#[derive(Debug, Clone, Serialize)]
pub struct ToolEventRecord {
    /// started, completed or failed.
    pub event: ToolEventKind,
    /// The call's id.
    pub tool_use_id: Option<String>,
    pub tool_name: Option<String>,
    /// The hook's `duration_ms`.
    pub duration_ms: Option<u64>,
    /// The hook's `is_interrupt`.
    pub is_interrupt: Option<bool>,
    /// Bash's `interrupted`.
    pub interrupted: Option<bool>,
    /// The sub-agent's id.
    pub agent_id: Option<String>,
}

/// `kind: "provenance"`: who cut a tool call off, and whether it ran.
#[derive(Debug, Clone, Serialize)]
pub struct ProvenanceRecord {
    /// The call's id.
    pub tool_use_id: String,
    pub tool_name: Option<String>,
    /// `runtime`, `user`, `permission_denied` or `unknown`.
    pub verdict: Verdict,
    /// `not_started`, `started`, `completed`, `failed` or `unknown`.
    pub state: ToolState,
    /// The runtime mark's reason, when one covers it.
    pub mark_reason: Option<String>,
    /// The runtime mark's source.
    pub mark_source: Option<String>,
}
