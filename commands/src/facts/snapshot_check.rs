//! Cross-checking compactions against `PreCompact` snapshots: each compaction should have a
//! snapshot taken shortly before it, and each snapshot a compaction.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::compactions::Compaction;
use crate::snapshots::catalog::SnapshotEntry;
use crate::time::Time;

/// Default: how long before a compaction's boundary its snapshot may have been taken.
pub const DEFAULT_MATCH_BEFORE_SECONDS: i64 = 900;

/// How long after a compaction's boundary (clock skew, boundary written early) its snapshot may
/// have been taken.
pub const MATCH_AFTER_SECONDS: i64 = 120;

/// A compaction and its snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SnapshotMatch {
    /// The compaction, numbered from 1 in the report's list (as in the text and JSON).
    pub compaction: usize,
    /// The snapshot's name.
    pub snapshot: String,
    /// Seconds from the snapshot to the compaction.
    pub seconds_before: i64,
}

/// What the cross-check found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SnapshotCheck {
    /// False when there was no state folder to look in (`--transcript`).
    pub checked: bool,
    /// Matched pairs.
    pub matched: Vec<SnapshotMatch>,
    /// Compactions with no snapshot, numbered from 1: `PreCompact` did not fire (a known upstream bug) or the hook was not installed then.
    pub compactions_without_snapshot: Vec<usize>,
    /// Names of snapshots with no compaction in the log.
    pub snapshots_without_compaction: Vec<String>,
}

/// Pairs each trusted compaction with its snapshot (a heuristic one of low confidence is neither
/// matched nor reported without one): the last one taken before it within the window (a later
/// one only when none was, up to [`MATCH_AFTER_SECONDS`]), with the same trigger.
pub fn match_snapshots(
    compactions: &[Compaction],
    snapshots: Option<&[SnapshotEntry]>,
    before_seconds: i64,
) -> SnapshotCheck {
    let Some(snapshots) = snapshots else {
        return SnapshotCheck::default();
    };
    let mut used = vec![false; snapshots.len()];
    let taken: Vec<Option<DateTime<Utc>>> = snapshots
        .iter()
        .map(|snapshot| snapshot.created.instant())
        .collect();
    let mut matched = Vec::new();
    let mut without = Vec::new();
    for (number, compaction) in (1..).zip(compactions) {
        if !compaction.is_trusted() {
            continue;
        }
        let Some(time) = compaction.time.as_ref().and_then(Time::instant) else {
            without.push(number);
            continue;
        };
        // PreCompact runs just before its compaction: the snapshot taken last before the
        // boundary is its own, and one taken earlier belongs to an earlier attempt (Claude Code
        // can run PreCompact and then give up). Milliseconds, not seconds: compaction loops put
        // several snapshots within one second. A snapshot after the boundary (clock skew) is
        // only a fallback, and the triggers must agree when both are known.
        let best = snapshots
            .iter()
            .enumerate()
            .filter(|(position, _)| !used[*position])
            .filter(|(_, snapshot)| {
                (compaction.boundary.trigger.as_ref())
                    .is_none_or(|trigger| *trigger == snapshot.metadata.trigger)
            })
            .filter_map(|(position, _)| {
                let taken = taken[position]?;
                let milliseconds = (time - taken).num_milliseconds();
                (milliseconds <= before_seconds.saturating_mul(1000)
                    && milliseconds >= MATCH_AFTER_SECONDS.saturating_mul(1000).saturating_neg())
                .then_some((position, milliseconds))
            })
            .min_by_key(|(_, milliseconds)| (*milliseconds < 0, milliseconds.abs()));
        match best {
            Some((position, milliseconds)) => {
                used[position] = true;
                matched.push(SnapshotMatch {
                    compaction: number,
                    snapshot: snapshots[position].metadata.name.clone(),
                    seconds_before: milliseconds / 1000,
                });
            }
            None => without.push(number),
        }
    }
    SnapshotCheck {
        checked: true,
        matched,
        compactions_without_snapshot: without,
        snapshots_without_compaction: snapshots
            .iter()
            .zip(used)
            .filter(|(_, used)| !used)
            .map(|(snapshot, _)| snapshot.metadata.name.clone())
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use ctxhooks_shared::store::snapshot_metadata::SnapshotMetadata;
    use ctxhooks_shared::store::trigger::Trigger;
    use ctxhooks_shared::store::usage_record::Boundary;

    fn snapshot(name: &str, created_at: &str, trigger: &str) -> SnapshotEntry {
        SnapshotEntry::new(
            PathBuf::from(name),
            SnapshotMetadata {
                schema: 1,
                name: name.to_owned(),
                session_id: "s".to_owned(),
                trigger: Trigger::from_text(trigger),
                custom_instructions: None,
                created_at: created_at.to_owned(),
                source_path: "t".to_owned(),
                size: 0,
                sha256: String::new(),
                files: Vec::new(),
                skipped: Vec::new(),
            },
        )
    }

    fn point(time: &str) -> Compaction {
        Compaction {
            time: Some(Time::parse(time)),
            boundary: Boundary {
                trigger: Some(Trigger::Auto),
                ..Boundary::default()
            },
            next_request: 1,
            ..Compaction::default()
        }
    }

    #[test]
    fn each_compaction_takes_the_last_snapshot_before_it_even_within_one_second() {
        // As seen with the real CLI in a compaction loop: a PreCompact that gave up, then two
        // compactions, all within two seconds.
        let snapshots = [
            snapshot("attempt", "2026-11-30T05:17:20.021636Z", "auto"),
            snapshot("first", "2026-11-30T05:17:20.657232Z", "auto"),
            snapshot("second", "2026-11-30T05:17:21.270992Z", "auto"),
        ];
        let compactions = [
            point("2026-11-30T05:17:20.753Z"),
            point("2026-11-30T05:17:21.366Z"),
        ];
        let check = match_snapshots(&compactions, Some(&snapshots), 900);
        let pairs: Vec<(usize, &str)> = check
            .matched
            .iter()
            .map(|found| (found.compaction, found.snapshot.as_str()))
            .collect();
        assert_eq!(pairs, [(1, "first"), (2, "second")]);
        assert_eq!(check.snapshots_without_compaction, ["attempt"]);
    }

    #[test]
    fn a_snapshot_of_another_trigger_is_not_taken() {
        let snapshots = [snapshot("manual", "2026-11-30T05:00:00.000Z", "manual")];
        let check = match_snapshots(&[point("2026-11-30T05:00:01.000Z")], Some(&snapshots), 900);
        assert!(check.matched.is_empty());
        assert_eq!(check.compactions_without_snapshot, [1]);
    }
}
