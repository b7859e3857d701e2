//! Waiting for what a test waits on: a condition looked at again and again until it holds, under
//! a generous bound against a hang, never a fixed sleep (a busy machine takes longer, and a sleep
//! that was long enough alone is not there).

use std::time::{Duration, Instant};

/// How long a condition may take to hold before the test counts as hung: a bound against hangs
/// on a busy machine, never a timing assertion.
pub const HANG_BOUND: Duration = Duration::from_secs(120);

/// How often the condition is looked at.
const EVERY: Duration = Duration::from_millis(25);

/// Waits until `ready` gives something, and returns it; fails, naming `what`, when that takes
/// past [`HANG_BOUND`].
#[track_caller]
pub fn wait_until<T>(what: &str, mut ready: impl FnMut() -> Option<T>) -> T {
    let started = Instant::now();
    loop {
        if let Some(found) = ready() {
            return found;
        }
        assert!(
            started.elapsed() < HANG_BOUND,
            "{what}: not there after {HANG_BOUND:?} (a bound against hangs)"
        );
        std::thread::sleep(EVERY);
    }
}

