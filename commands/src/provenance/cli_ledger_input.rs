//! `ctxhooks ledger-input`: the transcript for a ledger extractor, with the trailing interrupt
//! records relabelled as the runtime's when a runtime mark covers them.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::ledger::{PROMPT_RULE, write_ledger_input};
use super::text::warning_note;
use crate::output;
use ctxhooks_shared::transcript::file::TranscriptFile;

/// Arguments of `ctxhooks ledger-input`.
///
/// Prints the transcript as JSONL. Every line is byte-identical to the transcript's, except the
/// interrupt records at the very end when a runtime mark covers them: they become one `system`
/// record (subtype `runtime_interrupt`) saying an automatic context refresh, not the user, cut
/// the call off. Earlier interrupts stay as they are.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["session", "transcript", "prompt_rule"]).multiple(true)))]
pub struct LedgerInputArgs {
    /// The session (its transcript is the one its hook events recorded, unless --transcript).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// The transcript to print (its `sessionId` finds the sidecar unless --session).
    #[arg(long, value_name = "PATH")]
    pub transcript: Option<PathBuf>,
    /// Print the rule to add to the extraction prompt instead.
    #[arg(long, conflicts_with_all = ["session", "transcript"])]
    pub prompt_rule: bool,
}

pub fn run(args: &LedgerInputArgs) -> Result<ExitCode> {
    if args.prompt_rule {
        output::println(PROMPT_RULE)?;
        return Ok(ExitCode::SUCCESS);
    }
    let (loaded, report) =
        super::cli_provenance::analyse(args.session.as_deref(), args.transcript.as_deref())?;
    for warning in &report.warnings {
        output::note(&warning_note(warning));
    }
    // The transcript is read a second time, as far as the first reading went, and copied as
    // it streams by: nothing close to its size is held in memory.
    let mut transcript = TranscriptFile::open_named(&loaded.transcript)?;
    output::print_with(|stdout| {
        write_ledger_input(&loaded.analysis, &report, transcript.file_mut(), stdout)
    })?;
    Ok(ExitCode::SUCCESS)
}
