//! `ctxhooks doctor`: the installation's health, for people or (`--json`) programs.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;

use super::checks::{DoctorInput, DoctorReport, Severity, doctor_report};
use crate::command::install::handlers::install_dir;
use crate::command::output;
use crate::store::state_dir::StateDir;

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
    let input = DoctorInput {
        state: StateDir::locate()?,
        binaries_dir: install_dir().ok(),
        project_dir: std::env::current_dir().context("failed to read the current folder")?,
    };
    let report = doctor_report(&input);
    if args.json {
        output::print_json(&report)?;
    } else {
        output::print(&render(&report))?;
    }
    Ok(if report.is_broken() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The report as text.
fn render(report: &DoctorReport) -> String {
    let mut text = String::new();
    let state = &report.state_dir;
    let _ = writeln!(
        text,
        "state folder   {}  ({})",
        state.path.display(),
        state.mode.as_ref().map_or_else(
            || "not created yet".to_owned(),
            |mode| format!("mode {mode}")
        )
    );
    let _ = writeln!(
        text,
        "binaries       {}",
        report
            .binaries_dir
            .as_ref()
            .map_or_else(|| "(unknown)".to_owned(), |dir| dir.display().to_string())
    );
    for binary in &report.binaries {
        let mark = if binary.present { "ok     " } else { "MISSING" };
        let _ = writeln!(text, "  {mark}  {}", binary.name);
    }
    let _ = writeln!(text, "settings");
    for check in &report.settings {
        let status = match (&check.problem, check.exists) {
            (Some(_), _) => "NOT USABLE".to_owned(),
            (None, false) => "absent".to_owned(),
            (None, true) => format!("{} ctxhooks handler(s)", check.hooks.len()),
        };
        let _ = writeln!(
            text,
            "  {:<8} {}  ({status})",
            check.scope.name(),
            check.path.display()
        );
        for hook in &check.hooks {
            let mark = match (hook.binary_exists, hook.current) {
                (false, _) => "MISSING",
                (true, false) => "stale  ",
                (true, true) => "ok     ",
            };
            let _ = writeln!(text, "    {mark}  {:<19} {}", hook.event, hook.command);
        }
    }
    let _ = writeln!(
        text,
        "snapshots      {}",
        report
            .snapshot_count
            .map_or_else(|| "(could not list)".to_owned(), |count| count.to_string())
    );
    if report.recent_errors.is_empty() {
        let _ = writeln!(
            text,
            "hook errors    none in {}",
            report.errors_log.display()
        );
    } else {
        let _ = writeln!(
            text,
            "hook errors    newest {} of {} (read all: less {})",
            report.recent_errors.len(),
            report.errors_log.display(),
            report.errors_log.display()
        );
        for record in &report.recent_errors {
            let mut where_ = record.hook.clone();
            if let Some(event) = &record.event {
                let _ = write!(where_, " {event}");
            }
            if let Some(session) = &record.session_id {
                let _ = write!(where_, " session {session}");
            }
            let time = if record.time.is_empty() {
                "?"
            } else {
                &record.time
            };
            let where_ = where_.trim();
            let separator = if where_.is_empty() { "" } else { ": " };
            let _ = writeln!(
                text,
                "  {time}  {where_}{separator}{}",
                record.error.join(": ")
            );
        }
    }
    if !report.findings.is_empty() {
        text.push('\n');
    }
    for finding in &report.findings {
        let label = match finding.severity {
            Severity::Error => "error  ",
            Severity::Warning => "warning",
            Severity::Info => "info   ",
        };
        let _ = writeln!(text, "{label}  {}", finding.message);
    }
    let count = |severity| {
        report
            .findings
            .iter()
            .filter(|finding| finding.severity == severity)
            .count()
    };
    let _ = writeln!(
        text,
        "\n{}: {} error(s), {} warning(s)",
        if report.is_broken() { "BROKEN" } else { "ok" },
        count(Severity::Error),
        count(Severity::Warning)
    );
    text
}
