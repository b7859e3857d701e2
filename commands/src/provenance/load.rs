//! Finding and reading what a provenance command looks at: the session's sidecar and the
//! transcript (each found from the other when only one is given), with the check that they
//! belong together; and, for `doctor`, the runtime marks of every session that no interrupt
//! record follows.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::analysis::Analysis;
use super::evidence::Warning;
use super::marks::{UnmatchedMark, UnmatchedReason};
use super::sidecar::{Sidecar, read_sidecar};
use crate::projects::discover::first_session_id;
use crate::snapshots::parts::JoinedLines;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::transcript::file::TranscriptFile;

/// What [`load_analysis`] found and used.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub analysis: Analysis,
    /// The session whose sidecar was used, if any.
    pub session: Option<SessionId>,
    /// The transcript that was read.
    pub transcript: PathBuf,
}

/// Reads a transcript and the matching sidecar. With only `session`, the transcript is the one
/// the session's hook events recorded; with only `transcript`, the session is the transcript's
/// `sessionId` (its sidecar is used when it exists).
pub fn load_analysis(
    state: &StateDir,
    session: Option<&SessionId>,
    transcript: Option<&Path>,
) -> Result<Loaded> {
    let sidecar_for = |session: &SessionId| read_sidecar(&state.sidecar(session));
    let given = transcript;
    let (session, sidecar, transcript) = match (session, transcript) {
        (Some(session), Some(transcript)) => (
            session.clone(),
            sidecar_for(session)?,
            transcript.to_path_buf(),
        ),
        (Some(session), None) => {
            let sidecar = sidecar_for(session)?;
            let Some(path) = sidecar.transcript_path.as_ref().map(PathBuf::from) else {
                bail!(
                    "no tool hook event of session `{session}` recorded its transcript's path \
                     (is `ctxhooks-tooluse` installed?); pass --transcript PATH"
                );
            };
            (session.clone(), sidecar, path)
        }
        (None, Some(transcript)) => {
            let session = first_session_id(&mut TranscriptFile::open_named(transcript)?)?
                .and_then(|id| SessionId::parse(&id).ok());
            let sidecar = session.as_ref().map(sidecar_for).transpose()?;
            return Ok(Loaded {
                analysis: analyse_file(transcript, sidecar.unwrap_or_default())?,
                session,
                transcript: transcript.to_path_buf(),
            });
        }
        (None, None) => bail!("give --session ID or --transcript PATH"),
    };
    // A session resumed from another folder: each of its transcripts the events recorded that
    // is still there, read one after the other as one (the last named is the one it went on in).
    let others: Vec<PathBuf> = (sidecar.transcript_paths.iter())
        .map(PathBuf::from)
        .filter(|path| *path != transcript && fs_err::symlink_metadata(path).is_ok())
        .collect();
    let mut analysis = if others.is_empty() || given.is_some() {
        analyse_file(&transcript, sidecar)
    } else {
        analyse_files(&others, &transcript, sidecar)
    }
    .with_context(|| format!("failed to read `{}`", transcript.display()))?;
    check_session(&mut analysis, &session, &transcript)?;
    Ok(Loaded {
        analysis,
        session: Some(session),
        transcript,
    })
}

/// Refuses a transcript whose `user`/`assistant` records belong to other sessions only (judging
/// it with this session's marks would be wrong); warns when it names no session or several.
fn check_session(analysis: &mut Analysis, session: &SessionId, transcript: &Path) -> Result<()> {
    let ids = &analysis.session_ids;
    if ids.is_empty() {
        analysis.warnings.push(Warning::NoSessionId {
            transcript: transcript.to_path_buf(),
            session: session.clone(),
        });
    } else if !ids.contains(session.as_str()) {
        bail!(
            "the transcript `{}` belongs to session {}, not to `{session}`: refusing to judge it \
             with another session's marks",
            transcript.display(),
            ids.iter()
                .map(|id| format!("`{id}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    } else if ids.len() > 1 {
        let ids = ids.iter().cloned().collect();
        analysis.warnings.push(Warning::SeveralSessionIds {
            ids,
            session: session.clone(),
        });
    }
    Ok(())
}

/// Analyses a session's transcripts in other project folders (`others`, in order), then
/// `transcript`, as one (`snapshots/parts.rs` joins them), with `sidecar`.
fn analyse_files(others: &[PathBuf], transcript: &Path, sidecar: Sidecar) -> Result<Analysis> {
    let mut readers: Vec<Box<dyn std::io::Read>> = Vec::new();
    for path in others.iter().map(PathBuf::as_path).chain([transcript]) {
        readers.push(Box::new(TranscriptFile::open_named(path)?.into_file()));
    }
    let analysis = Analysis::scan(JoinedLines::new(readers), sidecar)?;
    if analysis.records == 0 {
        bail!(
            "the transcript `{}` holds no JSON records; is it a transcript?",
            transcript.display()
        );
    }
    Ok(analysis)
}

/// Analyses a transcript file with `sidecar`. An empty file, or one in which no line is a JSON
/// record, is an error.
pub fn analyse_file(path: &Path, sidecar: Sidecar) -> Result<Analysis> {
    let mut opened = TranscriptFile::open_named(path)?;
    let analysis = Analysis::scan(opened.file_mut(), sidecar)?;
    if analysis.length == 0 {
        bail!("the transcript `{}` is empty", path.display());
    }
    if analysis.records == 0 {
        bail!(
            "the transcript `{}` holds no JSON records; is it a transcript?",
            path.display()
        );
    }
    Ok(analysis)
}

/// Reads a session's sidecar and transcript (its path as the hook events recorded it) and
/// returns the runtime marks that no interrupt record follows. A non-empty answer means either
/// the interrupt has not reached the transcript yet, or the SDK's wording or fields changed and
/// ctxhooks no longer recognises its interrupt records: look before trusting any verdict.
pub fn unmatched_marks(state: &StateDir, session: &SessionId) -> Result<Vec<UnmatchedMark>> {
    let sidecar = read_sidecar(&state.sidecar(session))?;
    if sidecar.marks.is_empty() {
        return Ok(Vec::new());
    }
    let Some(transcript) = sidecar.transcript_path.as_ref().map(PathBuf::from) else {
        return Ok(UnmatchedMark::all(
            sidecar.marks,
            &UnmatchedReason::NoTranscriptPath,
        ));
    };
    let analysis = analyse_file(&transcript, sidecar)
        .with_context(|| format!("failed to read `{}`", transcript.display()))?;
    Ok(analysis.unmatched())
}

/// [`unmatched_marks`] for every session of the state folder that has marks (for
/// `ctxhooks doctor`). A session whose transcript cannot be read reports each of its marks as
/// unmatched, with the reading error as the reason.
pub fn unmatched_marks_in_all_sessions(
    state: &StateDir,
) -> Result<Vec<(SessionId, Vec<UnmatchedMark>)>> {
    let mut found = Vec::new();
    for session in state.session_ids()? {
        let unmatched = match unmatched_marks(state, &session) {
            Ok(unmatched) => unmatched,
            Err(error) => UnmatchedMark::all(
                read_sidecar(&state.sidecar(&session))?.marks,
                &UnmatchedReason::TranscriptUnreadable(format!("{error:#}")),
            ),
        };
        if !unmatched.is_empty() {
            found.push((session, unmatched));
        }
    }
    Ok(found)
}
