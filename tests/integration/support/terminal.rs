//! The pinned Claude Code CLI run interactively, the way a person runs it: in a tmux session on
//! a private socket inside the world, driven with `send-keys` and read with `capture-pane -p`.
//! Needs `tmux`; without it the tests that use it skip loudly.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::claude::{API_KEY, CLI_HOOK_ENV, Sandbox};
use super::files::say_skipped;
use super::model_server::ModelServer;
use super::summary::record_group;

/// How long the TUI may take to show what a test waits for: a bound against hangs on a busy
/// machine, never a timing assertion.
const SCREEN_TIMEOUT: Duration = Duration::from_secs(120);

/// A running interactive CLI in tmux; the tmux server is ended when dropped, and the CLI waited
/// for.
pub struct Terminal {
    socket: PathBuf,
    /// The pane's process: the CLI (`env` execs it).
    pid: Option<u32>,
}

/// Returns true if and only if `tmux` runs; says loudly (and records for `tests/run.sh`'s
/// summary) when it does not.
pub fn tmux_available(group: &str) -> bool {
    let found = Command::new("tmux")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !found {
        say_skipped(&format!(
            "{group}: the interactive end-to-end tests need tmux (apt-get install tmux)"
        ));
        record_group(group, "skipped: tmux is not installed");
    }
    found
}

impl Terminal {
    /// Starts `claude ARGS` in the sandbox's project, in a terminal of `width` × 50, against
    /// `server`, with the sandbox's `HOME` and nothing else of the test's environment.
    pub fn start(sandbox: &Sandbox, server: &ModelServer, args: &[&str], width: u16) -> Self {
        let socket = sandbox.root().join("tmux.sock");
        let mut environment = vec![
            format!("HOME={}", sandbox.home.display()),
            format!("PATH={}", std::env::var("PATH").unwrap_or_default()),
            "TERM=xterm-256color".to_owned(),
            "LANG=C.UTF-8".to_owned(),
            format!("TMPDIR={}", sandbox.root().join("tmp").display()),
            format!("ANTHROPIC_BASE_URL={}", server.base_url()),
            format!("ANTHROPIC_API_KEY={API_KEY}"),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1".to_owned(),
            "DISABLE_AUTOUPDATER=1".to_owned(),
        ];
        environment.extend(
            CLI_HOOK_ENV
                .iter()
                .map(|(key, value)| format!("{key}={value}")),
        );
        environment.retain(|entry| !entry.ends_with('='));
        let mut command = vec!["env".to_owned(), "-i".to_owned()];
        command.extend(environment);
        command.push(sandbox.claude_path().display().to_string());
        command.extend(args.iter().map(|arg| (*arg).to_owned()));
        let status = Command::new("tmux")
            .arg("-S")
            .arg(&socket)
            .args(["-f", "/dev/null", "new-session", "-d", "-s", "ctxhooks"])
            .args(["-x", &width.to_string(), "-y", "50"])
            .arg("-c")
            .arg(&sandbox.project)
            .args(&command)
            .env_remove("TMUX")
            .status()
            .expect("tmux runs");
        assert!(status.success(), "tmux new-session failed");
        let mut terminal = Self { socket, pid: None };
        terminal.pid = terminal.pane_pid();
        terminal
    }

    /// The pid of the pane's process, if tmux tells it.
    fn pane_pid(&self) -> Option<u32> {
        let output = self
            .tmux()
            .args(["list-panes", "-t", "ctxhooks", "-F", "#{pane_pid}"])
            .output()
            .ok()?;
        String::from_utf8_lossy(&output.stdout).trim().parse().ok()
    }

    fn tmux(&self) -> Command {
        let mut command = Command::new("tmux");
        command.arg("-S").arg(&self.socket).env_remove("TMUX");
        command
    }

    /// The screen as text (`capture-pane -p`); with `escapes`, with its colours (`-e`).
    pub fn screen(&self, escapes: bool) -> String {
        let mut command = self.tmux();
        command.args(["capture-pane", "-p", "-t", "ctxhooks"]);
        if escapes {
            command.arg("-e");
        }
        let output = command.output().expect("tmux capture-pane runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Waits until the screen satisfies `ready` and returns it; fails with the screen when it
    /// never does.
    #[track_caller]
    pub fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen(false);
            if ready(&screen) {
                return screen;
            }
            assert!(
                started.elapsed() < SCREEN_TIMEOUT,
                "the terminal never showed {what}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// Types `text` (as it is, no key names) and presses Enter once the prompt shows it.
    #[track_caller]
    pub fn submit(&self, text: &str) {
        let typed = self
            .tmux()
            .args(["send-keys", "-t", "ctxhooks", "-l", text])
            .status()
            .expect("tmux send-keys runs");
        assert!(typed.success());
        // The TUI takes a typed line in pieces, and an Enter that comes first submits what it
        // has: Enter once the prompt's line ends with all of it.
        self.wait_for(&format!("{text:?} typed at the prompt"), |screen| {
            screen
                .lines()
                .any(|line| line.contains('❯') && line.trim_end().ends_with(text))
        });
        let entered = self
            .tmux()
            .args(["send-keys", "-t", "ctxhooks", "Enter"])
            .status()
            .expect("tmux send-keys runs");
        assert!(entered.success());
    }
}

impl Drop for Terminal {
    /// Ends the tmux server, as closing the window would, then waits (bounded) for the CLI to
    /// end: it runs the `SessionEnd` hook and writes its files as it goes, and a sandbox removed
    /// while it does is left half removed.
    fn drop(&mut self) {
        let _ = self
            .tmux()
            .arg("kill-server")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let Some(pid) = self.pid else { return };
        let started = Instant::now();
        while started.elapsed() < SCREEN_TIMEOUT && process_exists(pid) {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Whether a process with `pid` runs (`ps`; the CLI is tmux's child, not ours, and once tmux is
/// gone it may stay a zombie until something reaps it: that counts as ended).
fn process_exists(pid: u32) -> bool {
    Command::new("ps")
        .args(["-o", "stat=", "-p", &pid.to_string()])
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|output| {
            let state = String::from_utf8_lossy(&output.stdout);
            output.status.success() && !state.trim().is_empty() && !state.trim().starts_with('Z')
        })
}
