//! Estimates from one session's main chain, from trustworthy evidence only: the auto-compaction
//! trigger T (the CLI's own rule for its version, model and window, checked against the
//! automatic compactions observed), the cap (the window W), the floor after compaction, the
//! headroom, the room left, and the requests that added the most context.

use serde::Serialize;

use super::compactions::Compaction;
use super::drops::{Basis, Confidence, MainChain};
use crate::time::Time;
use ctxhooks_shared::store::usage_record::ToolResultNote;
use ctxhooks_shared::usage::threshold::{
    RuleTrigger, ThresholdInputs, Window, WindowSource, rule_trigger,
};

/// How big an advisor call makes the context (2.05–2.20 observed; the upper end is used).
pub const ADVISOR_FACTOR: f64 = 2.2;

/// Bytes per token used to estimate a tool result's size (a rough rule for English and code).
pub const BYTES_PER_TOKEN: u64 = 4;

/// How many of the requests that added the most context are listed.
pub const LARGEST_REQUESTS: usize = 5;

/// One observation of the trigger from two consecutive main-chain requests: after the first,
/// compaction did not fire (so T is above its context, `low`); after the second it did (so T is
/// at most the count it fired at, `high`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TriggerObservation {
    /// The context of the request before the last one before the compaction, when that request
    /// exists with no compaction between the two; `None` when nothing says where T is not.
    pub low: Option<u64>,
    /// `preTokens` of the boundary (the count it fired at), else the last main-chain context
    /// before the compaction.
    pub high: u64,
    /// The boundary's time.
    pub time: Option<Time>,
}

/// What the automatic compactions of the session say about T.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ObservedTrigger {
    /// Every observation.
    pub observations: Vec<TriggerObservation>,
    /// True when the observations agree: the largest `low` is below the smallest `high`.
    pub consistent: bool,
    /// When consistent, the largest `low` (T is above it); else the smallest `low`. `None` when
    /// no observation says where compaction did not fire: T is only known to be at most `high`.
    pub low: Option<u64>,
    /// When consistent, the smallest `high` (T is at most it); else the largest `high`.
    pub high: u64,
    /// The middle of `low .. high` when the observations agree and some have a `low`; otherwise
    /// the median of the `high` values.
    pub estimate: u64,
}

/// How the T the report uses was derived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Derivation {
    /// The CLI's rule, and every automatic compaction observed agrees with it.
    RuleConfirmed,
    /// The CLI's rule; no automatic compaction observed yet.
    Rule,
    /// The observed automatic compactions, which contradict the rule (the window or version the
    /// session ran with differs from what the report can see).
    ObservedAgainstRule,
    /// The observed automatic compactions; the rule gives no T for this model (the CLI compacts
    /// it only when the API refuses a prompt).
    Observed,
    /// No T: the CLI compacts this model only when the API refuses a prompt, and none was seen.
    NoProactiveCompaction,
    /// No T: the session has no main-chain request (only sub-agents' transcripts were read), so
    /// neither the version nor the model the session ran with is known.
    NoMainChain,
    /// The session contradicts the rule: a context at or above the rule's T with no compaction
    /// after it (the CLI checked and did not compact; a compaction far above T with such a
    /// context before it is this case). T is what the evidence allows (the middle between the
    /// highest context reached without compacting and the lowest automatic compaction above
    /// it), or unknown when nothing bounds it from above. Never "confirmed".
    RuleContradicted,
    /// No T: ctxhooks does not know the model's window (it is not in the model table), and no
    /// status line, setting or automatic compaction gave one.
    WindowUnknown,
}

/// The trigger T and how it was derived.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TriggerEstimate {
    /// T in tokens, when there is one.
    pub tokens: Option<u64>,
    pub derivation: Derivation,
    /// The CLI's rule for the latest request's version and model.
    pub rule: RuleTrigger,
    /// The automatic compactions observed, when there were some.
    pub observed: Option<ObservedTrigger>,
    /// The highest context of the rule's model after which the CLI checked and did not compact
    /// (the next request came with no compaction between): T is above it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached_without_compaction: Option<u64>,
}

/// The context after one trustworthy compaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Floor {
    pub tokens: u64,
    /// The request it was measured on, numbered from 1.
    pub request: usize,
    /// The compaction's basis.
    pub basis: Basis,
    /// For a heuristic compaction: its confidence (always `high` here).
    pub confidence: Option<Confidence>,
}

/// The latest main-chain request with a context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LatestContext {
    pub tokens: u64,
    /// The request, numbered from 1.
    pub request: usize,
    pub time: Option<Time>,
}

/// A request that added context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrowingRequest {
    /// The request, numbered from 1 among main-chain requests.
    pub request: usize,
    pub time: Option<Time>,
    /// Context added since the previous request.
    pub added_tokens: u64,
    /// Tool-result bytes it sent.
    pub tool_result_bytes: u64,
    /// The same, as tokens at 4 bytes per token (an estimate).
    pub tool_result_tokens_estimate: u64,
    /// The largest of those tool results.
    pub largest_tool_result: Option<ToolResultNote>,
}

/// Everything estimated for a session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimates {
    /// The trigger T.
    pub trigger: TriggerEstimate,
    /// The cap: the window W compaction is measured against.
    pub cap: Window,
    /// T / cap.
    pub trigger_ratio: Option<f64>,
    /// Context of the first request after each trustworthy compaction.
    pub floors: Vec<Floor>,
    /// Their median: the floor used below.
    pub floor: Option<u64>,
    /// T − floor: what a session can add after a compaction before the next one.
    pub headroom: Option<i64>,
    /// The latest main-chain context.
    pub latest_context: Option<LatestContext>,
    /// T − the latest context: what can still be added before the next compaction.
    pub room_left: Option<i64>,
    /// The requests that added the most context (up to 5), largest first.
    pub largest_requests: Vec<GrowingRequest>,
}

/// Every main-chain request that grew the context, with the tokens it added: measured against
/// the last earlier request with non-zero context (a zero-context row is no state of the
/// conversation), and only when no boundary lies between the two.
pub fn growths(chain: &MainChain) -> Vec<(usize, u64)> {
    let mut found = Vec::new();
    let mut last: Option<usize> = None;
    for (index, row) in chain.requests.iter().enumerate() {
        if row.context_tokens == 0 {
            continue;
        }
        if let Some(previous) = last {
            let boundary_between = chain.boundaries[previous + 1..=index]
                .iter()
                .any(|boundaries| !boundaries.is_empty())
                || chain.compaction_between(previous, index);
            let added = row
                .context_tokens
                .saturating_sub(chain.requests[previous].context_tokens);
            if !boundary_between && added > 0 {
                found.push((index, added));
            }
        }
        last = Some(index);
    }
    found
}

/// The median of `values` (the lower middle for an even count).
pub fn median(values: &[u64]) -> Option<u64> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted.get(sorted.len().saturating_sub(1) / 2).copied()
}

/// What the observations say together.
fn observed_trigger(observations: Vec<TriggerObservation>) -> Option<ObservedTrigger> {
    let highs: Vec<u64> = observations.iter().map(|o| o.high).collect();
    let lows: Vec<u64> = observations.iter().filter_map(|o| o.low).collect();
    let highest_low = lows.iter().copied().max();
    // No observation, no observed trigger.
    let lowest_high = highs.iter().copied().min()?;
    let consistent = highest_low.is_none_or(|low| low < lowest_high);
    let (low, high) = if consistent {
        (highest_low, lowest_high)
    } else {
        (lows.iter().copied().min(), highs.iter().copied().max()?)
    };
    let estimate = match low {
        Some(low) if consistent => low + (high - low) / 2,
        _ => median(&highs).unwrap_or(0),
    };
    Some(ObservedTrigger {
        observations,
        consistent,
        low,
        high,
        estimate,
    })
}

/// Returns true if and only if T = `tokens` fits every observation: above where compaction did
/// not fire, at most where it fired.
fn fits(tokens: u64, observed: &ObservedTrigger) -> bool {
    observed.observations.iter().all(|observation| {
        observation.low.is_none_or(|low| low < tokens) && tokens <= observation.high
    })
}

/// T as far as the evidence allows once it contradicts the rule: above `reached` (the highest
/// context after which the CLI checked and did not compact), at most the lowest automatic
/// compaction above that; the middle of the two, or `None` when nothing bounds it from above.
fn allowed_by_evidence(reached: u64, observed: Option<&ObservedTrigger>) -> Option<u64> {
    let upper = observed?
        .observations
        .iter()
        .map(|observation| observation.high)
        .filter(|high| *high > reached)
        .min()?;
    Some(reached + (upper - reached) / 2)
}

/// Estimates T, the floor, the headroom, the room left and the largest requests.
///
/// `compactions` are the report's (only trusted ones count); `attempts` are main-chain requests
/// after which `PreCompact` fired but no compaction followed (with the snapshot's time): the
/// trigger was reached there too, so such a request is an upper bound and never a "did not
/// fire" lower bound.
pub fn estimate(
    chain: &MainChain,
    compactions: &[Compaction],
    inputs: &ThresholdInputs,
    attempts: &[(usize, Time)],
) -> Estimates {
    // The context of the main-chain request just before `index`, when neither a full
    // compaction nor an attempt lies between the two: compaction was checked after it and did
    // not fire.
    let not_fired = |index: usize| {
        let previous = index.checked_sub(1)?;
        let attempted = attempts.iter().any(|(attempt, _)| *attempt == previous);
        if attempted || chain.compaction_between(previous, index) {
            return None;
        }
        chain.requests.get(previous).map(|row| row.context_tokens)
    };
    let attempted = attempts.iter().filter_map(|(index, time)| {
        Some(TriggerObservation {
            low: not_fired(*index),
            high: chain.requests.get(*index)?.context_tokens,
            time: Some(time.clone()),
        })
    });
    let observations: Vec<TriggerObservation> = compactions
        .iter()
        .filter(|compaction| compaction.basis == Basis::Structural && compaction.is_automatic())
        .filter_map(|compaction| {
            let before = compaction.next_index().checked_sub(1);
            let high = (compaction.boundary.pre_tokens)
                .or_else(|| before.map(|before| chain.requests[before].context_tokens))?;
            Some(TriggerObservation {
                low: before.and_then(not_fired),
                high,
                time: compaction.time.clone(),
            })
        })
        .chain(attempted)
        .collect();
    let latest = chain.requests.last();
    let rule = rule_trigger(
        latest.and_then(|row| row.facts.version.as_deref()),
        latest.map(|row| row.request_model()).unwrap_or_default(),
        latest.and_then(|row| row.facts.max_output_tokens),
        inputs,
    );
    let observed = observed_trigger(observations);
    // The highest context of the rule's model after which the CLI checked and did not compact
    // (no compaction, recorded or by shape, before the next request): T is above it. A
    // compaction far above T alone contradicts nothing: one request can carry the context far
    // past T, and the CLI compacts at its next check (the pinned CLI does so in `e2e_truth`).
    let reached = (1..chain.requests.len())
        .filter(|index| {
            !compactions
                .iter()
                .any(|compaction| compaction.next_index() == *index)
                && chain.requests[index - 1].request_model().as_named()
                    == latest.and_then(|row| row.request_model().as_named())
        })
        .filter_map(not_fired)
        .max();
    let contradicted = rule
        .tokens
        .zip(reached)
        .is_some_and(|(tokens, reached)| reached >= tokens);
    let window_unknown = rule.window.source == WindowSource::Unknown;
    let (tokens, derivation) = match (rule.tokens, &observed) {
        _ if chain.requests.is_empty() => (None, Derivation::NoMainChain),
        (Some(_), _) if contradicted => (
            reached.and_then(|reached| allowed_by_evidence(reached, observed.as_ref())),
            Derivation::RuleContradicted,
        ),
        (Some(tokens), Some(observed)) if fits(tokens, observed) => {
            (Some(tokens), Derivation::RuleConfirmed)
        }
        (Some(_), Some(observed)) => (Some(observed.estimate), Derivation::ObservedAgainstRule),
        (Some(tokens), None) => (Some(tokens), Derivation::Rule),
        (None, Some(observed)) => match reached {
            Some(reached) if window_unknown && observed.estimate <= reached => (
                allowed_by_evidence(reached, Some(observed)),
                Derivation::Observed,
            ),
            _ => (Some(observed.estimate), Derivation::Observed),
        },
        (None, None) if window_unknown => (None, Derivation::WindowUnknown),
        (None, None) => (None, Derivation::NoProactiveCompaction),
    };
    let cap = rule.window.clone();
    let floors: Vec<Floor> = compactions
        .iter()
        .filter(|compaction| compaction.is_trusted())
        .filter_map(|compaction| {
            Some(Floor {
                tokens: compaction.context_after.filter(|tokens| *tokens > 0)?,
                request: compaction.next_request,
                basis: compaction.basis,
                confidence: compaction.confidence,
            })
        })
        .collect();
    let floor = median(&floors.iter().map(|floor| floor.tokens).collect::<Vec<_>>());
    let signed = |value: u64| i64::try_from(value).unwrap_or(i64::MAX);
    let trigger_ratio = tokens.and_then(|tokens| ratio(tokens, cap.tokens.max(1)));
    let headroom = tokens
        .zip(floor)
        .map(|(tokens, floor)| signed(tokens) - signed(floor));
    let latest_context = chain
        .requests
        .iter()
        .enumerate()
        .rev()
        .find(|(_, row)| row.context_tokens > 0)
        .map(|(index, row)| LatestContext {
            tokens: row.context_tokens,
            request: index + 1,
            time: chain.times[index].clone(),
        });
    let room_left = tokens
        .zip(latest_context.as_ref())
        .map(|(tokens, latest)| signed(tokens) - signed(latest.tokens));
    let mut largest_requests: Vec<GrowingRequest> = growths(chain)
        .into_iter()
        .map(|(index, added)| {
            let after = &chain.requests[index];
            GrowingRequest {
                request: index + 1,
                time: chain.times[index].clone(),
                added_tokens: added,
                tool_result_bytes: after.tool_result_bytes,
                tool_result_tokens_estimate: after.tool_result_bytes / BYTES_PER_TOKEN,
                largest_tool_result: after.largest_tool_result.clone(),
            }
        })
        .collect();
    largest_requests.sort_by_key(|request| std::cmp::Reverse(request.added_tokens));
    largest_requests.truncate(LARGEST_REQUESTS);
    Estimates {
        trigger: TriggerEstimate {
            tokens,
            derivation,
            rule,
            observed,
            reached_without_compaction: reached,
        },
        cap,
        trigger_ratio,
        floors,
        floor,
        headroom,
        latest_context,
        room_left,
        largest_requests,
    }
}

/// `numerator / denominator` for people (`None` for a denominator of 0).
#[expect(
    clippy::cast_precision_loss,
    reason = "token counts are far below 2^52; the ratio is for people"
)]
pub fn ratio(numerator: u64, denominator: u64) -> Option<f64> {
    (denominator > 0).then(|| numerator as f64 / denominator as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_takes_the_lower_middle() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3, 1, 2]), Some(2));
        assert_eq!(median(&[4, 1, 3, 2]), Some(2));
    }

    #[test]
    fn observations_agree_or_give_their_envelope() {
        let observation = |low, high| TriggerObservation {
            low,
            high,
            time: None,
        };
        let observed = observed_trigger(vec![
            observation(Some(160_806), 165_002),
            observation(Some(162_475), 165_693),
        ])
        .unwrap();
        assert!(observed.consistent);
        assert_eq!((observed.low, observed.high), (Some(162_475), 165_002));
        assert!(fits(165_000, &observed));
        assert!(!fits(167_000, &observed));
        let only_high = observed_trigger(vec![observation(None, 100_000)]).unwrap();
        assert_eq!((only_high.low, only_high.estimate), (None, 100_000));
        assert!(fits(67_000, &only_high));
    }
}
