//! The history as `ctxhooks history` prints it: in words (`text.rs`), or in JSON (schema 1;
//! `docs/history.md` documents it).

use serde::Serialize;

use super::model::{History, HistoryTotals, ProjectTotals};
use super::session::{DayTotals, SessionSummary};
use super::text::history_text;
use crate::output::{Emit, Schema};

/// The history, with what was asked for and what could not be read.
#[derive(Serialize)]
pub struct PrintedHistory<'a> {
    projects_folders: Vec<String>,
    filters: Filters<'a>,
    sessions: &'a [SessionSummary],
    days: &'a [DayTotals],
    projects: &'a [ProjectTotals],
    totals: &'a HistoryTotals,
    problems: Vec<Unreadable>,
    #[serde(skip)]
    history: &'a History,
}

/// `--since`, `--until` (RFC 3339) and `--project`, null when not given.
#[derive(Serialize)]
struct Filters<'a> {
    since: Option<String>,
    until: Option<String>,
    project: Option<&'a str>,
}

/// A file or folder that could not be read: its path, its code and the sentence the text prints.
#[derive(Serialize)]
struct Unreadable {
    path: String,
    problem: &'static str,
    message: String,
}

impl<'a> PrintedHistory<'a> {
    pub fn of(history: &'a History) -> Self {
        let query = &history.query;
        Self {
            projects_folders: query
                .folders
                .iter()
                .map(|folder| folder.display().to_string())
                .collect(),
            filters: Filters {
                since: query.window.since.map(|time| time.to_rfc3339()),
                until: query.window.until.map(|time| time.to_rfc3339()),
                project: query.project.as_deref(),
            },
            sessions: &history.sessions,
            days: &history.days,
            projects: &history.projects,
            totals: &history.totals,
            problems: history
                .problems
                .iter()
                .map(|problem| Unreadable {
                    path: problem.path.display().to_string(),
                    problem: <&str>::from(&problem.kind),
                    message: problem.to_string(),
                })
                .collect(),
            history,
        }
    }
}

impl Schema for PrintedHistory<'_> {
    const SCHEMA: u32 = 1;
}

impl Emit for PrintedHistory<'_> {
    fn text(&self) -> String {
        history_text(self.history)
    }
}
