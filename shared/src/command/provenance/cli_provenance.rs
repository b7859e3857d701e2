//! `ctxhooks provenance`: for every tool call that did not complete normally, who cut it off and
//! whether it ran, with the evidence.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use serde::Serialize;

use super::marks::{Loaded, load_analysis};
use super::verdict::{ProvenanceReport, provenance_report};
use crate::command::output;
use crate::store::session_id::SessionId;
use crate::store::state_dir::StateDir;

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

#[derive(Serialize)]
struct JsonReport<'a> {
    session: Option<&'a str>,
    transcript: String,
    #[serde(flatten)]
    report: &'a ProvenanceReport,
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
        output::note(&format!(
            "ctxhooks: WARNING: runtime mark at {} ms ({:?}) matched no interrupt record: {}",
            unmatched.mark.time_ms, unmatched.mark.reason, unmatched.reason
        ));
    }
    for problem in &loaded.analysis.sidecar.mark_problems {
        output::note(&format!(
            "ctxhooks: WARNING: sidecar line {} is a runtime mark that cannot be read as JSON: {}",
            problem.line, problem.problem
        ));
    }
    Ok((loaded, report))
}

/// Runs the command.
pub fn run(args: &ProvenanceArgs) -> Result<ExitCode> {
    let (loaded, report) = analyse(args.session.as_deref(), args.transcript.as_deref())?;
    if args.json {
        output::print_json(&JsonReport {
            session: loaded.session.as_ref().map(SessionId::as_str),
            transcript: loaded.transcript.display().to_string(),
            report: &report,
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    output::print(&render(&report, &loaded.transcript.display().to_string()))?;
    Ok(ExitCode::SUCCESS)
}

fn render(report: &ProvenanceReport, transcript: &str) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "transcript: {transcript}");
    if report.calls.is_empty() {
        let _ = writeln!(text, "every tool call completed normally");
    }
    for call in &report.calls {
        let verdict = serde_json::to_value(call.verdict).unwrap_or_default();
        let state = serde_json::to_value(call.state).unwrap_or_default();
        let _ = writeln!(
            text,
            "\n{} {}{} (line {})\n  verdict: {}{}\n  state:   {}",
            call.tool_name.as_deref().unwrap_or("?"),
            call.tool_use_id,
            call.summary
                .as_deref()
                .map_or_else(String::new, |summary| format!(" `{summary}`")),
            call.line,
            verdict.as_str().unwrap_or("?"),
            if call.relabelled_in_ledger {
                " (relabelled in ledger-input)"
            } else {
                ""
            },
            state.as_str().unwrap_or("?"),
        );
        for evidence in &call.verdict_evidence {
            let _ = writeln!(text, "  - verdict: {evidence}");
        }
        for evidence in &call.state_evidence {
            let _ = writeln!(text, "  - state: {evidence}");
        }
    }
    for unmatched in &report.unmatched_marks {
        let _ = writeln!(
            text,
            "\nWARNING: runtime mark at {} ms ({:?}) matched NO interrupt record: {}",
            unmatched.mark.time_ms, unmatched.mark.reason, unmatched.reason
        );
    }
    for warning in &report.warnings {
        let _ = writeln!(text, "\nwarning: {warning}");
    }
    text
}
