//! Listing snapshots and re-checking their checksums.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use super::snapshot::SnapshotMetadata;
use super::{ARCHIVE_DIR_NAME, METADATA_FILE_NAME, TEMP_PREFIX};
use crate::files;
use crate::session_id::SessionId;
use crate::state::StateDir;

/// A snapshot found on disk.
#[derive(Debug, Clone, Serialize)]
pub struct SnapshotEntry {
    /// Its folder.
    pub path: PathBuf,
    /// Its `snapshot.json`.
    #[serde(flatten)]
    pub metadata: SnapshotMetadata,
}

/// The snapshots of one session, or of every session, oldest first within a session.
pub fn list_snapshots(state: &StateDir, session: Option<&SessionId>) -> Result<Vec<SnapshotEntry>> {
    let sessions = match session {
        Some(session) => vec![session.clone()],
        None => state.session_ids()?,
    };
    let mut entries = Vec::new();
    for session in sessions {
        let archive = state.session_dir(&session).join(ARCHIVE_DIR_NAME);
        if !archive.is_dir() {
            continue;
        }
        let mut folders = Vec::new();
        for entry in fs_err::read_dir(&archive).context("failed to list the archive")? {
            let entry = entry?;
            let name = entry.file_name();
            if name.to_string_lossy().starts_with(TEMP_PREFIX) || !entry.file_type()?.is_dir() {
                continue;
            }
            folders.push(entry.path());
        }
        folders.sort();
        for folder in folders {
            let metadata = read_metadata(&folder)
                .with_context(|| format!("failed to read snapshot `{}`", folder.display()))?;
            entries.push(SnapshotEntry {
                path: folder,
                metadata,
            });
        }
    }
    Ok(entries)
}

fn read_metadata(folder: &Path) -> Result<SnapshotMetadata> {
    let bytes = fs_err::read(folder.join(METADATA_FILE_NAME))?;
    Ok(serde_json::from_slice(&bytes)?)
}

/// What `verify` found for one file.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FileCheck {
    /// Path inside the snapshot.
    pub path: String,
    /// `ok`, `missing`, `size_mismatch` or `checksum_mismatch`.
    pub status: &'static str,
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
        let path = entry.path.join(&file.path);
        let check = if path.is_file() {
            let found = files::digest_file(&path)?;
            if found.size != file.size {
                FileCheck {
                    path: file.path.clone(),
                    status: "size_mismatch",
                    detail: Some(format!(
                        "recorded {} bytes, found {}",
                        file.size, found.size
                    )),
                }
            } else if found.sha256 != file.sha256 {
                FileCheck {
                    path: file.path.clone(),
                    status: "checksum_mismatch",
                    detail: None,
                }
            } else {
                FileCheck {
                    path: file.path.clone(),
                    status: "ok",
                    detail: None,
                }
            }
        } else {
            FileCheck {
                path: file.path.clone(),
                status: "missing",
                detail: None,
            }
        };
        checks.push(check);
    }
    Ok(VerifyOutcome {
        path: entry.path.clone(),
        session_id: entry.metadata.session_id.clone(),
        name: entry.metadata.name.clone(),
        ok: checks.iter().all(|check| check.status == "ok"),
        files: checks,
    })
}
