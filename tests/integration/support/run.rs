//! Running a program the way the tests need: in a [`World`] (its `HOME`, config and state
//! folders set on the child, nothing inherited that could change what our code does), with
//! bytes on stdin, under a generous bound against hangs, then checking the exit code, stdout,
//! stderr and files, printing everything the program said when a check fails.
//!
//! ```text
//! world.hook(Hook::Stop).stdin(payload).success();            // exit 0, nothing on stdout
//! world.ctxhooks(["usage", "--json"]).json();                  // exit 0, stdout parsed
//! world.ctxhooks(["install"]).stderr_contains("4:1").exit_code(1);
//! ```

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Barrier, OnceLock};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use ctxhooks_shared::platform::program::binary_file_name;
use ctxhooks_shared::store::env_vars;
use serde_json::Value;

use super::world::World;

/// The `ctxhooks` command built for these tests.
pub const CTXHOOKS: &str = env!("CARGO_BIN_EXE_ctxhooks");
/// `ctxhooks-search`, which `ctxhooks search` and `ctxhooks mcp` run from beside `ctxhooks`.
pub const CTXHOOKS_SEARCH: &str = env!("CARGO_BIN_EXE_ctxhooks-search");

/// Variables no child inherits from the test process: they would change what our code or
/// Claude Code does (`CTXHOOKS_HOME`, `CLAUDE_CONFIG_DIR`, an API key, telemetry). A test sets
/// the ones it means on the child, never with `std::env::set_var`.
const SCRUBBED_PREFIXES: [&str; 4] = ["ANTHROPIC_", "CLAUDE", "CTXHOOKS_", "OTEL_"];

/// The signal number of SIGKILL.
const SIGKILL: i32 = 9;

/// How long a program may run before it counts as hung. A generous bound against a hang on a
/// busy machine, never a timing assertion.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// The time budget every hook run in a world gets (`CTXHOOKS_HOOK_BUDGET_MS`) in place of its
/// own, which is sized for Claude Code's timeouts (0.9 s for `ctxhooks-session`): a bound against
/// a hang, below [`DEFAULT_TIMEOUT`], that no hook reaches on a busy machine. A test about a
/// deadline sets the budget it exercises; the real CLI runs the hooks with their own
/// (`claude.rs`).
pub const TEST_HOOK_BUDGET: Duration = Duration::from_secs(60);

/// Our hook binaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hook {
    /// `ctxhooks-precompact`.
    PreCompact,
    /// `ctxhooks-stop` (Stop and `SubagentStop`).
    Stop,
    /// `ctxhooks-tooluse` (`PreToolUse`, `PostToolUse`, `PostToolUseFailure`).
    ToolUse,
    /// `ctxhooks-session` (`SessionStart`, `PostCompact`, `SessionEnd`).
    Session,
}

impl Hook {
    /// Every hook.
    pub const ALL: [Self; 4] = [Self::PreCompact, Self::Stop, Self::ToolUse, Self::Session];

    /// The binary's name, as it is installed.
    pub fn name(self) -> &'static str {
        match self {
            Self::PreCompact => "ctxhooks-precompact",
            Self::Stop => "ctxhooks-stop",
            Self::ToolUse => "ctxhooks-tooluse",
            Self::Session => "ctxhooks-session",
        }
    }

    /// The binary built for these tests: the `ctxhooks-hooks` package's, beside [`CTXHOOKS`]
    /// in the same target folder (cargo gives a test the paths of its own package's binaries
    /// only; `cargo test --workspace` and `tests/run.sh` build both packages). A binary that is
    /// missing, or older than a source it was built from, fails the test that asks for it: an
    /// old hook is never what a test runs.
    pub fn binary(self) -> &'static Path {
        static BUILT: OnceLock<Vec<Result<PathBuf, String>>> = OnceLock::new();
        let built = BUILT.get_or_init(|| Self::ALL.iter().map(|hook| built(hook.name())).collect());
        let index = Self::ALL.iter().position(|hook| *hook == self).unwrap();
        match &built[index] {
            Ok(path) => path,
            Err(problem) => panic!(
                "{problem}; build the hooks first: `cargo build -p ctxhooks-hooks` (with the \
                 same --release or --target as the tests), or run `cargo test --workspace` or \
                 tests/run.sh, which build them"
            ),
        }
    }
}

/// The hook binary `name` beside [`CTXHOOKS`], checked to be up to date as cargo judges it: no
/// source its dep-info file (see [`dep_info_of`]) lists is newer than it.
fn built(name: &str) -> Result<PathBuf, String> {
    let path = Path::new(CTXHOOKS).with_file_name(binary_file_name(name));
    let metadata = fs_err::metadata(&path).map_err(|error| {
        format!(
            "the hook binary `{}` is not built ({error})",
            path.display()
        )
    })?;
    let built = metadata
        .modified()
        .map_err(|error| format!("`{}` has no modification time: {error}", path.display()))?;
    let dep_info = dep_info_of(&path, name, &metadata).ok_or_else(|| {
        format!(
            "cannot tell whether `{}` is up to date: neither `{name}.d` beside it nor a dep-info \
             file in `deps/` belongs to it",
            path.display()
        )
    })?;
    let text = fs_err::read_to_string(&dep_info).map_err(|error| {
        format!(
            "cannot tell whether `{}` is up to date: {error}",
            path.display()
        )
    })?;
    let sources = dep_info_sources(&text);
    if sources.is_empty() {
        return Err(format!("`{}` lists no source", dep_info.display()));
    }
    for source in sources {
        let newer = fs_err::metadata(&source)
            .and_then(|metadata| metadata.modified())
            .map_or(true, |modified| modified > built);
        if newer {
            return Err(format!(
                "the hook binary `{}` is older than `{}`, which it is built from",
                path.display(),
                source.display()
            ));
        }
    }
    Ok(path)
}

/// The dep-info file of the binary at `path`. Cargo compiles a binary into `deps/<name>-<hash>`,
/// with its dep-info file `deps/<name>-<hash>.d` beside it, then links it up as `<name>`; only
/// `cargo build` also writes `<name>.d` there (`cargo test --workspace` builds another package's
/// binaries without one). The compiled file the binary is linked from (same length and time)
/// gives its own, else `<name>.d` beside it.
fn dep_info_of(path: &Path, name: &str, binary: &std::fs::Metadata) -> Option<PathBuf> {
    let same = |candidate: &Path| {
        fs_err::metadata(candidate).is_ok_and(|metadata| {
            metadata.len() == binary.len() && metadata.modified().ok() == binary.modified().ok()
        })
    };
    let prefix = format!("{}-", name.replace('-', "_"));
    let suffix = binary_file_name("");
    let compiled = fs_err::read_dir(path.with_file_name("deps"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .find(|candidate| {
            candidate
                .file_name()
                .and_then(OsStr::to_str)
                .is_some_and(|file| {
                    file.starts_with(&prefix)
                        && file.ends_with(&suffix)
                        && candidate.extension() != Some(OsStr::new("d"))
                        && same(candidate)
                })
        });
    let from_compiled = compiled.map(|compiled| {
        let stem = compiled
            .file_name()
            .and_then(OsStr::to_str)
            .unwrap_or_default();
        compiled.with_file_name(format!("{}.d", stem.strip_suffix(&suffix).unwrap_or(stem)))
    });
    from_compiled
        .filter(|dep_info| dep_info.is_file())
        .or_else(|| {
            Some(path.with_file_name(format!("{name}.d"))).filter(|beside| beside.is_file())
        })
}

/// The sources of a dep-info file's first rule (`target: source source ...`, a space in a path
/// escaped with a backslash).
fn dep_info_sources(text: &str) -> Vec<PathBuf> {
    let rule = text.lines().next().unwrap_or_default();
    let Some((_, sources)) = rule.split_once(": ") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut current = String::new();
    let mut characters = sources.chars();
    while let Some(character) = characters.next() {
        match character {
            '\\' => match characters.next() {
                Some(' ') => current.push(' '),
                Some(other) => {
                    current.push('\\');
                    current.push(other);
                }
                None => current.push('\\'),
            },
            ' ' => found
                .extend((!current.is_empty()).then(|| PathBuf::from(std::mem::take(&mut current)))),
            _ => current.push(character),
        }
    }
    found.extend((!current.is_empty()).then(|| PathBuf::from(current)));
    found
}

/// What the child reads on stdin.
#[derive(Clone)]
enum Input {
    /// Nothing: stdin is `/dev/null`.
    Null,
    /// These bytes, then end of input.
    Bytes(Vec<u8>),
    /// These bytes, and the pipe held open until the child ends.
    HeldOpen(Vec<u8>),
    /// These bytes, then one more byte every `every` until the child ends.
    Trickle {
        start: Vec<u8>,
        filler: u8,
        every: Duration,
    },
}

/// A program to run, built up by chained calls and run by one of [`Run::output`],
/// [`Run::success`], [`Run::failure`], [`Run::exit_code`], [`Run::json`] or [`Run::spawn`].
#[must_use = "a Run does nothing until .success(), .exit_code(n), .failure(), .json(), .output() or .spawn()"]
#[derive(Clone)]
pub struct Run {
    program: OsString,
    wrapper: Vec<OsString>,
    args: Vec<OsString>,
    env: BTreeMap<OsString, Option<OsString>>,
    dir: Option<PathBuf>,
    in_world: bool,
    input: Input,
    timeout: Duration,
    gate: Option<Arc<Barrier>>,
    expected_stdout: Option<Vec<u8>>,
    stdout_warning_allowed: bool,
    stdout_contains: Vec<String>,
    stderr_contains: Vec<String>,
    expected_files: Vec<(PathBuf, Vec<u8>)>,
    /// How many more times a start that failed in Wine's loader is run again
    /// ([`failed_in_the_loader`]).
    loader_retries: u8,
}

impl Run {
    /// Any program.
    pub fn program(program: impl AsRef<OsStr>) -> Self {
        Self {
            program: program.as_ref().to_owned(),
            wrapper: Vec::new(),
            args: Vec::new(),
            env: BTreeMap::new(),
            dir: None,
            in_world: false,
            input: Input::Null,
            timeout: DEFAULT_TIMEOUT,
            gate: None,
            expected_stdout: None,
            stdout_warning_allowed: false,
            stdout_contains: Vec::new(),
            stderr_contains: Vec::new(),
            expected_files: Vec::new(),
            loader_retries: 2,
        }
    }

    /// One of our hooks. A hook prints nothing on stdout (it is Claude Code's protocol channel)
    /// but its protocol's answer, so every hook run checks that its stdout is empty; a Stop run's
    /// may instead be exactly the one warning the protocol shows the person,
    /// `{"systemMessage": "..."}` (a test that wants it empty says `.stdout("")`).
    pub fn hook(hook: Hook) -> Self {
        let run = Self::program(hook.binary());
        if hook == Hook::Stop {
            Self {
                stdout_warning_allowed: true,
                ..run
            }
        } else {
            run.stdout("")
        }
    }

    /// `ctxhooks ARGS`.
    pub fn ctxhooks<I, S>(args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        Self::program(CTXHOOKS).args(args)
    }

    /// Runs in `world`: `HOME`, `CLAUDE_CONFIG_DIR`, `CTXHOOKS_HOME` and the managed settings'
    /// folder point into it (the machine's own managed settings never reach a test), and the
    /// current folder is its project. A hook gets [`TEST_HOOK_BUDGET`]. Every run needs a world.
    pub fn world(mut self, world: &World) -> Self {
        self.in_world = true;
        self.dir.get_or_insert_with(|| world.project());
        self.env(env_vars::HOME, world.home())
            .env(env_vars::CLAUDE_CONFIG_DIR, world.config_dir())
            .env(env_vars::CTXHOOKS_HOME, world.state_dir())
            .env(
                env_vars::CTXHOOKS_MANAGED_SETTINGS_DIR,
                world.managed_settings_dir(),
            )
            .env(
                env_vars::CTXHOOKS_HOOK_BUDGET_MS,
                TEST_HOOK_BUDGET.as_millis().to_string(),
            )
    }

    /// One more argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    /// More arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|arg| arg.as_ref().to_owned()));
        self
    }

    /// Runs the program through `wrapper ARGS`, which gets the program and its arguments after
    /// its own (`/bin/sh -c 'umask 0277; exec "$0" "$@"'`, `setpriv --reuid=...`).
    pub fn via<I, S>(mut self, wrapper: impl AsRef<OsStr>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.wrapper = std::iter::once(wrapper.as_ref().to_owned())
            .chain(args.into_iter().map(|arg| arg.as_ref().to_owned()))
            .collect();
        self
    }

    /// Sets a variable on the child.
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env
            .insert(key.as_ref().to_owned(), Some(value.as_ref().to_owned()));
        self
    }

    /// Sets each of these variables on the child.
    pub fn envs<K: AsRef<OsStr>, V: AsRef<OsStr>>(
        self,
        variables: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        variables
            .into_iter()
            .fold(self, |run, (key, value)| run.env(key, value))
    }

    /// Removes a variable from the child (one the world set, or one the child would inherit).
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Self {
        self.env.insert(key.as_ref().to_owned(), None);
        self
    }

    /// Runs in `dir` instead of the world's project folder.
    pub fn in_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.dir = Some(dir.as_ref().to_owned());
        self
    }

    /// Writes `bytes` on the child's stdin, then closes it.
    pub fn stdin(mut self, bytes: impl AsRef<[u8]>) -> Self {
        self.input = Input::Bytes(bytes.as_ref().to_owned());
        self
    }

    /// Writes `bytes` on the child's stdin and keeps the pipe open until the child ends, as a
    /// caller that never closes it would.
    pub fn stdin_held_open(mut self, bytes: impl AsRef<[u8]>) -> Self {
        self.input = Input::HeldOpen(bytes.as_ref().to_owned());
        self
    }

    /// Writes `start`, then one `filler` byte every `every`, until the child ends.
    pub fn stdin_trickle(mut self, start: impl AsRef<[u8]>, filler: u8, every: Duration) -> Self {
        self.input = Input::Trickle {
            start: start.as_ref().to_owned(),
            filler,
            every,
        };
        self
    }

    /// How long the program may run before it counts as hung (default 120 s): a bound against
    /// hangs, never a timing assertion.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Expects exactly this on stdout.
    pub fn stdout(mut self, expected: impl AsRef<[u8]>) -> Self {
        self.expected_stdout = Some(expected.as_ref().to_owned());
        self
    }

    /// Expects stdout to contain `text`.
    pub fn stdout_contains(mut self, text: impl Into<String>) -> Self {
        self.stdout_contains.push(text.into());
        self
    }

    /// Expects stderr to contain `text`.
    pub fn stderr_contains(mut self, text: impl Into<String>) -> Self {
        self.stderr_contains.push(text.into());
        self
    }

    /// Expects `path` to hold exactly `contents` once the program has ended.
    pub fn expect_file(mut self, path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> Self {
        self.expected_files
            .push((path.as_ref().to_owned(), contents.as_ref().to_owned()));
        self
    }

    /// Runs it; checks the expectations but not the exit code.
    #[track_caller]
    pub fn output(self) -> Outcome {
        self.spawn().wait()
    }

    /// Runs it and checks that it exited 0.
    #[track_caller]
    pub fn success(self) -> Outcome {
        self.output().success()
    }

    /// Runs it and checks that it exited with a code other than 0 (and was not killed).
    #[track_caller]
    pub fn failure(self) -> Outcome {
        self.output().failure()
    }

    /// Runs it and checks that it exited with `code`.
    #[track_caller]
    pub fn exit_code(self, code: i32) -> Outcome {
        self.output().exit_code(code)
    }

    /// Runs it, checks that it exited 0, and parses its stdout as JSON.
    #[track_caller]
    pub fn json(self) -> Value {
        self.success().json()
    }

    /// The `std::process::Command` this would run (for callers that drive a child themselves).
    #[track_caller]
    pub fn command(&self) -> Command {
        assert!(
            self.in_world,
            "`{}` has no world: every program runs with its own HOME and state folder (call .world(&world))",
            self.describe()
        );
        let mut parts = self
            .wrapper
            .iter()
            .chain(std::iter::once(&self.program))
            .chain(&self.args);
        let mut command = Command::new(parts.next().unwrap());
        command.args(parts);
        for (key, _) in std::env::vars_os() {
            let name = key.to_string_lossy();
            if SCRUBBED_PREFIXES
                .iter()
                .any(|prefix| name.starts_with(prefix))
            {
                command.env_remove(&key);
            }
        }
        for (key, value) in &self.env {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
        if let Some(dir) = &self.dir {
            command.current_dir(dir);
        }
        command
    }

    /// Starts it and returns at once; [`Running::wait`] ends the run.
    #[track_caller]
    pub fn spawn(self) -> Running {
        let description = self.describe();
        let mut command = self.command();
        // The same run again, for a start Wine's loader failed (`wait` decides); not for runs
        // started together at a barrier, whose partners would wait for it.
        let again = (cfg!(windows) && self.gate.is_none() && self.loader_retries > 0).then(|| {
            Box::new(Self {
                loader_retries: self.loader_retries - 1,
                ..self.clone()
            })
        });
        let piped = !matches!(self.input, Input::Null) || self.gate.is_some();
        command
            .stdin(if piped { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Wine, loaded, now and then fails a process start with ERROR_INTERNAL_ERROR (1359);
        // the same start a moment later succeeds.
        // A binary a test copied (to run it from another folder) is busy while a child another
        // test thread forked in the moment the copy was open for writing still holds that
        // descriptor; it is closed when that child runs its program. Tried again, within a
        // bound against a hang.
        let mut spawned = command.spawn();
        let busy_until = Instant::now() + Duration::from_secs(10);
        for _ in 0..3 {
            match &spawned {
                Err(error) if cfg!(windows) && error.raw_os_error() == Some(1359) => {
                    std::thread::sleep(Duration::from_millis(100));
                    spawned = command.spawn();
                }
                _ => break,
            }
        }
        while let Err(error) = &spawned
            && error.kind() == std::io::ErrorKind::ExecutableFileBusy
            && Instant::now() < busy_until
        {
            std::thread::sleep(Duration::from_millis(20));
            spawned = command.spawn();
        }
        let mut child =
            spawned.unwrap_or_else(|error| panic!("cannot start `{description}`: {error}"));
        let stdout = read_to_end(child.stdout.take().unwrap());
        let stderr = read_to_end(child.stderr.take().unwrap());
        let ended = Arc::new(AtomicBool::new(false));
        let writer = piped.then(|| {
            let stdin = child.stdin.take().unwrap();
            let ended = Arc::clone(&ended);
            let gate = self.gate.clone();
            thread::spawn(move || feed(stdin, self.input, gate.as_deref(), &ended))
        });
        Running {
            child,
            description,
            started: Instant::now(),
            timeout: self.timeout,
            stdout,
            stderr,
            ended,
            writer,
            stdout_warning_allowed: self.stdout_warning_allowed && self.expected_stdout.is_none(),
            expected_stdout: self.expected_stdout,
            stdout_contains: self.stdout_contains,
            stderr_contains: self.stderr_contains,
            expected_files: self.expected_files,
            again,
        }
    }

    fn describe(&self) -> String {
        self.wrapper
            .iter()
            .chain(std::iter::once(&self.program))
            .chain(&self.args)
            .map(|part| part.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Starts every run at once: all the processes exist before any of them gets its stdin.
#[track_caller]
pub fn spawn_together(runs: impl IntoIterator<Item = Run>) -> Vec<Running> {
    let runs: Vec<Run> = runs.into_iter().collect();
    let gate = Arc::new(Barrier::new(runs.len() + 1));
    let running = runs
        .into_iter()
        .map(|mut run| {
            run.gate = Some(Arc::clone(&gate));
            run.spawn()
        })
        .collect();
    gate.wait();
    running
}

/// Writes the input on the child's stdin from a thread of its own, so that a child that does not
/// read cannot block the test, and closes it when the input says so.
fn feed(mut stdin: impl Write, input: Input, gate: Option<&Barrier>, ended: &AtomicBool) {
    if let Some(gate) = gate {
        gate.wait();
    }
    let hold_until_ended = || {
        while !ended.load(Ordering::Relaxed) {
            thread::sleep(Duration::from_millis(10));
        }
    };
    // Write errors are expected: a child may end (or refuse) before it has read everything.
    match input {
        Input::Null => {}
        Input::Bytes(bytes) => {
            let _ = stdin.write_all(&bytes);
        }
        Input::HeldOpen(bytes) => {
            let _ = stdin.write_all(&bytes).and_then(|()| stdin.flush());
            hold_until_ended();
        }
        Input::Trickle {
            start,
            filler,
            every,
        } => {
            let _ = stdin.write_all(&start);
            while !ended.load(Ordering::Relaxed) {
                if stdin.write_all(&[filler]).is_err() {
                    break;
                }
                thread::sleep(every);
            }
            hold_until_ended();
        }
    }
}

fn read_to_end(mut pipe: impl Read + Send + 'static) -> Receiver<Vec<u8>> {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        let _ = sender.send(bytes);
    });
    receiver
}

/// A started program.
pub struct Running {
    child: Child,
    description: String,
    started: Instant,
    timeout: Duration,
    stdout: Receiver<Vec<u8>>,
    stderr: Receiver<Vec<u8>>,
    ended: Arc<AtomicBool>,
    writer: Option<JoinHandle<()>>,
    expected_stdout: Option<Vec<u8>>,
    stdout_warning_allowed: bool,
    stdout_contains: Vec<String>,
    stderr_contains: Vec<String>,
    expected_files: Vec<(PathBuf, Vec<u8>)>,
    /// The same run, to start again if this one failed in Wine's loader.
    again: Option<Box<Run>>,
}

/// Whether the program never ran: Wine, loaded, now and then ends a start in its loader, before
/// any of the program's code, with `STATUS_DLL_INIT_FAILED` (0xC0000142) and nothing written (seen
/// under a CI run's load; the same start a moment later succeeds). Windows only.
fn failed_in_the_loader(output: &Output) -> bool {
    cfg!(windows)
        && output.status.code().map(i32::cast_unsigned) == Some(0xC000_0142)
        && output.stdout.is_empty()
        && output.stderr.is_empty()
}

/// What [`Running::kill_at`] did to a program.
pub struct Kill {
    /// What the program printed, and how it ended.
    pub outcome: Outcome,
    /// SIGKILL was sent while the program was still running, and it died of it (not exit 0): the
    /// kill landed mid-run.
    pub landed: bool,
    /// How long the program ran, when it ended before the kill was due (to within 200 µs).
    pub ended_after: Option<Duration>,
}

/// How often a program that may be killed, or whose run is timed, is looked at.
const POLL: Duration = Duration::from_micros(200);

impl Running {
    /// The program's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Sends SIGKILL to the program `delay` after it started, unless it ended before, then
    /// gathers what it printed as [`Running::wait`] does (the expectations are checked, the exit
    /// code is not). Returns the outcome and whether the kill found the program still running.
    #[track_caller]
    pub fn kill_after(mut self, delay: Duration) -> (Outcome, bool) {
        let killed = !self.ended_by(self.started + delay);
        if killed {
            let _ = self.child.kill();
        }
        (self.wait(), killed)
    }

    /// [`Running::kill_after`], and whether the kill landed: the program was still running when
    /// SIGKILL was sent and died of it (a program that ended between the last look and the
    /// signal exits 0, and does not count).
    #[track_caller]
    pub fn kill_at(mut self, delay: Duration) -> Kill {
        let ended = self.ended_by(self.started + delay);
        let ended_after = ended.then(|| self.started.elapsed());
        if !ended {
            let _ = self.child.kill();
        }
        let outcome = self.wait();
        #[cfg(unix)]
        let died_of_it = {
            use std::os::unix::process::ExitStatusExt as _;
            outcome.output.status.signal() == Some(SIGKILL)
        };
        // TerminateProcess, which `kill` calls on Windows, gives exit code 1.
        #[cfg(windows)]
        let died_of_it = outcome.output.status.code() == Some(1);
        let landed = !ended && died_of_it;
        Kill {
            outcome,
            landed,
            ended_after,
        }
    }

    /// Waits for the program as [`Running::wait`] does, looking at it every 200 µs, and returns
    /// how long it ran from its start (a clean run's duration, which kill points are drawn from,
    /// to within 200 µs rather than `wait`'s 5 ms).
    #[track_caller]
    pub fn timed(mut self) -> (Outcome, Duration) {
        self.ended_by(self.started + self.timeout);
        let ran = self.started.elapsed();
        (self.wait(), ran)
    }

    /// Looks at the program every [`POLL`] until it ends or `deadline` passes; returns true if
    /// and only if it ended.
    fn ended_by(&mut self, deadline: Instant) -> bool {
        loop {
            if self.child.try_wait().unwrap().is_some() {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            thread::sleep(POLL);
        }
    }

    /// Waits for the program (killing it, and failing, when it outlives its timeout), then
    /// checks the expectations but not the exit code.
    #[track_caller]
    pub fn wait(mut self) -> Outcome {
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break Some(status);
            }
            if self.started.elapsed() >= self.timeout {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            thread::sleep(Duration::from_millis(5));
        };
        self.ended.store(true, Ordering::Relaxed);
        if let Some(writer) = self.writer.take() {
            writer.join().unwrap();
        }
        // A process the program left behind may hold its pipes open: bounded too.
        let grace = Duration::from_secs(10);
        let stdout = self.stdout.recv_timeout(grace);
        let stderr = self.stderr.recv_timeout(grace);
        let Some(status) = status else {
            panic!(
                "`{}` did not end within {:?} and was killed (a bound against hangs)\n{}",
                self.description,
                self.timeout,
                show("stdout", &stdout.unwrap_or_default()),
            );
        };
        let (Ok(stdout), Ok(stderr)) = (stdout, stderr) else {
            panic!(
                "`{}` ended, but something it started still holds its stdout or stderr open",
                self.description
            );
        };
        let outcome = Outcome {
            output: Output {
                status,
                stdout,
                stderr,
            },
            description: std::mem::take(&mut self.description),
        };
        if let Some(again) = self.again.take()
            && failed_in_the_loader(&outcome.output)
        {
            return again.spawn().wait();
        }
        if let Some(expected) = &self.expected_stdout {
            outcome.check(
                outcome.output.stdout == *expected,
                &format!("stdout is not {:?}", String::from_utf8_lossy(expected)),
            );
        }
        if self.stdout_warning_allowed {
            outcome.check(
                outcome.output.stdout.is_empty() || is_one_warning(&outcome.output.stdout),
                "stdout is neither empty nor one `{\"systemMessage\": ...}` object",
            );
        }
        for text in &self.stdout_contains {
            outcome.check(
                String::from_utf8_lossy(&outcome.output.stdout).contains(text),
                &format!("stdout lacks {text:?}"),
            );
        }
        for text in &self.stderr_contains {
            outcome.check(
                String::from_utf8_lossy(&outcome.output.stderr).contains(text),
                &format!("stderr lacks {text:?}"),
            );
        }
        for (path, expected) in &self.expected_files {
            let actual = fs_err::read(path).ok();
            outcome.check(
                actual.as_ref() == Some(expected),
                &format!(
                    "`{}` holds {:?}, not {:?}",
                    path.display(),
                    actual.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
                    String::from_utf8_lossy(expected)
                ),
            );
        }
        outcome
    }
}

/// Returns true if and only if `stdout` is exactly one JSON object whose only member is a string
/// `systemMessage`: the Stop hook's warning.
pub fn is_one_warning(stdout: &[u8]) -> bool {
    serde_json::from_slice::<Value>(stdout).is_ok_and(|value| {
        value.as_object().is_some_and(|object| {
            object.len() == 1 && object.get("systemMessage").is_some_and(Value::is_string)
        })
    })
}

impl Drop for Running {
    /// A run a test dropped without waiting (it failed in between) is ended, so that nothing of
    /// it outlives the test or writes into a world being removed.
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        self.ended.store(true, Ordering::Relaxed);
    }
}

/// What a program did: its exit status, stdout and stderr.
#[derive(Debug)]
pub struct Outcome {
    output: Output,
    description: String,
}

impl Outcome {
    /// The exit code (`None` when a signal ended it).
    pub fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    /// The bytes on stdout.
    pub fn stdout(&self) -> &[u8] {
        &self.output.stdout
    }

    /// The bytes on stderr.
    pub fn stderr(&self) -> &[u8] {
        &self.output.stderr
    }

    /// Stdout, which must be UTF-8.
    #[track_caller]
    pub fn stdout_text(&self) -> String {
        let text = String::from_utf8(self.output.stdout.clone());
        self.check(text.is_ok(), "stdout is not UTF-8");
        text.unwrap()
    }

    /// Stderr, which must be UTF-8.
    #[track_caller]
    pub fn stderr_text(&self) -> String {
        let text = String::from_utf8(self.output.stderr.clone());
        self.check(text.is_ok(), "stderr is not UTF-8");
        text.unwrap()
    }

    /// Stdout parsed as JSON.
    #[track_caller]
    pub fn json(&self) -> Value {
        let parsed = serde_json::from_slice(&self.output.stdout);
        if let Err(error) = &parsed {
            self.fail(&format!("stdout is not JSON: {error}"));
        }
        parsed.unwrap()
    }

    /// Checks that the program exited 0.
    #[track_caller]
    pub fn success(self) -> Self {
        self.check(self.output.status.success(), "it did not exit 0");
        self
    }

    /// Checks that the program exited with a code other than 0 (and was not killed).
    #[track_caller]
    pub fn failure(self) -> Self {
        self.check(
            self.code().is_some_and(|code| code != 0),
            "it did not exit with a failure code",
        );
        self
    }

    /// Checks that the program exited with `code`.
    #[track_caller]
    pub fn exit_code(self, code: i32) -> Self {
        self.check(
            self.code() == Some(code),
            &format!("it did not exit with {code}"),
        );
        self
    }

    /// The raw output, for callers written against `std::process::Output`.
    pub fn into_output(self) -> Output {
        self.output
    }

    #[track_caller]
    fn check(&self, holds: bool, problem: &str) {
        if !holds {
            self.fail(problem);
        }
    }

    #[track_caller]
    fn fail(&self, problem: &str) -> ! {
        panic!(
            "`{}`: {problem}\nexit: {}\n{}{}",
            self.description,
            self.output.status,
            show("stdout", &self.output.stdout),
            show("stderr", &self.output.stderr)
        );
    }
}

/// `bytes` between rulers, for a failure message.
fn show(name: &str, bytes: &[u8]) -> String {
    let mut text = format!("--- {name} ({} bytes) ---\n", bytes.len());
    let _ = writeln!(text, "{}", String::from_utf8_lossy(bytes).trim_end());
    text
}
