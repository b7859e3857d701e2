//! `archives verify`: re-checking every snapshot's checksums (a schema 1 snapshot's full copies,
//! a schema 2 snapshot's references into the kept copies) and every byte of every kept copy.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use crate::render::text::name_of;
use crate::snapshots::catalog::{SnapshotEntry, stays_inside};
use ctxhooks_shared::causes::Causes;
use ctxhooks_shared::store::files;
use ctxhooks_shared::store::kept::{self, GenerationIndex, KeptError, KeptName};
use ctxhooks_shared::store::kept_check::{self, CheckedGeneration, Depth, ProblemKind};
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::snapshot_metadata::{KeptReference, SnapshotFile};
use ctxhooks_shared::store::state_dir::StateDir;

/// What `verify` found for one file.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
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
    /// The snapshot's `snapshot.json` cannot be read, or a session's kept copies cannot be
    /// listed (a link where they belong, never followed).
    Unreadable,
    /// Schema 2: the kept copy the file refers to is missing, or keeps fewer bytes.
    NotKept,
    /// A kept copy's bytes are not what its index records (a member that does not decompress,
    /// another length or SHA-256, a gap, a file shorter than recorded, an index that is missing
    /// or cannot be read), or a snapshot's bytes are among them.
    KeptDamaged,
    /// A generation of a kept copy keeps nothing (its index is empty or records no member):
    /// `restore` passes over it. Only the newest generation fails for it; an older one is
    /// history the writers moved past.
    KeptNothing,
    /// A generation's index and gzip file are both gone, though a later generation is there.
    KeptMissing,
}

impl From<ProblemKind> for FileStatus {
    fn from(kind: ProblemKind) -> Self {
        match kind {
            ProblemKind::KeptNothing => Self::KeptNothing,
            ProblemKind::KeptMissing => Self::KeptMissing,
            ProblemKind::KeptDamaged => Self::KeptDamaged,
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
    /// What is wrong (sizes recorded and found, the problem), or a note on a file that is
    /// fine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// What `verify` checked.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum VerifiedKind {
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
    pub session_id: String,
    /// Its name (a kept copy's: `kept/<name>.<generation>`).
    pub name: String,
    /// Returns true if and only if every file is present with its recorded size and checksum.
    pub ok: bool,
    /// One check per recorded file.
    pub files: Vec<FileCheck>,
}

/// The generations of kept copies that [`verify_kept`] found whole: session, name, number.
pub type WholeGenerations = BTreeSet<(String, String, u32)>;

/// Re-reads every file of a snapshot and compares size and SHA-256 with `snapshot.json`: a
/// schema 1 snapshot's copies, a schema 2 snapshot's bytes in the kept copies (in the kept
/// folder beside the snapshot's archive folder). Where [`verify_kept`] found the generation whole (every member read
/// back as recorded), the running SHA-256 recorded where a member ends at the file's size is
/// compared; anywhere else, the bytes are read back as `restore --snapshot` reads them.
pub fn verify_snapshot(entry: &SnapshotEntry, whole: &WholeGenerations) -> Result<VerifyOutcome> {
    let session_folder = entry.path.parent().and_then(Path::parent);
    let kept = session_folder.map_or_else(PathBuf::new, |folder| folder.join(kept::KEPT_DIR));
    let mut checks = Vec::new();
    for file in &entry.metadata.files {
        let path = entry.path.join(&file.path);
        let (status, detail) = if let Some(reference) = &file.kept {
            check_kept_reference(&kept, file, reference, &entry.metadata.session_id, whole)
        } else if !stays_inside(&file.path) {
            let detail = "the recorded path leaves the snapshot folder".to_owned();
            (FileStatus::OutsideSnapshot, Some(detail))
        } else if !path.is_file() {
            (FileStatus::Missing, None)
        } else {
            let found = files::digest_file(&path)?;
            if found.size != file.size {
                let detail = format!("recorded {} bytes, found {}", file.size, found.size);
                (FileStatus::SizeMismatch, Some(detail))
            } else if found.sha256 != file.sha256 {
                (FileStatus::ChecksumMismatch, None)
            } else {
                (FileStatus::Ok, None)
            }
        };
        checks.push(FileCheck {
            path: file.path.clone(),
            status,
            detail,
        });
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

/// Checks that the kept copy a schema 2 snapshot's file refers to (`reference`) holds its
/// bytes, as `restore --snapshot` would read them back (`whole` says which generations of the
/// kept copies, `session`'s among them, were found whole): what was found, and what is wrong.
fn check_kept_reference(
    kept: &Path,
    file: &SnapshotFile,
    reference: &KeptReference,
    session: &str,
    whole: &WholeGenerations,
) -> (FileStatus, Option<String>) {
    let generation = reference.generation;
    let name = match KeptName::parse(&reference.name) {
        Ok(name) => name,
        Err(error) => return (FileStatus::OutsideSnapshot, Some(format!("{error:#}"))),
    };
    let index = match GenerationIndex::read(&name.index_path(kept, generation)) {
        Ok(index) => index,
        Err(error) => {
            let detail = format!("generation {generation} of `{name}`: {error:#}");
            return (FileStatus::NotKept, Some(detail));
        }
    };
    if index.length() < file.size {
        let detail = format!(
            "generation {generation} of `{name}` keeps {} bytes, the snapshot records {}",
            index.length(),
            file.size
        );
        return (FileStatus::NotKept, Some(detail));
    }
    if whole.contains(&(session.to_owned(), name.to_string(), generation))
        && let Some(chunk) = index.chunk_ending_at(file.size)
    {
        return if chunk.total_sha256 == file.sha256 {
            (FileStatus::Ok, None)
        } else {
            (FileStatus::ChecksumMismatch, None)
        };
    }
    // Read back as `restore --snapshot` reads it: a damaged member past the file's size costs
    // nothing here; one before it fails the snapshot.
    let sink = &mut std::io::sink();
    match kept::copy_generation_checked(kept, &name, &index, file.size, &file.sha256, sink) {
        Ok(()) => (FileStatus::Ok, None),
        Err(error) => {
            let detail = format!("generation {generation} of `{name}`: {error:#}");
            (FileStatus::KeptDamaged, Some(detail))
        }
    }
}

/// Re-reads every member of every generation of a session's kept copies
/// ([`kept_check::check_all`]) and reports every kept byte `restore` could not give back: a
/// damaged member or index, a missing index, a gap in the generation numbers, a newest
/// generation that keeps nothing (an older one that keeps nothing passes, with a note). A
/// damaged generation gets its mark ([`kept_check::record_damage`]), so that the next hook run
/// starts a new generation instead of appending to it. Returns the outcomes, and adds the
/// generations found whole to `whole`.
pub fn verify_kept(
    state: &StateDir,
    session: &SessionId,
    whole: &mut WholeGenerations,
) -> Result<Vec<VerifyOutcome>> {
    let kept_dir = state.kept_dir(session);
    let mut outcomes = Vec::new();
    let names = match kept::list_kept(&kept_dir) {
        Ok(names) => names,
        // A kept folder that cannot be listed (a link in it, never followed) fails verification;
        // it does not stop the other sessions.
        Err(error) => return Ok(vec![unlisted_outcome(session, kept_dir, &error)]),
    };
    for (name, _) in names {
        let generations = kept_check::check_all(&kept_dir, &name, Depth::Bytes)?;
        let newest = generations.last().map_or(0, |checked| checked.generation);
        let can_mark = state.ensure_real_dir(&kept_dir).is_ok();
        for checked in &generations {
            if checked.is_whole() {
                whole.insert((session.to_string(), name.to_string(), checked.generation));
            }
            if can_mark {
                // Best effort: verify reports what it found whether or not it can mark it.
                let _ = kept_check::record_damage(&kept_dir, &name, checked, Depth::Bytes);
            }
            outcomes.push(kept_outcome(
                session,
                &kept_dir,
                &name,
                checked,
                checked.generation == newest,
            ));
        }
    }
    Ok(outcomes)
}

/// What `verify` says of a session's kept copies that could not be listed (`error` says why).
fn unlisted_outcome(session: &SessionId, kept_dir: PathBuf, error: &KeptError) -> VerifyOutcome {
    let name = name_of(Some(&kept_dir));
    VerifyOutcome {
        kind: VerifiedKind::Kept,
        path: kept_dir,
        session_id: session.to_string(),
        name: name.clone(),
        ok: false,
        files: vec![FileCheck {
            path: name,
            status: FileStatus::Unreadable,
            detail: Some(Causes(error).to_string()),
        }],
    }
}

/// What `verify` says of one generation (or gap) of a kept copy.
fn kept_outcome(
    session: &SessionId,
    kept_dir: &Path,
    name: &KeptName,
    checked: &CheckedGeneration,
    newest: bool,
) -> VerifyOutcome {
    let data = name.data_path(kept_dir, checked.generation);
    let file_name = name_of(Some(&data));
    let label = match checked.problems.as_slice() {
        [kept_check::GenerationProblem::Missing { last }] if *last > checked.generation => {
            format!("kept/{name}.{}-{last}", checked.generation)
        }
        _ => format!("kept/{name}.{}", checked.generation),
    };
    // Nothing was kept under an older generation that keeps nothing: the writers moved past
    // it, and `restore` never needs it.
    let history = !newest
        && !checked.problems.is_empty()
        && checked
            .problems
            .iter()
            .all(|problem| problem.kind() == ProblemKind::KeptNothing);
    let check = |status, detail| FileCheck {
        path: file_name.clone(),
        status,
        detail,
    };
    let files = if checked.problems.is_empty() {
        vec![check(FileStatus::Ok, None)]
    } else if history {
        let detail = format!(
            "{}; nothing was kept under it, and a later generation follows",
            checked.describe()
        );
        vec![check(FileStatus::Ok, Some(detail))]
    } else {
        checked
            .problems
            .iter()
            .map(|problem| check(problem.kind().into(), Some(problem.to_string())))
            .collect()
    };
    VerifyOutcome {
        kind: VerifiedKind::Kept,
        path: data,
        session_id: session.to_string(),
        name: label,
        ok: files.iter().all(|check| check.status == FileStatus::Ok),
        files,
    }
}
