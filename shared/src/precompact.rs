//! The `PreCompact` hook's work: snapshot the transcript (and its subagent transcripts) before
//! Claude Code summarizes it.

use anyhow::{Context, Result};

use crate::archive::snapshot::check_transcript;
use crate::archive::{SnapshotRequest, take_snapshot};
use crate::hook_input::{PreCompactInput, typed};
use crate::hook_runner::HookContext;

/// Handles one `PreCompact` payload.
pub fn handle(context: &HookContext) -> Result<()> {
    let input: PreCompactInput = typed(context.payload.clone())?;
    let session = input.common.session()?;
    let transcript = input.common.transcript()?;
    // A transcript path that is missing, a folder or a symbolic link is refused before anything
    // is read or written.
    check_transcript(transcript)?;
    // The usage log next (its compaction boundary is not written yet, but the turns before it
    // are, so the turn just before a compaction is never missed); a failure there is logged and
    // never stops the archive.
    if let Err(error) = crate::usage::ingest_transcript(&context.state, &session, transcript, None)
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
        transcript: transcript.to_path_buf(),
        trigger: input.trigger.unwrap_or_else(|| "unknown".to_owned()),
        custom_instructions: input.custom_instructions.filter(|text| !text.is_empty()),
    };
    take_snapshot(&context.state, &request).context("failed to archive the transcript")?;
    Ok(())
}
