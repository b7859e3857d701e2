//! The Stop and `SubagentStop` hook's work: append what the transcript (and, for `SubagentStop`, the
//! sub-agent's own transcript) gained since the last run to the session's usage log.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use super::ingest::Origin;
use super::usage_log::{IngestOutcome, ingest_transcript};
use crate::hook::payload::{CommonInput, typed};
use crate::hook::runner::HookContext;
use crate::transcript::lines::MAX_LINE_BYTES;

/// The Stop / `SubagentStop` payload fields the hook reads.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StopInput {
    /// Fields every hook has.
    #[serde(flatten)]
    pub common: CommonInput,
    /// `SubagentStop`: the sub-agent's id.
    pub agent_id: Option<String>,
    /// `SubagentStop`: the sub-agent's own transcript.
    pub agent_transcript_path: Option<String>,
}

/// Handles one Stop or `SubagentStop` payload.
pub fn handle(context: &HookContext) -> Result<()> {
    let input: StopInput = typed(&context.payload)?;
    let session = input.common.session()?;
    let transcript = input.common.transcript()?;
    let main = ingest_transcript(
        &context.state,
        &session,
        transcript,
        &Origin::from_file_name(transcript),
    )
    .context("failed to log the transcript's usage")
    .and_then(|outcome| overlong_check(transcript, &outcome));
    let agent = match input
        .agent_transcript_path
        .as_deref()
        .filter(|path| !path.is_empty())
        // Claude Code 2.1.332 fires SubagentStop for the compaction agent (empty `agent_type`)
        // with an `agent_transcript_path` it never writes (seen in the end-to-end tests, and in
        // 2.1.270 by a third-party probe). A path with nothing at it holds no usage to log;
        // anything else that is there (a folder, a FIFO, a link) is refused by the ingest.
        .filter(|path| fs_err::symlink_metadata(path).is_ok())
    {
        Some(agent_transcript) => ingest_transcript(
            &context.state,
            &session,
            Path::new(agent_transcript),
            &Origin::sub_agent(Path::new(agent_transcript), input.agent_id.as_deref()),
        )
        .context("failed to log the sub-agent transcript's usage")
        .and_then(|outcome| overlong_check(Path::new(agent_transcript), &outcome)),
        None => Ok(()),
    };
    main?;
    agent
}

/// An error naming the lines the ingest skipped for their length (the cursor moved past them,
/// so each is reported once).
fn overlong_check(transcript: &Path, outcome: &IngestOutcome) -> Result<()> {
    if outcome.overlong_lines > 0 {
        bail!(
            "skipped {} line(s) longer than {} bytes in `{}`",
            outcome.overlong_lines,
            MAX_LINE_BYTES,
            transcript.display()
        );
    }
    Ok(())
}
