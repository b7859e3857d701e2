//! Context drops between adjacent main-chain requests, and their classes: compaction,
//! micro-compaction, advisor round trip, resume artifact, or undecided, each with its evidence.

use serde::Serialize;

use super::log::{SessionLog, TimelineItem};
use crate::store::trigger::Trigger;
use crate::store::usage_record::{BoundaryRow, UsageRow};

/// Default: a cache write at least this large after a drop means a compaction.
pub const DEFAULT_COMPACTION_CACHE_WRITE: u64 = 50_000;

/// Default: a cache write at most this large after a drop means an advisor round trip.
pub const DEFAULT_ADVISOR_CACHE_WRITE: u64 = 10_000;

/// Default: a fall smaller than this is noise, not a drop.
pub const DEFAULT_MIN_DROP: u64 = 1_000;

/// The thresholds of the heuristic classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Thresholds {
    /// Cache write at or above which a drop is a compaction. `None`: half the session's measured
    /// floor when one is known (capped at [`DEFAULT_COMPACTION_CACHE_WRITE`]), else the default.
    pub compaction_cache_write: Option<u64>,
    /// Cache write at or below which a drop is an advisor round trip.
    pub advisor_cache_write: u64,
    /// Smallest fall counted as a drop.
    pub min_drop: u64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            compaction_cache_write: None,
            advisor_cache_write: DEFAULT_ADVISOR_CACHE_WRITE,
            min_drop: DEFAULT_MIN_DROP,
        }
    }
}

/// What a drop was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropClass {
    /// The conversation was summarized.
    Compaction,
    /// Old tool results were trimmed in place.
    MicroCompaction,
    /// An advisor call inflated one request; the next one is back to normal.
    AdvisorRoundTrip,
    /// A zero-usage request written around a resume.
    ResumeArtifact,
    /// None of the rules applied.
    Undecided,
}

/// Whether the class rests on a record in the transcript or on token arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// A boundary record or advisor blocks in the transcript.
    Structural,
    /// The cache write of the request after the drop.
    Heuristic,
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
    /// A `microcompact_boundary` record lies between the two requests.
    MicrocompactBoundary {
        /// Its `trigger`.
        trigger: Option<Trigger>,
        /// Its `preTokens`.
        pre_tokens: Option<u64>,
        /// Its `tokensSaved`.
        tokens_saved: Option<u64>,
    },
    /// The request after the drop wrote nothing to the cache and had no context.
    ZeroContext,
    /// The request before the drop called the advisor, and the one after wrote little.
    AdvisorCall {
        /// The cache write after the drop.
        cache_write: u64,
        /// The compaction threshold it stayed under.
        compaction_threshold: u64,
    },
    /// No boundary, but the request after the drop rewrote much of the cache.
    LargeCacheWrite {
        /// The cache write after the drop.
        cache_write: u64,
        /// The compaction threshold it reached.
        compaction_threshold: u64,
        /// True when the request before called the advisor.
        after_advisor_call: bool,
    },
    /// The request after the drop wrote little to the cache.
    SmallCacheWrite {
        /// The cache write after the drop.
        cache_write: u64,
        /// The advisor threshold it stayed under.
        advisor_threshold: u64,
    },
    /// The cache write lies between the two thresholds.
    BetweenThresholds {
        /// The cache write after the drop.
        cache_write: u64,
        /// The advisor threshold.
        advisor_threshold: u64,
        /// The compaction threshold.
        compaction_threshold: u64,
    },
}

/// One drop (or a boundary between two requests, even if context did not fall).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextDrop {
    /// Index of the request before, among main-chain requests (0-based).
    pub before_index: usize,
    /// Index of the request after.
    pub after_index: usize,
    /// Time of the request after.
    pub time: Option<String>,
    /// Context of the request before.
    pub context_before: u64,
    /// Context of the request after.
    pub context_after: u64,
    /// Cache write of the request after.
    pub cache_write_after: u64,
    /// The class.
    pub class: DropClass,
    /// What the class rests on.
    pub basis: Basis,
    /// The evidence.
    pub evidence: DropEvidence,
    /// The compaction boundary between the two requests, if any.
    pub boundary: Option<BoundaryRow>,
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
    /// The main chain of a session log (sidechain requests and boundaries left out).
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
        chain
    }
}

/// The compaction threshold in force: the explicit one, else half the floor (when known, at
/// most the default and above the advisor threshold), else the default.
pub fn compaction_threshold(thresholds: &Thresholds, floor: Option<u64>) -> u64 {
    if let Some(explicit) = thresholds.compaction_cache_write {
        return explicit;
    }
    match floor {
        Some(floor) => (floor / 2)
            .min(DEFAULT_COMPACTION_CACHE_WRITE)
            .max(thresholds.advisor_cache_write.saturating_add(1)),
        None => DEFAULT_COMPACTION_CACHE_WRITE,
    }
}

/// Finds and classifies every drop of the main chain. `floor` feeds the relative threshold.
pub fn classify_drops(
    chain: &MainChain,
    thresholds: &Thresholds,
    floor: Option<u64>,
) -> Vec<ContextDrop> {
    let compaction_write = compaction_threshold(thresholds, floor);
    let mut drops = Vec::new();
    for index in 1..chain.requests.len() {
        let before = &chain.requests[index - 1];
        let after = &chain.requests[index];
        let boundaries = &chain.boundaries[index];
        let fell =
            before.context_tokens >= after.context_tokens.saturating_add(thresholds.min_drop);
        if !fell && boundaries.is_empty() {
            continue;
        }
        let cache_write = after.cache_creation_input_tokens;
        let compaction = boundaries.iter().find(|(full, _)| *full);
        let micro = boundaries.iter().find(|(full, _)| !*full);
        let (class, basis, evidence, boundary) = if let Some((_, boundary)) = compaction {
            (
                DropClass::Compaction,
                Basis::Structural,
                DropEvidence::CompactBoundary {
                    time: boundary.time.clone(),
                    trigger: boundary.trigger.clone(),
                    pre_tokens: boundary.pre_tokens,
                },
                Some(boundary.clone()),
            )
        } else if let Some((_, boundary)) = micro {
            (
                DropClass::MicroCompaction,
                Basis::Structural,
                DropEvidence::MicrocompactBoundary {
                    trigger: boundary.trigger.clone(),
                    pre_tokens: boundary.pre_tokens,
                    tokens_saved: boundary.tokens_saved,
                },
                Some(boundary.clone()),
            )
        } else if cache_write == 0 && after.context_tokens == 0 {
            (
                DropClass::ResumeArtifact,
                Basis::Heuristic,
                DropEvidence::ZeroContext,
                None,
            )
        } else if before.advisor && cache_write < compaction_write {
            // An advisor call alone does not rewrite the cache; a rewrite after one is a real
            // compaction (the published analysis saw 6 of 12 compactions follow advisor calls).
            (
                DropClass::AdvisorRoundTrip,
                Basis::Structural,
                DropEvidence::AdvisorCall {
                    cache_write,
                    compaction_threshold: compaction_write,
                },
                None,
            )
        } else if cache_write >= compaction_write {
            (
                DropClass::Compaction,
                Basis::Heuristic,
                DropEvidence::LargeCacheWrite {
                    cache_write,
                    compaction_threshold: compaction_write,
                    after_advisor_call: before.advisor,
                },
                None,
            )
        } else if cache_write <= thresholds.advisor_cache_write {
            (
                DropClass::AdvisorRoundTrip,
                Basis::Heuristic,
                DropEvidence::SmallCacheWrite {
                    cache_write,
                    advisor_threshold: thresholds.advisor_cache_write,
                },
                None,
            )
        } else {
            (
                DropClass::Undecided,
                Basis::Heuristic,
                DropEvidence::BetweenThresholds {
                    cache_write,
                    advisor_threshold: thresholds.advisor_cache_write,
                    compaction_threshold: compaction_write,
                },
                None,
            )
        };
        drops.push(ContextDrop {
            before_index: index - 1,
            after_index: index,
            time: after.time.clone(),
            context_before: before.context_tokens,
            context_after: after.context_tokens,
            cache_write_after: cache_write,
            class,
            basis,
            evidence,
            boundary,
        });
    }
    drops
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(key: &str, cache_write: u64, cache_read: u64, advisor: bool) -> UsageRow {
        UsageRow {
            time: None,
            transcript: "t".into(),
            key: key.into(),
            request_id: None,
            message_id: None,
            model: None,
            input_tokens: 0,
            cache_creation_input_tokens: cache_write,
            cache_read_input_tokens: cache_read,
            output_tokens: 0,
            context_tokens: cache_write + cache_read,
            sidechain: false,
            agent_id: None,
            advisor,
            tool_result_bytes: 0,
            largest_tool_result: None,
            turn_start: false,
        }
    }

    fn chain(rows: Vec<UsageRow>) -> MainChain {
        let boundaries = vec![Vec::new(); rows.len()];
        MainChain {
            requests: rows,
            boundaries,
            trailing_boundaries: Vec::new(),
        }
    }

    fn classes(drops: &[ContextDrop]) -> Vec<(DropClass, Basis)> {
        drops.iter().map(|drop| (drop.class, drop.basis)).collect()
    }

    #[test]
    fn heuristics_follow_the_cache_write_after_the_drop() {
        let rows = vec![
            row("a", 0, 160_000, false),
            row("b", 60_000, 0, false), // compaction: big rewrite
            row("c", 0, 100_000, false),
            row("d", 5_000, 40_000, false), // advisor bounce: tiny write
            row("e", 0, 90_000, false),
            row("f", 0, 0, false), // resume artifact, checked before advisor
            row("g", 0, 90_000, false),
            row("h", 20_000, 30_000, false), // in between
        ];
        let drops = classify_drops(&chain(rows), &Thresholds::default(), None);
        assert_eq!(
            classes(&drops),
            [
                (DropClass::Compaction, Basis::Heuristic),
                (DropClass::AdvisorRoundTrip, Basis::Heuristic),
                (DropClass::ResumeArtifact, Basis::Heuristic),
                (DropClass::Undecided, Basis::Heuristic),
            ]
        );
        // With a measured floor of 30,000 the compaction threshold becomes 15,000.
        let rows = vec![row("a", 0, 90_000, false), row("b", 20_000, 10_000, false)];
        let drops = classify_drops(&chain(rows), &Thresholds::default(), Some(30_000));
        assert_eq!(classes(&drops), [(DropClass::Compaction, Basis::Heuristic)]);
    }

    #[test]
    fn advisor_blocks_and_boundaries_are_structural() {
        let rows = vec![row("a", 0, 200_000, true), row("b", 30_000, 60_000, false)];
        let drops = classify_drops(&chain(rows.clone()), &Thresholds::default(), None);
        assert_eq!(
            classes(&drops),
            [(DropClass::AdvisorRoundTrip, Basis::Structural)]
        );
        // An advisor call followed by a full rewrite of the cache is a compaction, not the
        // advisor's round trip.
        let rewritten = vec![row("a", 0, 200_000, true), row("b", 60_000, 0, false)];
        let drops = classify_drops(&chain(rewritten), &Thresholds::default(), None);
        assert_eq!(classes(&drops), [(DropClass::Compaction, Basis::Heuristic)]);
        assert!(matches!(
            drops[0].evidence,
            DropEvidence::LargeCacheWrite {
                after_advisor_call: true,
                ..
            }
        ));
        let mut with_boundary = chain(rows);
        with_boundary.boundaries[1].push((
            false,
            BoundaryRow {
                time: None,
                transcript: "t".into(),
                uuid: None,
                trigger: Some(Trigger::Auto),
                pre_tokens: Some(200_000),
                post_tokens: None,
                tokens_saved: Some(100_000),
                sidechain: false,
                agent_id: None,
            },
        ));
        let drops = classify_drops(&with_boundary, &Thresholds::default(), None);
        assert_eq!(
            classes(&drops),
            [(DropClass::MicroCompaction, Basis::Structural)]
        );
    }
}
