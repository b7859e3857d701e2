//! A session's main transcript, to read from its start: the live file while Claude Code still
//! has it, else the newest readable generation of the kept copy (after Claude Code's cleanup
//! deleted it).

use std::io::Read;
use std::path::PathBuf;

use anyhow::{Result, bail};

use crate::archives::catalog::list_snapshots;
use ctxhooks_shared::store::kept::{self, KeptName};
use ctxhooks_shared::store::kept_check::{Depth, newest_whole};
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::transcript::file::TranscriptFile;

/// A session's transcript, open.
pub struct SessionTranscript {
    /// Its bytes from the start.
    pub reader: Box<dyn Read>,
    /// Where they come from, for people: the live file, or the kept copy's generation.
    pub source: PathBuf,
    /// True when they come from the kept copy (the live file is gone).
    pub kept: bool,
}

/// Opens `session`'s main transcript: the live file where the kept copy (or a snapshot) says it
/// is, when it is still there; else the kept copy.
pub fn open_session_transcript(state: &StateDir, session: &SessionId) -> Result<SessionTranscript> {
    let kept_dir = state.kept_dir(session);
    let name = KeptName::main();
    let index = newest_whole(&kept_dir, &name, Depth::Files)?
        .chosen
        .and_then(|chosen| chosen.index);
    let live = match &index {
        Some(index) => Some(PathBuf::from(&index.header.source)),
        None => list_snapshots(state, Some(session))?
            .last()
            .map(|snapshot| PathBuf::from(&snapshot.metadata.source_path)),
    };
    if let Some(path) = &live
        && let Some(file) = TranscriptFile::open_if_present(path)?
    {
        return Ok(SessionTranscript {
            reader: Box::new(file.into_file()),
            source: path.clone(),
            kept: false,
        });
    }
    let Some(index) = index else {
        bail!(
            "nothing of session {session}'s transcript is kept{} (the Stop, PreCompact and \
             SessionEnd hooks keep it; `ctxhooks doctor` checks they are installed)",
            live.map(|path| format!(", and `{}` is gone", path.display()))
                .unwrap_or_default()
        );
    };
    let generation = index.header.generation;
    let reader = kept::open_generation(&kept_dir, &name, &index, index.length())?;
    Ok(SessionTranscript {
        reader: Box::new(reader),
        source: name.data_path(&kept_dir, generation),
        kept: true,
    })
}
