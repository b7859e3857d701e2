//! `ctxhooks sessions` in words: one line per session, newest first.

use std::fmt::Write as _;
use std::path::Path;

use super::catalog::KeptSession;
use crate::facts::summary::SessionSummary;
use crate::render::bytes::human_bytes;
use crate::render::table::{Column, write_cells};
use crate::render::text::controls_as_spaces;
use crate::render::time::cut_to_the_second;
use crate::retention::settings::Retention;
use crate::retention::sweep::{CleanupState, DUE_WITHIN_DAYS};
use crate::retention::text::retention_text;
use crate::time::Time;

/// The session table's columns: id, first and last activity, size, requests, compactions, the
/// transcript's state with Claude Code's cleanup, kind, then project and title.
const COLUMNS: [Column; 9] = [
    Column::left("", 36),
    Column::left("  ", 20),
    Column::left("  ", 20),
    Column::right("  ", 9),
    Column::right("  ", 8),
    Column::right("  ", 11),
    Column::left("  ", 11),
    Column::left("  ", 14),
    Column::left("  ", 0),
];

/// The table of sessions, with where each transcript stands with Claude Code's cleanup
/// (`retention`) and what to do about those it deleted.
pub fn render(sessions: &[KeptSession], retention: &Retention, state_root: &Path) -> String {
    if sessions.is_empty() {
        return format!("no sessions in `{}`\n", state_root.display());
    }
    let mut text = String::new();
    let header = [
        "SESSION",
        "FIRST",
        "LAST",
        "SIZE",
        "REQUESTS",
        "COMPACTIONS",
        "CLAUDE CODE",
        "KIND",
        "PROJECT  TITLE",
    ];
    write_cells(&mut text, &COLUMNS, header);
    text.push('\n');
    for session in sessions {
        let summary = &session.summary;
        let second = |time: Option<&Time>| {
            time.map_or("-", |time| cut_to_the_second(time.text()))
                .to_owned()
        };
        let cells = [
            summary.session_id.clone(),
            second(summary.first_time.as_ref()),
            second(session.last_activity.as_ref()),
            human_bytes(session.size),
            session.requests.to_string(),
            session.compactions.to_string(),
            session.cleanup.short(),
            session_kind(summary),
            summary.cwd.as_deref().unwrap_or("-").to_owned(),
        ];
        write_cells(&mut text, &COLUMNS, cells);
        if let Some(title) = &summary.title {
            let _ = write!(text, "  \"{}\"", controls_as_spaces(title));
        }
        text.push('\n');
    }
    let count = |state| {
        sessions
            .iter()
            .filter(|session| session.cleanup.state == state)
            .count()
    };
    let _ = writeln!(
        text,
        "{} session(s) in `{}`; {}",
        sessions.len(),
        state_root.display(),
        retention_text(retention)
    );
    let deleted = count(CleanupState::Deleted);
    let restorable = sessions
        .iter()
        .filter(|session| session.cleanup.state == CleanupState::Deleted && session.is_kept())
        .count();
    if deleted > 0 {
        let _ = writeln!(
            text,
            "{deleted} transcript(s) deleted from Claude Code's folder, {restorable} of them kept \
             only here: `ctxhooks archives restore --deleted` writes them back"
        );
    }
    let due = count(CleanupState::Due);
    if due > 0 {
        let _ = writeln!(
            text,
            "{due} transcript(s) due for deletion by Claude Code within {DUE_WITHIN_DAYS} days \
             (kept here all the same; continuing a session postpones it)"
        );
    }
    text
}

/// The kind of session in one word: the entrypoint (`cli`, `sdk-ts`, ...) with the session's
/// kind before it when the CLI wrote one (`bg/cli`), `-` when the transcript says neither.
pub fn session_kind(session: &SessionSummary) -> String {
    match (&session.session_kind, &session.entrypoint) {
        (Some(kind), Some(entrypoint)) => format!(
            "{}/{}",
            controls_as_spaces(kind),
            controls_as_spaces(entrypoint)
        ),
        (Some(kind), None) => controls_as_spaces(kind),
        (None, Some(entrypoint)) => controls_as_spaces(entrypoint),
        (None, None) => "-".to_owned(),
    }
}
