//! The history in words: one line per session, then totals per day and per project, then what
//! could not be read.

use std::fmt::{Display, Write as _};

use super::model::History;
use super::session::{NEAR_TRIGGER_RATIO, SessionSummary};
use crate::output::one_line;
use crate::time::Time;
use crate::usage::text::{thousands, thousands_or_dash, totals_lines};

/// `YYYY-MM-DD HH:MM` in UTC, or `-`.
fn minute(time: Option<&Time>) -> String {
    time.and_then(Time::instant).map_or_else(
        || "-".to_owned(),
        |time| time.format("%Y-%m-%d %H:%M").to_string(),
    )
}

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

/// `text` cut to `width` characters at its start (a path's end says the most).
fn short(text: &str, width: usize) -> String {
    let count = text.chars().count();
    if count <= width {
        return text.to_owned();
    }
    let tail: String = text.chars().skip(count + 1 - width.max(1)).collect();
    format!("…{tail}")
}

/// The widest title the session table shows (a longer one is cut at its end).
const TITLE_WIDTH: usize = 48;

/// `text` cut to `width` characters at its end (a title's start says the most).
fn short_end(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let head: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{head}…")
}

fn compactions_cell(session: &SessionSummary) -> String {
    let counts = &session.compaction_counts;
    if counts.total == 0 {
        return "0".to_owned();
    }
    let mut parts = Vec::new();
    if counts.structural > 0 {
        parts.push(format!("{} structural", counts.structural));
    }
    if counts.heuristic_high > 0 {
        parts.push(format!("{} heuristic", counts.heuristic_high));
    }
    if counts.heuristic_low > 0 {
        parts.push(format!("{} heuristic, low", counts.heuristic_low));
    }
    format!("{} ({})", counts.total, parts.join(", "))
}

fn drops_cell(session: &SessionSummary) -> String {
    if session.drops_by_class.is_empty() {
        return "-".to_owned();
    }
    session
        .drops_by_class
        .iter()
        .map(|(class, count)| format!("{class} {count}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Writes a table's line: two spaces, then each cell padded to its column's width, the first
/// aligned left and the others right, a space between.
fn table_line(text: &mut String, widths: &[usize], cells: impl IntoIterator<Item = impl Display>) {
    text.push(' ');
    for (index, (width, cell)) in widths.iter().zip(cells).enumerate() {
        let _ = if index == 0 {
            write!(text, " {cell:<width$}")
        } else {
            write!(text, " {cell:>width$}")
        };
    }
    text.push('\n');
}

/// The whole history as text.
pub fn history_text(history: &History) -> String {
    let mut text = String::new();
    let totals = &history.totals;
    let folders: Vec<String> = history
        .folders
        .iter()
        .map(|folder| folder.display().to_string())
        .collect();
    let _ = writeln!(
        text,
        "history of {} session(s), {} request(s) ({} main chain, {} sub-agent) from {} \
         transcript(s), {} bytes, in {}",
        totals.sessions,
        thousands(totals.requests as u64),
        thousands(totals.main_requests as u64),
        thousands(totals.sidechain_requests as u64),
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
    if let Some(since) = history.window.since {
        filters.push(format!("since {}", since.to_rfc3339()));
    }
    if let Some(until) = history.window.until {
        filters.push(format!("until {}", until.to_rfc3339()));
    }
    if let Some(project) = &history.project {
        filters.push(format!("project containing `{project}`"));
    }
    if !filters.is_empty() {
        let _ = writeln!(text, "filters: {}", filters.join(", "));
    }
    let _ = writeln!(
        text,
        "compactions: {} in {} session(s); {} session(s) ran at or above {:.0}% of their trigger T",
        totals.compactions,
        totals.sessions_with_compaction,
        totals.sessions_near_trigger,
        NEAR_TRIGGER_RATIO * 100.0
    );
    text.push_str(&totals_lines(&totals.totals, ""));
    if !history.sessions.is_empty() {
        let _ = writeln!(
            text,
            "\nsessions (peak: largest main-chain context; T: the trigger the report derives; drops by class):"
        );
        let _ = writeln!(
            text,
            "  {:<16} {:<24} {:<8} {:>8} {:>9} {:>9} {:>6}  {:<28} drops",
            "first (UTC)", "project", "session", "requests", "peak", "T", "peak/T", "compactions"
        );
        for session in &history.sessions {
            let _ = write!(
                text,
                "  {:<16} {:<24} {:<8} {:>8} {:>9} {:>9} {:>6}  {:<28} {}",
                minute(session.first_time.as_ref()),
                short(&session.project, 24),
                session.session_id.chars().take(8).collect::<String>(),
                thousands(session.requests as u64),
                thousands_or_dash(session.peak.as_ref().map(|peak| peak.context_tokens)),
                thousands_or_dash(session.trigger),
                percent(session.peak_to_trigger),
                compactions_cell(session),
                drops_cell(session)
            );
            if let Some(title) = &session.title {
                let _ = write!(text, "  \"{}\"", one_line(&short_end(title, TITLE_WIDTH)));
            }
            text.push('\n');
        }
    }
    if !history.days.is_empty() {
        let _ = writeln!(text, "\nper day (UTC):");
        let widths = [10, 8, 8, 11, 10, 13, 15, 11, 9];
        let header = "day|sessions|requests|compactions|input|cache write|cache read|output|peak";
        table_line(&mut text, &widths, header.split('|'));
        for day in &history.days {
            let tokens = &day.totals.tokens;
            let cells = [
                day.day.clone(),
                day.sessions.to_string(),
                thousands(day.requests as u64),
                day.compactions.to_string(),
                thousands(tokens.input_tokens),
                thousands(tokens.cache_creation_input_tokens),
                thousands(tokens.cache_read_input_tokens),
                thousands(tokens.output_tokens),
                thousands(day.peak_context),
            ];
            table_line(&mut text, &widths, cells);
        }
    }
    if !history.projects.is_empty() {
        let _ = writeln!(
            text,
            "\nper project (fastest-filling first: tokens added per main-chain request that added some):"
        );
        let widths = [32, 8, 8, 11, 9, 12, 11, 10];
        let header = "project|sessions|requests|compactions|peak|median pk/T|near T|added/req";
        table_line(&mut text, &widths, header.split('|'));
        for project in &history.projects {
            let cells = [
                short(project.cwd.as_deref().unwrap_or(&project.project), 32),
                project.sessions.to_string(),
                thousands(project.requests as u64),
                project.compactions.to_string(),
                thousands(project.peak_context),
                percent(project.median_peak_to_trigger),
                project.sessions_near_trigger.to_string(),
                rounded(project.growth_per_request),
            ];
            table_line(&mut text, &widths, cells);
        }
    }
    if history.sessions.is_empty() {
        let _ = writeln!(
            text,
            "\nno session with a request{}",
            if history.window.is_open() && history.project.is_none() {
                ""
            } else {
                " matches the filters"
            }
        );
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
