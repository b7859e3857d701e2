//! The compactions of a session's main chain: every boundary record, every compact summary
//! without one, and every drop with a compaction's shape; and the `PreCompact` attempts that no
//! compaction followed.

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use super::drops::{Basis, Confidence, ContextDrop, DropClass, MainChain};
use crate::output::fields_by_name;
use crate::snapshots::catalog::SnapshotEntry;
use crate::time::{Time, seconds_between};
use ctxhooks_shared::store::trigger::Trigger;
use ctxhooks_shared::store::usage_record::{Boundary, RequestMarker};

/// One compaction: from a boundary or a compact summary, or inferred from a drop.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Compaction {
    /// The boundary's time, else the first request after it.
    pub time: Option<Time>,
    /// `structural` (a boundary or a compact summary) or `heuristic` (a drop's shape).
    pub basis: Basis,
    /// For a heuristic one: how sure it is (only `high` ones count for the floor and the
    /// snapshot check).
    pub confidence: Option<Confidence>,
    /// What its boundary record states, held whole; empty (every fact unknown) when no
    /// boundary marks it (a compact summary alone, or a drop's shape).
    pub boundary: Boundary,
    /// The last main-chain context before it.
    pub context_before: Option<u64>,
    /// The first main-chain context after it (the floor).
    pub context_after: Option<u64>,
    /// The first main-chain request after it, numbered from 1 (the request count plus one if
    /// none came yet).
    pub next_request: usize,
    /// Main-chain requests since the previous compaction.
    pub requests_since_previous: Option<usize>,
    /// For an automatic compaction: main-chain requests since the previous automatic one.
    pub requests_since_previous_automatic: Option<usize>,
    /// For an automatic compaction: turns (requests that start one, see `turn_start`) since the
    /// previous automatic one.
    pub turns_since_previous_automatic: Option<usize>,
    /// For an automatic compaction: seconds since the previous automatic one, when both times
    /// are known.
    pub seconds_since_previous_automatic: Option<u64>,
    /// The snapshot taken for it, if one was found.
    pub snapshot: Option<String>,
}

/// The report's keys in their order: the boundary's trigger and counts after the basis, its
/// details (`durationMs`, `cumulativeDroppedTokens`, what it kept verbatim) last, each left out
/// when not written.
impl Serialize for Compaction {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let boundary = &self.boundary;
        let mut fields = serializer.serialize_struct("Compaction", 18)?;
        fields_by_name! { fields, self; time, basis, confidence }
        fields_by_name! { fields, boundary; trigger, pre_tokens, post_tokens }
        fields_by_name! { fields, self; context_before, context_after, next_request }
        fields_by_name! { fields, self; requests_since_previous }
        fields_by_name! { fields, self; requests_since_previous_automatic }
        fields_by_name! { fields, self; turns_since_previous_automatic }
        fields_by_name! { fields, self; seconds_since_previous_automatic, snapshot }
        boundary.details.serialize_fields(&mut fields)?;
        fields.end()
    }
}

impl Compaction {
    /// Returns true if and only if the compaction is trustworthy evidence for the estimates and
    /// the snapshot check: structural, or heuristic of high confidence.
    pub fn is_trusted(&self) -> bool {
        self.basis == Basis::Structural || self.confidence == Some(Confidence::High)
    }

    /// Returns true if and only if the boundary says the context reaching the trigger started it.
    pub fn is_automatic(&self) -> bool {
        self.boundary
            .trigger
            .as_ref()
            .is_some_and(Trigger::is_automatic)
    }

    /// The 0-based main-chain index of the first request after it.
    pub fn next_index(&self) -> usize {
        self.next_request - 1
    }
}

/// Compactions by what they rest on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CompactionCounts {
    /// All of them.
    pub total: usize,
    /// Proven by a record.
    pub structural: usize,
    /// The shape of one, from the CLI's compaction zone.
    pub heuristic_high: usize,
    /// The shape of one, far below the zone.
    pub heuristic_low: usize,
    /// Trigger `auto`.
    pub automatic: usize,
    /// Trigger `manual`.
    pub manual: usize,
}

impl CompactionCounts {
    /// `compactions` counted.
    pub fn of(compactions: &[Compaction]) -> Self {
        let mut counts = Self::default();
        for compaction in compactions {
            counts.total += 1;
            match (compaction.basis, compaction.confidence) {
                (Basis::Structural, _) => counts.structural += 1,
                (_, Some(Confidence::High)) => counts.heuristic_high += 1,
                _ => counts.heuristic_low += 1,
            }
            match compaction.boundary.trigger {
                Some(Trigger::Auto) => counts.automatic += 1,
                Some(Trigger::Manual) => counts.manual += 1,
                _ => {}
            }
        }
        counts
    }
}

/// Main-chain requests after which an automatic `PreCompact` snapshot was taken with no
/// compaction following: (request index, snapshot time).
pub fn attempted_compactions(
    chain: &MainChain,
    snapshots: Option<&[SnapshotEntry]>,
    unmatched: &[String],
) -> Vec<(usize, Time)> {
    snapshots
        .unwrap_or_default()
        .iter()
        .filter(|snapshot| snapshot.metadata.trigger.is_automatic())
        .filter(|snapshot| unmatched.contains(&snapshot.metadata.name))
        .filter_map(|snapshot| {
            let taken = snapshot.created.clone();
            let at = taken.instant()?;
            let index = chain.times.iter().rposition(|time| {
                time.as_ref()
                    .and_then(Time::instant)
                    .is_some_and(|time| time <= at)
            })?;
            Some((index, taken))
        })
        .collect()
}

/// Every compaction boundary of the main chain (also before the first and after the last
/// request), every compact summary with no boundary before it, and every drop with a
/// compaction's shape, in order.
pub fn compactions_of(chain: &MainChain, drops: &[ContextDrop]) -> Vec<Compaction> {
    let mut compactions = Vec::new();
    for (index, boundaries) in chain.boundaries.iter().enumerate() {
        let next_time = chain.times.get(index).cloned().flatten();
        let structural = |time: Option<Time>| Compaction {
            time: time.or_else(|| next_time.clone()),
            context_before: index
                .checked_sub(1)
                .map(|i| chain.requests[i].context_tokens),
            context_after: chain.requests.get(index).map(|row| row.context_tokens),
            next_request: index + 1,
            ..Compaction::default()
        };
        let full = boundaries.iter().filter(|(full, _)| *full);
        let before = compactions.len();
        compactions.extend(full.map(|(_, boundary)| Compaction {
            boundary: boundary.row.boundary.clone(),
            ..structural(boundary.time.clone())
        }));
        let summary_only = compactions.len() == before
            && chain
                .requests
                .get(index)
                .is_some_and(|row| row.facts.markers.contains(&RequestMarker::CompactSummary));
        if summary_only {
            compactions.push(structural(chain.times[index].clone()));
        }
        if let Some(drop) = drops.iter().find(|drop| {
            drop.request_after == index + 1
                && drop.class == DropClass::Compaction
                && drop.basis == Basis::Heuristic
        }) {
            compactions.push(Compaction {
                confidence: drop.confidence,
                basis: Basis::Heuristic,
                context_before: Some(drop.context_before),
                ..structural(drop.time.clone())
            });
        }
    }
    for position in 0..compactions.len() {
        let (earlier, later) = compactions.split_at_mut(position);
        let compaction = &mut later[0];
        compaction.requests_since_previous = earlier
            .last()
            .map(|previous| compaction.next_request - previous.next_request);
        if compaction.is_automatic()
            && let Some(automatic) = earlier.iter().rfind(|earlier| earlier.is_automatic())
        {
            let between = &chain.requests[automatic.next_index()..compaction.next_index()];
            compaction.requests_since_previous_automatic = Some(between.len());
            compaction.turns_since_previous_automatic =
                Some(between.iter().filter(|row| row.turn_start).count());
            compaction.seconds_since_previous_automatic =
                seconds_between(automatic.time.as_ref(), compaction.time.as_ref());
        }
    }
    compactions
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxhooks_shared::store::usage_record::{CompactionDetails, PreservedSegment};

    /// The keys of `value`, a JSON object, in their order.
    fn keys(value: &impl Serialize) -> Vec<String> {
        let value = serde_json::to_value(value).unwrap();
        value.as_object().unwrap().keys().cloned().collect()
    }

    /// The report writes the boundary's trigger and counts after the basis and its details
    /// last, each detail only when the boundary wrote it; a compaction no boundary marks has
    /// the trigger and counts as null and no details.
    #[test]
    fn the_boundary_it_holds_keeps_the_reports_keys_in_their_order() {
        let head = [
            "time",
            "basis",
            "confidence",
            "trigger",
            "pre_tokens",
            "post_tokens",
        ];
        let middle = [
            "context_before",
            "context_after",
            "next_request",
            "requests_since_previous",
            "requests_since_previous_automatic",
            "turns_since_previous_automatic",
            "seconds_since_previous_automatic",
            "snapshot",
        ];
        let details = [
            "duration_ms",
            "cumulative_dropped_tokens",
            "preserved_segment",
            "preserved_messages",
        ];
        let bare = Compaction::default();
        assert_eq!(keys(&bare), [&head[..], &middle[..]].concat());
        let json = serde_json::to_value(&bare).unwrap();
        assert!(json["trigger"].is_null() && json["pre_tokens"].is_null());
        let full = Compaction {
            boundary: Boundary {
                trigger: Some(Trigger::Auto),
                pre_tokens: Some(170_000),
                details: CompactionDetails {
                    duration_ms: Some(61),
                    cumulative_dropped_tokens: Some(167_362),
                    preserved_segment: Some(PreservedSegment::default()),
                    preserved_messages: Some(vec!["h".into()]),
                },
                ..Boundary::default()
            },
            ..Compaction::default()
        };
        assert_eq!(keys(&full), [&head[..], &middle[..], &details[..]].concat());
        let only_duration = Compaction {
            boundary: Boundary {
                details: CompactionDetails {
                    duration_ms: Some(61),
                    ..CompactionDetails::default()
                },
                ..Boundary::default()
            },
            ..Compaction::default()
        };
        assert_eq!(
            keys(&only_duration),
            [&head[..], &middle[..], &details[..1]].concat()
        );
    }
}
