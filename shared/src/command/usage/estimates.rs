//! Estimates from one session's main chain: the auto-compaction trigger T, the cap, the floor
//! after compaction, the headroom, and the turns that added the most context.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::command::install::document::read_settings_bytes;
use crate::store::trigger::Trigger;

use super::drops::{ContextDrop, DropClass, MainChain};
use crate::store::usage_record::ToolResultNote;

/// The window of models without `[1m]` in their name.
pub const DEFAULT_WINDOW: u64 = 200_000;

/// The window of `[1m]` models.
pub const MILLION_WINDOW: u64 = 1_000_000;

/// How big an advisor call makes the context (2.05–2.20 observed; the upper end is used).
pub const ADVISOR_FACTOR: f64 = 2.2;

/// Bytes per token used to estimate a tool result's size (a rough rule for English and code).
pub const BYTES_PER_TOKEN: u64 = 4;

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
    pub high: Option<u64>,
    /// The boundary's time.
    pub time: Option<String>,
}

/// The trigger estimate over every automatic compaction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TriggerEstimate {
    /// Every observation.
    pub observations: Vec<TriggerObservation>,
    /// True when the observations agree: the largest `low` is not above the smallest `high`.
    pub consistent: bool,
    /// When consistent, the largest `low` (T is above it); else the smallest `low`. `None`
    /// (JSON null) when no observation says where compaction did not fire: then T is only
    /// known to be at most `high`.
    pub low: Option<u64>,
    /// When consistent, the smallest `high` (T is at most it); else the largest `high`.
    pub high: u64,
    /// The T used below: the middle of `low .. high` when the observations agree and some have a
    /// `low`; otherwise the median of the `high` values.
    pub estimate: u64,
}

/// The cap compaction is measured against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cap {
    /// Tokens.
    pub tokens: u64,
    /// Where it came from.
    pub source: CapSource,
}

/// Where the cap came from. In JSON: `flag`, `settings:<path>`, `model:[1m]` or `default`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CapSource {
    /// `--cap`.
    Flag,
    /// `autoCompactWindow` in this settings file.
    Settings(PathBuf),
    /// The window of a `[1m]` model.
    MillionTokenModel,
    /// The window of every other model.
    Default,
}

impl std::fmt::Display for CapSource {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Flag => formatter.write_str("flag"),
            Self::Settings(path) => write!(formatter, "settings:{}", path.display()),
            Self::MillionTokenModel => formatter.write_str("model:[1m]"),
            Self::Default => formatter.write_str("default"),
        }
    }
}

impl Serialize for CapSource {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A turn that added context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrowingTurn {
    /// Index of the request after the turn, among main-chain requests.
    pub index: usize,
    /// Its time.
    pub time: Option<String>,
    /// Context added since the previous request.
    pub added_tokens: u64,
    /// Tool-result bytes sent in the turn.
    pub tool_result_bytes: u64,
    /// The same, as tokens at 4 bytes per token (an estimate).
    pub tool_result_tokens_estimate: u64,
    /// The largest tool result of the turn.
    pub largest_tool_result: Option<ToolResultNote>,
}

/// Everything estimated for a session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimates {
    /// The trigger T, from automatic compactions.
    pub trigger: Option<TriggerEstimate>,
    /// The cap.
    pub cap: Cap,
    /// T / cap.
    pub trigger_ratio: Option<f64>,
    /// Context of the first request after each compaction.
    pub floors: Vec<u64>,
    /// Their median: the floor used below.
    pub floor: Option<u64>,
    /// T − floor.
    pub headroom: Option<i64>,
    /// The turns that added the most context (up to 5), largest first.
    pub largest_turns: Vec<GrowingTurn>,
}

/// Context after each compaction: the first request after each compaction drop.
pub fn floors(drops: &[ContextDrop]) -> Vec<u64> {
    drops
        .iter()
        .filter(|drop| drop.class == DropClass::Compaction)
        .map(|drop| drop.context_after)
        .collect()
}

/// The context of the main-chain request just before `index`, when no full compaction lies
/// between the two: compaction was checked after it and did not fire.
fn not_fired_context(chain: &MainChain, index: usize) -> Option<u64> {
    let previous = index.checked_sub(1)?;
    let compaction_between = chain
        .boundaries
        .get(index)
        .is_some_and(|boundaries| boundaries.iter().any(|(full, _)| *full));
    if compaction_between {
        return None;
    }
    chain.requests.get(previous).map(|row| row.context_tokens)
}

/// Every main-chain request that grew the context, with the tokens it added: measured against
/// the last earlier request with non-zero context (a zero-context row is a resume artifact,
/// not a state of the conversation), and only when no boundary lies between the two.
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
                .any(|boundaries| !boundaries.is_empty());
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

/// Estimates T, the floor, the headroom and the largest turns.
///
/// `attempts` are main-chain requests after which `PreCompact` fired but no compaction followed
/// (with the snapshot's time): the trigger was reached there too, so such a request is an upper
/// bound and never a "did not fire" lower bound.
pub fn estimate(
    chain: &MainChain,
    drops: &[ContextDrop],
    cap: Cap,
    attempts: &[(usize, String)],
) -> Estimates {
    let attempted = |index: usize| attempts.iter().any(|(attempt, _)| *attempt == index);
    let not_fired = |index: usize| {
        let previous = index.checked_sub(1)?;
        if attempted(previous) {
            return None;
        }
        not_fired_context(chain, index)
    };
    let mut observations: Vec<TriggerObservation> = drops
        .iter()
        .filter(|drop| drop.class == DropClass::Compaction)
        .filter_map(|drop| {
            let boundary = drop.boundary.as_ref()?;
            (boundary.trigger.as_ref().is_some_and(Trigger::is_automatic)).then(|| {
                TriggerObservation {
                    low: not_fired(drop.before_index),
                    high: boundary.pre_tokens.or(Some(drop.context_before)),
                    time: boundary.time.clone(),
                }
            })
        })
        .collect();
    for (index, time) in attempts {
        if let Some(request) = chain.requests.get(*index) {
            observations.push(TriggerObservation {
                low: not_fired(*index),
                high: Some(request.context_tokens),
                time: Some(time.clone()),
            });
        }
    }
    let trigger = (!observations.is_empty()).then(|| {
        let highs: Vec<u64> = observations.iter().filter_map(|o| o.high).collect();
        let lows: Vec<u64> = observations.iter().filter_map(|o| o.low).collect();
        let highest_low = lows.iter().copied().max();
        let lowest_high = highs.iter().copied().min().unwrap_or(0);
        let consistent = highest_low.is_none_or(|low| low < lowest_high);
        let (low, high) = if consistent {
            (highest_low, lowest_high)
        } else {
            (
                lows.iter().copied().min(),
                highs.iter().copied().max().unwrap_or(0),
            )
        };
        let estimate = match low {
            Some(low) if consistent => low + (high - low) / 2,
            _ => median(&highs).unwrap_or(0),
        };
        TriggerEstimate {
            observations,
            consistent,
            low,
            high,
            estimate,
        }
    });
    let floors = floors(drops);
    let floor = median(&floors);
    #[allow(clippy::cast_precision_loss)]
    let trigger_ratio = trigger
        .as_ref()
        .map(|trigger| trigger.estimate as f64 / cap.tokens.max(1) as f64);
    let headroom = match (&trigger, floor) {
        (Some(trigger), Some(floor)) => Some(
            i64::try_from(trigger.estimate).unwrap_or(i64::MAX)
                - i64::try_from(floor).unwrap_or(i64::MAX),
        ),
        _ => None,
    };
    let mut largest_turns: Vec<GrowingTurn> = growths(chain)
        .into_iter()
        .map(|(index, added)| {
            let after = &chain.requests[index];
            GrowingTurn {
                index,
                time: after.time.clone(),
                added_tokens: added,
                tool_result_bytes: after.tool_result_bytes,
                tool_result_tokens_estimate: after.tool_result_bytes / BYTES_PER_TOKEN,
                largest_tool_result: after.largest_tool_result.clone(),
            }
        })
        .collect();
    largest_turns.sort_by_key(|turn| std::cmp::Reverse(turn.added_tokens));
    largest_turns.truncate(5);
    Estimates {
        trigger,
        cap,
        trigger_ratio,
        floors,
        floor,
        headroom,
        largest_turns,
    }
}

/// The cap: the explicit one, else `autoCompactWindow` from the project's or the user's
/// settings, else the model's window (1,000,000 for `[1m]` models, else 200,000).
pub fn find_cap(
    explicit: Option<u64>,
    cwd: Option<&Path>,
    user_config_dir: Option<&Path>,
    model: Option<&str>,
) -> Cap {
    if let Some(tokens) = explicit {
        return Cap {
            tokens,
            source: CapSource::Flag,
        };
    }
    let mut candidates = Vec::new();
    if let Some(cwd) = cwd {
        candidates.push(cwd.join(".claude").join("settings.local.json"));
        candidates.push(cwd.join(".claude").join("settings.json"));
    }
    if let Some(config) = user_config_dir {
        candidates.push(config.join("settings.json"));
    }
    for path in candidates {
        let window = read_settings_bytes(&path)
            .ok()
            .flatten()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            .and_then(|settings| settings.get("autoCompactWindow").and_then(Value::as_u64));
        if let Some(tokens) = window {
            return Cap {
                tokens,
                source: CapSource::Settings(path),
            };
        }
    }
    if model.is_some_and(|model| model.contains("[1m]")) {
        return Cap {
            tokens: MILLION_WINDOW,
            source: CapSource::MillionTokenModel,
        };
    }
    Cap {
        tokens: DEFAULT_WINDOW,
        source: CapSource::Default,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_comes_from_the_flag_the_settings_or_the_model() {
        let temp = crate::test_support::TempFolder::new("cap");
        let dir = temp.path();
        let project = dir.join("project");
        fs_err::create_dir_all(project.join(".claude")).unwrap();
        fs_err::write(
            project.join(".claude").join("settings.json"),
            br#"{"autoCompactWindow": 240000}"#,
        )
        .unwrap();
        assert_eq!(find_cap(Some(5), Some(&project), None, None).tokens, 5);
        let from_settings = find_cap(None, Some(&project), None, None);
        assert_eq!(from_settings.tokens, 240_000);
        assert!(matches!(from_settings.source, CapSource::Settings(_)));
        let elsewhere = dir.join("elsewhere");
        assert_eq!(
            find_cap(None, Some(&elsewhere), None, Some("claude-sonnet-4-5[1m]")).tokens,
            MILLION_WINDOW
        );
        assert_eq!(
            find_cap(None, None, None, Some("claude-opus-4-5")).tokens,
            DEFAULT_WINDOW
        );
    }

    #[test]
    fn median_takes_the_lower_middle() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3, 1, 2]), Some(2));
        assert_eq!(median(&[4, 1, 3, 2]), Some(2));
    }
}
