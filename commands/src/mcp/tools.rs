//! What the MCP server's tools answer, as compact text a model reads easily: bounded in size,
//! with the ids the next call needs. Plain functions (the server runs them off its event loop),
//! so each can be tested without a client.

use std::fmt::Write as _;

use anyhow::{Result, bail};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::gauge::text::gauge_text;
use crate::projects::ProjectsArgs;
use crate::recall::cli::choose;
use crate::recall::conversation::read_conversation;
use crate::recall::text::render as render_messages;
use crate::render::bytes::human_bytes;
use crate::render::text::controls_as_spaces;
use crate::retention::settings::Retention;
use crate::search::cli::filters;
use crate::search::engine::{Request, search};
use crate::search::progress::Progress;
use crate::search::role::Role;
use crate::search::text::{Marking, render as render_results};
use crate::sessions::catalog::list_sessions;
use crate::sessions::resolve::{LAST, Unknown, resolve_session};
use crate::time::Time;
use ctxhooks_shared::store::gauge::Gauge;
use ctxhooks_shared::store::state_dir::StateDir;

/// The longest answer, in characters: past it the answer is cut, and says so.
pub const MAX_ANSWER: usize = 12_000;

/// The `search` tool's arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct SearchParameters {
    /// Words to find: those holding them as one phrase come first, then close together, then
    /// anywhere (some of them only when none holds all); "an exact phrase", a prefix* ; OR, AND,
    /// NOT in capitals run the query as written.
    pub query: String,
    /// Only sessions whose project folder path contains this text.
    pub project: Option<String>,
    /// Only this session: its id, the start of it, or "last".
    pub session: Option<String>,
    /// Only what this speaker said: user, assistant, tool (tool results) or summary.
    pub role: Option<Role>,
    /// Only from this day (YYYY-MM-DD, UTC) or RFC 3339 time on.
    pub since: Option<String>,
    /// Only up to this day (inclusive) or RFC 3339 time.
    pub until: Option<String>,
    /// How many results (default 8, at most 30).
    pub limit: Option<usize>,
}

/// The `recall` tool's arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct RecallParameters {
    /// The session: its full id (as `search` or `sessions` gives it), the start of it, or "last".
    pub session: String,
    /// Only messages containing this text (case-insensitive substring), such as a search's term.
    pub pattern: Option<String>,
    /// Only messages from before compaction N (1 is the first), or "last" for the latest.
    pub before_compaction: Option<String>,
    /// Only the last K of the chosen messages (default 20, at most 100).
    pub last: Option<usize>,
}

/// The `sessions` tool's arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct SessionsParameters {
    /// Only sessions whose project folder path contains this text.
    pub project: Option<String>,
    /// How many sessions, newest first (default 20, at most 100).
    pub limit: Option<usize>,
}

/// The `gauge` tool's arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct GaugeParameters {
    /// The session: its id, the start of it, or "last" (the default: the session with the
    /// newest activity, usually this one).
    pub session: Option<String>,
}

/// Answers `search`.
pub fn search_tool(state: &StateDir, parameters: &SearchParameters) -> Result<String> {
    let request = Request {
        query: parameters.query.clone(),
        filters: filters(
            state,
            parameters.project.clone(),
            parameters.session.as_deref(),
            parameters.role,
            parameters.since.as_deref(),
            parameters.until.as_deref(),
        )?,
        limit: parameters.limit.unwrap_or(8).clamp(1, 30),
        projects: ProjectsArgs::default().folders()?,
    };
    let outcome = search(state, &request, &Progress::silent())?;
    let mut text = render_results(&outcome, Marking::Brackets);
    if !outcome.results.is_empty() {
        text.push_str(
            "Results come best first in tiers, each headed by how its results match (exact: the \
             words as one phrase; near: all close together; all: all anywhere; any: some of \
             them, only when none held all). Each result: short session id, time, speaker, \
             project; its text with the match in [brackets]; then commands. For the whole \
             conversation around a result, call `recall` with the full session id from its \
             `recall` line and the pattern.\n",
        );
    }
    Ok(bounded(text))
}

/// Answers `recall`.
pub fn recall_tool(state: &StateDir, parameters: &RecallParameters) -> Result<String> {
    let session = resolve_session(state, &parameters.session, Unknown::Refuse)?;
    let conversation = read_conversation(state, &session)?;
    let (chosen, matching, needle) = choose(
        &conversation,
        parameters.pattern.as_deref(),
        parameters.before_compaction.as_deref(),
        Some(parameters.last.unwrap_or(20).clamp(1, 100)),
    )?;
    let mut text = render_messages(&chosen, conversation.compactions, needle.as_deref());
    let _ = writeln!(
        text,
        "{} message(s) shown of {matching} chosen ({} in session {session}, {} compaction(s)); \
         narrow with pattern, before_compaction or last",
        chosen.len(),
        conversation.messages.len(),
        conversation.compactions
    );
    Ok(bounded(text))
}

/// Answers `sessions`.
pub fn sessions_tool(state: &StateDir, parameters: &SessionsParameters) -> Result<String> {
    let limit = parameters.limit.unwrap_or(20).clamp(1, 100);
    // Claude Code's cleanup as the project the server runs in sets it, as `ctxhooks sessions`
    // reads it.
    let retention = std::env::current_dir()
        .map(|folder| Retention::read(&folder).days)
        .unwrap_or_default();
    let sessions = list_sessions(state, retention, chrono::Utc::now())?;
    let mut text = String::new();
    let mut shown = 0;
    let matching = sessions.iter().filter(|session| {
        parameters.project.as_deref().is_none_or(|wanted| {
            (session.summary.cwd.as_deref()).is_some_and(|project| project.contains(wanted))
        })
    });
    for session in matching.take(limit) {
        shown += 1;
        let transcript = match (&session.transcript, session.transcript_present) {
            (None, _) => "transcript unknown",
            (Some(_), true) => "transcript present",
            (Some(_), false) => "transcript deleted by Claude Code (restorable)",
        };
        let _ = writeln!(
            text,
            "{}  last {}  {}  {}{}  {} compaction(s), {}",
            session.summary.session_id,
            session.last_activity.as_ref().map_or("?", Time::text),
            (session.summary.cwd.as_deref()).map_or_else(|| "?".to_owned(), controls_as_spaces),
            (session.summary.title.as_deref())
                .map(|title| format!("\"{}\"  ", controls_as_spaces(title)))
                .unwrap_or_default(),
            human_bytes(session.size),
            session.compactions,
            transcript
        );
    }
    if shown == 0 {
        text.push_str("no session is known to ctxhooks yet\n");
    } else {
        let _ = writeln!(
            text,
            "{shown} of {} session(s), newest first; pass a session id to `recall` or `search`",
            sessions.len()
        );
    }
    Ok(bounded(text))
}

/// Answers `gauge`.
pub fn gauge_tool(state: &StateDir, parameters: &GaugeParameters) -> Result<String> {
    let text = parameters.session.as_deref().unwrap_or(LAST);
    let session = resolve_session(state, text, Unknown::Refuse)?;
    let Some(gauge) = Gauge::read(&state.gauge_file(&session))? else {
        bail!(
            "session {session} has no gauge yet (the Stop hook writes it at the end of every turn)"
        );
    };
    Ok(bounded(format!(
        "session {session}\n{}",
        gauge_text(&gauge)
    )))
}

/// `text` cut to [`MAX_ANSWER`] characters, saying so.
fn bounded(text: String) -> String {
    match text.char_indices().nth(MAX_ANSWER) {
        None => text,
        Some((cut, _)) => format!(
            "{}\n[answer cut at {MAX_ANSWER} characters: narrow the request]\n",
            &text[..cut]
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_bounded() {
        let long = "x".repeat(MAX_ANSWER * 2);
        let cut = bounded(long);
        assert!(cut.chars().count() < MAX_ANSWER + 100);
        assert!(cut.contains("answer cut"));
    }
}
