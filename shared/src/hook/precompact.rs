//! The `PreCompact` hook's work: snapshot the transcript (and its subagent transcripts) before
//! Claude Code summarizes it, bring the usage log up to the compaction, and record beside the
//! snapshot what the conversation held since the previous compaction (`segment.json`).

use anyhow::{Context, Result};

use crate::compaction::segment_file::SegmentRecord;
use crate::gauge::{GaugeInputs, GaugeRole, log_usage_and_gauge};
use crate::hook::context::HookContext;
use crate::hook::payload::{CommonFields as _, hook_payload};
use crate::keep::snapshot::{SnapshotRequest, take_snapshot};
use crate::lenient::Text;
use crate::notes::{Notes as _, note_failed};
use crate::store::trigger::Trigger;
use crate::transcript::file::TranscriptFile;
use crate::usage::log::IngestOptions;

hook_payload! {
    /// The `PreCompact` payload. Only `session_id` and `transcript_path` are needed to archive.
    pub PreCompactInput<'payload> reports [cwd, hook_event_name] {
        /// `manual` (`/compact`) or `auto` (context full); other values are kept as they are.
        trigger: Text<'payload>,
        /// What the user typed after `/compact`; null or empty for automatic compactions.
        custom_instructions: Text<'payload>,
    }
}

/// Handles one `PreCompact` payload.
pub fn handle(context: &HookContext) -> Result<()> {
    let input: PreCompactInput = context.payload()?;
    let session = input.session()?;
    let path = input.transcript()?;
    // Opened and checked once, for the snapshot and the usage log: a transcript path that is
    // missing, a link, a folder, a FIFO or a device is refused before anything is written.
    let mut transcript = TranscriptFile::open(path)?.checked()?;
    // The snapshot first: it is what must not be lost.
    let request = SnapshotRequest {
        session: session.clone(),
        trigger: input
            .trigger
            .get()
            .map_or(Trigger::Unknown, |trigger| Trigger::from_text(trigger)),
        custom_instructions: input.custom_instructions.non_empty().map(ToOwned::to_owned),
    };
    let (metadata, snapshot) = take_snapshot(&context.state, &request, &mut transcript)
        .context("failed to archive the transcript")?;
    if !metadata.skipped.is_empty() {
        let sources: Vec<&str> = metadata
            .skipped
            .iter()
            .map(|file| file.source.as_str())
            .collect();
        context.note(
            format!(
                "snapshot `{}` was taken without {} subagent file(s) that could not be kept \
                 (snapshot.json names why): {}",
                metadata.name,
                sources.len(),
                sources.join(", ")
            )
            .into(),
        );
    }
    // Then the usage log (its compaction boundary is not written yet, but the turns before it
    // are, so the turn just before a compaction is never missed). A failure there is logged; the
    // next Stop run catches up.
    // The gauge with it (the status line shows the context the compaction starts from); never a
    // warning here.
    // And what the conversation held since the previous compaction, beside the snapshot: the
    // note after the compaction says what of it the summary left out.
    let (gauge_inputs, _) = GaugeInputs::of_hook(input.cwd.non_empty(), GaugeRole::Quiet);
    match log_usage_and_gauge(
        &context.state,
        context,
        &session,
        &mut transcript,
        &gauge_inputs,
        IngestOptions::default(),
    ) {
        Ok(ingested) => {
            let outcome = ingested.outcome;
            SegmentRecord::now(transcript.path(), outcome.offset, outcome.segment)
                .write(&snapshot)?;
        }
        Err(error) => {
            let what = "failed to log the transcript's usage before the compaction";
            note_failed(context, error, what);
        }
    }
    Ok(())
}
