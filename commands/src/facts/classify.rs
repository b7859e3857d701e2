//! The rules that say what a context fall was, evidence first: a record in the transcript (a
//! compaction or micro-compaction boundary, a compact summary, a changed model, advisor blocks),
//! then the shape of a known CLI behaviour (an unlogged micro-compaction, a compaction without
//! its record), then what happened at the fall without explaining its size (a resume, a CLI
//! upgrade, an expired cache), then earlier thinking no longer counted. What none of these
//! covers is `undecided`, with the reason. A cache write never decides a class: a real
//! compaction wrote as little as 14,893 tokens, and a cold cache rewrites everything.

use super::drops::{
    Basis, COMPACTION_SHAPE_DIVISOR, Confidence, ContextDrop, DropClass, DropEvidence, DropFacts,
    FallCause, MICRO_COMPACTION_MIN_SAVING, MainChain, Opening, THINKING_STRIPPED_ON_SWITCH,
    UndecidedReason,
};
use super::log::Timed;
use crate::time::seconds_between;
use ctxhooks_shared::store::usage_record::{BoundaryRow, CacheTtl, RequestMarker, UsageRow};
use ctxhooks_shared::usage::threshold::{RuleTrigger, ThresholdInputs, rule_trigger};
use ctxhooks_shared::version::ClaudeVersion;

/// The rows between two real requests, merged: what came before the request after, and the
/// facts around the fall.
struct Between<'chain> {
    before: usize,
    after: usize,
    chain: &'chain MainChain<'chain>,
    facts: DropFacts,
}

impl Between<'_> {
    fn before_row(&self) -> &UsageRow {
        &self.chain.requests[self.before]
    }

    fn after_row(&self) -> &UsageRow {
        &self.chain.requests[self.after]
    }

    fn boundaries(&self) -> impl Iterator<Item = (bool, &Timed<BoundaryRow>)> {
        self.chain.boundaries[self.before + 1..=self.after]
            .iter()
            .flatten()
            .map(|(full, boundary)| (*full, boundary))
    }

    /// The CLI version of the request before.
    fn version(&self) -> Option<ClaudeVersion> {
        self.before_row().facts.claude_version()
    }

    /// The fall classed as `class` on `basis`, with no confidence and no boundary.
    fn judged(&self, class: DropClass, basis: Basis, evidence: DropEvidence) -> ContextDrop {
        ContextDrop {
            request_before: self.before + 1,
            request_after: self.after + 1,
            time: self.chain.times[self.after].clone(),
            context_before: self.before_row().context_tokens,
            context_after: self.after_row().context_tokens,
            class,
            basis,
            confidence: None,
            explains_fall: !matches!(
                class,
                DropClass::Resume
                    | DropClass::CliUpgrade
                    | DropClass::IdleGap
                    | DropClass::Undecided
            ),
            evidence,
            facts: self.facts.clone(),
            boundary: None,
        }
    }
}

/// The thinking, estimated in tokens, of the requests from `before` back to the last compaction
/// (with `turn`, only back to the last turn start) that `counted` takes.
fn thinking_back(
    chain: &MainChain,
    before: usize,
    turn: bool,
    counted: impl Fn(&UsageRow) -> bool,
) -> u64 {
    let mut total = 0;
    for index in (0..=before).rev() {
        let row = &chain.requests[index];
        if counted(row) {
            total += row.facts.thinking_tokens_estimate();
        }
        if (turn && row.turn_start) || chain.boundaries[index].iter().any(|(full, _)| *full) {
            break;
        }
    }
    total
}

/// The facts around the fall from request `before` to `after`.
fn facts_of(chain: &MainChain, before: usize, after: usize) -> DropFacts {
    let rows = &chain.requests[before + 1..=after];
    let (before_row, after_row) = (&chain.requests[before], &chain.requests[after]);
    let mut markers = Vec::new();
    for marker in rows.iter().flat_map(|row| &row.facts.markers) {
        if !markers.contains(marker) {
            markers.push(*marker);
        }
    }
    // The cache of the inference the context is from (with `usage.iterations`, the top-level
    // counts are the whole response's).
    let cache = after_row.context_cache();
    DropFacts {
        gap_seconds: seconds_between(chain.times[before].as_ref(), chain.times[after].as_ref()),
        opened_by: if rows.iter().any(|row| row.turn_start) {
            Opening::Prompt
        } else if rows.iter().any(|row| row.facts.carries_tool_results) {
            Opening::ToolResults
        } else {
            Opening::Other
        },
        version_before: before_row.facts.version.clone(),
        version_after: after_row.facts.version.clone(),
        model_before: before_row.model.clone(),
        model_after: after_row.model.clone(),
        cache_read_after: cache.read,
        cache_write_after: cache.write,
        cache_cold_after: cache.read.saturating_mul(2) < after_row.context_tokens,
        // The cache lifetime last known at or before the request before.
        cache_ttl: chain.requests[..=before]
            .iter()
            .rev()
            .find_map(|row| row.facts.cache_ttl),
        markers,
        thinking_before: thinking_back(chain, before, true, |_| true),
        advisor_before: before_row.advisor,
    }
}

/// Returns true if and only if `version` predates the CLI that sends every earlier thinking
/// block; unknown versions are not assumed to.
fn drops_earlier_thinking(version: Option<ClaudeVersion>) -> bool {
    version.is_some_and(|version| version < ClaudeVersion::CURRENT)
}

/// Classifies the fall from request `between.before` to `between.after`, by the CLI's rule with
/// what `inputs` know of the window: the first stage that has evidence decides.
fn judge(inputs: &ThresholdInputs, between: &Between<'_>) -> ContextDrop {
    let before = between.before_row();
    let fall = before
        .context_tokens
        .saturating_sub(between.after_row().context_tokens);
    let rule = rule_trigger(
        before.facts.version.as_deref(),
        before.request_model(),
        before.facts.max_output_tokens,
        inputs,
    );
    judge_by_records(between)
        .or_else(|| judge_by_shape(between, &rule, fall))
        .or_else(|| judge_by_occasion(between, fall))
        .or_else(|| judge_at_prompt(between, fall))
        .unwrap_or_else(|| undecided(between, mid_loop_reason(between, &rule, fall)))
}

/// Stages 1 and 2, records: a compaction, a summary, a micro-compaction, a request without usage; then
/// other records that change what is sent: the model, the advisor.
fn judge_by_records(between: &Between<'_>) -> Option<ContextDrop> {
    let (before, after, facts) = (between.before_row(), between.after_row(), &between.facts);
    let structural = |class, evidence| Some(between.judged(class, Basis::Structural, evidence));
    let with_boundary = |class, evidence, boundary: &BoundaryRow| {
        let boundary = Some(boundary.clone());
        Some(ContextDrop {
            boundary,
            ..between.judged(class, Basis::Structural, evidence)
        })
    };
    if let Some((_, boundary)) = between.boundaries().find(|(full, _)| *full) {
        let evidence = DropEvidence::CompactBoundary {
            time: boundary.time.clone(),
            trigger: boundary.row.boundary.trigger.clone(),
            pre_tokens: boundary.row.boundary.pre_tokens,
        };
        return with_boundary(DropClass::Compaction, evidence, &boundary.row);
    }
    if facts.markers.contains(&RequestMarker::CompactSummary) {
        return structural(DropClass::Compaction, DropEvidence::CompactSummary);
    }
    if let Some((_, boundary)) = between.boundaries().find(|(full, _)| !*full) {
        let (row, boundary) = (&boundary.row, &boundary.row.boundary);
        let evidence = DropEvidence::MicrocompactBoundary {
            trigger: boundary.trigger.clone(),
            pre_tokens: boundary.pre_tokens,
            tokens_saved: boundary.tokens_saved,
        };
        return with_boundary(DropClass::MicroCompaction, evidence, row);
    }
    if after.context_tokens == 0 {
        return structural(DropClass::NoUsage, DropEvidence::NoUsage);
    }
    if let (Some(from), Some(to)) = (&before.model, &after.model)
        && from != to
    {
        let strips_other_thinking = after
            .facts
            .claude_version()
            .is_some_and(|version| version >= THINKING_STRIPPED_ON_SWITCH);
        let other_model = |row: &UsageRow| row.model.as_deref().is_some_and(|other| other != to);
        let other_model_thinking = thinking_back(between.chain, between.before, false, other_model);
        let evidence = DropEvidence::ModelSwitch {
            from: from.clone(),
            to: to.clone(),
            other_model_thinking,
            strips_other_thinking,
        };
        return structural(DropClass::ModelSwitch, evidence);
    }
    // With `usage.iterations` the context is the last inference's, which the advisor's round
    // trip does not inflate: such a fall is no advisor round trip.
    if before.advisor && !before.facts.iterations {
        return structural(DropClass::AdvisorRoundTrip, DropEvidence::AdvisorCall);
    }
    None
}

/// Stage 3, shapes of what a CLI does without a record: an unlogged micro-compaction mid tool loop,
/// or a fall to a summary-sized context.
fn judge_by_shape(between: &Between<'_>, rule: &RuleTrigger, fall: u64) -> Option<ContextDrop> {
    let (before, after) = (between.before_row(), between.after_row());
    let summary_sized = after
        .context_tokens
        .saturating_mul(COMPACTION_SHAPE_DIVISOR)
        <= before.context_tokens;
    let warning_level = rule.warning_level();
    if fall < MICRO_COMPACTION_MIN_SAVING {
        return None;
    }
    if between.facts.opened_by == Opening::ToolResults
        && before.facts.version == after.facts.version
        && !summary_sized
        && let (Some(version), Some(warning_level)) = (between.version(), warning_level)
        && version < ClaudeVersion::CURRENT
        && before.context_tokens >= warning_level
    {
        let version = version.to_string();
        let evidence = DropEvidence::UnloggedMicroCompaction {
            version,
            warning_level,
        };
        return Some(between.judged(DropClass::MicroCompaction, Basis::Heuristic, evidence));
    }
    summary_sized.then(|| {
        let confidence = match warning_level {
            Some(level) if before.context_tokens >= level => Confidence::High,
            _ => Confidence::Low,
        };
        let evidence = DropEvidence::CompactionShape { warning_level };
        ContextDrop {
            confidence: Some(confidence),
            ..between.judged(DropClass::Compaction, Basis::Heuristic, evidence)
        }
    })
}

/// Stage 4, what happened at the fall without explaining its size: a CLI upgrade, a resume, an idle
/// gap past the cache's lifetime.
fn judge_by_occasion(between: &Between<'_>, fall: u64) -> Option<ContextDrop> {
    let (facts, thinking_tokens) = (&between.facts, between.facts.thinking_before);
    // What made the context fall at a resume, an upgrade or an idle gap: earlier thinking no
    // longer counted when it covers the fall at a prompt and the CLI drops it; else unknown.
    let cause = if facts.opened_by == Opening::Prompt
        && thinking_tokens >= fall
        && drops_earlier_thinking(between.version())
    {
        FallCause::ThinkingLikely { thinking_tokens }
    } else {
        FallCause::Unknown
    };
    let structural = |class, evidence| Some(between.judged(class, Basis::Structural, evidence));
    if let (Some(from), Some(to)) = (&facts.version_before, &facts.version_after)
        && from != to
    {
        let (from, to) = (from.clone(), to.clone());
        let evidence = DropEvidence::CliUpgrade { from, to, cause };
        return structural(DropClass::CliUpgrade, evidence);
    }
    let markers: Vec<RequestMarker> = facts
        .markers
        .iter()
        .copied()
        .filter(|marker| marker.proves_resume())
        .collect();
    if !markers.is_empty() {
        return structural(DropClass::Resume, DropEvidence::Resume { markers, cause });
    }
    let ttl = facts.cache_ttl.unwrap_or(CacheTtl::FiveMinutes);
    let gap_seconds = facts.gap_seconds?;
    if gap_seconds > ttl.seconds() && facts.cache_cold_after {
        let ttl_known = facts.cache_ttl.is_some();
        let evidence = DropEvidence::IdleGap {
            gap_seconds,
            ttl,
            ttl_known,
            cause,
        };
        return structural(DropClass::IdleGap, evidence);
    }
    None
}

/// Stage 5, earlier thinking no longer counted at a new prompt; at a prompt, the reason it is not.
fn judge_at_prompt(between: &Between<'_>, fall: u64) -> Option<ContextDrop> {
    let facts = &between.facts;
    if facts.opened_by != Opening::Prompt {
        return None;
    }
    let thinking_tokens = facts.thinking_before;
    let reason = if !drops_earlier_thinking(between.version()) {
        match &between.before_row().facts.version {
            Some(version) => UndecidedReason::ThinkingKept {
                version: version.clone(),
            },
            None => UndecidedReason::VersionUnknown,
        }
    } else if facts.cache_cold_after {
        UndecidedReason::PrefixChanged
    } else if thinking_tokens >= fall {
        let evidence = DropEvidence::ThinkingDropped { thinking_tokens };
        return Some(between.judged(DropClass::ThinkingDropped, Basis::Heuristic, evidence));
    } else {
        UndecidedReason::ThinkingDoesNotCover { thinking_tokens }
    };
    Some(undecided(between, reason))
}

/// Why a fall that no stage could class stays undecided.
fn mid_loop_reason(between: &Between<'_>, rule: &RuleTrigger, fall: u64) -> UndecidedReason {
    if between.facts.opened_by != Opening::ToolResults {
        return UndecidedReason::NoTurnBoundary;
    }
    if fall < MICRO_COMPACTION_MIN_SAVING {
        return UndecidedReason::MidLoopTooSmall;
    }
    match (between.version(), rule.warning_level()) {
        (None, _) => UndecidedReason::VersionUnknown,
        (Some(version), _) if version >= ClaudeVersion::CURRENT => {
            UndecidedReason::MidLoopNoMicroCompaction {
                version: version.to_string(),
            }
        }
        (Some(_), None) => UndecidedReason::MidLoopNoProactiveCompaction,
        (Some(_), Some(warning_level)) => {
            UndecidedReason::MidLoopBelowWarningLevel { warning_level }
        }
    }
}

fn undecided(between: &Between<'_>, reason: UndecidedReason) -> ContextDrop {
    let evidence = DropEvidence::Undecided(reason);
    between.judged(DropClass::Undecided, Basis::None, evidence)
}

/// Finds and classifies every fall of at least `min_drop` tokens in the main chain, by the CLI's
/// rule with what `inputs` know of the window. A request that reports no tokens is its own drop
/// (`no_usage`); the next request is compared with the last one that reported some.
pub fn classify_drops(
    chain: &MainChain,
    min_drop: u64,
    inputs: &ThresholdInputs,
) -> Vec<ContextDrop> {
    let mut drops = Vec::new();
    let mut last_measured: Option<usize> = None;
    for (index, after_row) in chain.requests.iter().enumerate() {
        let before = last_measured;
        if after_row.context_tokens > 0 {
            last_measured = Some(index);
        }
        let Some(before) = before else { continue };
        let before_row = &chain.requests[before];
        if before_row.context_tokens < after_row.context_tokens.saturating_add(min_drop) {
            continue;
        }
        let facts = facts_of(chain, before, index);
        let between = Between {
            before,
            after: index,
            chain,
            facts,
        };
        drops.push(judge(inputs, &between));
    }
    drops
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;
    use crate::facts::drops::DEFAULT_MIN_DROP;
    use crate::test_support::usage_row;
    use crate::time::Time;
    use ctxhooks_shared::store::trigger::Trigger;
    use ctxhooks_shared::store::usage_record::{Boundary, ContextCache, RequestFacts};

    /// A main-chain request of `context` tokens, `read` of them from the cache, at `second`.
    fn row(context: u64, read: u64, second: u64) -> UsageRow {
        let time = format!(
            "2026-01-01T{:02}:{:02}:{:02}Z",
            second / 3600,
            (second / 60) % 60,
            second % 60
        );
        UsageRow {
            model: Some("claude-sonnet-4-5-20250929".into()),
            facts: RequestFacts {
                version: Some("2.1.42".into()),
                ..RequestFacts::default()
            },
            ..usage_row(&format!("k{second}"), Some(time), context - read, read)
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

    fn chain(rows: Vec<UsageRow>) -> MainChain<'static> {
        let boundaries = vec![Vec::new(); rows.len() + 1];
        MainChain {
            times: rows
                .iter()
                .map(|row| Time::of(row.time.as_deref()))
                .collect(),
            requests: rows.into_iter().map(Cow::Owned).collect(),
            boundaries,
        }
    }

    fn classes(rows: Vec<UsageRow>) -> Vec<(DropClass, Basis)> {
        let inputs = ThresholdInputs::default();
        classify_drops(&chain(rows), DEFAULT_MIN_DROP, &inputs)
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
        let drops = classify_drops(
            &chain(vec![row(166_000, 165_000, 0), prompted(row(30_000, 0, 5))]),
            DEFAULT_MIN_DROP,
            &inputs,
        );
        assert_eq!(
            (drops[0].class, drops[0].confidence),
            (DropClass::Compaction, Some(Confidence::High))
        );
        let drops = classify_drops(
            &chain(vec![row(90_000, 89_000, 0), prompted(row(20_000, 0, 5))]),
            DEFAULT_MIN_DROP,
            &inputs,
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
            DEFAULT_MIN_DROP,
            &ThresholdInputs::default(),
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
    fn the_cold_cache_after_a_fall_is_read_from_the_iteration_the_context_is_from() {
        // An advisor response after an hour's pause: its first `message` iteration read 80,000
        // from the cache, the last one (the context, 90,000) read nothing. The top level sums
        // the two (80,000 read): the cache was cold for the context all the same.
        let mut after = prompted(row(90_000, 80_000, 3_600));
        after.facts.iterations = true;
        after.facts.context_cache = Some(ContextCache {
            read: 0,
            write: 90_000,
        });
        assert_eq!(
            classes(vec![row(100_000, 99_000, 0), after]),
            [(DropClass::IdleGap, Basis::Structural)]
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
            classes(rows.clone()),
            [
                (DropClass::ModelSwitch, Basis::Structural),
                (DropClass::AdvisorRoundTrip, Basis::Structural),
                (DropClass::NoUsage, Basis::Structural),
                (DropClass::Undecided, Basis::None),
            ]
        );
        // With iterations, the context is the last inference's: the advisor explains no fall.
        let mut with_iterations = rows;
        with_iterations[2].facts.iterations = true;
        assert_eq!(
            classes(with_iterations)[1],
            (DropClass::Undecided, Basis::None)
        );
        let mut with_boundary = chain(vec![row(120_000, 119_000, 0), row(80_000, 2_000, 1)]);
        with_boundary.boundaries[1].push((
            false,
            Timed::<BoundaryRow>::new(BoundaryRow {
                transcript: "t".into(),
                sidechain: false,
                agent_id: None,
                boundary: Boundary {
                    trigger: Some(Trigger::Auto),
                    pre_tokens: Some(40_000),
                    tokens_saved: Some(40_000),
                    ..Boundary::default()
                },
            }),
        ));
        let drops = classify_drops(
            &with_boundary,
            DEFAULT_MIN_DROP,
            &ThresholdInputs::default(),
        );
        assert_eq!(
            (drops[0].class, drops[0].basis),
            (DropClass::MicroCompaction, Basis::Structural)
        );
    }
}
