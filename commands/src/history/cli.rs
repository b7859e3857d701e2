//! `ctxhooks history`: every past session in the projects folders, no hooks needed.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;

use super::cache::{Cache, Reading};
use super::chart::render_svg;
use super::json::history_json;
use super::model::{HistoryQuery, build_history};
use super::text::{history_text, nothing_read_text, problem_text};
use super::window::TimeWindow;
use crate::output;
use crate::output_file::write_output_file;
use crate::usage::drops::DEFAULT_MIN_DROP;
use crate::usage::report::ReportOptions;
use ctxhooks_shared::store::state_dir::{StateDir, claude_config_dir};
use ctxhooks_shared::usage::threshold::ThresholdEnvironment;

/// Arguments of `ctxhooks history`.
///
/// Reads every transcript under the projects folders (sessions no hook saw included) with the
/// usage ingest the Stop hook runs, and gives per session what `ctxhooks report` would:
/// requests, peak context, compactions (structural and heuristic), drops by class, the trigger
/// T and the floor. Then totals per day and per project.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// A Claude Code projects folder (repeatable). Default: `$CLAUDE_CONFIG_DIR/projects`, else
    /// `~/.claude/projects`. One that cannot be read is a warning; when none can, an error and
    /// exit 1.
    #[arg(long = "projects", value_name = "DIR")]
    pub projects: Vec<PathBuf>,
    /// Only sessions with a request at or after this time (`YYYY-MM-DD` or RFC 3339).
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Only sessions with a request at or before this time (a day covers all of it).
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,
    /// Only sessions whose project folder name or `cwd` contains this text.
    #[arg(long, value_name = "TEXT")]
    pub project: Option<String>,
    /// Print JSON (schema 1, see docs/history.md).
    #[arg(long)]
    pub json: bool,
    /// Also write an SVG overview: peak context per session over time, compactions marked
    /// (written as `export --out` writes: mode 0600, a FIFO written into).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// The cap: the auto-compact window W in tokens, as for `ctxhooks report`.
    #[arg(long, value_name = "TOKENS")]
    pub cap: Option<u64>,
    /// Falls smaller than this are not drops.
    #[arg(long, value_name = "TOKENS", default_value_t = DEFAULT_MIN_DROP)]
    pub min_drop: u64,
    /// Read every transcript, even those the cache of the last run still describes.
    #[arg(long)]
    pub no_cache: bool,
}

/// How `history` and `export` read transcripts: through the cache in the state folder
/// (`<state>/history-cache/`), unless `no_cache` or no state folder can be named.
pub fn reading(no_cache: bool) -> Reading {
    Reading {
        cache: (!no_cache)
            .then(|| StateDir::locate().ok())
            .flatten()
            .and_then(|state| Cache::open(&state)),
    }
}

/// The projects folders `--projects` names, else the default one.
pub fn projects_folders(given: &[PathBuf]) -> Result<Vec<PathBuf>> {
    if !given.is_empty() {
        return Ok(given.to_vec());
    }
    Ok(vec![claude_config_dir()?.join("projects")])
}

/// The report options of `history` and `export`.
pub fn report_options(cap: Option<u64>, min_drop: u64) -> ReportOptions {
    ReportOptions {
        min_drop,
        cap,
        environment: ThresholdEnvironment::of_process(),
        user_config_dir: claude_config_dir().ok(),
        ..ReportOptions::default()
    }
}

/// Runs the command.
pub fn run(args: &HistoryArgs) -> Result<ExitCode> {
    let query = HistoryQuery {
        folders: projects_folders(&args.projects)?,
        window: TimeWindow::parse(args.since.as_deref(), args.until.as_deref())?,
        project: args.project.clone(),
        reading: reading(args.no_cache),
    };
    let history = build_history(&query, &report_options(args.cap, args.min_drop));
    if history.folders_read == 0 {
        let refusals: Vec<String> = history.problems.iter().map(problem_text).collect();
        bail!(nothing_read_text(&refusals));
    }
    if let Some(path) = &args.svg {
        write_output_file(path, render_svg(&history).as_bytes())
            .context("failed to write the SVG")?;
        output::note(&format!("wrote the overview to {}", path.display()));
    }
    if args.json {
        output::print_json(&history_json(&history))?;
    } else {
        output::print(&history_text(&history))?;
    }
    Ok(ExitCode::SUCCESS)
}
