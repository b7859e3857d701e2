//! Claude Code's projects folders, read at rest by `history` and `export`: every session's
//! transcripts found in them (`discover.rs`), each transcript read once with the usage ingest
//! (`read.rs`), through the cache of the last run's readings (`cache.rs`), a session's
//! transcripts folded into one log (`session.rs`) and the time filter (`window.rs`); what could
//! not be read is a `discover::Problem`, a sentence.

pub mod cache;
pub mod discover;
pub mod read;
pub mod session;
pub mod window;

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use cache::Cache;
use ctxhooks_shared::store::state_dir::{StateDir, claude_config_dir};

/// Which projects folders a command reads.
#[derive(Debug, Default, Args)]
pub struct ProjectsArgs {
    /// A Claude Code projects folder, one project's folder in it (read as that project) or one
    /// session's folder in that (`<project>/<session id>/`, read as that session); repeatable. Default: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. One that
    /// cannot be read or holds no session is a warning; when none gives a session (nor is there
    /// a state folder, for `export`), an error and exit 1.
    #[arg(long = "projects", value_name = "DIR")]
    pub projects: Vec<PathBuf>,
}

impl ProjectsArgs {
    /// The projects folders `--projects` names, else the default one.
    pub fn folders(&self) -> Result<Vec<PathBuf>> {
        if self.projects.is_empty() {
            return Ok(vec![claude_config_dir()?.join("projects")]);
        }
        Ok(self.projects.clone())
    }
}

/// The cache `history` and `export` read transcripts through (`<state>/history-cache/`), unless
/// `no_cache` or no state folder can be named.
pub fn transcript_cache(no_cache: bool) -> Option<Cache> {
    let state = (!no_cache).then(|| StateDir::locate().ok()).flatten();
    state.and_then(|state| Cache::open(&state))
}

/// Claude Code's folder name for a path: every character but ASCII letters and digits is `-`.
pub fn slug_of(path: &str) -> String {
    path.replace(|character: char| !character.is_ascii_alphanumeric(), "-")
}

/// What `history` and `export` end with when not one projects folder could be read or held a
/// session, given each refusal in words.
pub fn nothing_read_text(refusals: &[String]) -> String {
    format!(
        "no projects folder could be read or held a session: {}",
        refusals.join("; ")
    )
}
