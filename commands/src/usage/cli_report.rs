//! `ctxhooks report`: context drops and their classes, compactions matched with snapshots, the
//! trigger estimate, floor, headroom and warnings, per session.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;
use serde::Serialize;

use super::cli_usage::load_log;
use super::json::PrintedReport;
use crate::facts::drops::DEFAULT_MIN_DROP;
use crate::facts::report::{ReportOptions, build_report, session_report};
use crate::output::{self, Emit, Versioned, emit_ok};
use crate::output_file::RenderArgs;
use crate::prices::Prices;
use crate::usage::chart::render_svg;
use ctxhooks_shared::store::rotation;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;

/// The terms the report uses, for `ctxhooks report --help` (docs/usage.md says the same).
pub const GLOSSARY: &str = "\
Terms used in the report:
  main chain   The conversation itself: every request except those of sub-agents. Requests are
               numbered from 1 along it (\"request 7\"), in the text and in --json alike.
  context      What one request sent: input + cache read + cache write tokens.
  drop / fall  The context of a request at least --min-drop tokens below the one before it.
               A rise is never a drop.
  structural   A class that a record in the transcript proves: a compaction boundary, a compact
               summary, a changed model name, advisor blocks, a resume record, a version, the
               timestamps.
  heuristic    A class from the shape of the numbers matching something the CLI is known to do
               without leaving a record; the evidence says which shape. A cache write alone never
               decides a class.
  undecided    No record and no known shape explains the fall (basis \"none\"); the evidence says
               what is known.
  cap          The window W compaction is measured against: --cap, else
               CLAUDE_CODE_AUTO_COMPACT_WINDOW in this environment, else
               modelSettings.<model>.autoCompactWindow or autoCompactWindow from the project's
               local, project or user settings (in that order), else the model's own window.
  trigger T    The context at which the CLI compacts automatically. Derived with the CLI's own
               rule for its version (W - reserved output - 13,000) and checked against the
               automatic compactions observed; the report says which inputs it used and whether
               the observations agree.
  floor        The context right after a compaction (the median over structural compactions and
               heuristic ones of high confidence).
  headroom     T - floor: what a session can add after a compaction before the next one.
  room left    T - the latest context: what can still be added before the next compaction.
";

/// Arguments of `ctxhooks report`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("input").required(true).multiple(false))]
#[command(after_long_help = GLOSSARY)]
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
    #[command(flatten)]
    pub render: RenderArgs,
    #[command(flatten)]
    pub thresholds: ThresholdArgs,
    /// Ignored: a cache write no longer decides a class (kept so that old scripts still run).
    #[arg(long, value_name = "TOKENS", hide = true)]
    pub compaction_cache_write: Option<u64>,
    /// Ignored, as `--compaction-cache-write`.
    #[arg(long, value_name = "TOKENS", hide = true)]
    pub advisor_cache_write: Option<u64>,
    /// How many minutes before a compaction its snapshot may have been taken.
    #[arg(long, value_name = "MINUTES", default_value_t = 15)]
    pub match_minutes: i64,
}

/// The cap and the smallest drop, as `report` and `history` take them.
#[derive(Debug, Args)]
pub struct ThresholdArgs {
    /// The cap: the auto-compact window W in tokens (default: `CLAUDE_CODE_AUTO_COMPACT_WINDOW`,
    /// else `autoCompactWindow` from the settings, else the model's window).
    #[arg(long, value_name = "TOKENS")]
    pub cap: Option<u64>,
    /// Falls smaller than this are not drops.
    #[arg(long, value_name = "TOKENS", default_value_t = DEFAULT_MIN_DROP)]
    pub min_drop: u64,
}

impl ThresholdArgs {
    /// The report's options with these thresholds, this process's environment and the user's
    /// settings, and the prices (with the state folder's `config.json`, when it has one: a bad
    /// entry there is an error).
    pub fn options(&self) -> Result<ReportOptions> {
        let prices = Prices::load(StateDir::locate().ok().as_ref())?;
        Ok(ReportOptions::of_process(self.cap, self.min_drop).with_prices(prices))
    }
}

pub fn run(args: &ReportArgs) -> Result<ExitCode> {
    if args.compaction_cache_write.is_some() || args.advisor_cache_write.is_some() {
        output::note(
            "note: --compaction-cache-write and --advisor-cache-write are ignored: a cache write \
             no longer decides a class (see `ctxhooks report --help`)",
        );
    }
    let options = ReportOptions {
        match_before_seconds: args.match_minutes.saturating_mul(60),
        ..args.thresholds.options()?
    };
    let reports = if args.all {
        if args.render.svg.is_some() {
            bail!("`--svg` draws one session; use it with `--session` or `--transcript`");
        }
        let state = StateDir::locate()?;
        let sessions = state.session_ids()?.into_iter();
        let logged = sessions.filter(|session| rotation::log_exists(&state.usage_log(session)));
        let reports = logged.map(|session| Ok(session_report(&state, &session, &options)?.1));
        reports.collect::<Result<Vec<_>>>()?
    } else if let Some(session) = &args.session {
        let session = SessionId::parse(session).context("invalid `--session`")?;
        let state = StateDir::locate()?;
        // Fails with a clear message when there is no log.
        load_log(Some(session.as_str()), None)?;
        vec![session_report(&state, &session, &options)?.1]
    } else {
        let log = load_log(None, args.transcript.as_ref())?;
        vec![build_report(None, &log, None, &options)]
    };
    if let Some(report) = reports.first() {
        args.render.write_svg("chart", || render_svg(report))?;
    }
    let printed = match (args.all, reports.first()) {
        (false, Some(report)) => Printed::One(Versioned::new(PrintedReport(report))),
        _ => Printed::All(
            reports
                .iter()
                .map(|report| Versioned::new(PrintedReport(report)))
                .collect(),
        ),
    };
    emit_ok(args.render.json, &printed)
}

/// What `report` prints: one session's report, or with `--all` every one's (in JSON an array).
#[derive(Serialize)]
#[serde(untagged)]
enum Printed<'a> {
    One(Versioned<PrintedReport<'a>>),
    All(Vec<Versioned<PrintedReport<'a>>>),
}

impl Emit for Printed<'_> {
    fn text(&self) -> String {
        match self {
            Self::One(report) => report.text(),
            Self::All(reports) if reports.is_empty() => {
                "no session has a usage log yet\n".to_owned()
            }
            Self::All(reports) => {
                let texts: Vec<String> = reports.iter().map(Emit::text).collect();
                texts.join("\n")
            }
        }
    }
}
