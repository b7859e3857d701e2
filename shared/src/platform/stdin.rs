//! Stdin read with a deadline, for a command that must answer even when its input never comes
//! (the status line). On Unix each read waits in `poll` until the deadline, with no thread to
//! start; on Windows, where a pipe cannot be polled, a helper thread reads and hands over what
//! it got, and the reader stops waiting at the deadline (the thread ends with the process).

use std::io::{self, Read};
use std::time::Instant;

/// Stdin, read until a deadline: past it, a read is a `TimedOut` error.
pub struct DeadlineStdin {
    deadline: Instant,
    #[cfg(unix)]
    stdin: io::Stdin,
    #[cfg(windows)]
    chunks: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    #[cfg(windows)]
    pending: Vec<u8>,
}

impl DeadlineStdin {
    /// Stdin, until `deadline`.
    pub fn new(deadline: Instant) -> Self {
        #[cfg(unix)]
        {
            Self {
                deadline,
                stdin: io::stdin(),
            }
        }
        #[cfg(windows)]
        {
            let (sender, chunks) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let mut stdin = io::stdin();
                let mut buffer = vec![0u8; 4096];
                loop {
                    let read = stdin.read(&mut buffer).map(|read| buffer[..read].to_vec());
                    let end = !matches!(&read, Ok(bytes) if !bytes.is_empty());
                    if sender.send(read).is_err() || end {
                        return;
                    }
                }
            });
            Self {
                deadline,
                chunks,
                pending: Vec::new(),
            }
        }
    }
}

fn timed_out() -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        "no complete JSON object on stdin in time",
    )
}

impl Read for DeadlineStdin {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        #[cfg(unix)]
        {
            use std::os::fd::AsFd as _;
            loop {
                let left = self.deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(timed_out());
                }
                let timeout = rustix::event::Timespec::try_from(left).ok();
                let stdin = self.stdin.as_fd();
                let mut fds = [rustix::event::PollFd::new(
                    &stdin,
                    rustix::event::PollFlags::IN,
                )];
                match rustix::event::poll(&mut fds, timeout.as_ref()) {
                    // Nothing yet (the deadline is checked above), or a signal: poll again.
                    Ok(0) | Err(rustix::io::Errno::INTR) => {}
                    Ok(_) => return self.stdin.lock().read(buffer),
                    Err(error) => return Err(error.into()),
                }
            }
        }
        #[cfg(windows)]
        {
            if self.pending.is_empty() {
                let left = self.deadline.saturating_duration_since(Instant::now());
                match self.chunks.recv_timeout(left) {
                    Ok(chunk) => self.pending = chunk?,
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => return Err(timed_out()),
                    // The reader ended: stdin is closed.
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return Ok(0),
                }
            }
            let taken = self.pending.len().min(buffer.len());
            buffer[..taken].copy_from_slice(&self.pending[..taken]);
            self.pending.drain(..taken);
            Ok(taken)
        }
    }
}
