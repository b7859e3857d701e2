//! The index's progress on stderr: shown only when stderr is a terminal and the update has
//! already taken a second (a quick update draws nothing), never otherwise.

use std::cell::Cell;
use std::io::IsTerminal as _;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long an update runs before its progress is drawn.
const QUIET_FOR: Duration = Duration::from_secs(1);

/// Progress in transcript bytes.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    started: Cell<Instant>,
    /// Where it is drawn once the update has taken [`QUIET_FOR`]; `None`: never.
    target: Option<fn() -> ProgressDrawTarget>,
}

impl Progress {
    /// Progress for a command: drawn on stderr when it is a terminal.
    pub fn on_stderr() -> Self {
        Self::new(
            std::io::stderr()
                .is_terminal()
                .then_some(ProgressDrawTarget::stderr),
        )
    }

    /// Progress never drawn (the MCP server: stderr is Claude Code's log).
    pub fn silent() -> Self {
        Self::new(None)
    }

    fn new(target: Option<fn() -> ProgressDrawTarget>) -> Self {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(
            "indexing transcripts {wide_bar} {binary_bytes}/{binary_total_bytes} {eta}",
        ) {
            bar.set_style(style);
        }
        Self {
            bar,
            started: Cell::new(Instant::now()),
            target,
        }
    }

    /// Returns true if and only if the bar may ever be drawn (nothing else is worth counting).
    pub fn may_draw(&self) -> bool {
        self.target.is_some()
    }

    /// Starts the update: `total` bytes to read.
    pub fn start(&self, total: u64) {
        self.bar.set_length(total);
        self.started.set(Instant::now());
    }

    /// Counts `bytes` read, and starts drawing once the update has taken `QUIET_FOR`.
    pub fn advance(&self, bytes: u64) {
        let Some(target) = self.target else {
            return;
        };
        self.bar.inc(bytes);
        if self.bar.is_hidden() && self.started.get().elapsed() >= QUIET_FOR {
            self.bar.set_draw_target(target());
        }
    }

    /// Clears what was drawn.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawn_only_where_it_may_be_and_only_after_a_second() {
        let silent = Progress::silent();
        silent.start(100);
        silent
            .started
            .set(Instant::now().checked_sub(QUIET_FOR * 2).unwrap());
        silent.advance(10);
        assert!(silent.bar.is_hidden());

        // A terminal stands in as a target that is not hidden.
        let shown = Progress::new(Some(|| ProgressDrawTarget::term_like(Box::new(Sink))));
        shown.start(100);
        shown.advance(10);
        assert!(shown.bar.is_hidden(), "drawn before a second went by");
        shown
            .started
            .set(Instant::now().checked_sub(QUIET_FOR * 2).unwrap());
        shown.advance(10);
        assert!(!shown.bar.is_hidden());
    }

    /// A terminal that shows nothing.
    #[derive(Debug)]
    struct Sink;

    impl indicatif::TermLike for Sink {
        fn width(&self) -> u16 {
            80
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, _: &str) -> std::io::Result<()> {
            Ok(())
        }
        fn write_str(&self, _: &str) -> std::io::Result<()> {
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }
}
