//! `ctxhooks sessions` in words: one line per session, newest first.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::catalog::KeptSession;
use crate::facts::summary::SessionSummary;
use crate::output::Emit;
use crate::render::bytes::human_bytes;
use crate::render::table::{Column, Table};
use crate::render::text::controls_as_spaces;
use crate::render::time::cut_to_the_second;
use crate::retention::settings::Retention;
use crate::retention::sweep::{CleanupState, DUE_WITHIN_DAYS};
use crate::retention::text::retention_text;
use crate::time::Time;

/// The session table: id, first and last activity, size, requests, compactions, the transcript's
/// state with Claude Code's cleanup, kind, then project and title.
const TABLE: Table<9> = Table {
    indent: "",
    gap: "  ",
    columns: [
        Column::left("SESSION", 36),
        Column::left("FIRST", 20),
        Column::left("LAST", 20),
        Column::right("SIZE", 9),
        Column::right("REQUESTS", 8),
        Column::right("COMPACTIONS", 11),
        Column::left("CLAUDE CODE", 11),
        Column::left("KIND", 14),
        Column::left("PROJECT  TITLE", 0),
    ],
};

/// The sessions as `ctxhooks sessions` prints them: the list, in JSON as it is.
#[derive(Serialize)]
#[serde(transparent)]
pub struct SessionList<'a> {
    pub sessions: Vec<KeptSession>,
    /// What the text says of Claude Code's cleanup.
    #[serde(skip)]
    pub retention: &'a Retention,
    #[serde(skip)]
    pub state_root: &'a Path,
}

impl Emit for SessionList<'_> {
    fn text(&self) -> String {
        render(&self.sessions, self.retention, self.state_root)
    }
}

/// The table of sessions, with where each transcript stands with Claude Code's cleanup
/// (`retention`) and what to do about those it deleted.
fn render(sessions: &[KeptSession], retention: &Retention, state_root: &Path) -> String {
    if sessions.is_empty() {
        return format!("no sessions in `{}`\n", state_root.display());
    }
    let mut text = String::new();
    TABLE.write_header(&mut text);
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
        TABLE.write_row(&mut text, cells);
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
