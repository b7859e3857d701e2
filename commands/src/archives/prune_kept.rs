//! `ctxhooks archives prune --kept` and `--session ID --all`: deleting sessions' kept copies
//! (with their snapshots) by age or until the state folder fits a size, or one session's whole
//! record. It always lists what it would delete first, and deletes only with `--yes`; a session
//! whose transcript Claude Code no longer has is named as the only copy left. The selection and
//! the deletion are the shared ones the configured limit uses (`store/storage.rs`).

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::SystemTime;

use anyhow::{Result, bail};
use serde::Serialize;

use super::prune::deleted_verb;
use crate::output::{Emit, emit_ok};
use crate::render::bytes::human_bytes;
use crate::time::{Time, second_of};
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::store::storage::{self, Limits, PruneRecord, Reason, Scope, measure_state};

/// What to prune.
#[derive(Debug, Clone)]
pub enum KeptPolicy {
    /// Sessions' copies, by the limits.
    Limits(Limits),
    /// One session's whole record.
    Record(SessionId),
}

/// One session a prune selected.
#[derive(Debug, Clone, Serialize)]
pub struct PrunedSession {
    pub session_id: String,
    /// When its record last changed, to the second.
    pub last_activity: Option<Time>,
    /// Bytes deleted (or that would be).
    pub bytes: u64,
    pub reason: Reason,
    /// Claude Code no longer has its transcript: this is the only copy left.
    pub only_copy: bool,
    /// Where its transcript was.
    pub transcript: Option<String>,
}

/// What `archives prune --kept` (or `--all`) did, or would do.
#[derive(Debug, Clone, Serialize)]
pub struct KeptPruneOutcome {
    /// Nothing was deleted: no `--yes`.
    pub dry_run: bool,
    pub scope: Scope,
    pub sessions: Vec<PrunedSession>,
    /// Bytes deleted (or that would be), in all.
    pub bytes: u64,
    /// The state folder's size before, and after (or as it would be after).
    pub state_bytes_before: u64,
    pub state_bytes_after: u64,
    /// `--max-size` cannot be met: the rest is in use (active within the day) or holds no copy.
    pub size_unmet: bool,
}

/// Selects, and with `yes` deletes, what `policy` names; `session` narrows a limit to one
/// session.
pub fn prune_kept(
    state: &StateDir,
    policy: &KeptPolicy,
    session: Option<&SessionId>,
    yes: bool,
) -> Result<KeptPruneOutcome> {
    let mut measured = measure_state(state)?;
    let before = measured.total();
    let (scope, selected, size_unmet) = match policy {
        KeptPolicy::Record(named) => {
            let Some(index) = measured
                .sessions
                .iter()
                .position(|found| &found.session == named)
            else {
                bail!("ctxhooks holds no record of session {named}");
            };
            (Scope::Record, vec![(index, Reason::Named)], false)
        }
        KeptPolicy::Limits(limits) => {
            if let Some(session) = session {
                measured.sessions.retain(|found| &found.session == session);
                // Only this session's copies are considered; the folder's other bytes stay.
                let sessions: u64 = measured.sessions.iter().map(|found| found.bytes).sum();
                measured.other_bytes = before - sessions;
            }
            let selection = storage::select(&measured, *limits, SystemTime::now(), None);
            (Scope::Copies, selection.selected, selection.size_unmet)
        }
    };
    let mut outcome = KeptPruneOutcome {
        dry_run: !yes,
        scope,
        sessions: Vec::new(),
        bytes: 0,
        state_bytes_before: before,
        state_bytes_after: before,
        size_unmet,
    };
    for (index, reason) in selected {
        let found = &measured.sessions[index];
        let mut bytes = match scope {
            Scope::Copies => found.copy_bytes,
            Scope::Record => found.bytes,
        };
        if yes {
            bytes = storage::delete(state, &found.session, scope)?;
            let record = PruneRecord::now(found, scope, reason, bytes, "command");
            storage::record_prune(state, &record)?;
        }
        outcome.bytes += bytes;
        outcome.sessions.push(PrunedSession {
            session_id: found.session.to_string(),
            last_activity: found.last_activity.map(second_of),
            bytes,
            reason,
            only_copy: found.only_copy,
            transcript: found
                .transcript
                .as_ref()
                .map(|path| path.display().to_string()),
        });
    }
    outcome.state_bytes_after = before.saturating_sub(outcome.bytes);
    Ok(outcome)
}

/// Runs the prune and says what it deleted or would delete.
pub fn run_prune_kept(
    state: &StateDir,
    policy: &KeptPolicy,
    session: Option<&SessionId>,
    yes: bool,
    json: bool,
) -> Result<ExitCode> {
    emit_ok(json, &prune_kept(state, policy, session, yes)?)
}

impl Emit for KeptPruneOutcome {
    fn text(&self) -> String {
        let what = match self.scope {
            Scope::Copies => "the kept copies (and snapshots) of",
            Scope::Record => "the whole record of",
        };
        let verb = deleted_verb(self.dry_run);
        let mut text = format!(
            "{verb} {what} {} session(s), {} (the state folder: {} → {}):\n",
            self.sessions.len(),
            human_bytes(self.bytes),
            human_bytes(self.state_bytes_before),
            human_bytes(self.state_bytes_after),
        );
        for session in &self.sessions {
            let _ = writeln!(
                text,
                "  {}  last active {}  {:>9}{}",
                session.session_id,
                session
                    .last_activity
                    .as_ref()
                    .map_or("-", |time| time.text().get(..10).unwrap_or(time.text())),
                human_bytes(session.bytes),
                if session.only_copy {
                    "  ONLY COPY: Claude Code deleted its transcript"
                } else {
                    ""
                }
            );
        }
        let only = self
            .sessions
            .iter()
            .filter(|session| session.only_copy)
            .count();
        if only > 0 {
            let _ = writeln!(
                text,
                "{only} of them {} the only copy left of a transcript Claude Code deleted{}",
                if only == 1 { "is" } else { "are" },
                if self.dry_run {
                    ": `ctxhooks archives restore --deleted` writes them back first, if they matter"
                } else {
                    ""
                }
            );
        }
        if self.size_unmet {
            let _ = writeln!(
                text,
                "the size asked for cannot be met: the rest is in use (active within the last day) or \
                 holds no kept copy"
            );
        }
        if self.dry_run && !self.sessions.is_empty() {
            let _ = writeln!(text, "nothing was deleted: give `--yes` to delete them");
        }
        text
    }
}
