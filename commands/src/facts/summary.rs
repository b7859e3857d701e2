//! What a session is, whichever command shows it (`history`, `sessions`, `export`): its id, the
//! folder it ran in, its title and kind, the CLI that ran it, and when; read from its usage log
//! one way.

use super::log::SessionLog;
use crate::time::Time;
use ctxhooks_shared::store::usage_record::SourceRow;

/// What a session is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionSummary {
    pub session_id: String,
    /// The folder it ran in: the last folder the CLI moved it to (a `relocated` record), else
    /// the first `cwd` its main transcript names.
    pub cwd: Option<String>,
    /// Its title: the name a person gave it (`/rename`), else the CLI's own title.
    pub title: Option<String>,
    /// The kind of session the CLI wrote (`bg` for a background session), when it wrote one.
    pub session_kind: Option<String>,
    /// What started the CLI (`cli`, `claude-desktop`, `sdk-cli`, `sdk-ts`, ...), when written.
    pub entrypoint: Option<String>,
    /// The CLI version of its latest main-chain request.
    pub version: Option<String>,
    /// When it began: its first request's time (`sessions`, for a session whose log has none,
    /// takes what else says it: the transcript's first record, else when ctxhooks first kept
    /// it).
    pub first_time: Option<Time>,
    /// Its last request's time.
    pub last_time: Option<Time>,
}

impl SessionSummary {
    /// The summary of the session `session_id` whose usage log is `log`, `main` the source of
    /// its main transcript when the caller knows which that is.
    pub fn of(session_id: &str, log: &SessionLog, main: Option<&SourceRow>) -> Self {
        let facts = &log.session;
        Self {
            session_id: session_id.to_owned(),
            cwd: (facts.relocated_cwd.clone()).or_else(|| main.and_then(|main| main.cwd.clone())),
            title: facts.title().map(ToOwned::to_owned),
            session_kind: facts.session_kind.clone(),
            entrypoint: facts.entrypoint.clone(),
            version: log.main_version(),
            first_time: log.first_time(),
            last_time: log.last_time(),
        }
    }
}
