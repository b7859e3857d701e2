//! The history of every session in the projects folders: each session's summary, totals per
//! day and per project, and what could not be read.

use std::collections::BTreeMap;
use std::path::PathBuf;

use chrono::NaiveDate;
use rayon::prelude::*;

use super::session::{Day, HistorySession, summarize_session};
use crate::facts::report::{Growth, ReportOptions};
use crate::facts::tally::Tally;
use crate::projects::cache::Cache;
use crate::projects::discover::{Problem, discover};
use crate::projects::slug_of;
use crate::projects::window::TimeWindow;
use ctxhooks_shared::store::state_dir::StateDir;

/// What the history is asked for.
#[derive(Debug, Clone, Default)]
pub struct HistoryQuery {
    /// The projects folders to read.
    pub folders: Vec<PathBuf>,
    pub window: TimeWindow,
    /// Only sessions whose project folder name or `cwd` contains this.
    pub project: Option<String>,
    /// The cache transcripts are read through, if any.
    pub cache: Option<Cache>,
    /// The state folder, for what the status line recorded of each session's windows.
    pub state: Option<StateDir>,
}

/// Every session of the projects folders that had a request in the window, with their totals
/// per day, per project and over all of them, and what could not be read.
#[derive(Debug, Clone)]
pub struct History {
    /// What was asked for.
    pub query: HistoryQuery,
    /// Every session with a request in the window, by its first request's time.
    pub sessions: Vec<HistorySession>,
    /// Each UTC day's tally, in order.
    pub days: Vec<Day>,
    /// Totals per project, the fastest-filling first.
    pub projects: Vec<ProjectTotals>,
    /// Totals over everything listed.
    pub totals: HistoryTotals,
    /// What could not be read.
    pub problems: Vec<Problem>,
    /// The projects folders that could be listed (0: nothing could be read at all).
    pub folders_read: usize,
}

/// One project's sessions together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectTotals {
    pub project: String,
    /// The projects folder it is in.
    pub projects_folder: String,
    /// The `cwd` its sessions name (the latest session's).
    pub cwd: Option<String>,
    /// Its sessions' tallies merged.
    pub tally: Tally,
    /// The median over sessions of peak / T.
    pub median_peak_to_trigger: Option<f64>,
    /// The largest peak / T.
    pub max_peak_to_trigger: Option<f64>,
    /// Tokens added per main-chain request that added some, over every session (mean): how
    /// fast the project fills the context.
    pub growth_per_request: Option<f64>,
}

/// Totals over every session listed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistoryTotals {
    /// The sessions' tallies merged.
    pub tally: Tally,
    /// Transcripts read (sessions outside the filters included).
    pub transcripts: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Transcript lines the ingest was not fed (their kind changes nothing).
    pub passed_lines: u64,
    /// Transcripts whose reading the cache gave (unchanged since the last run).
    pub cached_transcripts: usize,
}

/// Reads the projects folders and builds the history.
pub fn build_history(query: &HistoryQuery, options: &ReportOptions) -> History {
    let found = discover(&query.folders);
    let mut groups = found.by_session();
    if let Some(project) = &query.project {
        // The folder name is the `cwd` with every other character than letters and digits
        // made `-`: a `cwd` that contains the text gives a name that contains its slug. A
        // session in several project folders is kept whole when one of them matches.
        let slug = slug_of(project);
        groups.retain(|parts| parts.iter().any(|files| files.project.contains(&slug)));
    }
    // One session per task on every core; the largest come first, so that they finish together.
    let outcomes: Vec<_> = groups
        .par_iter()
        .with_max_len(1)
        .map(|parts| {
            let id = &parts[0].session_id;
            let options = options.with_status_line_of(query.state.as_ref(), id);
            summarize_session(parts, &options, &query.window, query.cache.as_ref())
        })
        .collect();
    let folders_read = found.folders_read;
    let mut problems = found.problems;
    let mut sessions = Vec::new();
    let mut days: BTreeMap<NaiveDate, Tally> = BTreeMap::new();
    let mut totals = HistoryTotals::default();
    for outcome in outcomes {
        problems.extend(outcome.problems);
        totals.transcripts += outcome.transcripts;
        totals.bytes += outcome.bytes;
        totals.passed_lines += outcome.passed_lines;
        totals.cached_transcripts += outcome.cached;
        let Some(session) = outcome.session else {
            continue;
        };
        if let Some(project) = &query.project
            && !session
                .places
                .iter()
                .any(|place| place.contains(project.as_str()))
        {
            continue;
        }
        for day in outcome.days {
            days.entry(day.date).or_default().merge(&day.tally);
        }
        totals.tally.merge(&session.report.tally);
        sessions.push(session);
    }
    sessions.sort_by(|a, b| {
        let (a, b) = (&a.summary, &b.summary);
        (&a.first_time, &a.session_id).cmp(&(&b.first_time, &b.session_id))
    });
    History {
        query: query.clone(),
        projects: projects_of(&sessions),
        days: days
            .into_iter()
            .map(|(date, tally)| Day { date, tally })
            .collect(),
        sessions,
        totals,
        problems,
        folders_read,
    }
}

fn projects_of(sessions: &[HistorySession]) -> Vec<ProjectTotals> {
    // Each project's sessions, by projects folder and project.
    let mut groups: BTreeMap<(&str, &str), Vec<&HistorySession>> = BTreeMap::new();
    for session in sessions {
        let key = (session.projects_folder.as_str(), session.project.as_str());
        groups.entry(key).or_default().push(session);
    }
    let mut list: Vec<ProjectTotals> = groups.into_values().map(project_totals).collect();
    list.sort_by(|a, b| {
        b.growth_per_request
            .unwrap_or(0.0)
            .total_cmp(&a.growth_per_request.unwrap_or(0.0))
            .then_with(|| a.project.cmp(&b.project))
    });
    list
}

/// One project's sessions (at least one) added up.
fn project_totals(sessions: Vec<&HistorySession>) -> ProjectTotals {
    let mut project = ProjectTotals {
        project: sessions[0].project.clone(),
        projects_folder: sessions[0].projects_folder.clone(),
        // The latest session's that names one.
        cwd: sessions
            .iter()
            .rev()
            .find_map(|session| session.summary.cwd.clone()),
        ..ProjectTotals::default()
    };
    let mut growth = Growth::default();
    let mut ratios = Vec::new();
    for HistorySession { report, .. } in sessions {
        project.tally.merge(&report.tally);
        ratios.extend(report.peak_to_trigger());
        growth.tokens += report.growth().tokens;
        growth.steps += report.growth().steps;
    }
    ratios.sort_by(f64::total_cmp);
    project.median_peak_to_trigger = median(&ratios);
    project.max_peak_to_trigger = ratios.last().copied();
    project.growth_per_request = growth.per_request();
    project
}

fn median(sorted: &[f64]) -> Option<f64> {
    match sorted.len() {
        0 => None,
        length if length % 2 == 1 => Some(sorted[length / 2]),
        length => Some(f64::midpoint(sorted[length / 2 - 1], sorted[length / 2])),
    }
}
