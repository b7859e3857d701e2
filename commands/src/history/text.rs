//! The history in words: one line per session, then totals per day and per project, then what
//! could not be read.

use std::fmt::Write as _;

use super::model::History;
use super::session::HistorySession;
use crate::facts::compactions::CompactionCounts;
use crate::facts::tally::NEAR_TRIGGER_RATIO;
use crate::render::cost::cost_cell;
use crate::render::numbers::{thousands, thousands_or};
use crate::render::table::{Column, Table, cut};
use crate::render::text::controls_as_spaces;
use crate::render::time::to_the_minute;
use crate::usage::text::totals_lines;

fn percent(ratio: Option<f64>) -> String {
    ratio.map_or_else(|| "-".to_owned(), |ratio| format!("{:.0}%", ratio * 100.0))
}

#[expect(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "a mean of token counts, rounded for people"
)]
fn rounded(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), |value| thousands(value.round() as u64))
}

/// The widest title the session table shows (a longer one is cut at its end).
const TITLE_WIDTH: usize = 48;

fn compactions_cell(session: &HistorySession) -> String {
    let counts = CompactionCounts::of(&session.report.compactions);
    if counts.total == 0 {
        return "0".to_owned();
    }
    let kinds = [
        (counts.structural, "structural"),
        (counts.heuristic_high, "heuristic"),
        (counts.heuristic_low, "heuristic, low"),
    ];
    let parts: Vec<String> = kinds
        .iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, kind)| format!("{count} {kind}"))
        .collect();
    format!("{} ({})", counts.total, parts.join(", "))
}

fn drops_cell(session: &HistorySession) -> String {
    let [by_class, _] = session.report.drops_by_class_and_basis();
    let classes = by_class.iter();
    let cells: Vec<String> = classes
        .map(|(class, count)| format!("{class} {count}"))
        .collect();
    if cells.is_empty() {
        return "-".to_owned();
    }
    cells.join(", ")
}

/// The session table: first request, project, session, requests, peak, T, peak/T, cost, then
/// set apart compactions and drops.
const SESSIONS: Table<10> = Table {
    indent: "  ",
    gap: " ",
    columns: [
        Column::left("first (UTC)", 16),
        Column::left("project", 24),
        Column::left("session", 8),
        Column::right("requests", 8),
        Column::right("peak", 9),
        Column::right("T", 9),
        Column::right("peak/T", 6),
        Column::right("cost", 9),
        Column::left("compactions", 28).apart(),
        Column::left("drops", 0),
    ],
};

/// The per-day table: the day, then counts, token sums and the cost, each aligned right.
const DAYS: Table<10> = Table {
    indent: "  ",
    gap: " ",
    columns: [
        Column::left("day", 10),
        Column::right("sessions", 8),
        Column::right("requests", 8),
        Column::right("compactions", 11),
        Column::right("input", 10),
        Column::right("cache write", 13),
        Column::right("cache read", 15),
        Column::right("output", 11),
        Column::right("peak", 9),
        Column::right("cost", 9),
    ],
};

/// The per-project table: the project, then counts, measures and the cost, each aligned right.
const PROJECTS: Table<9> = Table {
    indent: "  ",
    gap: " ",
    columns: [
        Column::left("project", 32),
        Column::right("sessions", 8),
        Column::right("requests", 8),
        Column::right("compactions", 11),
        Column::right("peak", 9),
        Column::right("median pk/T", 12),
        Column::right("near T", 11),
        Column::right("added/req", 10),
        Column::right("cost", 9),
    ],
};

/// The whole history as text.
pub fn history_text(history: &History) -> String {
    let totals = &history.totals;
    let folders: Vec<String> = history
        .query
        .folders
        .iter()
        .map(|folder| folder.display().to_string())
        .collect();
    let mut text = format!(
        "history of {} session(s), {} request(s) ({} main chain, {} sub-agent) from {} \
         transcript(s), {} bytes, in {}\n",
        totals.tally.sessions,
        thousands(totals.tally.requests as u64),
        thousands(totals.tally.main_requests as u64),
        thousands(totals.tally.sidechain_requests() as u64),
        totals.transcripts,
        thousands(totals.bytes),
        folders.join(", ")
    );
    if totals.cached_transcripts > 0 {
        let _ = writeln!(
            text,
            "({} of the transcripts unchanged since the last run: read from the cache; --no-cache reads them all)",
            totals.cached_transcripts
        );
    }
    let mut filters = Vec::new();
    if let Some(since) = history.query.window.since {
        filters.push(format!("since {}", since.to_rfc3339()));
    }
    if let Some(until) = history.query.window.until {
        filters.push(format!("until {}", until.to_rfc3339()));
    }
    if let Some(project) = &history.query.project {
        filters.push(format!("project containing `{project}`"));
    }
    if !filters.is_empty() {
        let _ = writeln!(text, "filters: {}", filters.join(", "));
    }
    let _ = writeln!(
        text,
        "compactions: {} in {} session(s); {} session(s) ran at or above {:.0}% of their trigger T",
        totals.tally.compactions,
        totals.tally.sessions_with_compaction,
        totals.tally.sessions_near_trigger,
        NEAR_TRIGGER_RATIO * 100.0
    );
    text.push_str(&totals_lines(&totals.tally, ""));
    if !history.sessions.is_empty() {
        let _ = writeln!(
            text,
            "\nsessions (peak: largest main-chain context; T: the trigger the report derives; drops \
             by class):"
        );
        SESSIONS.write_header(&mut text);
        for session in &history.sessions {
            let (summary, report) = (&session.summary, &session.report);
            let cells = [
                to_the_minute(summary.first_time.as_ref()),
                cut(&session.project, 24, false),
                summary.session_id.chars().take(8).collect::<String>(),
                thousands(report.tally.requests as u64),
                thousands_or(report.peak.as_ref().map(|peak| peak.context_tokens), "-"),
                thousands_or(report.estimates.trigger.tokens, "-"),
                percent(report.peak_to_trigger()),
                cost_cell(&report.tally.cost),
                compactions_cell(session),
                drops_cell(session),
            ];
            SESSIONS.write_row(&mut text, cells);
            if let Some(title) = &summary.title {
                let _ = write!(
                    text,
                    "  \"{}\"",
                    controls_as_spaces(&cut(title, TITLE_WIDTH, true))
                );
            }
            text.push('\n');
        }
    }
    if !history.days.is_empty() {
        let _ = writeln!(text, "\nper day (UTC):");
        DAYS.write_header(&mut text);
        for day in &history.days {
            let tally = &day.tally;
            let tokens = &tally.tokens;
            let cells = [
                day.date.format("%Y-%m-%d").to_string(),
                tally.sessions.to_string(),
                thousands(tally.requests as u64),
                tally.compactions.to_string(),
                thousands(tokens.input_tokens),
                thousands(tokens.cache_creation_input_tokens),
                thousands(tokens.cache_read_input_tokens),
                thousands(tokens.output_tokens),
                thousands(tally.peak_context),
                cost_cell(&tally.cost),
            ];
            DAYS.write_row(&mut text, cells);
            text.push('\n');
        }
    }
    if !history.projects.is_empty() {
        let _ = writeln!(
            text,
            "\nper project (fastest-filling first: tokens added per main-chain request that added some):"
        );
        PROJECTS.write_header(&mut text);
        for project in &history.projects {
            let place = project.cwd.as_deref().unwrap_or(&project.project);
            let cells = [
                cut(place, 32, false),
                project.tally.sessions.to_string(),
                thousands(project.tally.requests as u64),
                project.tally.compactions.to_string(),
                thousands(project.tally.peak_context),
                percent(project.median_peak_to_trigger),
                project.tally.sessions_near_trigger.to_string(),
                rounded(project.growth_per_request),
                cost_cell(&project.tally.cost),
            ];
            PROJECTS.write_row(&mut text, cells);
            text.push('\n');
        }
    }
    if history.sessions.is_empty() {
        let filtered = !history.query.window.is_open() || history.query.project.is_some();
        let matching = if filtered { " matches the filters" } else { "" };
        let _ = writeln!(text, "\nno session with a request{matching}");
    }
    if !history.problems.is_empty() {
        let _ = writeln!(
            text,
            "\nproblems ({}; the rest is reported above):",
            history.problems.len()
        );
        for problem in &history.problems {
            let _ = writeln!(text, "  {problem}");
        }
    }
    text
}
