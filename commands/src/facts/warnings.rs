//! The problems a report points out, as facts: a compaction loop, a compaction without its
//! snapshot, a floor above the trigger, a request that added more than the headroom, an advisor
//! call that would cross the trigger. The words are rendered by `text.rs`.

use serde::Serialize;

use super::compactions::Compaction;
use super::drops::MainChain;
use super::estimates::{ADVISOR_FACTOR, Estimates, growths};
use super::snapshot_check::SnapshotCheck;
use crate::time::Time;

/// Automatic compactions fewer than this many main-chain requests apart form a loop (when they
/// are also close in time): the context refilled past the trigger at once.
pub const LOOP_REQUESTS: usize = 5;

/// ...and less than this many seconds apart (a session that grows steadily for an hour between
/// two compactions is no loop, however few prompts it had).
pub const LOOP_SECONDS: u64 = 15 * 60;

/// A problem worth a look. Request and compaction numbers count from 1, as in the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Warning {
    /// Two automatic compactions only a few requests and minutes apart: the context refills
    /// past the trigger at once.
    CompactionLoop {
        /// The later compaction.
        compaction: usize,
        /// The earlier automatic compaction.
        previous: usize,
        /// Main-chain requests between the two.
        requests: usize,
        /// Turns (typed prompts) between the two.
        turns: usize,
        /// Seconds between the two, when both times are known.
        seconds: Option<u64>,
        /// The later compaction's time.
        time: Option<Time>,
    },
    /// A compaction with no `PreCompact` snapshot.
    CompactionWithoutSnapshot {
        compaction: usize,
        time: Option<Time>,
    },
    /// A snapshot with no compaction in the usage log.
    SnapshotWithoutCompaction {
        /// The snapshot's name.
        snapshot: String,
    },
    /// The context right after compaction is already at or above the trigger.
    FloorAboveTrigger {
        floor: u64,
        /// The trigger estimate.
        trigger: u64,
        /// Trigger minus floor (zero or less).
        headroom: i64,
    },
    /// One request added more than the headroom.
    RequestExceedsHeadroom {
        request: usize,
        time: Option<Time>,
        /// Tokens the turn added.
        added_tokens: u64,
        headroom: i64,
    },
    /// An advisor call whose inflated context would reach the trigger.
    AdvisorCrossesTrigger {
        /// The request that called the advisor.
        request: usize,
        time: Option<Time>,
        /// The context before the call.
        context_before: u64,
        /// That context times [`ADVISOR_FACTOR`].
        inflated: u64,
        /// The trigger estimate.
        trigger: u64,
    },
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
    for &number in &check.compactions_without_snapshot {
        warnings.push(Warning::CompactionWithoutSnapshot {
            compaction: number,
            time: compactions[number - 1].time.clone(),
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
    let loops = compactions
        .iter()
        .enumerate()
        .filter_map(|(position, compaction)| {
            let requests = compaction.requests_since_previous_automatic?;
            let seconds = compaction.seconds_since_previous_automatic;
            let quick = seconds.is_none_or(|seconds| seconds < LOOP_SECONDS);
            let previous = compactions[..position]
                .iter()
                .rposition(Compaction::is_automatic)
                .unwrap_or(0);
            (requests < LOOP_REQUESTS && quick).then(|| Warning::CompactionLoop {
                compaction: position + 1,
                previous: previous + 1,
                requests,
                turns: compaction.turns_since_previous_automatic.unwrap_or(0),
                seconds,
                time: compaction.time.clone(),
            })
        });
    loops.collect()
}

fn headroom_warnings(chain: &MainChain, estimates: &Estimates) -> Vec<Warning> {
    let Some(headroom) = estimates.headroom else {
        return Vec::new();
    };
    if headroom <= 0 {
        // Every request would "exceed" a headroom of zero or less: one warning says it all.
        return vec![Warning::FloorAboveTrigger {
            floor: estimates.floor.unwrap_or(0),
            trigger: estimates.trigger.tokens.unwrap_or(0),
            headroom,
        }];
    }
    growths(chain)
        .into_iter()
        .filter(|(_, added)| i64::try_from(*added).unwrap_or(i64::MAX) > headroom)
        .map(|(index, added)| Warning::RequestExceedsHeadroom {
            request: index + 1,
            time: chain.times[index].clone(),
            added_tokens: added,
            headroom,
        })
        .collect()
}

fn advisor_warnings(chain: &MainChain, estimates: &Estimates) -> Vec<Warning> {
    let Some(trigger) = estimates.trigger.tokens else {
        return Vec::new();
    };
    let calls = (1..chain.requests.len()).filter(|index| chain.requests[*index].advisor);
    calls
        .filter_map(|index| {
            let before = chain.requests[index - 1].context_tokens;
            #[expect(
                clippy::cast_precision_loss,
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "token counts are far below 2^52; the product is rounded down on purpose"
            )]
            let inflated = (before as f64 * ADVISOR_FACTOR) as u64;
            (inflated >= trigger).then(|| Warning::AdvisorCrossesTrigger {
                request: index + 1,
                time: chain.times[index].clone(),
                context_before: before,
                inflated,
                trigger,
            })
        })
        .collect()
}
