//! Listing snapshots and re-checking their checksums: a schema 1 snapshot's full copies, a
//! schema 2 snapshot's references into the kept copies, and every byte of every kept copy.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::store::files;
use crate::store::kept::{self, GenerationIndex, KeptName};
use crate::store::session_id::SessionId;
use crate::store::snapshot_metadata::{
    COMPACT_SUMMARY_FILE_NAME, CompactSummary, METADATA_FILE_NAME, SnapshotFile, SnapshotMetadata,
    TEMP_PREFIX,
};
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
    /// Schema 2: the kept copy the file refers to is missing, or keeps fewer bytes.
    NotKept,
    /// A kept copy's bytes are not what its index records (a member that does not decompress,
    /// another length or SHA-256, a gap, a file shorter than recorded).
    KeptDamaged,
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
            Self::NotKept => "not_kept",
            Self::KeptDamaged => "kept_damaged",
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

/// What `verify` checked.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum VerifiedKind {
    /// A snapshot.
    Snapshot,
    /// A generation of a kept copy.
    Kept,
}

/// What `verify` found for one snapshot, or one generation of a kept copy.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyOutcome {
    /// A snapshot or a kept copy.
    pub kind: VerifiedKind,
    /// The snapshot's folder, or the kept copy's gzip file.
    pub path: PathBuf,
    /// Its session.
    pub session_id: String,
    /// Its name (a kept copy's: `kept/<name>.<generation>`).
    pub name: String,
    /// Returns true if and only if every file is present with its recorded size and checksum.
    pub ok: bool,
    /// One check per recorded file.
    pub files: Vec<FileCheck>,
}

/// Re-reads every file of a snapshot and compares size and SHA-256 with `snapshot.json`: a
/// schema 1 snapshot's copies, a schema 2 snapshot's bytes in the kept copies (in `kept`, the
/// session's kept folder: the generation's running SHA-256 where a member ends at the file's
/// size, else the bytes themselves; [`verify_kept`] checks every member's bytes).
pub fn verify_snapshot(entry: &SnapshotEntry, kept: &Path) -> Result<VerifyOutcome> {
    let mut checks = Vec::new();
    for file in &entry.metadata.files {
        if file.kept.is_some() {
            checks.push(check_kept_reference(kept, file));
            continue;
        }
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
        kind: VerifiedKind::Snapshot,
        path: entry.path.clone(),
        session_id: entry.metadata.session_id.clone(),
        name: entry.metadata.name.clone(),
        ok: checks.iter().all(|check| check.status == FileStatus::Ok),
        files: checks,
    })
}

/// Checks that the kept copy a schema 2 snapshot's file refers to holds its bytes.
fn check_kept_reference(kept: &Path, file: &SnapshotFile) -> FileCheck {
    let check = |status, detail: Option<String>| FileCheck {
        path: file.path.clone(),
        status,
        detail,
    };
    let Some(reference) = &file.kept else {
        return check(FileStatus::NotKept, None);
    };
    let name = match KeptName::parse(&reference.name) {
        Ok(name) => name,
        Err(error) => return check(FileStatus::OutsideSnapshot, Some(format!("{error:#}"))),
    };
    let index = match GenerationIndex::read(&name.index_path(kept, reference.generation)) {
        Ok(index) => index,
        Err(error) => {
            return check(
                FileStatus::NotKept,
                Some(format!(
                    "generation {} of `{name}`: {error:#}",
                    reference.generation
                )),
            );
        }
    };
    if index.length() < file.size {
        return check(
            FileStatus::NotKept,
            Some(format!(
                "generation {} of `{name}` keeps {} bytes, the snapshot records {}",
                reference.generation,
                index.length(),
                file.size
            )),
        );
    }
    let same = match index.chunk_ending_at(file.size) {
        Some(chunk) => chunk.total_sha256 == file.sha256,
        None => kept::copy_generation_checked(
            kept,
            &name,
            &index,
            file.size,
            &file.sha256,
            &mut std::io::sink(),
        )
        .is_ok(),
    };
    if same {
        check(FileStatus::Ok, None)
    } else {
        check(FileStatus::ChecksumMismatch, None)
    }
}

/// Re-reads every member of every generation of a session's kept copies (see
/// [`kept::verify_generation`]).
pub fn verify_kept(state: &StateDir, session: &SessionId) -> Result<Vec<VerifyOutcome>> {
    let kept_dir = state.kept_dir(session);
    let mut outcomes = Vec::new();
    for (name, generations) in kept::list_kept(&kept_dir)? {
        for generation in 1..=generations {
            let data = name.data_path(&kept_dir, generation);
            let file_name = data
                .file_name()
                .map(|file_name| file_name.to_string_lossy().into_owned())
                .unwrap_or_default();
            if kept::is_empty_start(&kept_dir, &name, generation) {
                outcomes.push(VerifyOutcome {
                    kind: VerifiedKind::Kept,
                    path: data,
                    session_id: session.to_string(),
                    name: format!("kept/{name}.{generation}"),
                    ok: true,
                    files: vec![FileCheck {
                        path: file_name,
                        status: FileStatus::Ok,
                        detail: Some(
                            "an empty generation: a writer was stopped as it started it, before \
                             anything was kept under it"
                                .to_owned(),
                        ),
                    }],
                });
                continue;
            }
            let problems = GenerationIndex::read(&name.index_path(&kept_dir, generation))
                .and_then(|index| kept::verify_generation(&kept_dir, &name, &index))
                .unwrap_or_else(|error| {
                    vec![kept::GenerationProblem::Unreadable {
                        start: 0,
                        error: format!("{error:#}"),
                    }]
                });
            let files = if problems.is_empty() {
                vec![FileCheck {
                    path: file_name,
                    status: FileStatus::Ok,
                    detail: None,
                }]
            } else {
                problems
                    .iter()
                    .map(|problem| FileCheck {
                        path: file_name.clone(),
                        status: FileStatus::KeptDamaged,
                        detail: Some(problem.to_string()),
                    })
                    .collect()
            };
            outcomes.push(VerifyOutcome {
                kind: VerifiedKind::Kept,
                path: data,
                session_id: session.to_string(),
                name: format!("kept/{name}.{generation}"),
                ok: problems.is_empty(),
                files,
            });
        }
    }
    Ok(outcomes)
}

/// The summary `PostCompact` recorded beside a snapshot, if it did.
pub fn read_compact_summary(snapshot: &Path) -> Option<CompactSummary> {
    let bytes = fs_err::read(snapshot.join(COMPACT_SUMMARY_FILE_NAME)).ok()?;
    serde_json::from_slice(&bytes).ok()
}
