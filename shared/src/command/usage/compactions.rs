//! The compactions of a session's main chain: every boundary record, and every drop classified
//! as one without a record; and the `PreCompact` attempts that no compaction followed.

use serde::Serialize;

use super::drops::{Basis, ContextDrop, DropClass, MainChain};
use crate::command::archives::catalog::SnapshotEntry;
use crate::store::trigger::Trigger;

/// One compaction: from a boundary, or inferred from a drop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Compaction {
    /// The boundary's time, else the first request after it.
    pub time: Option<String>,
    /// `structural` (a boundary) or `heuristic` (a drop's cache write).
    pub basis: Basis,
    /// `auto` or `manual`, when the boundary says.
    pub trigger: Option<Trigger>,
    /// `preTokens`.
    pub pre_tokens: Option<u64>,
    /// `postTokens` (newer versions).
    pub post_tokens: Option<u64>,
    /// The last main-chain context before it.
    pub context_before: Option<u64>,
    /// The first main-chain context after it (the floor).
    pub context_after: Option<u64>,
    /// Index of the first main-chain request after it (the request count if none yet).
    pub next_request_index: usize,
    /// Main-chain requests since the previous compaction.
    pub requests_since_previous: Option<usize>,
    /// For an automatic compaction: turns (requests that start one, see `turn_start`) since the
    /// previous automatic compaction; requests when the log marks no turn at all (a log
    /// written before the field existed).
    pub turns_since_previous_automatic: Option<usize>,
    /// The snapshot taken for it, if one was found.
    pub snapshot: Option<String>,
}

/// Main-chain requests after which an automatic `PreCompact` snapshot was taken with no
/// compaction following: (request index, snapshot time).
pub fn attempted_compactions(
    chain: &MainChain,
    snapshots: Option<&[SnapshotEntry]>,
    unmatched: &[String],
) -> Vec<(usize, String)> {
    let Some(snapshots) = snapshots else {
        return Vec::new();
    };
    snapshots
        .iter()
        .filter(|snapshot| snapshot.metadata.trigger.is_automatic())
        .filter(|snapshot| unmatched.contains(&snapshot.metadata.name))
        .filter_map(|snapshot| {
            let taken = chrono::DateTime::parse_from_rfc3339(&snapshot.metadata.created_at).ok()?;
            let index = chain.requests.iter().rposition(|row| {
                row.time
                    .as_deref()
                    .and_then(|time| chrono::DateTime::parse_from_rfc3339(time).ok())
                    .is_some_and(|time| time <= taken)
            })?;
            Some((index, snapshot.metadata.created_at.clone()))
        })
        .collect()
}

/// Every compaction boundary of the main chain (also before the first and after the last
/// request) and every drop classified as a compaction without one, in order.
pub fn compactions_of(chain: &MainChain, drops: &[ContextDrop]) -> Vec<Compaction> {
    let count = chain.requests.len();
    let mut compactions = Vec::new();
    let boundary_lists = chain
        .boundaries
        .iter()
        .enumerate()
        .chain(std::iter::once((count, &chain.trailing_boundaries)));
    for (index, boundaries) in boundary_lists {
        let before = index
            .checked_sub(1)
            .map(|before| chain.requests[before].context_tokens);
        let after = chain.requests.get(index).map(|row| row.context_tokens);
        for (full, boundary) in boundaries {
            if *full {
                compactions.push(Compaction {
                    time: boundary.time.clone(),
                    basis: Basis::Structural,
                    trigger: boundary.trigger.clone(),
                    pre_tokens: boundary.pre_tokens,
                    post_tokens: boundary.post_tokens,
                    context_before: before,
                    context_after: after,
                    next_request_index: index,
                    requests_since_previous: None,
                    turns_since_previous_automatic: None,
                    snapshot: None,
                });
            }
        }
        if let Some(drop) = drops.iter().find(|drop| {
            drop.after_index == index
                && drop.class == DropClass::Compaction
                && drop.basis == Basis::Heuristic
        }) {
            compactions.push(Compaction {
                time: drop.time.clone(),
                basis: Basis::Heuristic,
                trigger: None,
                pre_tokens: None,
                post_tokens: None,
                context_before: Some(drop.context_before),
                context_after: Some(drop.context_after),
                next_request_index: index,
                requests_since_previous: None,
                turns_since_previous_automatic: None,
                snapshot: None,
            });
        }
    }
    for position in 1..compactions.len() {
        compactions[position].requests_since_previous = Some(
            compactions[position].next_request_index - compactions[position - 1].next_request_index,
        );
    }
    // Turns between automatic compactions. Logs from before `turn_start` have none marked:
    // then every request counts as a turn (the old, coarser rule).
    let marks_turns = chain.requests.iter().any(|row| row.turn_start);
    let mut previous_automatic: Option<usize> = None;
    for compaction in &mut compactions {
        if !compaction
            .trigger
            .as_ref()
            .is_some_and(Trigger::is_automatic)
        {
            continue;
        }
        let next = compaction.next_request_index;
        if let Some(start) = previous_automatic {
            let between = &chain.requests[start..next];
            compaction.turns_since_previous_automatic = Some(if marks_turns {
                between.iter().filter(|row| row.turn_start).count()
            } else {
                between.len()
            });
        }
        previous_automatic = Some(next);
    }
    compactions
}
