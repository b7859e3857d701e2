//! The error log: one JSON line per problem a hook met, read back by `ctxhooks doctor`.

use std::path::Path;

use chrono::{SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

use crate::store::files::{self, FileError};
use crate::store::rotation::LogError;
use crate::store::state_dir::StateDir;

/// One line of `errors.log`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct ErrorRecord {
    /// When it happened (RFC 3339, UTC).
    pub time: String,
    /// The binary that met it, such as `ctxhooks-precompact`.
    pub hook: String,
    /// The hook event, when the payload named one.
    pub event: Option<String>,
    /// The session, when the payload named one (as given, even if it was refused).
    pub session_id: Option<String>,
    /// The error and its causes, outermost first.
    pub error: Vec<String>,
}

impl ErrorRecord {
    /// A record for `error` and its causes, stamped now.
    pub fn new(
        hook: &str,
        event: Option<String>,
        session_id: Option<String>,
        error: &(dyn std::error::Error + 'static),
    ) -> Self {
        Self {
            time: Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
            hook: hook.to_owned(),
            event,
            session_id,
            error: std::iter::successors(Some(error), |cause| cause.source())
                .map(|cause| shorten(&cause.to_string()))
                .collect(),
        }
    }
}

/// The longest message kept per cause: a hostile payload (a megabyte-long path) must not make a
/// megabyte-long log line.
const MAX_MESSAGE_CHARS: usize = 2000;

fn shorten(message: &str) -> String {
    if message.chars().count() <= MAX_MESSAGE_CHARS {
        return message.to_owned();
    }
    let kept: String = message.chars().take(MAX_MESSAGE_CHARS).collect();
    format!("{kept}… (cut at {MAX_MESSAGE_CHARS} characters)")
}

/// Appends `record` to the state folder's `errors.log`, creating the folder if needed.
pub fn append(state: &StateDir, record: &ErrorRecord) -> Result<(), FileError> {
    state.ensure()?;
    files::append_json_line(&state.errors_log(), record)
}

/// Every record of an error log, its rotated parts before it (`store/rotation.rs`; unreadable
/// lines are shown as they are).
pub fn read_all(path: &Path) -> Result<Vec<ErrorRecord>, LogError> {
    let Some(bytes) = crate::store::rotation::read_log(path)? else {
        return Ok(Vec::new());
    };
    let text = String::from_utf8_lossy(&bytes);
    Ok(text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|_| ErrorRecord {
                error: vec![format!("unreadable line: {line}")],
                ..ErrorRecord::default()
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_messages_are_cut() {
        let error = FileError::Append {
            path: "x".repeat(100_000).into(),
            source: std::io::Error::other("y".repeat(100_000)),
        };
        let record = ErrorRecord::new("ctxhooks-precompact", None, None, &error);
        assert!(record.error[0].starts_with("failed to append to `xxx"));
        assert!(record.error[0].chars().count() < MAX_MESSAGE_CHARS + 40);
        assert!(record.error[1].chars().count() < MAX_MESSAGE_CHARS + 40);
        assert!(record.error[1].ends_with("(cut at 2000 characters)"));
    }
}
