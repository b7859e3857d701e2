//! The history as JSON (`ctxhooks history --json`, schema 1; `docs/history.md` documents it).

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};
use serde_json::{Value, json};

use super::model::{HISTORY_SCHEMA, History, HistoryTotals, ProjectTotals};
use super::session::Day;

/// The history as one JSON value.
pub fn history_json(history: &History) -> Value {
    json!({
        "schema": HISTORY_SCHEMA,
        "projects_folders": history.query.folders.iter().map(|folder| folder.display().to_string()).collect::<Vec<_>>(),
        "filters": {
            "since": history.query.window.since.map(|time| time.to_rfc3339()),
            "until": history.query.window.until.map(|time| time.to_rfc3339()),
            "project": history.query.project,
        },
        "sessions": history.sessions,
        "days": history.days,
        "projects": history.projects,
        "totals": history.totals,
        // Each problem: its path, its code and the sentence the text prints.
        "problems": history.problems.iter().map(|problem| json!({
            "path": problem.path.display().to_string(),
            "problem": <&str>::from(&problem.kind),
            "message": problem.to_string(),
        })).collect::<Vec<_>>(),
    })
}

impl Serialize for Day {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tally = &self.tally;
        let mut day = serializer.serialize_struct("Day", 7)?;
        day.serialize_field("day", &self.date.format("%Y-%m-%d").to_string())?;
        day.serialize_field("sessions", &tally.sessions)?;
        day.serialize_field("requests", &tally.requests)?;
        day.serialize_field("main_requests", &tally.main_requests)?;
        // The day's token sums, without the advisor's (schema 1 never gave them per day).
        day.serialize_field("totals", &tally.tokens)?;
        day.serialize_field("compactions", &tally.compactions)?;
        day.serialize_field("peak_context", &tally.peak_context)?;
        day.end()
    }
}

impl Serialize for ProjectTotals {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tally = &self.tally;
        let mut project = serializer.serialize_struct("ProjectTotals", 13)?;
        project.serialize_field("project", &self.project)?;
        project.serialize_field("projects_folder", &self.projects_folder)?;
        project.serialize_field("cwd", &self.cwd)?;
        project.serialize_field("sessions", &tally.sessions)?;
        project.serialize_field("requests", &tally.requests)?;
        project.serialize_field("totals", &tally.totals())?;
        project.serialize_field("compactions", &tally.compactions)?;
        let with_compaction = &tally.sessions_with_compaction;
        project.serialize_field("sessions_with_compaction", with_compaction)?;
        project.serialize_field("sessions_near_trigger", &tally.sessions_near_trigger)?;
        project.serialize_field("peak_context", &tally.peak_context)?;
        project.serialize_field("median_peak_to_trigger", &self.median_peak_to_trigger)?;
        project.serialize_field("max_peak_to_trigger", &self.max_peak_to_trigger)?;
        project.serialize_field("growth_per_request", &self.growth_per_request)?;
        project.end()
    }
}

impl Serialize for HistoryTotals {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tally = &self.tally;
        let mut totals = serializer.serialize_struct("HistoryTotals", 12)?;
        totals.serialize_field("sessions", &tally.sessions)?;
        totals.serialize_field("transcripts", &self.transcripts)?;
        totals.serialize_field("bytes", &self.bytes)?;
        totals.serialize_field("requests", &tally.requests)?;
        totals.serialize_field("main_requests", &tally.main_requests)?;
        totals.serialize_field("sidechain_requests", &tally.sidechain_requests())?;
        totals.serialize_field("totals", &tally.totals())?;
        totals.serialize_field("compactions", &tally.compactions)?;
        let with_compaction = &tally.sessions_with_compaction;
        totals.serialize_field("sessions_with_compaction", with_compaction)?;
        totals.serialize_field("sessions_near_trigger", &tally.sessions_near_trigger)?;
        totals.serialize_field("passed_lines", &self.passed_lines)?;
        totals.serialize_field("cached_transcripts", &self.cached_transcripts)?;
        totals.end()
    }
}
