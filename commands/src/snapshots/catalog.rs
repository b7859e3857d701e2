//! The snapshots found in the archive folders, each with its `snapshot.json`, and the folders
//! that are none (damaged, or never finished).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::time::Time;
use ctxhooks_shared::store::files;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::snapshot_metadata::{
    COMPACT_SUMMARY_FILE_NAME, CompactSummary, METADATA_FILE_NAME, SnapshotMetadata, TEMP_PREFIX,
};
use ctxhooks_shared::store::state_dir::StateDir;

/// A snapshot found on disk.
#[derive(Debug, Clone, Serialize)]
pub struct SnapshotEntry {
    pub path: PathBuf,
    /// Its `snapshot.json`.
    #[serde(flatten)]
    pub metadata: SnapshotMetadata,
    /// Its `created_at`, read once (the metadata keeps the text, which is what is written).
    #[serde(skip)]
    pub created: Time,
}

impl SnapshotEntry {
    /// The snapshot in `path` whose `snapshot.json` is `metadata`.
    pub fn new(path: PathBuf, metadata: SnapshotMetadata) -> Self {
        let created = Time::parse(&metadata.created_at);
        Self {
            path,
            metadata,
            created,
        }
    }
}

/// A folder in an archive that is not a readable snapshot (its `snapshot.json` is missing or
/// damaged).
#[derive(Debug, Clone, Serialize)]
pub struct BrokenSnapshot {
    pub path: PathBuf,
    /// Why it could not be read.
    pub error: String,
}

/// Everything found in the archive folders.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// Readable snapshots, oldest first within a session.
    pub entries: Vec<SnapshotEntry>,
    /// Folders that are not readable snapshots.
    pub broken: Vec<BrokenSnapshot>,
    /// Temporary folders of snapshots never finished (a hook killed at its timeout).
    pub unfinished: Vec<PathBuf>,
}

/// Scans the archive of one session, or of every session. A damaged folder never hides the
/// others: it is listed under [`Catalog::broken`].
pub fn scan_archive(state: &StateDir, session: Option<&SessionId>) -> Result<Catalog> {
    let sessions =
        session.map_or_else(|| state.session_ids(), |session| Ok(vec![session.clone()]))?;
    let mut catalog = Catalog::default();
    for session in sessions {
        let archive = state.archive_dir(&session);
        if !archive.is_dir() {
            continue;
        }
        let mut folders = Vec::new();
        for entry in fs_err::read_dir(&archive).context("failed to list the archive")? {
            let entry = entry?;
            if !entry.file_type()?.is_dir() {
                continue;
            }
            if entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
                catalog.unfinished.push(entry.path());
            } else {
                folders.push(entry.path());
            }
        }
        folders.sort();
        for folder in folders {
            match read_metadata(&folder) {
                Ok(metadata) => catalog.entries.push(SnapshotEntry::new(folder, metadata)),
                Err(error) => catalog.broken.push(BrokenSnapshot {
                    path: folder,
                    error: format!("{error:#}"),
                }),
            }
        }
    }
    catalog.unfinished.sort();
    Ok(catalog)
}

/// The readable snapshots of one session, or of every session, oldest first within a session
/// (damaged folders are left out; [`scan_archive`] lists them).
pub fn list_snapshots(state: &StateDir, session: Option<&SessionId>) -> Result<Vec<SnapshotEntry>> {
    Ok(scan_archive(state, session)?.entries)
}

fn read_metadata(folder: &Path) -> Result<SnapshotMetadata> {
    let path = folder.join(METADATA_FILE_NAME);
    let bytes = files::read_state_file_within(&path, files::SMALL_STATE_FILE_LIMIT)?
        .with_context(|| format!("`{}` does not exist", path.display()))?;
    Ok(serde_json::from_slice(&bytes)?)
}

/// Returns true if and only if a snapshot's recorded file `path` stays inside its folder (plain
/// names only: no root, no `..`).
pub fn stays_inside(path: &str) -> bool {
    Path::new(path)
        .components()
        .all(|component| matches!(component, std::path::Component::Normal(_)))
}

/// The summary `PostCompact` recorded beside a snapshot, if it did.
pub fn read_compact_summary(snapshot: &Path) -> Option<CompactSummary> {
    // Never waiting on a FIFO put in its place.
    let bytes = files::read_state_file_within(
        &snapshot.join(COMPACT_SUMMARY_FILE_NAME),
        files::SMALL_STATE_FILE_LIMIT,
    )
    .ok()??;
    serde_json::from_slice(&bytes).ok()
}
