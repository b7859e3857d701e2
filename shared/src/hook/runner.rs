//! The frame every hook binary runs in: read the payload, do the work, and never hurt the
//! session. A hook exits 0 in every case (exit 2 would block compaction or stopping), prints
//! nothing on stdout, and writes any problem as one line to the error log.

use std::cell::RefCell;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use serde::Deserialize;
use serde_json::Value;

use crate::hook::field::describe_mismatches;
use crate::hook::payload::{self, Payload};
use crate::hook::table::HookBinary;
use crate::store::env_vars;
use crate::store::error_log::{self, ErrorRecord};
use crate::store::state_dir::StateDir;

/// What a hook's body receives.
#[derive(Debug)]
pub struct HookContext {
    /// The hook being run: its entry in the hook table.
    pub hook: &'static HookBinary,
    /// The state folder.
    pub state: StateDir,
    /// The raw payload.
    payload: Value,
    /// Problems that did not stop the work, logged once it is done.
    notes: RefCell<Vec<anyhow::Error>>,
}

impl HookContext {
    /// The payload as the hook's typed struct `P`. Only the fields the hook then requires can
    /// fail it: the fields of an unexpected type are set aside and named in one note.
    pub fn payload<'context, P>(&'context self) -> Result<P>
    where
        P: Payload + Deserialize<'context>,
    {
        let payload =
            P::deserialize(&self.payload).context("the hook payload could not be read")?;
        if let Some(message) = describe_mismatches(&payload.mismatches()) {
            self.note(anyhow!(message));
        }
        Ok(payload)
    }

    /// Keeps a problem that did not stop the hook's work, for the error log once the work is
    /// done (the work comes first: the error log itself may be what blocks).
    pub fn note(&self, problem: anyhow::Error) {
        self.notes.borrow_mut().push(problem);
    }
}

/// What the error log is told about the payload, filled in as soon as it is known.
#[derive(Default)]
struct Identity {
    event: Option<String>,
    session_id: Option<String>,
}

/// Runs `hook` (its table entry) and returns the process exit code: success, always. Its
/// budget bounds the whole run, below the timeout the installer registers for the hook: when it
/// passes (a state file that blocks on open, a lock held forever, a disk that stalls), a
/// watchdog logs it and ends the process with exit 0, so Claude Code never waits out its own
/// timeout and never sees a failure.
pub fn run_hook(hook: &'static HookBinary) -> ExitCode {
    let hook_name = hook.name;
    let budget = hook.budget;
    let budget = std::env::var(env_vars::CTXHOOKS_HOOK_BUDGET_MS)
        .ok()
        .and_then(|text| text.trim().parse::<u64>().ok())
        .map_or(budget, |milliseconds| {
            budget.min(Duration::from_millis(milliseconds))
        });
    start_watchdog(hook_name, budget);
    let mut identity = Identity::default();
    let mut notes = Vec::new();
    let outcome = catch_unwind(AssertUnwindSafe(|| run(hook, &mut identity, &mut notes)));
    for note in &notes {
        log_error(hook_name, &identity, note);
    }
    let error = match outcome {
        Ok(Ok(())) => return ExitCode::SUCCESS,
        Ok(Err(error)) => error,
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(ToString::to_string)
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            anyhow!("the hook panicked: {message}")
        }
    };
    log_error(hook_name, &identity, &error);
    ExitCode::SUCCESS
}

/// Ends the process with exit 0 once `budget` has passed, after trying (for at most a second:
/// the error log itself may be what blocks) to log why.
fn start_watchdog(hook_name: &'static str, budget: Duration) {
    std::thread::spawn(move || {
        std::thread::sleep(budget);
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let error = anyhow!(
                "the hook did not finish within its budget of {} s and stopped itself; \
                 a state file may be blocked (see `ctxhooks doctor`)",
                budget.as_secs_f64()
            );
            log_error(hook_name, &Identity::default(), &error);
            let _ = done.send(());
        });
        let _ = finished.recv_timeout(Duration::from_secs(1));
        exit_now();
    });
}

#[expect(
    clippy::exit,
    reason = "the watchdog ends a hook that overran its budget; exit 0 never blocks Claude Code"
)]
fn exit_now() -> ! {
    std::process::exit(0)
}

fn run(
    hook: &'static HookBinary,
    identity: &mut Identity,
    notes: &mut Vec<anyhow::Error>,
) -> Result<()> {
    let state = StateDir::locate()?;
    let payload = payload::read_first_json_value(std::io::stdin(), payload::stdin_timeout())?;
    identity.event = payload.get("hook_event_name").map(describe);
    identity.session_id = payload.get("session_id").map(describe);
    let context = HookContext {
        hook,
        state,
        payload,
        notes: RefCell::new(Vec::new()),
    };
    let outcome = (hook.handle)(&context);
    *notes = context.notes.into_inner();
    outcome
}

/// Appends the error to `errors.log`; when even that fails, stderr is all that is left (Claude
/// Code keeps it in its debug log on exit 0).
fn log_error(hook_name: &str, identity: &Identity, error: &anyhow::Error) {
    let record = ErrorRecord::new(
        hook_name,
        identity.event.clone(),
        identity.session_id.clone(),
        error,
    );
    let logged = StateDir::locate().and_then(|state| error_log::append(&state, &record));
    if let Err(log_error) = logged {
        let _ = writeln!(
            std::io::stderr(),
            "{hook_name}: {error:#} (the error log failed too: {log_error:#})"
        );
    }
}

/// A short, safe rendering of a payload value for the error log.
fn describe(value: &Value) -> String {
    let text = match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    text.chars().take(200).collect()
}
