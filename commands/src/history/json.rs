//! The history as `ctxhooks history` prints it: in words (`text.rs`), or in JSON (schema 1;
//! `docs/history.md` documents it).

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use super::model::{History, HistoryTotals, ProjectTotals};
use super::session::{Day, HistorySession};
use super::text::history_text;
use crate::facts::compactions::{Compaction, CompactionCounts};
use crate::output::{Emit, Schema, fields_by_name};

/// The history, with what was asked for and what could not be read.
pub struct PrintedHistory<'a>(pub &'a History);

impl Serialize for PrintedHistory<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let history = self.0;
        let query = &history.query;
        let folders = query.folders.iter();
        let folders: Vec<String> = folders.map(|folder| folder.display().to_string()).collect();
        let filters = Filters {
            since: query.window.since.map(|time| time.to_rfc3339()),
            until: query.window.until.map(|time| time.to_rfc3339()),
            project: query.project.as_deref(),
        };
        let problems = history.problems.iter().map(|problem| Unreadable {
            path: problem.path.display().to_string(),
            problem: <&str>::from(&problem.kind),
            message: problem.to_string(),
        });
        let problems: Vec<Unreadable> = problems.collect();
        let mut fields = serializer.serialize_struct("PrintedHistory", 7)?;
        fields.serialize_field("projects_folders", &folders)?;
        fields.serialize_field("filters", &filters)?;
        fields_by_name! { fields, history; sessions, days, projects, totals }
        fields.serialize_field("problems", &problems)?;
        fields.end()
    }
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

impl Schema for PrintedHistory<'_> {
    /// 2: `cost` on the totals, each session, day and project.
    const SCHEMA: u32 = 2;
}

impl Emit for PrintedHistory<'_> {
    fn text(&self) -> String {
        history_text(self.0)
    }
}

impl Serialize for Day {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tally = &self.tally;
        let mut day = serializer.serialize_struct("Day", 8)?;
        day.serialize_field("day", &self.date.format("%Y-%m-%d").to_string())?;
        fields_by_name! { day, tally; sessions, requests, main_requests }
        // The day's token sums, without the advisor's (schema 1 never gave them per day).
        day.serialize_field("totals", &tally.tokens)?;
        fields_by_name! { day, tally; compactions, peak_context, cost }
        day.end()
    }
}

impl Serialize for ProjectTotals {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tally = &self.tally;
        let mut project = serializer.serialize_struct("ProjectTotals", 14)?;
        fields_by_name! { project, self; project, projects_folder, cwd }
        fields_by_name! { project, tally; sessions, requests }
        project.serialize_field("totals", &tally.totals())?;
        fields_by_name! { project, tally; compactions, sessions_with_compaction }
        fields_by_name! { project, tally; sessions_near_trigger, peak_context }
        fields_by_name! { project, self; median_peak_to_trigger, max_peak_to_trigger }
        fields_by_name! { project, self; growth_per_request }
        fields_by_name! { project, tally; cost }
        project.end()
    }
}

impl Serialize for HistoryTotals {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tally = &self.tally;
        let mut totals = serializer.serialize_struct("HistoryTotals", 13)?;
        fields_by_name! { totals, tally; sessions }
        fields_by_name! { totals, self; transcripts, bytes }
        fields_by_name! { totals, tally; requests, main_requests }
        totals.serialize_field("sidechain_requests", &tally.sidechain_requests())?;
        totals.serialize_field("totals", &tally.totals())?;
        fields_by_name! { totals, tally; compactions, sessions_with_compaction }
        fields_by_name! { totals, tally; sessions_near_trigger }
        fields_by_name! { totals, self; passed_lines, cached_transcripts }
        fields_by_name! { totals, tally; cost }
        totals.end()
    }
}

impl Serialize for HistorySession {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (summary, report) = (&self.summary, &self.report);
        let (tally, estimates) = (&report.tally, &report.estimates);
        let [drops_by_class, drops_by_basis] = report.drops_by_class_and_basis();
        let growth = report.growth();
        let skipped = report.skipped_lines.iter();
        let mut session = serializer.serialize_struct("HistorySession", 35)?;
        fields_by_name! { session, summary; session_id }
        fields_by_name! { session, self; project, projects_folder }
        fields_by_name! { session, summary; cwd, title, session_kind, entrypoint, version }
        fields_by_name! { session, self; transcripts }
        fields_by_name! { session, summary; first_time, last_time }
        fields_by_name! { session, tally; requests, main_requests }
        session.serialize_field("sidechain_requests", &tally.sidechain_requests())?;
        session.serialize_field("totals", &tally.totals())?;
        fields_by_name! { session, report; peak }
        let counts = CompactionCounts::of(&report.compactions);
        session.serialize_field("compaction_counts", &counts)?;
        let marks: Vec<Mark> = report.compactions.iter().map(Mark).collect();
        session.serialize_field("compactions", &marks)?;
        session.serialize_field("drops", &report.drops.len())?;
        session.serialize_field("drops_by_class", &drops_by_class)?;
        session.serialize_field("drops_by_basis", &drops_by_basis)?;
        session.serialize_field("trigger", &estimates.trigger.tokens)?;
        session.serialize_field("trigger_derivation", &estimates.trigger.derivation)?;
        session.serialize_field("cap", &estimates.cap.tokens)?;
        session.serialize_field("cap_source", &estimates.cap.source.to_string())?;
        fields_by_name! { session, estimates; floor, headroom }
        session.serialize_field("peak_to_trigger", &report.peak_to_trigger())?;
        session.serialize_field("growth_per_request", &growth.per_request())?;
        session.serialize_field("growth_tokens", &growth.tokens)?;
        session.serialize_field("growth_steps", &growth.steps)?;
        let warnings: Vec<&str> = report.warnings.iter().map(<&str>::from).collect();
        session.serialize_field("warnings", &warnings)?;
        let unreadable: u64 = skipped.clone().map(|row| row.unreadable).sum();
        session.serialize_field("unreadable_lines", &unreadable)?;
        let overlong: u64 = skipped.map(|row| row.overlong).sum();
        session.serialize_field("overlong_lines", &overlong)?;
        fields_by_name! { session, tally; cost }
        session.end()
    }
}

/// A compaction as a history session lists it: when, on what it rests, the context around it.
struct Mark<'a>(&'a Compaction);

impl Serialize for Mark<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let compaction = self.0;
        let mut mark = serializer.serialize_struct("Mark", 6)?;
        fields_by_name! { mark, compaction; time, basis, confidence }
        mark.serialize_field("trigger", &compaction.boundary.trigger)?;
        fields_by_name! { mark, compaction; context_before, context_after }
        mark.end()
    }
}
