//! The history as JSON (`ctxhooks history --json`, schema 1; `docs/history.md` documents it).

use serde_json::{Value, json};

use super::model::{HISTORY_SCHEMA, History};

/// The history as one JSON value.
pub fn history_json(history: &History) -> Value {
    json!({
        "schema": HISTORY_SCHEMA,
        "projects_folders": history.query.folders.iter().map(|folder| folder.display().to_string()).collect::<Vec<_>>(),
        "filters": {
            "since": history.query.window.since.map(|time| time.to_rfc3339()),
            "until": history.query.window.until.map(|time| time.to_rfc3339()),
            "project": history.query.project,
        },
        "sessions": history.sessions,
        "days": history.days,
        "projects": history.projects,
        "totals": history.totals,
        // Each problem: its path, its code and the sentence the text prints.
        "problems": history.problems.iter().map(|problem| json!({
            "path": problem.path.display().to_string(),
            "problem": <&str>::from(&problem.kind),
            "message": problem.to_string(),
        })).collect::<Vec<_>>(),
    })
}
