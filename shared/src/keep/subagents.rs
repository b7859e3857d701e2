//! Finding a session's subagent transcripts, in the 2.1.x layout
//! (`<transcript dir>/<session id>/subagents/**`) and the 2.0.x one (flat `agent-*.jsonl` files
//! beside the transcript whose records carry the session id).

use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use crate::causes::Causes;
use crate::store::session_id::SessionId;
use crate::store::snapshot_metadata::SkippedFile;
use crate::transcript::file::{TranscriptError, TranscriptFile};

/// Why a folder or a candidate could not be examined, as a skipped file records it.
#[derive(Debug, thiserror::Error)]
enum SubagentError {
    #[error("failed to list the subagent folder")]
    ListNested(#[source] io::Error),
    #[error("failed to list the transcript's folder")]
    ListFolder(#[source] io::Error),
    /// A flat candidate, opened as a transcript is.
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    /// A flat candidate's first lines.
    #[error(transparent)]
    Read(#[from] io::Error),
}

/// One subagent file to archive: where it is, and where it goes inside the snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubagentFile {
    /// The file's path on disk.
    pub source: PathBuf,
    /// Its path inside the snapshot, always under `subagents/`.
    pub relative: PathBuf,
}

/// Lines read from a flat `agent-*.jsonl` file to find its `sessionId`.
const SESSION_ID_PROBE_LINES: usize = 8;

/// All subagent files of `session` next to `transcript`, sorted by their snapshot path, and the
/// candidates (or folders) that could not be examined. Subagent files are best effort: a folder
/// that cannot be listed or one unreadable file (of this session or of another) never costs the
/// snapshot of the main transcript; each is returned as skipped, with the reason.
pub fn find_subagent_files(
    transcript: &Path,
    session: &SessionId,
) -> (Vec<SubagentFile>, Vec<SkippedFile>) {
    let folder = crate::store::files::folder_of(transcript);
    let mut found = Vec::new();
    let mut skipped = Vec::new();
    let mut skip = |source: &Path, error: SubagentError| {
        skipped.push(SkippedFile {
            source: source.to_string_lossy().into_owned(),
            error: Causes(&error).to_string(),
        });
    };

    // 2.1.2 and later: <session id>/subagents/, possibly with nested workflow folders.
    let nested = folder.join(session.as_str()).join("subagents");
    if nested.is_dir()
        && let Err(error) = collect_nested(&nested, Path::new("subagents"), &mut found)
    {
        skip(&nested, SubagentError::ListNested(error));
    }

    // 2.0.x: agent-<id>.jsonl beside the transcript, tied to the session by `sessionId`. A
    // folder that may be entered but not listed (mode 0711 for another user) hides them.
    match flat_candidates(folder) {
        Ok(candidates) => {
            for (path, name) in candidates {
                match flat_file_belongs_to(&path, session) {
                    Ok(true) => found.push(SubagentFile {
                        source: path,
                        relative: Path::new("subagents").join(name),
                    }),
                    Ok(false) => {}
                    Err(error) => skip(&path, error),
                }
            }
        }
        Err(error) => skip(folder, SubagentError::ListFolder(error)),
    }
    found.sort_by(|left, right| left.relative.cmp(&right.relative));
    found.dedup_by(|left, right| left.relative == right.relative);
    (found, skipped)
}

/// The regular `agent-*.jsonl` files in `folder`, with their names.
fn flat_candidates(folder: &Path) -> io::Result<Vec<(PathBuf, String)>> {
    let mut candidates = Vec::new();
    for entry in fs_err::read_dir(folder)? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let is_jsonl = Path::new(&name)
            .extension()
            .is_some_and(|extension| extension == "jsonl");
        if name.starts_with("agent-") && is_jsonl && entry.file_type()?.is_file() {
            candidates.push((entry.path(), name));
        }
    }
    Ok(candidates)
}

fn collect_nested(dir: &Path, relative: &Path, found: &mut Vec<SubagentFile>) -> io::Result<()> {
    for entry in fs_err::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let name = entry.file_name();
        let inner = relative.join(&name);
        if kind.is_dir() {
            collect_nested(&entry.path(), &inner, found)?;
        } else if kind.is_file() {
            let extension = Path::new(&name)
                .extension()
                .and_then(|extension| extension.to_str());
            if matches!(extension, Some("jsonl" | "json")) {
                found.push(SubagentFile {
                    source: entry.path(),
                    relative: inner,
                });
            }
        }
    }
    Ok(())
}

/// Returns true if and only if one of the first lines of `path` has `"sessionId"` equal to
/// `session`.
fn flat_file_belongs_to(path: &Path, session: &SessionId) -> Result<bool, SubagentError> {
    // Listed as a file, but something else may be there by now: opened as a transcript is.
    let mut file = TranscriptFile::open(path)?;
    let reader = BufReader::new(file.file_mut().take(4 * 1024 * 1024));
    for line in reader.split(b'\n').take(SESSION_ID_PROBE_LINES) {
        let line = line?;
        let Ok(record) = serde_json::from_slice::<serde_json::Value>(&line) else {
            continue;
        };
        if let Some(id) = record.get("sessionId").and_then(serde_json::Value::as_str) {
            return Ok(id == session.as_str());
        }
    }
    Ok(false)
}
