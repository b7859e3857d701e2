//! `ctxhooks search QUERY [--project TEXT] [--since T] [--until T] [--session ID] [--role R]
//! [--limit N] [--json]`.

use std::io::IsTerminal as _;
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;
use serde::Serialize;

use super::engine::{Outcome, Request, search};
use super::find::Filters;
use super::progress::Progress;
use super::role::Role;
use super::text::{Marking, render};
use crate::output::{self, Emit, Format, Schema, Versioned, emit};
use crate::projects::ProjectsArgs;
use crate::projects::window::TimeWindow;
use crate::sessions::resolve::session_or_start;
use ctxhooks_shared::store::state_dir::StateDir;

/// Arguments of `ctxhooks search`.
///
/// Searches everything said in every session ctxhooks keeps and every transcript Claude Code
/// still has (main and sub-agents: prompts, answers, tool calls with their inputs, tool
/// results), best match first. Each search first indexes what was added since the last one.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What to look for: words (all of them), "a phrase", a prefix* ; OR, AND, NOT (in capitals)
    /// and parentheses combine them.
    #[arg(value_name = "QUERY", required = true, num_args = 1..)]
    pub query: Vec<String>,
    /// Only sessions whose project folder holds this text.
    #[arg(long, value_name = "TEXT")]
    pub project: Option<String>,
    /// Only what was said at or after this day (YYYY-MM-DD, UTC) or RFC 3339 time.
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Only what was said at or before this day (the whole day) or RFC 3339 time.
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,
    /// Only this session (a full id, `last`, or the start of one).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Only what this speaker said.
    #[arg(long, value_enum)]
    pub role: Option<Role>,
    /// At most this many results.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub limit: usize,
    /// Print the results as JSON (each snippet's matches as character offsets).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub projects: ProjectsArgs,
}

impl SearchArgs {
    /// The arguments of `ctxhooks search ARGS` parsed by a parser of `search` alone, when they
    /// parse: building the whole command line's parser (every command's arguments) is a tenth
    /// of a warm search's instructions. Anything it refuses (`--help`, a typo, a missing query)
    /// is `None`, for the whole parser to answer as it always has.
    pub fn quick(arguments: &[std::ffi::OsString]) -> Option<Self> {
        use clap::FromArgMatches as _;
        let parser = Self::augment_args(clap::Command::new("search").no_binary_name(true));
        let matches = parser.try_get_matches_from(arguments).ok()?;
        Self::from_arg_matches(&matches).ok()
    }
}

pub fn run(args: &SearchArgs) -> Result<ExitCode> {
    let state = StateDir::locate()?;
    let request = Request {
        query: args.query.join(" "),
        filters: filters(
            &state,
            args.project.clone(),
            args.session.as_deref(),
            args.role,
            args.since.as_deref(),
            args.until.as_deref(),
        )?,
        limit: check_limit(args.limit)?,
        projects: args.projects.folders()?,
    };
    let outcome = search(&state, &request, &Progress::on_stderr())?;
    // Folders a person named that could not be read are said (Claude Code's own is looked in
    // quietly: kept sessions are searched without it).
    if !args.projects.projects.is_empty() {
        for problem in &outcome.problems {
            output::note(&format!("search: {problem}"));
        }
    }
    let marking = if std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
    {
        Marking::Bold
    } else {
        Marking::Brackets
    };
    emit(
        Format::json_if(args.json),
        &Versioned::new(Results { outcome, marking }),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// What `search` prints: the outcome, its matches marked in the words as `marking` says (the
/// JSON gives them as character offsets).
#[derive(Serialize)]
#[serde(transparent)]
struct Results {
    outcome: Outcome,
    #[serde(skip)]
    marking: Marking,
}

impl Schema for Results {
    const SCHEMA: u32 = Outcome::SCHEMA;
}

impl Emit for Results {
    fn text(&self) -> String {
        render(&self.outcome, self.marking)
    }
}

/// The filters, checked: a session is `last` (the newest one ctxhooks knows), an id or the
/// start of one, as [`session_or_start`] reads it; times are days or RFC 3339 times.
pub fn filters(
    state: &StateDir,
    project: Option<String>,
    session: Option<&str>,
    role: Option<Role>,
    since: Option<&str>,
    until: Option<&str>,
) -> Result<Filters> {
    let session = session
        .map(|text| session_or_start(state, text))
        .transpose()?;
    let window = TimeWindow::parse(since, until)?;
    Ok(Filters {
        project: project.filter(|project| !project.is_empty()),
        session,
        role,
        since: window.since,
        until: window.until,
    })
}

/// Checks `--limit`.
pub fn check_limit(limit: usize) -> Result<usize> {
    if limit == 0 {
        bail!("`--limit 0` asks for no result; give 1 or more");
    }
    Ok(limit)
}
