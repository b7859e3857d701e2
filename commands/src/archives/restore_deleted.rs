//! `ctxhooks archives restore --deleted`: every session whose transcript is gone from Claude
//! Code's folder (its cleanup deletes transcripts, and since 2.1.110 the session's folder with
//! its sub-agents) and that ctxhooks keeps, written back in one step. Each is restored as
//! `restore --session` restores one (the newest whole generation, checked, atomic, never through
//! a link), never over an existing file: a sub-agent's file that is there is left as it is. A
//! session resumed in another project folder is restored part by part, each to its own folder:
//! every part whose file is gone (the newest one that is there left as it is). One that fails is
//! said and does not stop the others.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use chrono::Utc;
use rayon::iter::Either;
use rayon::prelude::*;
use serde::Serialize;

use super::restore::{RestoreOutcome, RestoreRequest, restore};
use super::text::restored_text;
use crate::output::{Emit, emit_exit};
use crate::projects::window::TimeWindow;
use crate::retention::sweep::CleanupState;
use crate::sessions::catalog::{KeptSession, list_sessions};
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;

/// Which deleted sessions to restore.
#[derive(Debug, Clone, Default)]
pub struct DeletedFilter {
    /// Only sessions whose project folder (`cwd`) or transcript folder's name contains it.
    pub project: Option<String>,
    /// Only sessions active within it (their last activity).
    pub window: TimeWindow,
}

impl DeletedFilter {
    fn admits(&self, session: &KeptSession) -> bool {
        let project = self.project.as_deref().is_none_or(|text| {
            (session.summary.cwd.as_deref()).is_some_and(|project| project.contains(text))
                || session
                    .transcript
                    .as_deref()
                    .and_then(Path::parent)
                    .and_then(Path::file_name)
                    .is_some_and(|folder| folder.to_string_lossy().contains(text))
        });
        let active = self.window.is_open()
            || (session.last_activity.as_ref()).is_some_and(|time| self.window.contains(time));
        project && active
    }
}

/// A session whose restore failed, and why.
#[derive(Debug, Clone, Serialize)]
pub struct FailedRestore {
    pub session_id: String,
    pub project: Option<String>,
    /// The error and its causes, in words.
    pub error: String,
}

/// What `restore --deleted` did.
#[derive(Debug, Clone, Serialize)]
pub struct DeletedOutcome {
    /// Every session written back, as `restore --session` reports one.
    pub restored: Vec<RestoreOutcome>,
    /// Every session that could not be, with why; nothing of it was written.
    pub failed: Vec<FailedRestore>,
    /// Sessions whose transcript is gone but of which nothing is kept (no kept copy, no
    /// snapshot), so that nothing can be written back.
    pub not_kept: Vec<String>,
}

/// The sessions `filter` admits whose transcript is gone from Claude Code's folder, restored
/// (every session on every core; each writes only its own files).
pub fn restore_deleted(state: &StateDir, filter: &DeletedFilter) -> Result<DeletedOutcome> {
    let (kept, not_kept): (Vec<KeptSession>, Vec<KeptSession>) =
        list_sessions(state, None, Utc::now())?
            .into_iter()
            .filter(|session| {
                (session.cleanup.state == CleanupState::Deleted || session.part_gone)
                    && filter.admits(session)
            })
            .partition(KeptSession::is_kept);
    let (restored, failed) = kept.par_iter().partition_map(|session| {
        let request = SessionId::parse(&session.summary.session_id).map(|session| RestoreRequest {
            session,
            snapshot: None,
            to: None,
            force: false,
            leave_existing: true,
        });
        match request
            .map_err(anyhow::Error::from)
            .and_then(|request| restore(state, &request))
        {
            Ok(restored) => Either::Left(restored),
            Err(error) => Either::Right(FailedRestore {
                session_id: session.summary.session_id.clone(),
                project: session.summary.cwd.clone(),
                error: format!("{error:#}"),
            }),
        }
    });
    Ok(DeletedOutcome {
        restored,
        failed,
        not_kept: not_kept
            .into_iter()
            .map(|session| session.summary.session_id)
            .collect(),
    })
}

/// Runs `restore --deleted` and reports it; exits 1 when any session failed.
pub fn run_restore_deleted(
    state: &StateDir,
    filter: &DeletedFilter,
    json: bool,
) -> Result<ExitCode> {
    let outcome = restore_deleted(state, filter)?;
    emit_exit(json, &outcome, outcome.failed.is_empty())
}

/// What was written back, what failed and why, and how to continue each session.
impl Emit for DeletedOutcome {
    fn text(&self) -> String {
        let mut text = String::new();
        for restored in &self.restored {
            let _ = writeln!(text, "restored session {}:", restored.session_id);
            restored_text(&mut text, restored, false);
        }
        for failed in &self.failed {
            let _ = writeln!(
                text,
                "FAILED session {}{}: {}",
                failed.session_id,
                failed
                    .project
                    .as_deref()
                    .map(|project| format!(" ({project})"))
                    .unwrap_or_default(),
                failed.error
            );
        }
        if !self.not_kept.is_empty() {
            let _ = writeln!(
                text,
                "{} session(s) deleted of which nothing is kept (ctxhooks was not keeping them yet): {}",
                self.not_kept.len(),
                self.not_kept.join(", ")
            );
        }
        let _ = writeln!(
            text,
            "restored {} session(s), {} failed{}",
            self.restored.len(),
            self.failed.len(),
            if self.restored.is_empty() {
                ""
            } else {
                "; continue one from its project folder with: claude --resume ID"
            }
        );
        text
    }
}
