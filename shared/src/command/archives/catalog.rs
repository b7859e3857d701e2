//! Listing snapshots and re-checking their checksums.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::store::files;
use crate::store::session_id::SessionId;
use crate::store::snapshot_metadata::{METADATA_FILE_NAME, SnapshotMetadata, TEMP_PREFIX};
use crate::store::state_dir::StateDir;

/// A snapshot found on disk.
#[derive(Debug, Clone, Serialize)]
pub struct SnapshotEntry {
    /// Its folder.
    pub path: PathBuf,
    /// Its `snapshot.json`.
    #[serde(flatten)]
    pub metadata: SnapshotMetadata,
}

/// A folder in an archive that is not a readable snapshot (its `snapshot.json` is missing or
/// damaged).
#[derive(Debug, Clone, Serialize)]
pub struct BrokenSnapshot {
    /// The folder.
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
    let sessions = match session {
        Some(session) => vec![session.clone()],
        None => state.session_ids()?,
    };
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
                Ok(metadata) => catalog.entries.push(SnapshotEntry {
                    path: folder,
                    metadata,
                }),
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
    let bytes = files::read_state_file(&path)?
        .with_context(|| format!("`{}` does not exist", path.display()))?;
    Ok(serde_json::from_slice(&bytes)?)
}

/// What `verify` found for one file.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    /// Present, with its recorded size and checksum.
    Ok,
    /// Not there.
    Missing,
    /// Present with another size.
    SizeMismatch,
    /// Present with the recorded size and another checksum.
    ChecksumMismatch,
    /// The recorded path leaves the snapshot folder.
    OutsideSnapshot,
    /// The snapshot's `snapshot.json` cannot be read.
    Unreadable,
}

impl FileStatus {
    /// The status as JSON spells it (`ok`, `size_mismatch`...).
    pub fn name(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Missing => "missing",
            Self::SizeMismatch => "size_mismatch",
            Self::ChecksumMismatch => "checksum_mismatch",
            Self::OutsideSnapshot => "outside_snapshot",
            Self::Unreadable => "unreadable",
        }
    }
}

/// What `verify` found for one file.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FileCheck {
    /// Path inside the snapshot.
    pub path: String,
    /// What was found.
    pub status: FileStatus,
    /// Size recorded / found, when they differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// What `verify` found for one snapshot.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyOutcome {
    /// The snapshot's folder.
    pub path: PathBuf,
    /// Its session.
    pub session_id: String,
    /// Its name.
    pub name: String,
    /// Returns true if and only if every file is present with its recorded size and checksum.
    pub ok: bool,
    /// One check per recorded file.
    pub files: Vec<FileCheck>,
}

/// Re-reads every file of a snapshot and compares size and SHA-256 with `snapshot.json`.
pub fn verify_snapshot(entry: &SnapshotEntry) -> Result<VerifyOutcome> {
    let mut checks = Vec::new();
    for file in &entry.metadata.files {
        let relative = Path::new(&file.path);
        let inside = relative
            .components()
            .all(|component| matches!(component, std::path::Component::Normal(_)));
        if !inside {
            checks.push(FileCheck {
                path: file.path.clone(),
                status: FileStatus::OutsideSnapshot,
                detail: Some("the recorded path leaves the snapshot folder".to_owned()),
            });
            continue;
        }
        let path = entry.path.join(relative);
        let check = if path.is_file() {
            let found = files::digest_file(&path)?;
            if found.size != file.size {
                FileCheck {
                    path: file.path.clone(),
                    status: FileStatus::SizeMismatch,
                    detail: Some(format!(
                        "recorded {} bytes, found {}",
                        file.size, found.size
                    )),
                }
            } else if found.sha256 != file.sha256 {
                FileCheck {
                    path: file.path.clone(),
                    status: FileStatus::ChecksumMismatch,
                    detail: None,
                }
            } else {
                FileCheck {
                    path: file.path.clone(),
                    status: FileStatus::Ok,
                    detail: None,
                }
            }
        } else {
            FileCheck {
                path: file.path.clone(),
                status: FileStatus::Missing,
                detail: None,
            }
        };
        checks.push(check);
    }
    Ok(VerifyOutcome {
        path: entry.path.clone(),
        session_id: entry.metadata.session_id.clone(),
        name: entry.metadata.name.clone(),
        ok: checks.iter().all(|check| check.status == FileStatus::Ok),
        files: checks,
    })
}
