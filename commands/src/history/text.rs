//! The history in words: one line per session, then totals per day and per project, then what
//! could not be read.

use std::fmt::Write as _;

use super::model::History;
use super::session::HistorySession;
use crate::facts::compactions::CompactionCounts;
use crate::facts::tally::NEAR_TRIGGER_RATIO;
use crate::render::numbers::{thousands, thousands_or};
use crate::render::table::{Column, cut, write_cells};
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

/// The session table's columns, one space apart after an indent of two (two before
/// `compactions`): first request, project, session, requests, peak, T, peak/T, compactions,
/// drops.
const SESSION_COLUMNS: [Column; 9] = [
    Column::left("  ", 16),
    Column::left(" ", 24),
    Column::left(" ", 8),
    Column::right(" ", 8),
    Column::right(" ", 9),
    Column::right(" ", 9),
    Column::right(" ", 6),
    Column::left("  ", 28),
    Column::left(" ", 0),
];

/// The per-day table's columns: the day, then counts and token sums, each aligned right.
const DAY_COLUMNS: [Column; 9] = [
    Column::left("  ", 10),
    Column::right(" ", 8),
    Column::right(" ", 8),
    Column::right(" ", 11),
    Column::right(" ", 10),
    Column::right(" ", 13),
    Column::right(" ", 15),
    Column::right(" ", 11),
    Column::right(" ", 9),
];

/// The per-project table's columns: the project, then counts and measures, each aligned right.
const PROJECT_COLUMNS: [Column; 8] = [
    Column::left("  ", 32),
    Column::right(" ", 8),
    Column::right(" ", 8),
    Column::right(" ", 11),
    Column::right(" ", 9),
    Column::right(" ", 12),
    Column::right(" ", 11),
    Column::right(" ", 10),
];

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
        let header = [
            "first (UTC)",
            "project",
            "session",
            "requests",
            "peak",
            "T",
            "peak/T",
            "compactions",
            "drops",
        ];
        write_cells(&mut text, &SESSION_COLUMNS, header);
        text.push('\n');
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
                compactions_cell(session),
                drops_cell(session),
            ];
            write_cells(&mut text, &SESSION_COLUMNS, cells);
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
        let header = "day|sessions|requests|compactions|input|cache write|cache read|output|peak";
        write_cells(&mut text, &DAY_COLUMNS, header.split('|'));
        text.push('\n');
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
            ];
            write_cells(&mut text, &DAY_COLUMNS, cells);
            text.push('\n');
        }
    }
    if !history.projects.is_empty() {
        let _ = writeln!(
            text,
            "\nper project (fastest-filling first: tokens added per main-chain request that added some):"
        );
        let header = "project|sessions|requests|compactions|peak|median pk/T|near T|added/req";
        write_cells(&mut text, &PROJECT_COLUMNS, header.split('|'));
        text.push('\n');
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
            ];
            write_cells(&mut text, &PROJECT_COLUMNS, cells);
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
