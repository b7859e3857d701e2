//! Running the real Claude Code CLI (pinned, installed by `tests/e2e/install-tools.sh` into
//! `.e2e/`) in a throwaway `HOME` and project, against the scripted model server, with our real
//! binaries installed by the real `ctxhooks install`.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::Duration;

use ctxhooks_shared::store::env_vars;
use serde_json::{Value, json};

use super::fixtures::repository_file;
#[expect(
    unused_imports,
    reason = "part of this module's public API before the harness moved it to fixtures.rs"
)]
pub use super::fixtures::repository_root;
use super::model_server::ModelServer;
use super::run::{CTXHOOKS, CTXHOOKS_SEARCH, Hook, Run};
use super::summary::{group_of, record_group};
use super::world::World;

/// The API key the CLI is given (any text: the model server does not check it).
pub const API_KEY: &str = "sk-ant-test-ctxhooks";

/// The Claude Code version the end-to-end tests are written against.
pub const PINNED_CLAUDE_CODE: &str = "2.1.332";

/// How long one run of the CLI or the SDK driver may take before it counts as hung: a bound
/// against hangs on a busy machine, never a timing assertion.
const CLI_TIMEOUT: Duration = Duration::from_secs(600);

/// What the real CLI's hooks get in their environment beside their own budgets: a deadline on
/// their stdin and a wait for the turn's last response to reach the transcript long enough for
/// a busy machine, which can start a hook, or write the response, later than their 5 s and 1 s
/// (the Stop hook would then give the gauge and the warning a turn late, as documented): an
/// end-to-end test is about what the hooks do, and fails only for a defect.
pub const CLI_HOOK_ENV: [(&str, &str); 2] = [
    (env_vars::CTXHOOKS_STDIN_TIMEOUT_MS, "10000"),
    (env_vars::CTXHOOKS_RESPONSE_WAIT_MS, "10000"),
];

/// The pinned `claude` binary, or `None` when the end-to-end tests should be skipped.
/// `CTXHOOKS_E2E=require` (set by the README's test command and CI) turns a missing CLI into a
/// failure; `CTXHOOKS_CLAUDE_BIN` points at another install.
pub fn claude_binary() -> Option<PathBuf> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let path = std::env::var_os("CTXHOOKS_CLAUDE_BIN").map_or_else(
                || repository_file(".e2e/node_modules/.bin/claude"),
                PathBuf::from,
            );
            let required = std::env::var("CTXHOOKS_E2E").is_ok_and(|value| value == "require");
            if path.exists() {
                return Some(path);
            }
            assert!(
                !required,
                "CTXHOOKS_E2E=require but the pinned Claude Code CLI is missing at `{}`: run tests/e2e/install-tools.sh",
                path.display()
            );
            // Written straight to the process's stderr, past the test harness's capture, so that
            // a plain `cargo test` says loudly what it did not run.
            let _ = writeln!(
                std::io::stderr(),
                "\nSKIPPED: the end-to-end tests with the real Claude Code CLI did not run (no CLI at `{}`).\n         Run them with: tests/run.sh   (installs the pinned CLI, then runs every test)\n",
                path.display()
            );
            None
        })
        .clone()
}

/// A [`World`] for the real CLI: a trusted project, and our binaries in a folder whose path has
/// a space (so that the exec form of the installed hooks is exercised).
///
/// Our commands run with the world's environment. The CLI gets the world's `HOME` but neither
/// `CLAUDE_CONFIG_DIR` nor `CTXHOOKS_HOME`, as on a user's machine: the CLI then finds its
/// `~/.claude.json` and `~/.claude`, and the hooks it runs find the state folder on their own,
/// where our commands (told `CTXHOOKS_HOME`) look. Its `TMPDIR` is in the world too, so that
/// what it leaves there goes with the world.
pub struct Sandbox {
    world: World,
    /// `HOME`.
    pub home: PathBuf,
    /// The trusted project, the CLI's current folder.
    pub project: PathBuf,
    /// Where our binaries are installed from (its path has a space).
    pub bin_dir: PathBuf,
    claude: PathBuf,
}

impl Sandbox {
    /// A new sandbox, or `None` when the CLI is missing and the test should be skipped. Records
    /// for `tests/run.sh`'s summary that a test of the calling file's group ran or was skipped.
    #[track_caller]
    pub fn new(name: &str) -> Option<Self> {
        let group = group_of(std::panic::Location::caller().file());
        let Some(claude) = claude_binary() else {
            record_group(&group, "skipped: no pinned Claude Code CLI in .e2e/");
            return None;
        };
        record_group(&group, "ran");
        let world = World::new(name);
        let bin_dir = world.join("bin with space");
        fs_err::create_dir_all(&bin_dir).unwrap();
        fs_err::create_dir_all(world.join("tmp")).unwrap();
        fs_err::copy(CTXHOOKS, bin_dir.join("ctxhooks")).unwrap();
        fs_err::copy(CTXHOOKS_SEARCH, bin_dir.join("ctxhooks-search")).unwrap();
        for hook in Hook::ALL {
            fs_err::copy(hook.binary(), bin_dir.join(hook.name())).unwrap();
        }
        // An interactive CLI uses a key from the environment only once it was approved (the
        // last 20 characters), else it says the key is not used.
        let approved = &API_KEY[API_KEY.len().saturating_sub(20)..];
        let trust = json!({
            "hasCompletedOnboarding": true,
            "projects": { world.project().to_string_lossy(): { "hasTrustDialogAccepted": true } },
            "customApiKeyResponses": { "approved": [approved], "rejected": [] }
        });
        fs_err::write(
            world.home().join(".claude.json"),
            serde_json::to_vec_pretty(&trust).unwrap(),
        )
        .unwrap();
        Some(Self {
            home: world.home(),
            project: world.project(),
            bin_dir,
            claude,
            world,
        })
    }

    /// The pinned `claude` program.
    pub fn claude_path(&self) -> &Path {
        &self.claude
    }

    /// The world the sandbox is built on.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The scratch folder holding everything.
    pub fn root(&self) -> &Path {
        self.world.root()
    }

    /// Our state folder in this sandbox (`$HOME/.claude/ctxhooks`).
    pub fn state_dir(&self) -> PathBuf {
        self.world.state_dir()
    }

    /// Writes the project's `.claude/settings.json` keys we need before `ctxhooks install`.
    pub fn write_project_settings(&self, settings: &Value) {
        let dir = self.project.join(".claude");
        fs_err::create_dir_all(&dir).unwrap();
        fs_err::write(
            dir.join("settings.json"),
            serde_json::to_vec_pretty(settings).unwrap(),
        )
        .unwrap();
    }

    /// Runs one of our installed binaries (from `bin_dir`) in this sandbox (a hook started this
    /// way waits for its stdin as long as under the CLI).
    pub fn run_installed(&self, binary: &str) -> Run {
        Run::program(self.bin_dir.join(binary))
            .world(&self.world)
            .env(env_vars::CTXHOOKS_STDIN_TIMEOUT_MS, "10000")
    }

    /// Runs the installed `ctxhooks ARGS` in this sandbox.
    pub fn run_ctxhooks<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.run_installed("ctxhooks").args(args)
    }

    /// A command for one of our installed binaries, run in the project with the sandbox's env.
    pub fn ctxhooks_command(&self, binary: &str) -> Command {
        self.run_installed(binary).command()
    }

    /// Runs `ctxhooks ARGS` and returns its output (not checked).
    pub fn ctxhooks(&self, args: &[&str]) -> Output {
        self.run_ctxhooks(args).output().into_output()
    }

    /// Runs `ctxhooks ARGS`, asserts success, and parses stdout as JSON.
    #[track_caller]
    pub fn ctxhooks_json(&self, args: &[&str]) -> Value {
        self.run_ctxhooks(args).json()
    }

    /// Installs our hooks into the project's settings with the real installer.
    #[track_caller]
    pub fn install_hooks(&self) {
        self.run_ctxhooks(["install", "--scope", "project"])
            .success();
    }

    /// Runs the real CLI in this sandbox; `ANTHROPIC_BASE_URL` points at `server`. The hooks it
    /// runs have their own budgets, as on a user's machine (not the world's test budget): a test
    /// asserts what holds when a busy machine makes one run out (see [`Sandbox::problems`]).
    pub fn run_claude(&self, server: &ModelServer) -> Run {
        Run::program(&self.claude)
            .world(&self.world)
            .env_remove(env_vars::CLAUDE_CONFIG_DIR)
            .env_remove(env_vars::CTXHOOKS_HOME)
            .env_remove(env_vars::CTXHOOKS_HOOK_BUDGET_MS)
            .envs(CLI_HOOK_ENV)
            .env("TMPDIR", self.world.join("tmp"))
            .env("ANTHROPIC_BASE_URL", server.base_url())
            .env("ANTHROPIC_API_KEY", API_KEY)
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .timeout(CLI_TIMEOUT)
    }

    /// Runs the real CLI with `args` against `server`; returns its output (not checked).
    pub fn claude(&self, server: &ModelServer, args: &[&str]) -> Output {
        self.claude_with_env(server, args, &[])
    }

    /// [`Sandbox::claude`] with extra environment variables.
    pub fn claude_with_env(
        &self,
        server: &ModelServer,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Output {
        env.iter()
            .fold(self.run_claude(server).args(args), |run, (key, value)| {
                run.env(key, value)
            })
            .output()
            .into_output()
    }

    /// Runs `claude -p PROMPT --output-format json [--resume SESSION]` and returns the result
    /// object, asserting the CLI succeeded.
    #[track_caller]
    pub fn prompt(&self, server: &ModelServer, prompt: &str, resume: Option<&str>) -> Value {
        self.prompt_allowing(server, prompt, resume, "Bash")
    }

    /// [`Sandbox::prompt`] with these tools allowed (`--allowedTools`, such as `Bash Write`).
    #[track_caller]
    pub fn prompt_allowing(
        &self,
        server: &ModelServer,
        prompt: &str,
        resume: Option<&str>,
        tools: &str,
    ) -> Value {
        let mut args = vec![
            "-p",
            prompt,
            "--output-format",
            "json",
            "--allowedTools",
            tools,
        ];
        if let Some(session) = resume {
            args.extend(["--resume", session]);
        }
        let output = self.run_claude(server).args(&args).success();
        let stdout = output.stdout_text();
        let result: Value = serde_json::from_str(stdout.trim())
            .unwrap_or_else(|error| panic!("claude printed no JSON result ({error}): {stdout}"));
        assert_eq!(
            result["is_error"], false,
            "claude reported an error: {result}"
        );
        result
    }

    /// The transcript of `session` in this sandbox's Claude Code project folder.
    pub fn transcript_path(&self, session: &str) -> PathBuf {
        self.world.transcript_path(session)
    }

    /// Runs `tests/e2e/sdk-interrupt.mjs SCENARIO` with the pinned Agent SDK against `server`, in
    /// this sandbox's project and `HOME`, marking through the real `ctxhooks mark-interrupt`.
    /// Returns the driver's JSON report.
    #[track_caller]
    pub fn run_sdk_driver(&self, server: &ModelServer, scenario: &str) -> Value {
        let output = Run::program("node")
            .world(&self.world)
            .arg(repository_file("tests/e2e/sdk-interrupt.mjs"))
            .arg(server.base_url())
            .arg(scenario)
            .arg(&self.project)
            .envs(CLI_HOOK_ENV)
            .env_remove(env_vars::CTXHOOKS_HOOK_BUDGET_MS)
            .env("TMPDIR", self.world.join("tmp"))
            .env("CTXHOOKS_E2E_HOME", &self.home)
            .env("CTXHOOKS_MARK_BIN", self.bin_dir.join("ctxhooks"))
            .timeout(CLI_TIMEOUT)
            .success();
        let stdout = output.stdout_text();
        serde_json::from_str(stdout.trim())
            .unwrap_or_else(|error| panic!("the sdk driver printed no JSON ({error}): {stdout}"))
    }

    /// The lines of `errors.log`, if any.
    pub fn error_log_lines(&self) -> Vec<String> {
        self.world.error_lines()
    }

    /// The lines of `errors.log` that say a problem: all but those of a `SessionEnd` the
    /// watchdog stopped at its budget. The CLI gives that hook 1 s, and a busy machine can take
    /// longer to start it and keep the session's last bytes; the run says so in one line, and
    /// the next Stop hook, of any session, keeps what it left (`keep/catch_up.rs`; held by
    /// `keep::a_session_end_cut_short_is_kept_whole_by_the_next_stop` and by `e2e_keep`, which
    /// restores what a later session's turn caught up).
    pub fn problems(&self) -> Vec<String> {
        self.error_log_lines()
            .into_iter()
            .filter(|line| !is_session_end_out_of_budget(line))
            .collect()
    }
}

/// Whether the error log line `line` is a `SessionEnd` of `ctxhooks-session` that its watchdog
/// stopped at its budget.
fn is_session_end_out_of_budget(line: &str) -> bool {
    let Ok(record) = serde_json::from_str::<Value>(line) else {
        return false;
    };
    record["hook"] == "ctxhooks-session"
        && record["event"] == "SessionEnd"
        && record["error"].as_array().is_some_and(|causes| {
            causes.len() == 1
                && causes[0].as_str().is_some_and(|cause| {
                    cause.starts_with("the hook did not finish within its budget")
                })
        })
}
