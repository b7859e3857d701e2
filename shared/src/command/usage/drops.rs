//! Context falls between main-chain requests and what each one was, evidence first: a record in
//! the transcript (a compaction or micro-compaction boundary, a compact summary, a changed
//! model, advisor blocks), then the shape of a known CLI behaviour (an unlogged micro-compaction,
//! a compaction without its record), then what happened at the fall without explaining its size
//! (a resume, a CLI upgrade, an expired cache), then earlier thinking no longer counted. What
//! none of these covers is `undecided`, with the reason. A cache write never decides a class: a
//! real compaction wrote as little as 14,893 tokens, and a cold cache rewrites everything.

use serde::Serialize;

use super::log::{SessionLog, TimelineItem};
use super::threshold::{CliVersion, ThresholdInputs, rule_trigger};
use crate::store::clock::parse_timestamp_ms;
use crate::store::trigger::Trigger;
use crate::store::usage_record::{BoundaryRow, CacheTtl, RequestMarker, UsageRow};

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
pub const THINKING_STRIPPED_ON_SWITCH: CliVersion = CliVersion(2, 1, 204);

/// What a drop was, in JSON as the snake-case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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

impl DropClass {
    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Compaction => "compaction",
            Self::MicroCompaction => "micro_compaction",
            Self::NoUsage => "no_usage",
            Self::ModelSwitch => "model_switch",
            Self::AdvisorRoundTrip => "advisor_round_trip",
            Self::Resume => "resume",
            Self::CliUpgrade => "cli_upgrade",
            Self::IdleGap => "idle_gap",
            Self::ThinkingDropped => "thinking_dropped",
            Self::Undecided => "undecided",
        }
    }
}

/// Whether the class rests on a record in the transcript or on the shape of the numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// A record in the transcript says so (a boundary, a summary, a model name, advisor blocks,
    /// a resume record, a version, the timestamps).
    Structural,
    /// The numbers have the shape of a known CLI behaviour, and no record says so.
    Heuristic,
    /// Nothing explains the fall (`undecided`).
    None,
}

impl Basis {
    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Structural => "structural",
            Self::Heuristic => "heuristic",
            Self::None => "none",
        }
    }
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
    MidLoopNoMicroCompaction {
        /// The version.
        version: String,
    },
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
    ThinkingKept {
        /// The version.
        version: String,
    },
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
        time: Option<String>,
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
    /// Neither.
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
    /// The model before.
    pub model_before: Option<String>,
    /// The model after.
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
    /// The request after.
    pub request_after: usize,
    /// Time of the request after.
    pub time: Option<String>,
    /// Context of the request before.
    pub context_before: u64,
    /// Context of the request after.
    pub context_after: u64,
    /// The class.
    pub class: DropClass,
    /// What the class rests on.
    pub basis: Basis,
    /// For a heuristic compaction: how sure it is.
    pub confidence: Option<Confidence>,
    /// True when the class accounts for the amount that fell; false for the classes that only
    /// say what happened there (`resume`, `cli_upgrade`, `idle_gap`) and for `undecided`.
    pub explains_fall: bool,
    /// The evidence.
    pub evidence: DropEvidence,
    /// The facts around the fall.
    pub facts: DropFacts,
    /// The compaction boundary between the two requests, if any.
    pub boundary: Option<BoundaryRow>,
}

impl ContextDrop {
    /// The 0-based main-chain index of the request after.
    pub fn after_index(&self) -> usize {
        self.request_after - 1
    }

    /// Tokens that fell.
    pub fn fall(&self) -> u64 {
        self.context_before.saturating_sub(self.context_after)
    }
}

/// The main chain: its requests, and the boundaries just before each request.
#[derive(Debug, Clone, Default)]
pub struct MainChain {
    /// Main-chain requests in order.
    pub requests: Vec<UsageRow>,
    /// `boundaries[i]`: compaction and micro-compaction boundaries between request `i - 1` and
    /// request `i` (`true` for a full compaction).
    pub boundaries: Vec<Vec<(bool, BoundaryRow)>>,
    /// Boundaries after the last request.
    pub trailing_boundaries: Vec<(bool, BoundaryRow)>,
}

impl MainChain {
    /// The main chain of a session log (sidechain requests and boundaries left out). A log whose
    /// rows name no CLI version (written before rows recorded it) takes the version of its
    /// transcript's first line for every row.
    pub fn of(log: &SessionLog) -> Self {
        let mut chain = Self::default();
        let mut pending = Vec::new();
        for item in &log.timeline {
            match item {
                TimelineItem::Request(row) if !row.sidechain => {
                    chain.requests.push(row.clone());
                    chain.boundaries.push(std::mem::take(&mut pending));
                }
                TimelineItem::Compaction(row) if !row.sidechain => {
                    pending.push((true, row.clone()));
                }
                TimelineItem::MicroCompaction(row) if !row.sidechain => {
                    pending.push((false, row.clone()));
                }
                _ => {}
            }
        }
        chain.trailing_boundaries = pending;
        if chain.requests.iter().all(|row| row.facts.version.is_none()) {
            for row in &mut chain.requests {
                row.facts.version = log
                    .sources
                    .iter()
                    .find(|source| source.transcript == row.transcript)
                    .and_then(|source| source.version.clone());
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

/// Seconds from `before` to `after` (RFC 3339), when both read and are in order.
pub fn seconds_between(before: Option<&str>, after: Option<&str>) -> Option<u64> {
    let before = parse_timestamp_ms(before?)?;
    let after = parse_timestamp_ms(after?)?;
    after.checked_sub(before).map(|ms| ms / 1_000)
}

/// Everything the classification needs besides the chain.
#[derive(Debug, Clone, Copy)]
pub struct Classifier<'inputs> {
    /// Smallest fall counted as a drop.
    pub min_drop: u64,
    /// What the report knows of the window, for the CLI's rule.
    pub inputs: &'inputs ThresholdInputs,
}

/// The rows between two real requests, merged: what came before the request after.
struct Between<'chain> {
    before: usize,
    after: usize,
    chain: &'chain MainChain,
}

impl Between<'_> {
    fn rows(&self) -> &[UsageRow] {
        &self.chain.requests[self.before + 1..=self.after]
    }

    fn boundaries(&self) -> impl Iterator<Item = &(bool, BoundaryRow)> {
        self.chain.boundaries[self.before + 1..=self.after]
            .iter()
            .flatten()
    }

    fn markers(&self) -> Vec<RequestMarker> {
        let mut markers = Vec::new();
        for row in self.rows() {
            for marker in &row.facts.markers {
                if !markers.contains(marker) {
                    markers.push(*marker);
                }
            }
        }
        markers
    }
}

/// The thinking of the turn that ends at request `before`: from its last turn start (or the
/// last compaction) up to it, estimated in tokens.
fn turn_thinking(chain: &MainChain, before: usize) -> u64 {
    let mut total = 0;
    for index in (0..=before).rev() {
        let row = &chain.requests[index];
        total += row.facts.thinking_tokens_estimate();
        if row.turn_start || chain.boundaries[index].iter().any(|(full, _)| *full) {
            break;
        }
    }
    total
}

/// Thinking written since the last compaction by other models than `model`.
fn other_model_thinking(chain: &MainChain, before: usize, model: &str) -> u64 {
    let mut total = 0;
    for index in (0..=before).rev() {
        let row = &chain.requests[index];
        if row.model.as_deref().is_some_and(|other| other != model) {
            total += row.facts.thinking_tokens_estimate();
        }
        if chain.boundaries[index].iter().any(|(full, _)| *full) {
            break;
        }
    }
    total
}

/// The cache lifetime last known at or before request `before`.
fn known_ttl(chain: &MainChain, before: usize) -> Option<CacheTtl> {
    chain.requests[..=before]
        .iter()
        .rev()
        .find_map(|row| row.facts.cache_ttl)
}

/// The facts around the fall from `before` to `after`.
fn facts_of(chain: &MainChain, between: &Between<'_>) -> DropFacts {
    let before = &chain.requests[between.before];
    let after = &chain.requests[between.after];
    DropFacts {
        gap_seconds: seconds_between(before.time.as_deref(), after.time.as_deref()),
        opened_by: if between.rows().iter().any(|row| row.turn_start) {
            Opening::Prompt
        } else if between
            .rows()
            .iter()
            .any(|row| row.facts.carries_tool_results)
        {
            Opening::ToolResults
        } else {
            Opening::Other
        },
        version_before: before.facts.version.clone(),
        version_after: after.facts.version.clone(),
        model_before: before.model.clone(),
        model_after: after.model.clone(),
        cache_read_after: after.cache_read_input_tokens,
        cache_write_after: after.cache_creation_input_tokens,
        cache_cold_after: after.cache_read_input_tokens.saturating_mul(2) < after.context_tokens,
        cache_ttl: known_ttl(chain, between.before),
        markers: between.markers(),
        thinking_before: turn_thinking(chain, between.before),
        advisor_before: before.advisor,
    }
}

/// Returns true if and only if `version` predates the CLI that sends every earlier thinking
/// block; unknown versions are not assumed to.
fn drops_earlier_thinking(version: Option<&str>) -> bool {
    version
        .and_then(CliVersion::parse)
        .is_some_and(|version| version < CliVersion::CURRENT)
}

/// What made the context fall at a resume, an upgrade or an idle gap.
fn cause_of(facts: &DropFacts, fall: u64) -> FallCause {
    if facts.opened_by == Opening::Prompt
        && facts.thinking_before >= fall
        && drops_earlier_thinking(facts.version_before.as_deref())
    {
        FallCause::ThinkingLikely {
            thinking_tokens: facts.thinking_before,
        }
    } else {
        FallCause::Unknown
    }
}

/// One classified drop, before it is placed.
struct Judgement {
    class: DropClass,
    basis: Basis,
    confidence: Option<Confidence>,
    explains_fall: bool,
    evidence: DropEvidence,
    boundary: Option<BoundaryRow>,
}

impl Judgement {
    fn new(class: DropClass, basis: Basis, evidence: DropEvidence) -> Self {
        let explains_fall = !matches!(
            class,
            DropClass::Resume | DropClass::CliUpgrade | DropClass::IdleGap | DropClass::Undecided
        );
        Self {
            class,
            basis,
            confidence: None,
            explains_fall,
            evidence,
            boundary: None,
        }
    }
}

/// Classifies the fall from request `between.before` to `between.after`.
fn judge(classifier: Classifier<'_>, between: &Between<'_>, facts: &DropFacts) -> Judgement {
    let chain = between.chain;
    let before = &chain.requests[between.before];
    let after = &chain.requests[between.after];
    let fall = before.context_tokens.saturating_sub(after.context_tokens);
    // 1. Records: a compaction, a summary, a micro-compaction.
    if let Some((_, boundary)) = between.boundaries().find(|(full, _)| *full) {
        let mut judgement = Judgement::new(
            DropClass::Compaction,
            Basis::Structural,
            DropEvidence::CompactBoundary {
                time: boundary.time.clone(),
                trigger: boundary.trigger.clone(),
                pre_tokens: boundary.pre_tokens,
            },
        );
        judgement.boundary = Some(boundary.clone());
        return judgement;
    }
    if facts.markers.contains(&RequestMarker::CompactSummary) {
        return Judgement::new(
            DropClass::Compaction,
            Basis::Structural,
            DropEvidence::CompactSummary,
        );
    }
    if let Some((_, boundary)) = between.boundaries().find(|(full, _)| !*full) {
        let mut judgement = Judgement::new(
            DropClass::MicroCompaction,
            Basis::Structural,
            DropEvidence::MicrocompactBoundary {
                trigger: boundary.trigger.clone(),
                pre_tokens: boundary.pre_tokens,
                tokens_saved: boundary.tokens_saved,
            },
        );
        judgement.boundary = Some(boundary.clone());
        return judgement;
    }
    if after.context_tokens == 0 {
        return Judgement::new(DropClass::NoUsage, Basis::Structural, DropEvidence::NoUsage);
    }
    // 2. Other records that change what is sent: the model, the advisor.
    if let (Some(from), Some(to)) = (&before.model, &after.model)
        && from != to
    {
        return Judgement::new(
            DropClass::ModelSwitch,
            Basis::Structural,
            DropEvidence::ModelSwitch {
                from: from.clone(),
                to: to.clone(),
                other_model_thinking: other_model_thinking(chain, between.before, to),
                strips_other_thinking: after
                    .facts
                    .version
                    .as_deref()
                    .and_then(CliVersion::parse)
                    .is_some_and(|version| version >= THINKING_STRIPPED_ON_SWITCH),
            },
        );
    }
    if before.advisor {
        return Judgement::new(
            DropClass::AdvisorRoundTrip,
            Basis::Structural,
            DropEvidence::AdvisorCall,
        );
    }
    // 3. Shapes of what a CLI does without a record.
    let rule = rule_trigger(
        before.facts.version.as_deref(),
        before.model.as_deref(),
        before.facts.max_output_tokens,
        classifier.inputs,
    );
    let version = CliVersion::parse(before.facts.version.as_deref().unwrap_or_default());
    let same_version = before.facts.version == after.facts.version;
    let mid_loop = facts.opened_by == Opening::ToolResults;
    if mid_loop
        && same_version
        && fall >= MICRO_COMPACTION_MIN_SAVING
        && let (Some(version), Some(warning_level)) = (version, rule.warning_level())
        && version < CliVersion::CURRENT
        && before.context_tokens >= warning_level
        && after.context_tokens * COMPACTION_SHAPE_DIVISOR > before.context_tokens
    {
        return Judgement::new(
            DropClass::MicroCompaction,
            Basis::Heuristic,
            DropEvidence::UnloggedMicroCompaction {
                version: version.to_string(),
                warning_level,
            },
        );
    }
    if fall >= MICRO_COMPACTION_MIN_SAVING
        && after.context_tokens * COMPACTION_SHAPE_DIVISOR <= before.context_tokens
    {
        let warning_level = rule.warning_level();
        let at_trigger = warning_level.is_some_and(|level| before.context_tokens >= level);
        let mut judgement = Judgement::new(
            DropClass::Compaction,
            Basis::Heuristic,
            DropEvidence::CompactionShape { warning_level },
        );
        judgement.confidence = Some(if at_trigger {
            Confidence::High
        } else {
            Confidence::Low
        });
        return judgement;
    }
    // 4. What happened at the fall, without explaining its size.
    if let (Some(from), Some(to)) = (&facts.version_before, &facts.version_after)
        && from != to
    {
        return Judgement::new(
            DropClass::CliUpgrade,
            Basis::Structural,
            DropEvidence::CliUpgrade {
                from: from.clone(),
                to: to.clone(),
                cause: cause_of(facts, fall),
            },
        );
    }
    let proofs: Vec<RequestMarker> = facts
        .markers
        .iter()
        .copied()
        .filter(|marker| marker.proves_resume())
        .collect();
    if !proofs.is_empty() {
        return Judgement::new(
            DropClass::Resume,
            Basis::Structural,
            DropEvidence::Resume {
                markers: proofs,
                cause: cause_of(facts, fall),
            },
        );
    }
    let ttl = facts.cache_ttl.unwrap_or(CacheTtl::FiveMinutes);
    if let Some(gap_seconds) = facts.gap_seconds
        && gap_seconds > ttl.seconds()
        && facts.cache_cold_after
    {
        return Judgement::new(
            DropClass::IdleGap,
            Basis::Structural,
            DropEvidence::IdleGap {
                gap_seconds,
                ttl,
                ttl_known: facts.cache_ttl.is_some(),
                cause: cause_of(facts, fall),
            },
        );
    }
    // 5. Earlier thinking no longer counted at a new prompt.
    if facts.opened_by == Opening::Prompt {
        let reason = if !drops_earlier_thinking(before.facts.version.as_deref()) {
            match &before.facts.version {
                Some(version) => UndecidedReason::ThinkingKept {
                    version: version.clone(),
                },
                None => UndecidedReason::VersionUnknown,
            }
        } else if facts.cache_cold_after {
            UndecidedReason::PrefixChanged
        } else if facts.thinking_before >= fall {
            return Judgement::new(
                DropClass::ThinkingDropped,
                Basis::Heuristic,
                DropEvidence::ThinkingDropped {
                    thinking_tokens: facts.thinking_before,
                },
            );
        } else {
            UndecidedReason::ThinkingDoesNotCover {
                thinking_tokens: facts.thinking_before,
            }
        };
        return undecided(reason);
    }
    let reason = if !mid_loop {
        UndecidedReason::NoTurnBoundary
    } else if fall < MICRO_COMPACTION_MIN_SAVING {
        UndecidedReason::MidLoopTooSmall
    } else {
        match (version, rule.warning_level()) {
            (None, _) => UndecidedReason::VersionUnknown,
            (Some(version), _) if version >= CliVersion::CURRENT => {
                UndecidedReason::MidLoopNoMicroCompaction {
                    version: version.to_string(),
                }
            }
            (Some(_), None) => UndecidedReason::MidLoopNoProactiveCompaction,
            (Some(_), Some(warning_level)) => {
                UndecidedReason::MidLoopBelowWarningLevel { warning_level }
            }
        }
    };
    undecided(reason)
}

fn undecided(reason: UndecidedReason) -> Judgement {
    Judgement::new(
        DropClass::Undecided,
        Basis::None,
        DropEvidence::Undecided(reason),
    )
}

/// Finds and classifies every fall of the main chain. A request that reports no tokens is its
/// own drop (`no_usage`); the next request is compared with the last one that reported some.
pub fn classify_drops(chain: &MainChain, classifier: Classifier<'_>) -> Vec<ContextDrop> {
    let mut drops = Vec::new();
    let mut last_measured: Option<usize> = None;
    for index in 0..chain.requests.len() {
        let Some(before) = last_measured else {
            if chain.requests[index].context_tokens > 0 {
                last_measured = Some(index);
            }
            continue;
        };
        let after_row = &chain.requests[index];
        let before_row = &chain.requests[before];
        if after_row.context_tokens > 0 {
            last_measured = Some(index);
        }
        if before_row.context_tokens < after_row.context_tokens + classifier.min_drop {
            continue;
        }
        let between = Between {
            before,
            after: index,
            chain,
        };
        let facts = facts_of(chain, &between);
        let judgement = judge(classifier, &between, &facts);
        drops.push(ContextDrop {
            request_before: before + 1,
            request_after: index + 1,
            time: after_row.time.clone(),
            context_before: before_row.context_tokens,
            context_after: after_row.context_tokens,
            class: judgement.class,
            basis: judgement.basis,
            confidence: judgement.confidence,
            explains_fall: judgement.explains_fall,
            evidence: judgement.evidence,
            facts,
            boundary: judgement.boundary,
        });
    }
    drops
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::usage_record::RequestFacts;

    /// A main-chain request of `context` tokens, `read` of them from the cache, at `second`.
    fn row(context: u64, read: u64, second: u64) -> UsageRow {
        UsageRow {
            time: Some(format!(
                "2026-01-01T{:02}:{:02}:{:02}Z",
                second / 3600,
                (second / 60) % 60,
                second % 60
            )),
            transcript: "t".into(),
            key: format!("k{second}"),
            request_id: None,
            message_id: None,
            model: Some("claude-sonnet-4-5-20250929".into()),
            input_tokens: 0,
            cache_creation_input_tokens: context - read,
            cache_read_input_tokens: read,
            output_tokens: 0,
            context_tokens: context,
            sidechain: false,
            agent_id: None,
            advisor: false,
            tool_result_bytes: 0,
            largest_tool_result: None,
            turn_start: false,
            facts: RequestFacts {
                version: Some("2.1.42".into()),
                ..RequestFacts::default()
            },
        }
    }

    fn in_loop(mut row: UsageRow) -> UsageRow {
        row.facts.carries_tool_results = true;
        row
    }

    fn prompted(mut row: UsageRow) -> UsageRow {
        row.turn_start = true;
        row
    }

    fn chain(rows: Vec<UsageRow>) -> MainChain {
        let boundaries = vec![Vec::new(); rows.len()];
        MainChain {
            requests: rows,
            boundaries,
            trailing_boundaries: Vec::new(),
        }
    }

    fn classes(rows: Vec<UsageRow>) -> Vec<(DropClass, Basis)> {
        let inputs = ThresholdInputs::default();
        classify_drops(
            &chain(rows),
            Classifier {
                min_drop: DEFAULT_MIN_DROP,
                inputs: &inputs,
            },
        )
        .iter()
        .map(|drop| (drop.class, drop.basis))
        .collect()
    }

    #[test]
    fn a_large_cache_write_alone_decides_nothing() {
        // The old rule called this a compaction (cache write 60,000 after a fall): a 20 % fall at
        // a new prompt with a cold cache and nothing else known.
        let rows = vec![row(100_000, 99_000, 0), prompted(row(80_000, 20_000, 60))];
        assert_eq!(classes(rows), [(DropClass::Undecided, Basis::None)]);
        // The old rule's advisor round trip (a write of 100 at a new prompt, warm): undecided
        // without advisor blocks or thinking that covers it.
        let rows = vec![row(100_000, 99_000, 0), prompted(row(99_000, 98_900, 30))];
        assert_eq!(classes(rows), [(DropClass::Undecided, Basis::None)]);
    }

    #[test]
    fn the_shape_of_micro_and_full_compactions_needs_the_clis_levels() {
        // 2.1.42 (T 167,000, warning 147,000): mid loop from 148,173 to 105,039 is a
        // micro-compaction; from 140,000 it is below the warning level.
        let rows = vec![row(148_173, 148_000, 0), in_loop(row(105_039, 60_153, 1))];
        assert_eq!(
            classes(rows),
            [(DropClass::MicroCompaction, Basis::Heuristic)]
        );
        let rows = vec![row(140_000, 139_000, 0), in_loop(row(100_000, 60_000, 1))];
        assert_eq!(classes(rows), [(DropClass::Undecided, Basis::None)]);
        // A fall to a third at the trigger: a compaction of high confidence; far below it, low.
        let inputs = ThresholdInputs::default();
        let classifier = Classifier {
            min_drop: DEFAULT_MIN_DROP,
            inputs: &inputs,
        };
        let drops = classify_drops(
            &chain(vec![row(166_000, 165_000, 0), prompted(row(30_000, 0, 5))]),
            classifier,
        );
        assert_eq!(
            (drops[0].class, drops[0].confidence),
            (DropClass::Compaction, Some(Confidence::High))
        );
        let drops = classify_drops(
            &chain(vec![row(90_000, 89_000, 0), prompted(row(20_000, 0, 5))]),
            classifier,
        );
        assert_eq!(
            (drops[0].class, drops[0].confidence),
            (DropClass::Compaction, Some(Confidence::Low))
        );
    }

    #[test]
    fn a_resume_an_upgrade_and_an_idle_gap_say_what_happened_not_why_it_fell() {
        let mut after = prompted(row(90_000, 0, 4_000));
        after.facts.markers = vec![RequestMarker::SyntheticNoResponse];
        let drops = classify_drops(
            &chain(vec![row(100_000, 99_000, 0), after]),
            Classifier {
                min_drop: DEFAULT_MIN_DROP,
                inputs: &ThresholdInputs::default(),
            },
        );
        assert_eq!(drops[0].class, DropClass::Resume);
        assert!(!drops[0].explains_fall);
        assert!(matches!(
            drops[0].evidence,
            DropEvidence::Resume {
                cause: FallCause::Unknown,
                ..
            }
        ));
        let mut upgraded = prompted(row(90_000, 0, 60));
        upgraded.facts.version = Some("2.1.332".into());
        assert_eq!(
            classes(vec![row(100_000, 99_000, 0), upgraded]),
            [(DropClass::CliUpgrade, Basis::Structural)]
        );
        // Queue operations alone prove no resume; a gap past the 5-minute lifetime with a cold
        // cache is an idle gap.
        let mut queued = prompted(row(90_000, 3_000, 3_600));
        queued.facts.markers = vec![RequestMarker::QueueOperation];
        assert_eq!(
            classes(vec![row(100_000, 99_000, 0), queued]),
            [(DropClass::IdleGap, Basis::Structural)]
        );
        // Within a 1 h lifetime the cache did not expire: the cold read says the prefix
        // changed, and nothing says why.
        let mut warm = row(100_000, 99_000, 0);
        warm.facts.cache_ttl = Some(CacheTtl::OneHour);
        assert_eq!(
            classes(vec![warm, prompted(row(90_000, 3_000, 1_200))]),
            [(DropClass::Undecided, Basis::None)]
        );
    }

    #[test]
    fn thinking_covers_a_fall_at_a_prompt_only_when_the_cli_drops_it() {
        let mut before = row(100_000, 99_000, 0);
        before.facts.thinking_bytes = 40_000; // about 10,000 tokens
        let after = prompted(row(92_000, 91_000, 30));
        assert_eq!(
            classes(vec![before.clone(), after.clone()]),
            [(DropClass::ThinkingDropped, Basis::Heuristic)]
        );
        // 2.1.332 sends every earlier thinking block: not the cause.
        let mut current = before.clone();
        current.facts.version = Some("2.1.332".into());
        let mut current_after = after.clone();
        current_after.facts.version = Some("2.1.332".into());
        assert_eq!(
            classes(vec![current, current_after]),
            [(DropClass::Undecided, Basis::None)]
        );
        // Not enough thinking for the fall.
        before.facts.thinking_bytes = 4_000;
        assert_eq!(
            classes(vec![before, after]),
            [(DropClass::Undecided, Basis::None)]
        );
    }

    #[test]
    fn records_come_first_and_a_zero_row_is_no_fall_of_the_conversation() {
        let mut switched = prompted(row(20_000, 0, 10));
        switched.model = Some("claude-opus-4-6".into());
        let mut advisor = row(200_000, 100_000, 20);
        advisor.advisor = true;
        let rows = vec![
            row(50_000, 49_000, 0),
            switched,
            advisor,
            row(90_000, 89_000, 30),
            row(0, 0, 40),
            row(80_000, 79_000, 50),
        ];
        assert_eq!(
            classes(rows),
            [
                (DropClass::ModelSwitch, Basis::Structural),
                (DropClass::AdvisorRoundTrip, Basis::Structural),
                (DropClass::NoUsage, Basis::Structural),
                (DropClass::Undecided, Basis::None),
            ]
        );
        let mut with_boundary = chain(vec![row(120_000, 119_000, 0), row(80_000, 2_000, 1)]);
        with_boundary.boundaries[1].push((
            false,
            BoundaryRow {
                time: None,
                transcript: "t".into(),
                uuid: None,
                trigger: Some(Trigger::Auto),
                pre_tokens: Some(40_000),
                post_tokens: None,
                tokens_saved: Some(40_000),
                sidechain: false,
                agent_id: None,
            },
        ));
        let drops = classify_drops(
            &with_boundary,
            Classifier {
                min_drop: DEFAULT_MIN_DROP,
                inputs: &ThresholdInputs::default(),
            },
        );
        assert_eq!(
            (drops[0].class, drops[0].basis),
            (DropClass::MicroCompaction, Basis::Structural)
        );
    }
}
