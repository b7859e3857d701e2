//! The fleet export's records: one flat JSON line per request, compaction, drop, session,
//! snapshot, tool event and provenance verdict, each with the same envelope (`schema`, `kind`,
//! `id`, `host`, `project`, `session`, `time`, `source`). Their JSON Schemas are in
//! `docs/schema/`; `docs/fleet.md` documents them.

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use crate::facts::compactions::Compaction;
use crate::facts::drops::ContextDrop;
use crate::facts::estimates::Derivation;
use crate::facts::log::SessionLog;
use crate::facts::report::SessionReport;
use crate::facts::summary::SessionSummary;
use crate::facts::tally::{CostTally, request_cost};
use crate::output::{Schema, fields_by_name};
use crate::prices::Prices;
use crate::provenance::verdict::{ToolState, Verdict};
use crate::time::Time;
use crate::usage::text::drop_evidence_text;
use ctxhooks_shared::store::sidecar::ToolEventKind;
use ctxhooks_shared::store::trigger::Trigger;
use ctxhooks_shared::store::usage_record::{ModelUsage, TokenUsage, UsageRow};

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

/// What every record carries, after its layout's version (`schema`, written by
/// [`crate::output::Versioned`]).
#[derive(Debug, Clone, Serialize)]
pub struct Envelope<T: Serialize> {
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

/// Every export record's layout has one version.
impl<T: Serialize> Schema for Envelope<T> {
    /// 3: `cost_usd` on requests, `cost` on sessions.
    const SCHEMA: u32 = 3;
}

/// `kind: "request"`: one API request, as the usage log's row gives it.
#[derive(Debug, Clone, Serialize)]
pub struct RequestRecord<'a> {
    /// The transcript it was read from.
    pub transcript: &'a str,
    /// The dedup key (`message.id:requestId`, ...).
    pub key: &'a str,
    /// Its number along the main chain (from 1); null for a sub-agent's.
    pub request: Option<usize>,
    /// True for a sub-agent's request.
    pub sidechain: bool,
    /// The sub-agent's id.
    pub agent_id: Option<&'a str>,
    /// `message.model`.
    pub model: Option<&'a str>,
    /// The CLI version.
    pub version: Option<&'a str>,
    /// Its tokens (output: the largest over the response's lines).
    #[serde(flatten)]
    pub tokens: &'a TokenUsage,
    /// The context: input + cache read + cache write of the last `message` iteration when the
    /// response has `usage.iterations`, else of the top level.
    pub context_tokens: u64,
    /// The first request after a typed prompt.
    pub turn_start: bool,
    /// The response called the advisor.
    pub advisor: bool,
    /// The advisor's own tokens in this response, by model (not in the counts above).
    pub advisor_usage: &'a [ModelUsage],
    /// What the request cost in dollars, its model's tokens and the advisor's each at their
    /// own model's price; `null` when a model in it has no price.
    pub cost_usd: Option<f64>,
}

impl<'a> RequestRecord<'a> {
    /// The record of `row`, the `request`th of the main chain (none for a sub-agent's), priced
    /// by `prices`.
    pub fn of(row: &'a UsageRow, request: Option<usize>, prices: &Prices) -> Self {
        let (spent, all_priced) = request_cost(row, prices);
        Self {
            transcript: &row.transcript,
            key: &row.key,
            request,
            sidechain: row.sidechain,
            agent_id: row.agent_id.as_deref(),
            model: row.model.as_deref(),
            version: row.facts.version.as_deref(),
            tokens: &row.tokens,
            context_tokens: row.context_tokens,
            turn_start: row.turn_start,
            advisor: row.advisor,
            advisor_usage: &row.advisor_usage,
            cost_usd: all_priced.then(|| spent.usd()),
        }
    }
}

/// `kind: "compaction"`: the report's compaction `number` (from 1), with the session's T.
#[derive(Debug, Clone, Copy)]
pub struct CompactionRecord<'a> {
    pub number: usize,
    pub compaction: &'a Compaction,
    /// The session's T, when known.
    pub trigger_tokens: Option<u64>,
}

impl Serialize for CompactionRecord<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let compaction = self.compaction;
        let mut record = serializer.serialize_struct("CompactionRecord", 12)?;
        fields_by_name! { record, self; number }
        fields_by_name! { record, compaction; basis, confidence }
        let boundary = &compaction.boundary;
        fields_by_name! { record, boundary; trigger, pre_tokens, post_tokens }
        record.serialize_field("duration_ms", &boundary.details.duration_ms)?;
        fields_by_name! { record, compaction; context_before, context_after, next_request }
        fields_by_name! { record, self; trigger_tokens }
        fields_by_name! { record, compaction; snapshot }
        record.end()
    }
}

/// `kind: "drop"`: the report's drop: the requests around it, their contexts, its class, and its
/// evidence in words (the envelope gives its time; the session record the facts around it).
#[derive(Debug, Clone, Copy)]
pub struct DropRecord<'a>(pub &'a ContextDrop);

impl Serialize for DropRecord<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let drop = self.0;
        let mut record = serializer.serialize_struct("DropRecord", 9)?;
        fields_by_name! { record, drop; request_before, request_after }
        fields_by_name! { record, drop; context_before, context_after }
        fields_by_name! { record, drop; class, basis, confidence, explains_fall }
        let evidence = drop_evidence_text(&drop.evidence, drop.fall());
        record.serialize_field("evidence", &evidence)?;
        record.end()
    }
}

/// `kind: "session"`: one session's summary as of the export.
#[derive(Debug, Clone, Serialize)]
pub struct SessionRecord<'a> {
    /// The first `cwd` it names.
    pub cwd: Option<&'a str>,
    /// The CLI version of its latest main-chain request.
    pub version: Option<&'a str>,
    /// The time of its first request.
    pub first_time: Option<&'a Time>,
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
    pub tokens: &'a TokenUsage,
    /// The advisor's own tokens, summed by model (not in the sums above).
    pub advisor_usage: &'a [ModelUsage],
    /// What its requests cost, by model (`report`'s `cost`).
    pub cost: &'a CostTally,
}

impl<'a> SessionRecord<'a> {
    /// The record of the session `summary` says, whose usage log is `log` and report `report`.
    pub fn of(summary: &'a SessionSummary, log: &'a SessionLog, report: &'a SessionReport) -> Self {
        let (tally, estimates) = (&report.tally, &report.estimates);
        Self {
            cwd: log.first_cwd(),
            version: summary.version.as_deref(),
            first_time: summary.first_time.as_ref(),
            requests: tally.requests,
            main_requests: tally.main_requests,
            peak_context: report.peak.as_ref().map(|peak| peak.context_tokens),
            trigger_tokens: estimates.trigger.tokens,
            trigger_derivation: estimates.trigger.derivation,
            cap_tokens: estimates.cap.tokens,
            floor_tokens: estimates.floor,
            peak_to_trigger: report.peak_to_trigger(),
            compactions: report.compactions.len(),
            drops: report.drops.len(),
            tokens: &tally.tokens,
            advisor_usage: &tally.advisor,
            cost: &tally.cost,
        }
    }
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
