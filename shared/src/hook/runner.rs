//! The frame every hook binary runs in: read the payload, do the work, and never hurt the
//! session. A hook exits 0 in every case (exit 2 would block compaction or stopping), prints
//! nothing on stdout but the answer its event's protocol expects ([`HookContext::respond`]), and
//! writes any problem as one line to the error log. One helper thread,
//! the [`Watchdog`], bounds both the wait for stdin and the whole run.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::hook::context::HookContext;
use crate::hook::payload;
use crate::hook::table::HookBinary;
use crate::hook::watchdog::{Watchdog, log_problem};
use crate::store::env_vars;
use crate::store::state_dir::StateDir;

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
    let watchdog = Watchdog::start(hook.name, started, payload::stdin_timeout(), budget);
    let outcome = catch_unwind(AssertUnwindSafe(|| run(hook, &watchdog, started + budget)));
    let mut problems = watchdog.take_notes();
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(error)) => problems.push(error.into()),
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(ToString::to_string)
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            let location = PANIC_LOCATION
                .get()
                .map_or("an unknown place", String::as_str);
            problems.push(format!("the hook panicked at {location}: {message}").into());
        }
    }
    let identity = watchdog.identity();
    for problem in &problems {
        log_problem(hook.name, &identity, &**problem);
    }
    ExitCode::SUCCESS
}

/// Where the first panic of the run happened (`file:line`), for its line in the error log.
static PANIC_LOCATION: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// The hook's budget from the table, or the one `CTXHOOKS_HOOK_BUDGET_MS` sets (for tests).
fn budget(hook: &HookBinary) -> Duration {
    env_vars::number(env_vars::CTXHOOKS_HOOK_BUDGET_MS).map_or(hook.budget, Duration::from_millis)
}

fn run(
    hook: &'static HookBinary,
    watchdog: &Arc<Watchdog>,
    deadline: Instant,
) -> anyhow::Result<()> {
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
