//! Running a hook binary with its payload on stdin, and waiting for it with a bound against hangs.

use std::borrow::BorrowMut;
use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Spawns `command` with piped stdin and stdout, writes `input` to its stdin and closes it.
pub fn spawn_with_stdin(mut command: impl BorrowMut<Command>, input: &[u8]) -> Child {
    let mut child = command
        .borrow_mut()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child
}

/// Waits for `child` up to `limit` and returns its exit code; `None` (after killing it) when it
/// did not end. A generous bound against hangs, not a timing assertion.
pub fn wait_bounded(child: &mut Child, limit: Duration) -> Option<i32> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}
