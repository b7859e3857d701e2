//! The problems a report points out, as facts: a compaction loop, a compaction without its
//! snapshot, a floor above the trigger, a turn larger than the headroom, an advisor call that
//! would cross the trigger. The words are rendered by `text.rs`.

use serde::Serialize;

use super::compactions::Compaction;
use super::drops::MainChain;
use super::estimates::{ADVISOR_FACTOR, Estimates, growths};
use super::snapshots::SnapshotCheck;
use crate::store::trigger::Trigger;

/// Automatic compactions fewer than this many turns apart form a loop.
pub const LOOP_TURNS: usize = 3;

/// A problem worth a look. Request and compaction numbers are indexes (0-based) into the
/// report's main-chain requests and compactions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Warning {
    /// Two automatic compactions only a few turns apart: the context refills past the trigger
    /// at once.
    CompactionLoop {
        /// The later compaction.
        compaction: usize,
        /// The earlier automatic compaction.
        previous: usize,
        /// Turns between the two.
        turns: usize,
        /// The later compaction's time.
        time: Option<String>,
    },
    /// A compaction with no `PreCompact` snapshot.
    CompactionWithoutSnapshot {
        /// The compaction.
        compaction: usize,
        /// Its time.
        time: Option<String>,
    },
    /// A snapshot with no compaction in the usage log.
    SnapshotWithoutCompaction {
        /// The snapshot's name.
        snapshot: String,
    },
    /// The context right after compaction is already at or above the trigger.
    FloorAboveTrigger {
        /// The floor.
        floor: u64,
        /// The trigger estimate.
        trigger: u64,
        /// Trigger minus floor (zero or less).
        headroom: i64,
    },
    /// One turn added more than the headroom.
    TurnExceedsHeadroom {
        /// The request after the turn.
        request: usize,
        /// Its time.
        time: Option<String>,
        /// Tokens the turn added.
        added_tokens: u64,
        /// The headroom.
        headroom: i64,
    },
    /// An advisor call whose inflated context would reach the trigger.
    AdvisorCrossesTrigger {
        /// The request that called the advisor.
        request: usize,
        /// Its time.
        time: Option<String>,
        /// The context before the call.
        context_before: u64,
        /// That context times [`ADVISOR_FACTOR`].
        inflated: u64,
        /// The trigger estimate.
        trigger: u64,
    },
}

impl Warning {
    /// The warning's kind, as JSON spells it.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::CompactionLoop { .. } => "compaction_loop",
            Self::CompactionWithoutSnapshot { .. } => "compaction_without_snapshot",
            Self::SnapshotWithoutCompaction { .. } => "snapshot_without_compaction",
            Self::FloorAboveTrigger { .. } => "floor_above_trigger",
            Self::TurnExceedsHeadroom { .. } => "turn_exceeds_headroom",
            Self::AdvisorCrossesTrigger { .. } => "advisor_crosses_trigger",
        }
    }
}

/// Every warning for a report's main chain, compactions, snapshot check and estimates, in a
/// fixed order: loops, snapshots, floor or turns, advisor calls.
pub fn find_warnings(
    chain: &MainChain,
    compactions: &[Compaction],
    check: &SnapshotCheck,
    estimates: &Estimates,
) -> Vec<Warning> {
    let mut warnings = compaction_loops(compactions);
    for &index in &check.compactions_without_snapshot {
        warnings.push(Warning::CompactionWithoutSnapshot {
            compaction: index,
            time: compactions[index].time.clone(),
        });
    }
    for name in &check.snapshots_without_compaction {
        warnings.push(Warning::SnapshotWithoutCompaction {
            snapshot: name.clone(),
        });
    }
    warnings.extend(headroom_warnings(chain, estimates));
    warnings.extend(advisor_warnings(chain, estimates));
    warnings
}

fn compaction_loops(compactions: &[Compaction]) -> Vec<Warning> {
    let mut warnings = Vec::new();
    for (position, compaction) in compactions.iter().enumerate() {
        if let Some(turns) = compaction.turns_since_previous_automatic
            && turns < LOOP_TURNS
        {
            let previous = compactions[..position]
                .iter()
                .rposition(|earlier| earlier.trigger.as_ref().is_some_and(Trigger::is_automatic))
                .unwrap_or(0);
            warnings.push(Warning::CompactionLoop {
                compaction: position,
                previous,
                turns,
                time: compaction.time.clone(),
            });
        }
    }
    warnings
}

fn headroom_warnings(chain: &MainChain, estimates: &Estimates) -> Vec<Warning> {
    let Some(headroom) = estimates.headroom else {
        return Vec::new();
    };
    if headroom <= 0 {
        // Every turn would "exceed" a headroom of zero or less: one warning says it all.
        return vec![Warning::FloorAboveTrigger {
            floor: estimates.floor.unwrap_or(0),
            trigger: estimates
                .trigger
                .as_ref()
                .map_or(0, |trigger| trigger.estimate),
            headroom,
        }];
    }
    growths(chain)
        .into_iter()
        .filter(|(_, added)| i64::try_from(*added).unwrap_or(i64::MAX) > headroom)
        .map(|(index, added)| Warning::TurnExceedsHeadroom {
            request: index,
            time: chain.requests[index].time.clone(),
            added_tokens: added,
            headroom,
        })
        .collect()
}

fn advisor_warnings(chain: &MainChain, estimates: &Estimates) -> Vec<Warning> {
    let Some(trigger) = &estimates.trigger else {
        return Vec::new();
    };
    let mut warnings = Vec::new();
    for index in 1..chain.requests.len() {
        let row = &chain.requests[index];
        if !row.advisor {
            continue;
        }
        let before = chain.requests[index - 1].context_tokens;
        #[expect(
            clippy::cast_precision_loss,
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "token counts are far below 2^52; the product is rounded down on purpose"
        )]
        let inflated = (before as f64 * ADVISOR_FACTOR) as u64;
        if inflated >= trigger.estimate {
            warnings.push(Warning::AdvisorCrossesTrigger {
                request: index,
                time: row.time.clone(),
                context_before: before,
                inflated,
                trigger: trigger.estimate,
            });
        }
    }
    warnings
}
