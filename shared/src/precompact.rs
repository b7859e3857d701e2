//! The `PreCompact` hook's work: snapshot the transcript (and its subagent transcripts) before
//! Claude Code summarizes it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::archive::snapshot::check_transcript;
use crate::archive::{SnapshotRequest, take_snapshot};
use crate::hook_input::{PreCompactInput, typed};
use crate::hook_runner::HookContext;
use crate::session_id::SessionId;

/// Handles one `PreCompact` payload.
pub fn handle(context: &HookContext) -> Result<()> {
    let input: PreCompactInput = typed(context.payload.clone())?;
    let session_id = input
        .common
        .session_id
        .as_deref()
        .context("the payload has no `session_id`")?;
    let session = SessionId::parse(session_id).context("refusing the payload's session id")?;
    let transcript = input
        .common
        .transcript_path
        .as_deref()
        .filter(|path| !path.is_empty())
        .context("the payload has no `transcript_path`")?;
    // A transcript path that is missing, a folder or a symbolic link is refused before anything
    // is read or written.
    check_transcript(Path::new(transcript))?;
    // The usage log next (its compaction boundary is not written yet, but the turns before it
    // are, so the turn just before a compaction is never missed); a failure there is logged and
    // never stops the archive.
    if let Err(error) =
        crate::usage::ingest_transcript(&context.state, &session, Path::new(transcript), None)
    {
        let record = crate::error_log::ErrorRecord::new(
            "ctxhooks-precompact",
            input.common.hook_event_name.clone(),
            Some(session.to_string()),
            &error.context("failed to log the transcript's usage before archiving"),
        );
        let _ = crate::error_log::append(&context.state, &record);
    }
    let request = SnapshotRequest {
        session,
        transcript: PathBuf::from(transcript),
        trigger: input.trigger.unwrap_or_else(|| "unknown".to_owned()),
        custom_instructions: input.custom_instructions.filter(|text| !text.is_empty()),
    };
    take_snapshot(&context.state, &request).context("failed to archive the transcript")?;
    Ok(())
}
