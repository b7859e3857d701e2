//! What a hook's body receives from the frame (`runner.rs`): the state folder, the payload it
//! reads once into its typed struct, the one way to answer Claude Code on stdout, and a place for
//! the problems that do not stop its work ([`Notes`], which the watchdog logs).

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use serde::Deserialize;

use crate::hook::payload::{self, Payload};
use crate::hook::watchdog::Watchdog;
use crate::lenient::describe_mismatches;
use crate::notes::{Notes, Problem};
use crate::store::state_dir::StateDir;

/// What a hook's body receives.
#[derive(Debug)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct HookContext {
    pub state: StateDir,
    /// The payload's bytes: the first JSON object on stdin.
    pub(super) input: Vec<u8>,
    /// Who the run is and what went wrong so far, shared with the watchdog.
    pub(super) watchdog: Arc<Watchdog>,
    /// When the watchdog ends the run: its start (the process's) plus its budget.
    pub(super) deadline: Instant,
}

impl HookContext {
    /// The payload as the hook's typed struct `P`, borrowing its text from the payload's bytes.
    /// Only broken JSON fails here, and then only the fields the hook requires: the fields of
    /// an unexpected type are set aside and named in one note. From here on, every line logged
    /// for this run names its event and session.
    pub fn payload<'context, P>(&'context self) -> Result<P>
    where
        P: Payload + Deserialize<'context>,
    {
        let payload: P = payload::parse(&self.input)?;
        let (event, session_id) = payload.identity();
        self.watchdog.set_identity(event, session_id);
        if let Some(message) = describe_mismatches(&payload.mismatches()) {
            self.note(message.into());
        }
        Ok(payload)
    }

    /// Writes the hook's answer to Claude Code on stdout, whole, in one write (only the events
    /// whose protocol reads stdout answer, and only when they have something to say).
    pub fn respond(&self, output: &[u8]) -> Result<()> {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(output)?;
        stdout.flush()?;
        Ok(())
    }

    /// When the watchdog ends this run: the instant the process started plus the hook's budget.
    /// Work that stops early to finish in time counts back from here, so that the time a busy
    /// machine took to start the process and hand it its payload is counted too.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// [`Self::deadline`] less `reserve`: when work that stops between steps must stop to leave
    /// `reserve` for its last step and what follows it.
    pub fn deadline_less(&self, reserve: Duration) -> Instant {
        self.deadline.checked_sub(reserve).unwrap_or(self.deadline)
    }
}

/// A problem that did not stop the hook's work goes to the error log once the work is done (the
/// work comes first: the error log itself may be what blocks). Should the watchdog end the run
/// first, it logs the notes.
impl Notes for HookContext {
    fn note(&self, problem: Problem) {
        self.watchdog.note(problem);
    }
}
