//! Cross-checking compactions against `PreCompact` snapshots: each compaction should have a
//! snapshot taken shortly before it, and each snapshot a compaction.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::archive::SnapshotEntry;

/// Default: how long before a compaction's boundary its snapshot may have been taken.
pub const DEFAULT_MATCH_BEFORE_SECONDS: i64 = 900;

/// Default: how long after (clock skew, boundary written early) it may have been taken.
pub const DEFAULT_MATCH_AFTER_SECONDS: i64 = 120;

/// A compaction as the matcher sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompactionPoint {
    /// Its time (the boundary's, else the first request after it).
    pub time: Option<String>,
    /// `auto`, `manual`, or unknown.
    pub trigger: Option<String>,
}

/// A compaction and its snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SnapshotMatch {
    /// Index of the compaction in the report's list.
    pub compaction: usize,
    /// The snapshot's name.
    pub snapshot: String,
    /// Seconds from the snapshot to the compaction.
    pub seconds_before: i64,
}

/// What the cross-check found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SnapshotCheck {
    /// False when there was no state folder to look in (`--transcript`).
    pub checked: bool,
    /// Matched pairs.
    pub matched: Vec<SnapshotMatch>,
    /// Indexes of compactions with no snapshot: `PreCompact` did not fire (a known upstream
    /// bug) or the hook was not installed then.
    pub compactions_without_snapshot: Vec<usize>,
    /// Names of snapshots with no compaction in the log.
    pub snapshots_without_compaction: Vec<String>,
}

fn parse_time(text: Option<&str>) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text?)
        .ok()
        .map(|time| time.with_timezone(&Utc))
}

/// Pairs compactions and snapshots, nearest first, within the window.
pub fn match_snapshots(
    compactions: &[CompactionPoint],
    snapshots: Option<&[SnapshotEntry]>,
    before_seconds: i64,
    after_seconds: i64,
) -> SnapshotCheck {
    let Some(snapshots) = snapshots else {
        return SnapshotCheck {
            checked: false,
            matched: Vec::new(),
            compactions_without_snapshot: Vec::new(),
            snapshots_without_compaction: Vec::new(),
        };
    };
    let mut used = vec![false; snapshots.len()];
    let mut matched = Vec::new();
    let mut without = Vec::new();
    for (index, compaction) in compactions.iter().enumerate() {
        let Some(time) = parse_time(compaction.time.as_deref()) else {
            without.push(index);
            continue;
        };
        let best = snapshots
            .iter()
            .enumerate()
            .filter(|(position, _)| !used[*position])
            .filter_map(|(position, snapshot)| {
                let taken = parse_time(Some(&snapshot.metadata.created_at))?;
                let seconds = (time - taken).num_seconds();
                (seconds <= before_seconds && seconds >= -after_seconds)
                    .then_some((position, seconds))
            })
            .min_by_key(|(_, seconds)| seconds.abs());
        match best {
            Some((position, seconds)) => {
                used[position] = true;
                matched.push(SnapshotMatch {
                    compaction: index,
                    snapshot: snapshots[position].metadata.name.clone(),
                    seconds_before: seconds,
                });
            }
            None => without.push(index),
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
