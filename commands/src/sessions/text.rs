//! `ctxhooks sessions` in words: one line per session, newest first.

use std::fmt::Write as _;

use super::catalog::SessionSummary;
use crate::output::one_line as printable;

/// Bytes as a person reads them (`1.2 MB`).
pub fn human_bytes(bytes: u64) -> String {
    #[expect(
        clippy::cast_precision_loss,
        reason = "a size shown to one decimal place"
    )]
    let value = bytes as f64;
    if bytes < 1000 {
        format!("{bytes} B")
    } else if bytes < 1_000_000 {
        format!("{:.1} kB", value / 1e3)
    } else if bytes < 1_000_000_000 {
        format!("{:.1} MB", value / 1e6)
    } else {
        format!("{:.1} GB", value / 1e9)
    }
}

/// The table of sessions.
pub fn render(sessions: &[SessionSummary], state_root: &std::path::Path) -> String {
    if sessions.is_empty() {
        return format!("no sessions in `{}`\n", state_root.display());
    }
    let mut text = format!(
        "{:<36}  {:<20}  {:<20}  {:>9}  {:>8}  {:>11}  {:<10}  {:<14}  {}\n",
        "SESSION",
        "FIRST",
        "LAST",
        "SIZE",
        "REQUESTS",
        "COMPACTIONS",
        "TRANSCRIPT",
        "KIND",
        "PROJECT  TITLE"
    );
    for session in sessions {
        let transcript = match (&session.transcript, session.transcript_present) {
            (None, _) => "unknown",
            (Some(_), true) => "present",
            (Some(_), false) => "gone",
        };
        let _ = write!(
            text,
            "{:<36}  {:<20}  {:<20}  {:>9}  {:>8}  {:>11}  {:<10}  {:<14}  {}",
            session.session_id,
            session.first_activity.as_deref().map_or("-", short_time),
            session.last_activity.as_deref().map_or("-", short_time),
            human_bytes(session.size),
            session.requests,
            session.compactions,
            transcript,
            session_kind(session),
            session.project.as_deref().unwrap_or("-"),
        );
        if let Some(title) = &session.title {
            let _ = write!(text, "  \"{}\"", printable(title));
        }
        text.push('\n');
    }
    let gone = sessions
        .iter()
        .filter(|session| session.transcript.is_some() && !session.transcript_present)
        .count();
    let _ = writeln!(
        text,
        "{} session(s) in `{}`",
        sessions.len(),
        state_root.display()
    );
    if gone > 0 {
        let _ = writeln!(
            text,
            "{gone} transcript(s) gone from Claude Code's folder: `ctxhooks archives restore \
             --session ID` writes the kept copy back"
        );
    }
    text
}

/// The kind of session in one word: the entrypoint (`cli`, `sdk-ts`, ...) with the session's
/// kind before it when the CLI wrote one (`bg/cli`), `-` when the transcript says neither.
pub fn session_kind(session: &SessionSummary) -> String {
    match (&session.session_kind, &session.entrypoint) {
        (Some(kind), Some(entrypoint)) => format!("{}/{}", printable(kind), printable(entrypoint)),
        (Some(kind), None) => printable(kind),
        (None, Some(entrypoint)) => printable(entrypoint),
        (None, None) => "-".to_owned(),
    }
}

/// `2026-12-01T05:40:01.123Z` → `2026-12-01 05:40:01` (the first 19 characters, as a person
/// reads them).
fn short_time(time: &str) -> &str {
    time.get(..19).unwrap_or(time)
}
