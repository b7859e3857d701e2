//! `ctxhooks doctor`: the installation's health, for people or (`--json`) programs.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use serde::Serialize;

use super::checks::{DoctorReport, doctor_report};
use super::text::report_text;
use crate::install::handlers::install_dir;
use crate::mcp::probe::{self, McpHealth};
use crate::output::{Emit, emit_exit};
use ctxhooks_shared::store::state_dir::StateDir;

/// Arguments of `ctxhooks doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print the findings as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs the command. Exits 1 when something is broken (an `error` finding: a settings file
/// that is not valid JSON, a registered hook whose binary is missing, an unreadable ownership
/// record, a state "folder" that is a file), 0 otherwise, warnings included.
pub fn run(args: &DoctorArgs) -> Result<ExitCode> {
    let state = StateDir::locate()?;
    let project_dir = std::env::current_dir().context("failed to read the current folder")?;
    let report = doctor_report(&state, install_dir().ok().as_deref(), &project_dir);
    let health = Health {
        report: &report,
        mcp: probe::check(),
    };
    emit_exit(args.json, &health, !report.is_broken())
}

/// What `doctor` prints: the report, then the MCP server's registration (`mcp`, the JSON's last
/// key).
#[derive(Serialize)]
struct Health<'a> {
    #[serde(flatten)]
    report: &'a DoctorReport,
    mcp: McpHealth,
}

impl Emit for Health<'_> {
    fn text(&self) -> String {
        report_text(self.report) + &probe::describe(&self.mcp)
    }
}
