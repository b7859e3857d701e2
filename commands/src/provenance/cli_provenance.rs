//! `ctxhooks provenance`: for every tool call that did not complete normally, who cut it off and
//! whether it ran, with the evidence.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;

use super::json::PrintedReport;
use super::load::{Loaded, load_analysis};
use super::text::{mark_problem_note, unmatched_note};
use super::verdict::{ProvenanceReport, provenance_report};
use crate::output::{self, emit_ok};
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;

/// Arguments of `ctxhooks provenance`.
///
/// Verdicts: runtime (a runtime mark covers the interrupt), user, `permission_denied`, unknown.
/// States: `not_started` (safe to re-run), started (effect unknown: check the live state before
/// repeating), completed, failed, unknown.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["session", "transcript"]).multiple(true)))]
pub struct ProvenanceArgs {
    /// The session (its transcript is the one its hook events recorded, unless --transcript).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// The transcript (its `sessionId` finds the sidecar unless --session).
    #[arg(long, value_name = "PATH")]
    pub transcript: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Loads a session's (or a transcript's) analysis for `provenance` and `ledger-input`, and warns
/// on stderr about every runtime mark that matched no interrupt record.
pub(crate) fn analyse(
    session: Option<&str>,
    transcript: Option<&Path>,
) -> Result<(Loaded, ProvenanceReport)> {
    let session = session
        .map(SessionId::parse)
        .transpose()
        .context("refusing --session")?;
    let state = StateDir::locate()?;
    let loaded = load_analysis(&state, session.as_ref(), transcript)?;
    let report = provenance_report(&loaded.analysis);
    for unmatched in &report.unmatched_marks {
        output::note(&unmatched_note(unmatched));
    }
    for problem in &loaded.analysis.sidecar.mark_problems {
        output::note(&mark_problem_note(problem));
    }
    Ok((loaded, report))
}

pub fn run(args: &ProvenanceArgs) -> Result<ExitCode> {
    let (loaded, report) = analyse(args.session.as_deref(), args.transcript.as_deref())?;
    let printed = PrintedReport {
        session: loaded.session.as_ref().map(SessionId::as_str),
        transcript: loaded.transcript.display().to_string(),
        report: &report,
    };
    emit_ok(args.json, &printed)
}
