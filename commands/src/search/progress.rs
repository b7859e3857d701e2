//! The index's progress on stderr: shown only when stderr is a terminal and the update has
//! already taken a second (a quick update draws nothing), never otherwise.

use std::io::IsTerminal as _;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long an update runs before its progress is drawn.
const QUIET_FOR: Duration = Duration::from_secs(1);

/// Progress in transcript bytes.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    /// Whether it may be drawn at all (stderr is a terminal and the caller allows it).
    drawable: bool,
}

impl Progress {
    /// Progress for a command on a terminal: drawable when stderr is one.
    pub fn on_stderr() -> Self {
        Self::new(std::io::stderr().is_terminal())
    }

    /// Progress never drawn (the MCP server: stderr is Claude Code's log).
    pub fn silent() -> Self {
        Self::new(false)
    }

    fn new(drawable: bool) -> Self {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(
            "indexing transcripts {wide_bar} {binary_bytes}/{binary_total_bytes} {eta}",
        ) {
            bar.set_style(style);
        }
        Self {
            bar,
            started: Instant::now(),
            drawable,
        }
    }

    /// Sets how many bytes are to be read.
    pub fn start(&self, total: u64) {
        self.bar.set_length(total);
    }

    /// Counts `bytes` read, and starts drawing once the update has taken a second.
    pub fn advance(&self, bytes: u64) {
        self.bar.inc(bytes);
        if self.drawable && self.bar.is_hidden() && self.started.elapsed() >= QUIET_FOR {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    /// Clears what was drawn.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
