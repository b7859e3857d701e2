//! `ctxhooks doctor`: the installation's health, for people or (`--json`) programs.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;

use super::checks::doctor_report;
use super::text::report_text;
use crate::install::handlers::install_dir;
use crate::output;
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
    let mcp = crate::mcp::probe::check();
    if args.json {
        // The report is a struct, so an object: `mcp` is its last key.
        let mut value = serde_json::to_value(&report)?;
        value["mcp"] = serde_json::to_value(&mcp)?;
        output::print_json(&value)?;
    } else {
        output::print(&(report_text(&report) + &crate::mcp::probe::describe(&mcp)))?;
    }
    Ok(if report.is_broken() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
