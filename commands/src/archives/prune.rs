//! Trimming the archive on request: keep the newest N snapshots per session, or drop those
//! older than some days. (A session's snapshots go with its kept copies, which they point into,
//! in `prune_kept.rs` and under a configured limit.)

use std::path::Path;

use chrono::{DateTime, Duration, Utc};

use anyhow::{Context, Result};

use super::catalog::SnapshotEntry;
use crate::time::Time;

/// Which snapshots to drop.
#[derive(Debug, Clone, Copy)]
pub enum PrunePolicy {
    /// Keep the newest `n` snapshots of each session.
    Keep(usize),
    /// Drop snapshots taken more than this many days ago.
    OlderThanDays(u32),
}

/// The snapshots `policy` would drop, from a list sorted by session then age
/// ([`super::catalog::list_snapshots`] order).
pub fn select_for_pruning(
    entries: &[SnapshotEntry],
    policy: PrunePolicy,
    now: DateTime<Utc>,
) -> Vec<SnapshotEntry> {
    match policy {
        PrunePolicy::Keep(keep) => {
            let mut selected = Vec::new();
            let mut start = 0;
            while start < entries.len() {
                let session = &entries[start].metadata.session_id;
                let end = entries[start..]
                    .iter()
                    .position(|entry| &entry.metadata.session_id != session)
                    .map_or(entries.len(), |offset| start + offset);
                let count = end - start;
                if count > keep {
                    selected.extend_from_slice(&entries[start..end - keep]);
                }
                start = end;
            }
            selected
        }
        PrunePolicy::OlderThanDays(days) => {
            let cutoff = now - Duration::days(i64::from(days));
            entries
                .iter()
                .filter(|entry| {
                    Time::parse(&entry.metadata.created_at)
                        .instant()
                        .is_some_and(|created| created < cutoff)
                })
                .cloned()
                .collect()
        }
    }
}

/// Deletes one snapshot folder; one already gone (another prune at once) is fine.
pub fn delete_snapshot(entry: &SnapshotEntry) -> Result<()> {
    remove_folder(&entry.path).context("failed to delete a snapshot")
}

/// Removes an unfinished snapshot folder whose writer is gone (see
/// [`ctxhooks_shared::keep::snapshot::is_abandoned`]); one already gone (another prune, or the next
/// snapshot of the session, removed it first) is fine.
pub fn delete_unfinished(folder: &Path) -> Result<()> {
    remove_folder(folder).context("failed to delete an unfinished snapshot")
}

fn remove_folder(folder: &Path) -> std::io::Result<()> {
    match fs_err::remove_dir_all(folder) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        done => done,
    }
}
