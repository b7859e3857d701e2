//! `ctxhooks report`: context drops and their classes, compactions matched with snapshots, the
//! trigger estimate, floor, headroom and warnings, per session.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;

use super::cli_usage::load_log;
use super::json::report_json;
use super::log::read_session_log;
use super::report::{ReportOptions, SessionReport, build_report};
use crate::command::archives::catalog::list_snapshots;
use crate::command::output;
use crate::command::usage::chart::render_svg;
use crate::command::usage::drops::{DEFAULT_ADVISOR_CACHE_WRITE, DEFAULT_MIN_DROP, Thresholds};
use crate::store::session_id::SessionId;
use crate::store::state_dir::{StateDir, claude_config_dir};

/// Arguments of `ctxhooks report`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("input").required(true).multiple(false))]
pub struct ReportArgs {
    /// Report on this session's usage log.
    #[arg(long, value_name = "ID", group = "input")]
    pub session: Option<String>,
    /// Report on every session that has a usage log.
    #[arg(long, group = "input")]
    pub all: bool,
    /// Report on a transcript file directly (no state folder; snapshots are not checked).
    #[arg(long, value_name = "PATH", group = "input")]
    pub transcript: Option<PathBuf>,
    /// Print JSON (an array with `--all`).
    #[arg(long)]
    pub json: bool,
    /// Also write an SVG chart of context per request (one session only).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// The auto-compact cap in tokens (default: `autoCompactWindow` from the settings, else
    /// the model's window: 1,000,000 for `[1m]` models, 200,000 otherwise).
    #[arg(long, value_name = "TOKENS")]
    pub cap: Option<u64>,
    /// A drop without a boundary is a compaction when the next request writes at least this
    /// many tokens to the cache (default: half the measured floor, at most 50,000).
    #[arg(long, value_name = "TOKENS")]
    pub compaction_cache_write: Option<u64>,
    /// A drop without a boundary is an advisor round trip when the next request writes at most
    /// this many tokens to the cache.
    #[arg(long, value_name = "TOKENS", default_value_t = DEFAULT_ADVISOR_CACHE_WRITE)]
    pub advisor_cache_write: u64,
    /// Falls smaller than this are not drops.
    #[arg(long, value_name = "TOKENS", default_value_t = DEFAULT_MIN_DROP)]
    pub min_drop: u64,
    /// How many minutes before a compaction its snapshot may have been taken.
    #[arg(long, value_name = "MINUTES", default_value_t = 15)]
    pub match_minutes: i64,
}

/// Runs the command.
pub fn run(args: &ReportArgs) -> Result<ExitCode> {
    let options = ReportOptions {
        thresholds: Thresholds {
            compaction_cache_write: args.compaction_cache_write,
            advisor_cache_write: args.advisor_cache_write,
            min_drop: args.min_drop,
        },
        cap: args.cap,
        user_config_dir: claude_config_dir().ok(),
        match_before_seconds: args.match_minutes.saturating_mul(60),
        ..ReportOptions::default()
    };
    let reports = if args.all {
        if args.svg.is_some() {
            bail!("`--svg` draws one session; use it with `--session` or `--transcript`");
        }
        let state = StateDir::locate()?;
        let mut reports = Vec::new();
        for session in state.session_ids()? {
            if state.usage_log(&session).exists() {
                reports.push(session_report(&state, &session, &options)?);
            }
        }
        reports
    } else if let Some(session) = &args.session {
        let session = SessionId::parse(session).context("invalid `--session`")?;
        let state = StateDir::locate()?;
        // Fails with a clear message when there is no log.
        load_log(Some(session.as_str()), None)?;
        vec![session_report(&state, &session, &options)?]
    } else {
        let log = load_log(None, args.transcript.as_ref())?;
        vec![build_report(None, &log, None, &options)]
    };
    if let (Some(path), Some(report)) = (&args.svg, reports.first()) {
        fs_err::write(path, render_svg(report)).context("failed to write the SVG")?;
    }
    if args.json {
        if args.all {
            let values: Vec<serde_json::Value> = reports.iter().map(report_json).collect();
            output::print_json(&values)?;
        } else if let Some(report) = reports.first() {
            output::print_json(&report_json(report))?;
        }
    } else {
        if reports.is_empty() {
            output::println("no session has a usage log yet")?;
        }
        let texts: Vec<String> = reports.iter().map(super::text::report_text).collect();
        output::print(&texts.join("\n"))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn session_report(
    state: &StateDir,
    session: &SessionId,
    options: &ReportOptions,
) -> Result<SessionReport> {
    let log = read_session_log(state, session)?;
    let snapshots = list_snapshots(state, Some(session))?;
    Ok(build_report(
        Some(session.as_str()),
        &log,
        Some(&snapshots),
        options,
    ))
}
