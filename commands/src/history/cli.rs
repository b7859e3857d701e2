//! `ctxhooks history`: every past session in the projects folders, no hooks needed.

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

use super::chart::render_svg;
use super::json::PrintedHistory;
use super::model::{HistoryQuery, build_history};
use crate::output::{Versioned, emit_ok};
use crate::output_file::RenderArgs;
use crate::projects::window::TimeWindow;
use crate::projects::{ProjectsArgs, nothing_read_text, transcript_cache};
use crate::usage::cli_report::ThresholdArgs;
use ctxhooks_shared::store::state_dir::StateDir;

/// Arguments of `ctxhooks history`.
///
/// Reads every transcript under the projects folders (sessions no hook saw included) with the
/// usage ingest the Stop hook runs, and gives per session what `ctxhooks report` would:
/// requests, peak context, compactions (structural and heuristic), drops by class, the trigger
/// T and the floor. Then totals per day and per project.
#[derive(Debug, Args)]
#[command(mut_arg("projects", |arg| arg.help(
    "A Claude Code projects folder, one project's folder in it or one session's folder in that \
     (repeatable). Default: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. One that \
     cannot be read is a warning; when none can, an error and exit 1"
)))]
#[command(mut_arg("json", |arg| arg.help("Print JSON (schema 1, see docs/history.md)")))]
#[command(mut_arg("svg", |arg| arg.help(
    "Also write an SVG overview: peak context per session over time, compactions marked \
     (written as `export --out` writes: mode 0600, a FIFO written into)"
)))]
#[command(mut_arg("cap", |arg| arg.help(
    "The cap: the auto-compact window W in tokens, as for `ctxhooks report`"
)))]
pub struct HistoryArgs {
    #[command(flatten)]
    pub projects: ProjectsArgs,
    /// Only sessions with a request at or after this time (`YYYY-MM-DD` or RFC 3339).
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Only sessions with a request at or before this time (a day covers all of it).
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,
    /// Only sessions whose project folder name or `cwd` contains this text.
    #[arg(long, value_name = "TEXT")]
    pub project: Option<String>,
    #[command(flatten)]
    pub render: RenderArgs,
    #[command(flatten)]
    pub thresholds: ThresholdArgs,
    /// Read every transcript, even those the cache of the last run still describes.
    #[arg(long)]
    pub no_cache: bool,
}

pub fn run(args: &HistoryArgs) -> Result<ExitCode> {
    let query = HistoryQuery {
        folders: args.projects.folders()?,
        window: TimeWindow::parse(args.since.as_deref(), args.until.as_deref())?,
        project: args.project.clone(),
        cache: transcript_cache(args.no_cache),
        state: StateDir::locate().ok(),
    };
    let history = build_history(&query, &args.thresholds.options()?);
    if history.folders_read == 0 {
        let refusals: Vec<String> = history.problems.iter().map(ToString::to_string).collect();
        bail!(nothing_read_text(&refusals));
    }
    args.render.write_svg("overview", || render_svg(&history))?;
    let printed = Versioned::new(PrintedHistory(&history));
    emit_ok(args.render.json, &printed)
}
