//! Reading a `--session` argument: a full id, `last` (the session with the newest activity),
//! or the start of exactly one id ctxhooks knows. An ambiguous or unknown start is an error that
//! names what it matched.

use anyhow::{Context, Result, bail};

use super::catalog::last_activity;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;

/// Whether a command may name a session ctxhooks has no folder for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unknown {
    /// Refused: the command reads what ctxhooks kept of it.
    Refuse,
    /// Taken as it is when no known id starts with it (a runtime marking a new session's
    /// interrupt; a transcript named on the command line).
    Allow,
}

/// The word that names the session with the newest activity.
pub const LAST: &str = "last";

/// How many candidates an ambiguity error names.
const SHOWN_CANDIDATES: usize = 5;

/// The session `text` names, among the sessions in `state`.
pub fn resolve_session(state: &StateDir, text: &str, unknown: Unknown) -> Result<SessionId> {
    let known = state.session_ids()?;
    if text == LAST {
        return known
            .iter()
            .max_by_key(|session| (last_activity(state, session), (*session).clone()))
            .cloned()
            .with_context(|| {
                format!(
                    "`--session last`: no session is known to ctxhooks yet (none in `{}`)",
                    state.sessions_dir().display()
                )
            });
    }
    if let Some(exact) = known.iter().find(|session| session.as_str() == text) {
        return Ok(exact.clone());
    }
    let matching: Vec<&SessionId> = known
        .iter()
        .filter(|session| !text.is_empty() && session.as_str().starts_with(text))
        .collect();
    // A whole UUID is taken as it is: no other UUID starts with it.
    if unknown == Unknown::Allow && (matching.is_empty() || looks_like_uuid(text)) {
        return SessionId::parse(text).context("invalid `--session`");
    }
    match matching.as_slice() {
        [one] => Ok((*one).clone()),
        [] => {
            SessionId::parse(text).context("invalid `--session`")?;
            bail!(
                "no session known to ctxhooks is `{text}` or starts with it (`ctxhooks sessions` \
                 lists them)"
            )
        }
        many => {
            let shown: Vec<&str> = many
                .iter()
                .take(SHOWN_CANDIDATES)
                .map(|session| session.as_str())
                .collect();
            let more = match many.len().saturating_sub(SHOWN_CANDIDATES) {
                0 => String::new(),
                more => format!(" and {more} more"),
            };
            bail!(
                "`{text}` is the start of {} sessions: {}{more}; give more of the id",
                many.len(),
                shown.join(", "),
            )
        }
    }
}

/// A `--session` that narrows what may also hold sessions ctxhooks does not keep (a search's
/// live transcripts), so it is not looked up among the known ones: `last` as
/// [`resolve_session`] reads it, else `text` itself, a full id or the start of any number of
/// them. Checked by the one rule every session id follows ([`SessionId::parse`], which a start
/// of an id follows too), so that no id a hook accepts is refused here.
pub fn session_or_start(state: &StateDir, text: &str) -> Result<SessionId> {
    if text == LAST {
        return resolve_session(state, LAST, Unknown::Refuse);
    }
    SessionId::parse(text).context("invalid `--session`")
}

/// Returns true if and only if `text` has a UUID's shape (8-4-4-4-12 hex digits).
fn looks_like_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups.iter().zip([8, 4, 4, 4, 12]).all(|(group, length)| {
            group.len() == length && group.chars().all(|c| c.is_ascii_hexdigit())
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxhooks_shared::test_support::{TempFolder, set_modified};

    #[test]
    fn last_a_unique_start_and_clear_errors() {
        let temp = TempFolder::new("resolve");
        let state = StateDir::at(temp.join("state"));
        for id in ["aaa111", "aaa222", "bbb333"] {
            fs_err::create_dir_all(state.sessions_dir().join(id)).unwrap();
        }
        // Touched last: the newest activity (an hour from now, whatever the clock's grain).
        let usage = state.sessions_dir().join("aaa111/usage.jsonl");
        fs_err::write(&usage, "").unwrap();
        set_modified(
            &usage,
            std::time::SystemTime::now() + std::time::Duration::from_secs(3600),
        );
        let resolve = |text| resolve_session(&state, text, Unknown::Refuse);
        assert_eq!(resolve("last").unwrap().as_str(), "aaa111");
        assert_eq!(resolve("bb").unwrap().as_str(), "bbb333");
        assert_eq!(resolve("aaa222").unwrap().as_str(), "aaa222");
        let ambiguous = format!("{:#}", resolve("aaa").unwrap_err());
        assert!(
            ambiguous.contains("start of 2 sessions: aaa111, aaa222"),
            "{ambiguous}"
        );
        let unknown = format!("{:#}", resolve("ccc").unwrap_err());
        assert!(
            unknown.contains("no session known to ctxhooks"),
            "{unknown}"
        );
        let invalid = format!("{:#}", resolve("../x").unwrap_err());
        assert!(invalid.contains("invalid `--session`"), "{invalid}");
        let allowed = resolve_session(&state, "ccc", Unknown::Allow).unwrap();
        assert_eq!(allowed.as_str(), "ccc");
        assert!(looks_like_uuid("7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9"));

        // A filter takes `last`, any id a hook accepts, or the start of one, known or not.
        let filter = |text| session_or_start(&state, text).map(|id| id.to_string());
        assert_eq!(filter("last").unwrap(), "aaa111");
        for text in ["aaa", "ccc", "agent_7-x", "_", "A_b-9"] {
            assert_eq!(filter(text).unwrap(), text);
        }
        for bad in ["", "../x", "a b", "a/b", "é"] {
            let error = format!("{:#}", filter(bad).unwrap_err());
            assert!(error.contains("invalid `--session`"), "{bad:?}: {error}");
        }
        assert!(!looks_like_uuid("7f2abd2d"));
    }
}
