//! The `PreCompact` hook's work: snapshot the transcript (and its subagent transcripts) before
//! Claude Code summarizes it.

use anyhow::{Context, Result};

use super::ingest::Origin;
use super::snapshot::{SnapshotRequest, take_snapshot};
use super::usage_log::ingest_transcript;
use crate::hook::payload::{PreCompactInput, typed};
use crate::hook::runner::HookContext;
use crate::hook::snapshot::check_transcript;

/// Handles one `PreCompact` payload.
pub fn handle(context: &HookContext) -> Result<()> {
    let input: PreCompactInput = typed(&context.payload)?;
    let session = input.common.session()?;
    let transcript = input.common.transcript()?;
    // A transcript path that is missing, a folder or a symbolic link is refused before anything
    // is read or written.
    check_transcript(transcript)?;
    // The snapshot first: it is what must not be lost.
    let request = SnapshotRequest {
        session: session.clone(),
        transcript: transcript.to_path_buf(),
        trigger: input.trigger.unwrap_or_else(|| "unknown".to_owned()),
        custom_instructions: input.custom_instructions.filter(|text| !text.is_empty()),
    };
    let (metadata, _) =
        take_snapshot(&context.state, &request).context("failed to archive the transcript")?;
    let event = input.common.hook_event_name.clone();
    if !metadata.skipped.is_empty() {
        let sources: Vec<&str> = metadata
            .skipped
            .iter()
            .map(|file| file.source.as_str())
            .collect();
        log_problem(
            context,
            event.clone(),
            &session,
            &anyhow::anyhow!(
                "snapshot `{}` was taken without {} subagent file(s) that could not be read: {}",
                metadata.name,
                sources.len(),
                sources.join(", ")
            ),
        );
    }
    // Then the usage log (its compaction boundary is not written yet, but the turns before it
    // are, so the turn just before a compaction is never missed). A failure there is logged; the
    // next Stop run catches up.
    if let Err(error) = ingest_transcript(
        &context.state,
        &session,
        transcript,
        &Origin::from_file_name(transcript),
    ) {
        log_problem(
            context,
            event,
            &session,
            &error.context("failed to log the transcript's usage before the compaction"),
        );
    }
    Ok(())
}

/// Logs a problem that did not stop the hook's main work.
fn log_problem(
    context: &HookContext,
    event: Option<String>,
    session: &crate::store::session_id::SessionId,
    error: &anyhow::Error,
) {
    let record = crate::store::error_log::ErrorRecord::new(
        context.hook.name,
        event,
        Some(session.to_string()),
        error,
    );
    let _ = crate::store::error_log::append(&context.state, &record);
}
