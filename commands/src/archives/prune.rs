//! Trimming the archive on request: keep the newest N snapshots per session, or drop those
//! older than some days. (A session's snapshots go with its kept copies, which they point into,
//! in `prune_kept.rs` and under a configured limit.)

use std::path::Path;

use chrono::{DateTime, Duration, Utc};

use anyhow::{Context, Result};

use crate::snapshots::catalog::SnapshotEntry;

/// Which snapshots to drop.
#[derive(Debug, Clone, Copy)]
pub enum PrunePolicy {
    /// Keep the newest `n` snapshots of each session.
    Keep(usize),
    /// Drop snapshots taken more than this many days ago.
    OlderThanDays(u32),
}

/// The snapshots `policy` would drop, from a list sorted by session then age
/// ([`crate::snapshots::catalog::list_snapshots`] order).
pub fn select_for_pruning(
    entries: &[SnapshotEntry],
    policy: PrunePolicy,
    now: DateTime<Utc>,
) -> Vec<&SnapshotEntry> {
    match policy {
        PrunePolicy::Keep(keep) => entries
            .chunk_by(|a, b| a.metadata.session_id == b.metadata.session_id)
            .flat_map(|session| &session[..session.len().saturating_sub(keep)])
            .collect(),
        PrunePolicy::OlderThanDays(days) => {
            let cutoff = now - Duration::days(i64::from(days));
            entries
                .iter()
                .filter(|entry| {
                    entry
                        .created
                        .instant()
                        .is_some_and(|created| created < cutoff)
                })
                .collect()
        }
    }
}

/// Deletes a snapshot's folder (`what` it is, for the error: `a snapshot`, or `an unfinished
/// snapshot` whose writer is gone, see [`ctxhooks_shared::keep::snapshot::is_abandoned`]); one
/// already gone (another prune at once, or the next snapshot of the session) is fine.
pub fn delete_snapshot(folder: &Path, what: &str) -> Result<()> {
    match fs_err::remove_dir_all(folder) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        done => done.with_context(|| format!("failed to delete {what}")),
    }
}

/// What a prune's text says it did to what it selected: `deleted`, or `would delete` in a dry
/// run.
pub fn deleted_verb(dry_run: bool) -> &'static str {
    if dry_run { "would delete" } else { "deleted" }
}
