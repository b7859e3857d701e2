//! The frame every hook binary runs in: read the payload, do the work, and never hurt the
//! session. A hook exits 0 in every case (exit 2 would block compaction or stopping), prints
//! nothing on stdout but the answer its event's protocol expects ([`HookContext::respond`]), and
//! writes any problem as one line to the error log. One helper thread,
//! the [`Watchdog`], bounds both the wait for stdin and the whole run.

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};
use serde::Deserialize;

use crate::hook::payload::{self, Payload};
use crate::hook::table::HookBinary;
use crate::hook::watchdog::{Identity, Watchdog};
use crate::lenient::describe_mismatches;
use crate::store::env_vars;
use crate::store::error_log::{self, ErrorRecord};
use crate::store::state_dir::StateDir;

/// What a hook's body receives.
#[derive(Debug)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct HookContext {
    pub state: StateDir,
    /// The payload's bytes: the first JSON object on stdin.
    input: Vec<u8>,
    /// Who the run is and what went wrong so far, shared with the watchdog.
    watchdog: Arc<Watchdog>,
    /// When the watchdog ends the run: its start (the process's) plus its budget.
    deadline: Instant,
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
            self.note(anyhow!(message));
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

    /// Keeps a problem that did not stop the hook's work, for the error log once the work is
    /// done (the work comes first: the error log itself may be what blocks). Should the
    /// watchdog end the run first, it logs the notes.
    pub fn note(&self, problem: anyhow::Error) {
        self.watchdog.note(problem);
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

/// Runs `hook` (its table entry) and returns the process exit code: success, always. Its
/// budget bounds the whole run, below the timeout the installer registers for the hook: when it
/// passes (a state file that blocks on open, a lock held forever, a disk that stalls), the
/// watchdog logs it and ends the process with exit 0, so Claude Code never waits out its own
/// timeout and never sees a failure. A panic is caught and logged like any other error.
pub fn run_hook(hook: &'static HookBinary) -> ExitCode {
    let started = Instant::now();
    // A panic is logged like any other error, with where it happened; the default hook would
    // print it on stderr, which a hook keeps for when even the error log cannot be written.
    std::panic::set_hook(Box::new(|info| {
        if let Some(location) = info.location() {
            let _ = PANIC_LOCATION.set(format!("{}:{}", location.file(), location.line()));
        }
    }));
    let budget = budget(hook);
    let watchdog = Watchdog::start(hook, started, payload::stdin_timeout(), budget);
    let outcome = catch_unwind(AssertUnwindSafe(|| run(hook, &watchdog, started + budget)));
    let mut problems = watchdog.take_notes();
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(error)) => problems.push(error),
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(ToString::to_string)
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            let location = PANIC_LOCATION
                .get()
                .map_or("an unknown place", String::as_str);
            problems.push(anyhow!("the hook panicked at {location}: {message}"));
        }
    }
    let identity = watchdog.identity();
    for problem in &problems {
        log_problem(hook.name, &identity, problem);
    }
    ExitCode::SUCCESS
}

/// Where the first panic of the run happened (`file:line`), for its line in the error log.
static PANIC_LOCATION: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// The hook's budget from the table, or the one `CTXHOOKS_HOOK_BUDGET_MS` sets (for tests).
fn budget(hook: &HookBinary) -> Duration {
    env_vars::number(env_vars::CTXHOOKS_HOOK_BUDGET_MS).map_or(hook.budget, Duration::from_millis)
}

fn run(hook: &'static HookBinary, watchdog: &Arc<Watchdog>, deadline: Instant) -> Result<()> {
    let state = StateDir::locate()?;
    // Read on this thread, blocking: the watchdog is the deadline.
    let input = payload::read_first_object(std::io::stdin().lock(), |total| {
        watchdog.received(total);
    });
    if !watchdog.stdin_done() {
        // The deadline passed first: the watchdog is logging that and ending the run.
        loop {
            std::thread::park();
        }
    }
    let context = HookContext {
        state,
        input: input?,
        watchdog: Arc::clone(watchdog),
        deadline,
    };
    (hook.handle)(&context)
}

/// Appends `problem` to `errors.log` as one line naming the hook, the event and the session as
/// far as they are known; when even that fails, stderr is all that is left (Claude Code keeps it
/// in its debug log on exit 0).
pub fn log_problem(hook_name: &str, identity: &Identity, problem: &anyhow::Error) {
    let record = ErrorRecord::new(
        hook_name,
        identity.event.clone(),
        identity.session_id.clone(),
        problem,
    );
    let logged = StateDir::locate().and_then(|state| error_log::append(&state, &record));
    if let Err(log_error) = logged {
        let _ = writeln!(
            std::io::stderr(),
            "{hook_name}: {problem:#} (the error log failed too: {log_error:#})"
        );
    }
}
