//! The history in words: one line per session, then totals per day and per project, then what
//! could not be read.

use std::fmt::{Display, Write as _};

use super::model::History;
use super::session::{NEAR_TRIGGER_RATIO, SessionSummary};
use crate::render::numbers::{thousands, thousands_or};
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

/// `text` cut to `width` characters, `…` marking the cut: at its start (a path's end says the
/// most), or with `keep_start` at its end (a title's start says the most).
fn short(text: &str, width: usize, keep_start: bool) -> String {
    let count = text.chars().count();
    if count <= width {
        return text.to_owned();
    }
    let kept = width.saturating_sub(1);
    if keep_start {
        format!("{}…", text.chars().take(kept).collect::<String>())
    } else {
        format!("…{}", text.chars().skip(count - kept).collect::<String>())
    }
}

fn compactions_cell(session: &SessionSummary) -> String {
    let counts = &session.compaction_counts;
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

fn drops_cell(session: &SessionSummary) -> String {
    let classes = session.drops_by_class.iter();
    let cells: Vec<String> = classes
        .map(|(class, count)| format!("{class} {count}"))
        .collect();
    if cells.is_empty() {
        return "-".to_owned();
    }
    cells.join(", ")
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
        totals.compactions,
        totals.sessions_with_compaction,
        totals.sessions_near_trigger,
        NEAR_TRIGGER_RATIO * 100.0
    );
    text.push_str(&totals_lines(&totals.totals, ""));
    if !history.sessions.is_empty() {
        let _ = writeln!(
            text,
            "\nsessions (peak: largest main-chain context; T: the trigger the report derives; drops \
             by class):\n  {:<16} {:<24} {:<8} {:>8} {:>9} {:>9} {:>6}  {:<28} drops",
            "first (UTC)", "project", "session", "requests", "peak", "T", "peak/T", "compactions"
        );
        for session in &history.sessions {
            let _ = write!(
                text,
                "  {:<16} {:<24} {:<8} {:>8} {:>9} {:>9} {:>6}  {:<28} {}",
                to_the_minute(session.first_time.as_ref()),
                short(&session.project, 24, false),
                session.session_id.chars().take(8).collect::<String>(),
                thousands(session.requests as u64),
                thousands_or(session.peak.as_ref().map(|peak| peak.context_tokens), "-"),
                thousands_or(session.trigger, "-"),
                percent(session.peak_to_trigger),
                compactions_cell(session),
                drops_cell(session)
            );
            if let Some(title) = &session.title {
                let _ = write!(
                    text,
                    "  \"{}\"",
                    controls_as_spaces(&short(title, TITLE_WIDTH, true))
                );
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
            let place = project.cwd.as_deref().unwrap_or(&project.project);
            let cells = [
                short(place, 32, false),
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
