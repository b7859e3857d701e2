//! One session of the history: what it is, and the report `ctxhooks report` would give for its
//! transcripts (read into one log by `projects/session.rs`), with its requests per day.

use std::collections::BTreeMap;

use chrono::NaiveDate;

use crate::facts::log::SessionLog;
use crate::facts::report::{ReportOptions, SessionReport, build_report};
use crate::facts::summary::SessionSummary;
use crate::facts::tally::Tally;
use crate::prices::Prices;
use crate::projects::cache::Cache;
use crate::projects::discover::{Problem, SessionFiles};
use crate::projects::session::{TranscriptSummary, load_parts};
use crate::projects::window::TimeWindow;
use crate::time::Time;

/// One session of the history: what it is, where it was found, its transcripts, and the report
/// `ctxhooks report` would give for them.
#[derive(Debug, Clone, PartialEq)]
pub struct HistorySession {
    /// What it is (where it ran: its relocation, else its main transcript's `cwd`).
    pub summary: SessionSummary,
    /// The project folder's name it was found in (Claude Code's slug of the project's path).
    pub project: String,
    /// The projects folder it was found in.
    pub projects_folder: String,
    pub transcripts: Vec<TranscriptSummary>,
    pub report: SessionReport,
    /// Every project folder's name its id is in and every folder its transcripts name, for
    /// `--project`.
    pub places: Vec<String>,
}

/// One UTC day's requests and compactions, of one session or (merged) of every session with a
/// request that day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Day {
    pub date: NaiveDate,
    pub tally: Tally,
}

/// What one session gives the history.
#[derive(Debug, Clone, Default)]
pub struct SessionOutcome {
    /// The session, when it has requests (in the time window).
    pub session: Option<HistorySession>,
    /// Its requests and compactions per day, within the time window.
    pub days: Vec<Day>,
    /// What could not be read.
    pub problems: Vec<Problem>,
    /// Transcripts read, and their bytes.
    pub transcripts: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Lines the ingest was not fed.
    pub passed_lines: u64,
    /// Transcripts the cache served.
    pub cached: usize,
}

/// Reads, reports and summarizes one session, from its transcripts in every project folder
/// its id is in (`parts`, never empty; it is listed under the latest one's project).
pub fn summarize_session(
    parts: &[&SessionFiles],
    options: &ReportOptions,
    window: &TimeWindow,
    cache: Option<&Cache>,
) -> SessionOutcome {
    let (loaded, latest) = load_parts(parts, cache);
    let files = parts[latest];
    let mut outcome = SessionOutcome {
        problems: loaded.problems.clone(),
        transcripts: loaded.transcripts.len(),
        bytes: parts.iter().map(|part| part.bytes).sum(),
        passed_lines: loaded.passed_lines,
        cached: loaded.cached,
        ..SessionOutcome::default()
    };
    // Nothing to report: no request and no compaction boundary, or no request in the window.
    let outside = !window.is_open()
        && !(loaded.log.timed_requests())
            .filter_map(|request| request.time.as_ref())
            .any(|time| window.contains(time));
    if loaded.log.timeline.is_empty() || outside {
        return outcome;
    }
    let report = build_report(Some(&files.session_id), &loaded.log, None, options);
    outcome.days = days_of(&loaded.log, &report, window, &options.prices);
    let summary = loaded.summary(&files.session_id);
    let projects = parts.iter().map(|part| part.project.clone());
    let sources = loaded.log.sources.iter();
    let cwds = sources.filter_map(|source| source.cwd.clone());
    let places = projects.chain(cwds).chain(summary.cwd.clone()).collect();
    outcome.session = Some(HistorySession {
        summary,
        places,
        project: files.project.clone(),
        projects_folder: files.projects_folder.display().to_string(),
        transcripts: loaded.transcripts.clone(),
        report,
    });
    outcome
}

/// The session's requests and compactions per UTC day, within the window.
fn days_of(
    log: &SessionLog,
    report: &SessionReport,
    window: &TimeWindow,
    prices: &Prices,
) -> Vec<Day> {
    let mut days: BTreeMap<NaiveDate, Tally> = BTreeMap::new();
    let day_of = |time: &Option<Time>| window.day_of(time.as_ref()?);
    let one_session = || Tally {
        sessions: 1,
        ..Tally::default()
    };
    for request in log.timed_requests() {
        if let Some(day) = day_of(&request.time) {
            days.entry(day)
                .or_insert_with(one_session)
                .add(&request.row, prices);
        }
    }
    for compaction in &report.compactions {
        if let Some(day) = day_of(&compaction.time) {
            days.entry(day).or_insert_with(one_session).compactions += 1;
        }
    }
    days.into_iter()
        .map(|(date, tally)| Day { date, tally })
        .collect()
}
