//! Context falls between main-chain requests, as facts: what each one was (its class, the basis
//! and evidence of that class), the facts around it, and the main chain they are found in. The
//! rules that decide a class are in `classify.rs`.

use std::borrow::Cow;

use serde::Serialize;

use super::log::{SessionLog, Timed, TimelineItem};
use crate::time::Time;
use ctxhooks_shared::store::trigger::Trigger;
use ctxhooks_shared::store::usage_record::{BoundaryRow, CacheTtl, RequestMarker, UsageRow};
use ctxhooks_shared::version::ClaudeVersion;

/// Default: a fall smaller than this is noise, not a drop.
pub const DEFAULT_MIN_DROP: u64 = 1_000;

/// The least a client-side micro-compaction removes (CLIs up to 2.1.42 clear old tool results
/// only when that saves at least this much).
pub const MICRO_COMPACTION_MIN_SAVING: u64 = 20_000;

/// A fall to at most this share of the context before (a third) has the shape of a compaction:
/// the conversation replaced by a summary. Real compactions fell to 0.11–0.32 of the context
/// before; micro-compactions to 0.71–0.75, a model switch to 0.39, an advisor round trip to
/// about 0.45.
pub const COMPACTION_SHAPE_DIVISOR: u64 = 3;

/// The first version known to send a new model no thinking another model wrote (reported for
/// 2.1.204, claude-code-router#1629; seen in 2.1.332's request bodies).
pub const THINKING_STRIPPED_ON_SWITCH: ClaudeVersion = ClaudeVersion(2, 1, 204);

/// What a drop was, in JSON as the snake-case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::Display)]
#[strum(serialize_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum DropClass {
    /// The conversation was summarized.
    Compaction,
    /// Old tool results were cleared in place.
    MicroCompaction,
    /// The request after reports no tokens at all: no measurement, no real fall.
    NoUsage,
    /// The model changed between the two requests.
    ModelSwitch,
    /// The request before called the advisor, whose round trip inflated it.
    AdvisorRoundTrip,
    /// A new Claude Code process resumed the session here (does not explain the amount).
    Resume,
    /// The CLI version changed here (does not explain the amount).
    CliUpgrade,
    /// The prompt cache expired here (does not explain the amount).
    IdleGap,
    /// A new prompt, and the thinking of the turn before (no longer counted by the API) covers
    /// the fall.
    ThinkingDropped,
    /// None of the rules applied; the evidence says why.
    Undecided,
}

/// Whether the class rests on a record in the transcript or on the shape of the numbers.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::Display,
)]
#[strum(serialize_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// A record in the transcript says so (a boundary, a summary, a model name, advisor blocks,
    /// a resume record, a version, the timestamps). The default: a compaction is built as one
    /// from its record, and marked heuristic when a drop's shape is all there is.
    #[default]
    Structural,
    /// The numbers have the shape of a known CLI behaviour, and no record says so.
    Heuristic,
    /// Nothing explains the fall (`undecided`).
    None,
}

/// How sure a heuristic compaction is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    /// The fall has a compaction's shape and came from the CLI's compaction zone (at least its
    /// warning level, T − 20,000): used for the floor, like a structural one.
    High,
    /// The shape only: not used for any estimate.
    Low,
}

/// What made the context fall, when the class itself does not explain the amount.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum FallCause {
    /// The transcript does not say (system prompt or tools changed with the new process, thinking
    /// not counted, or something else).
    Unknown,
    /// The thinking of the turn before covers the fall, and this CLI does not send every earlier
    /// thinking block: likely the API no longer counting it.
    ThinkingLikely {
        /// The estimate of that thinking, in tokens.
        thinking_tokens: u64,
    },
}

/// Why a fall stays undecided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum UndecidedReason {
    /// Mid tool loop, but below the level where the CLI clears tool results.
    MidLoopBelowWarningLevel {
        /// The warning level, T − 20,000, of the request's CLI.
        warning_level: u64,
    },
    /// Mid tool loop, but smaller than any micro-compaction.
    MidLoopTooSmall,
    /// Mid tool loop, from a CLI with no client-side micro-compaction (2.1.332 on).
    MidLoopNoMicroCompaction { version: String },
    /// The log does not say which CLI version sent the requests, so what that version does at
    /// this point (clear tool results, send earlier thinking) is unknown.
    VersionUnknown,
    /// Mid tool loop, and the CLI compacts this model only when the API refuses a prompt.
    MidLoopNoProactiveCompaction,
    /// At a new prompt, but the thinking of the turn before does not cover the fall.
    ThinkingDoesNotCover {
        /// That thinking, estimated in tokens.
        thinking_tokens: u64,
    },
    /// At a new prompt, from a CLI that sends every earlier thinking block (2.1.332 on).
    ThinkingKept { version: String },
    /// At a new prompt, but the cache was cold within its lifetime: the request's prefix changed.
    PrefixChanged,
    /// Neither a prompt nor a tool result came before the request.
    NoTurnBoundary,
}

/// What a drop's class rests on: the facts, for the text and JSON renderers to put in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum DropEvidence {
    /// A `compact_boundary` record lies between the two requests.
    CompactBoundary {
        /// The boundary's time.
        time: Option<Time>,
        /// Its `trigger`.
        trigger: Option<Trigger>,
        /// Its `preTokens`.
        pre_tokens: Option<u64>,
    },
    /// A compact summary (`isCompactSummary`) came before the request after, with no boundary.
    CompactSummary,
    /// A `microcompact_boundary` record lies between the two requests.
    MicrocompactBoundary {
        /// Its `trigger`.
        trigger: Option<Trigger>,
        /// Its `preTokens` (the cleared tool results' estimate, not the context).
        pre_tokens: Option<u64>,
        /// Its `tokensSaved`.
        tokens_saved: Option<u64>,
    },
    /// The request after reports no tokens.
    NoUsage,
    /// `message.model` differs between the two requests.
    ModelSwitch {
        /// The model before.
        from: String,
        /// The model after.
        to: String,
        /// Thinking written by other models since the last compaction, estimated in tokens.
        other_model_thinking: u64,
        /// True when the CLI after the switch is known not to send thinking another model wrote
        /// (2.1.332, and reported for 2.1.204); for older CLIs the transcript does not say.
        strips_other_thinking: bool,
    },
    /// The request before called the advisor (advisor blocks or an advisor iteration).
    AdvisorCall,
    /// No record, but the shape of a client-side micro-compaction.
    UnloggedMicroCompaction {
        /// The CLI version.
        version: String,
        /// Its warning level (T − 20,000), from which it clears old tool results.
        warning_level: u64,
    },
    /// No record, but the shape of a compaction: a fall to at most a third.
    CompactionShape {
        /// The CLI's warning level (T − 20,000), when known.
        warning_level: Option<u64>,
    },
    /// The CLI version changed between the two requests.
    CliUpgrade {
        /// The version before.
        from: String,
        /// The version after.
        to: String,
        /// What made the context fall.
        cause: FallCause,
    },
    /// Records between the two requests prove a new process took over.
    Resume {
        /// The records.
        markers: Vec<RequestMarker>,
        /// What made the context fall.
        cause: FallCause,
    },
    /// The time between the two requests exceeds the cache lifetime, and the request after read
    /// little from the cache.
    IdleGap {
        /// The time between them.
        gap_seconds: u64,
        /// The cache lifetime.
        ttl: CacheTtl,
        /// False when no request of the log says its lifetime (the API's default is assumed).
        ttl_known: bool,
        /// What made the context fall.
        cause: FallCause,
    },
    /// A new prompt, the same model and version, a warm cache, and the thinking of the turn
    /// before covers the fall.
    ThinkingDropped {
        /// That thinking, estimated in tokens.
        thinking_tokens: u64,
    },
    /// None of the rules applied.
    Undecided(UndecidedReason),
}

/// What came before the request after a fall.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Opening {
    /// A prompt a person typed (a new turn).
    Prompt,
    /// Tool results and no prompt: the request continues a tool loop.
    ToolResults,
    #[default]
    Other,
}

/// What the log says about the two requests around a fall, whatever its class.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DropFacts {
    /// Seconds between the two requests' times.
    pub gap_seconds: Option<u64>,
    /// What came before the request after.
    pub opened_by: Opening,
    /// The CLI version of the request before.
    pub version_before: Option<String>,
    /// The CLI version of the request after.
    pub version_after: Option<String>,
    pub model_before: Option<String>,
    pub model_after: Option<String>,
    /// Cache read of the request after.
    pub cache_read_after: u64,
    /// Cache write of the request after.
    pub cache_write_after: u64,
    /// The request after read less than half of its context from the cache.
    pub cache_cold_after: bool,
    /// The cache lifetime last known before the fall.
    pub cache_ttl: Option<CacheTtl>,
    /// Records between the two requests that mark a resume or a compaction.
    pub markers: Vec<RequestMarker>,
    /// The thinking of the turn before the request after, estimated in tokens.
    pub thinking_before: u64,
    /// The request before called the advisor.
    pub advisor_before: bool,
}

/// One fall of at least the minimum between two main-chain requests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextDrop {
    /// The request before, numbered from 1 among main-chain requests (as in the text).
    pub request_before: usize,
    pub request_after: usize,
    /// Time of the request after.
    pub time: Option<Time>,
    /// Context of the request before.
    pub context_before: u64,
    /// Context of the request after.
    pub context_after: u64,
    pub class: DropClass,
    /// What the class rests on.
    pub basis: Basis,
    /// For a heuristic compaction: how sure it is.
    pub confidence: Option<Confidence>,
    /// True when the class accounts for the amount that fell; false for the classes that only
    /// say what happened there (`resume`, `cli_upgrade`, `idle_gap`) and for `undecided`.
    pub explains_fall: bool,
    pub evidence: DropEvidence,
    /// The facts around the fall.
    pub facts: DropFacts,
    /// The compaction boundary between the two requests, if any.
    pub boundary: Option<BoundaryRow>,
}

impl ContextDrop {
    /// Tokens that fell.
    pub fn fall(&self) -> u64 {
        self.context_before.saturating_sub(self.context_after)
    }
}

/// The main chain: its requests, and the boundaries just before each request and after the last.
#[derive(Debug, Clone, Default)]
pub struct MainChain<'log> {
    /// Main-chain requests in order, borrowed from the log (copied only when a version is
    /// filled in).
    pub requests: Vec<Cow<'log, UsageRow>>,
    /// `times[i]`: request `i`'s time, read once.
    pub times: Vec<Option<Time>>,
    /// `boundaries[i]`: compaction and micro-compaction boundaries between request `i - 1` and
    /// request `i` (`true` for a full compaction); one list more than requests, the last one
    /// after the last request.
    pub boundaries: Vec<Vec<(bool, Timed<BoundaryRow>)>>,
}

impl<'log> MainChain<'log> {
    /// The main chain of a session log (sidechain requests and boundaries left out). A log whose
    /// rows name no CLI version (written before rows recorded it) takes the version of its
    /// transcript's first line for every row.
    pub fn of(log: &'log SessionLog) -> Self {
        let mut chain = Self::default();
        let mut pending = Vec::new();
        for item in &log.timeline {
            match item {
                TimelineItem::Request(request) if !request.row.sidechain => {
                    chain.requests.push(Cow::Borrowed(&request.row));
                    chain.times.push(request.time.clone());
                    chain.boundaries.push(std::mem::take(&mut pending));
                }
                TimelineItem::Compaction(boundary) if !boundary.row.sidechain => {
                    pending.push((true, boundary.clone()));
                }
                TimelineItem::MicroCompaction(boundary) if !boundary.row.sidechain => {
                    pending.push((false, boundary.clone()));
                }
                _ => {}
            }
        }
        chain.boundaries.push(pending);
        if chain.requests.iter().all(|row| row.facts.version.is_none()) {
            for row in &mut chain.requests {
                let source = log.source_of(&row.transcript);
                row.to_mut().facts.version = source.and_then(|source| source.version.clone());
            }
        }
        chain
    }

    /// Returns true if and only if a full compaction boundary lies between requests `start`
    /// and `end` (indexes), or a compact summary came before one of `start + 1 ..= end`.
    pub fn compaction_between(&self, start: usize, end: usize) -> bool {
        (start + 1..=end).any(|index| {
            self.boundaries[index].iter().any(|(full, _)| *full)
                || self.requests[index]
                    .facts
                    .markers
                    .contains(&RequestMarker::CompactSummary)
        })
    }
}
