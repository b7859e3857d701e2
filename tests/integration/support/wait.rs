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

/// Whether the main thread of the process `pid` is asleep in a timed sleep (`nanosleep` or
/// `clock_nanosleep`), as Linux tells it in `/proc/<pid>/syscall`: a deterministic sign that a
/// program reached a wait that polls. `None` where that cannot be told (another system, Wine,
/// whose process ids are not Linux's, or a kernel that does not say).
pub fn in_timed_sleep(pid: u32) -> Option<bool> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let text = fs_err::read_to_string(format!("/proc/{pid}/syscall")).ok()?;
    let first = text.split_whitespace().next()?;
    if first == "running" {
        return Some(false);
    }
    let number: i64 = first.parse().ok()?;
    // nanosleep and clock_nanosleep: x86_64 35 and 230, aarch64 101 and 115.
    let sleeps: &[i64] = if cfg!(target_arch = "x86_64") {
        &[35, 230]
    } else if cfg!(target_arch = "aarch64") {
        &[101, 115]
    } else {
        return None;
    };
    (number >= 0).then(|| sleeps.contains(&number))
}
