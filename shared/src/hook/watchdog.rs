//! The one helper thread of every hook run: it is both the deadline on stdin (Claude Code does
//! not always close it, and may never send a payload) and the run's time budget. It shares with
//! the main thread who the run is (hook, event, session, as soon as the payload says) and the
//! problems noted so far, so that the line it logs when it ends a run names who stalled. Both it
//! and the frame log a problem one way ([`log_problem`]).

use std::io::Write as _;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, mpsc};
use std::time::{Duration, Instant};

use crate::causes::Causes;
use crate::notes::Problem;
use crate::store::error_log::{self, ErrorRecord};
use crate::store::state_dir::StateDir;

/// The main thread is reading stdin.
const READING_STDIN: u8 = 0;
/// The main thread has its payload (or knows it will not get one) and is working.
const WORKING: u8 = 1;
/// The stdin deadline passed first: the watchdog is ending the run.
const STDIN_TIMED_OUT: u8 = 2;

/// How long the watchdog tries to log before it ends the run anyway (the error log itself may
/// be what blocks).
const LOG_WAIT: Duration = Duration::from_secs(1);

/// Who a run is, as far as its payload said: for every line it logs.
#[derive(Debug, Clone, Default)]
pub struct Identity {
    /// The payload's `hook_event_name`.
    pub event: Option<String>,
    /// The payload's `session_id`, as given (even if it was refused).
    pub session_id: Option<String>,
}

/// What the main thread and the watchdog of one run both know.
#[derive(Debug)]
pub struct Watchdog {
    /// The hook binary's name, for every line logged.
    hook_name: &'static str,
    phase: AtomicU8,
    received: AtomicUsize,
    identity: OnceLock<Identity>,
    notes: Mutex<Vec<Problem>>,
}

impl Watchdog {
    /// Starts the watchdog of a run of the hook binary `hook_name` that began at `started`: if no payload is complete
    /// `stdin_timeout` after that, it logs so and ends the process with exit 0; `budget` after
    /// it, it logs that the run overran, with the notes not logged yet, and ends the process
    /// with exit 0 whatever the main thread is doing.
    pub fn start(
        hook_name: &'static str,
        started: Instant,
        stdin_timeout: Duration,
        budget: Duration,
    ) -> Arc<Self> {
        let watchdog = Arc::new(Self {
            hook_name,
            phase: AtomicU8::new(READING_STDIN),
            received: AtomicUsize::new(0),
            identity: OnceLock::new(),
            notes: Mutex::new(Vec::new()),
        });
        let watching = Arc::clone(&watchdog);
        // Only a stdin deadline that comes before the budget needs a wake-up of its own.
        let stdin_timeout = (stdin_timeout < budget).then_some(stdin_timeout);
        std::thread::spawn(move || watching.watch(started, stdin_timeout, budget));
        watchdog
    }

    /// Records how many bytes of stdin have arrived, for the stdin deadline's message.
    pub fn received(&self, total: usize) {
        self.received.store(total, Ordering::Relaxed);
    }

    /// Marks the end of reading stdin. Returns false if the stdin deadline passed first: the
    /// watchdog is then logging that and ending the run, and the caller must do nothing more.
    pub fn stdin_done(&self) -> bool {
        self.leave_stdin(WORKING)
    }

    /// Moves from reading stdin to `phase`; false when the run had left it already.
    fn leave_stdin(&self, phase: u8) -> bool {
        self.phase
            .compare_exchange(READING_STDIN, phase, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Records who the run is, once the payload said; only the first call counts.
    pub fn set_identity(&self, event: Option<&str>, session_id: Option<&str>) {
        let _ = self.identity.set(Identity {
            event: event.map(shorten),
            session_id: session_id.map(shorten),
        });
    }

    /// Who the run is, as far as known.
    pub fn identity(&self) -> Identity {
        self.identity.get().cloned().unwrap_or_default()
    }

    /// Keeps a problem that did not stop the work, to be logged when the run ends, whoever ends
    /// it.
    pub fn note(&self, problem: Problem) {
        self.notes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(problem);
    }

    /// The problems noted and not logged yet.
    pub fn take_notes(&self) -> Vec<Problem> {
        std::mem::take(&mut *self.notes.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn watch(&self, started: Instant, stdin_timeout: Option<Duration>, budget: Duration) {
        if let Some(timeout) = stdin_timeout {
            sleep_until(started + timeout);
            if self.leave_stdin(STDIN_TIMED_OUT) {
                self.end_run(
                    format!(
                        "stdin held no complete JSON value after {} ms ({} bytes received)",
                        timeout.as_millis(),
                        self.received.load(Ordering::Relaxed)
                    )
                    .into(),
                );
            }
        }
        sleep_until(started + budget);
        self.end_run(
            format!(
                "the hook did not finish within its budget of {} s and stopped itself; a state \
                 file may be blocked (see `ctxhooks doctor`)",
                budget.as_secs_f64()
            )
            .into(),
        );
    }

    /// Logs the notes and `problem` (for at most [`LOG_WAIT`], on a thread of its own) and ends
    /// the process with exit 0.
    fn end_run(&self, problem: Problem) -> ! {
        let hook_name = self.hook_name;
        let identity = self.identity();
        let mut problems = self.take_notes();
        problems.push(problem);
        let (done, finished) = mpsc::channel();
        std::thread::spawn(move || {
            for problem in &problems {
                log_problem(hook_name, &identity, &**problem);
            }
            let _ = done.send(());
        });
        let _ = finished.recv_timeout(LOG_WAIT);
        exit_now()
    }
}

/// Appends `problem` to `errors.log` as one line naming the hook, the event and the session as
/// far as they are known; when even that fails, stderr is all that is left (Claude Code keeps it
/// in its debug log on exit 0).
pub fn log_problem(
    hook_name: &str,
    identity: &Identity,
    problem: &(dyn std::error::Error + 'static),
) {
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
            "{hook_name}: {} (the error log failed too: {})",
            Causes(problem),
            Causes(&log_error)
        );
    }
}

/// Blocks the calling thread until `deadline`.
fn sleep_until(deadline: Instant) {
    std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
}

/// At most 200 characters of a payload value, for the error log.
fn shorten(text: &str) -> String {
    text.chars().take(200).collect()
}

#[expect(
    clippy::exit,
    reason = "the watchdog ends a hook that overran; exit 0 never blocks Claude Code"
)]
fn exit_now() -> ! {
    std::process::exit(0)
}
