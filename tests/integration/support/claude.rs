//! Running the real Claude Code CLI (pinned, installed by `tests/e2e/install-tools.sh` into
//! `.e2e/`) in a throwaway `HOME` and project, against the scripted model server, with our real
//! binaries installed by the real `ctxhooks install`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::{Value, json};

use super::model_server::ModelServer;
use super::scratch::Scratch;

/// The Claude Code version the end-to-end tests are written against.
pub const PINNED_CLAUDE_CODE: &str = "2.1.332";

/// The binaries a sandbox installs, by their public names.
const BINARIES: [(&str, &str); 4] = [
    ("ctxhooks", env!("CARGO_BIN_EXE_ctxhooks")),
    (
        "ctxhooks-precompact",
        env!("CARGO_BIN_EXE_ctxhooks-precompact"),
    ),
    ("ctxhooks-stop", env!("CARGO_BIN_EXE_ctxhooks-stop")),
    ("ctxhooks-tooluse", env!("CARGO_BIN_EXE_ctxhooks-tooluse")),
];

/// The repository root.
pub fn repository_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The pinned `claude` binary, or `None` when the end-to-end tests should be skipped.
/// `CTXHOOKS_E2E=require` (set by the README's test command and CI) turns a missing CLI into a
/// failure; `CTXHOOKS_CLAUDE_BIN` points at another install.
pub fn claude_binary() -> Option<PathBuf> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let path = std::env::var_os("CTXHOOKS_CLAUDE_BIN").map_or_else(
                || repository_root().join(".e2e/node_modules/.bin/claude"),
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

/// A throwaway world: `HOME`, a trusted project, and our binaries in a folder whose path has a
/// space (so that the exec form of the installed hooks is exercised).
pub struct Sandbox {
    scratch: Scratch,
    pub home: PathBuf,
    pub project: PathBuf,
    pub bin_dir: PathBuf,
    claude: PathBuf,
}

impl Sandbox {
    /// A new sandbox, or `None` when the CLI is missing and the test should be skipped.
    pub fn new(name: &str) -> Option<Self> {
        let claude = claude_binary()?;
        let scratch = Scratch::new(name);
        let home = scratch.join("home");
        let project = scratch.join("project");
        let bin_dir = scratch.join("bin with space");
        for dir in [&home, &project, &bin_dir] {
            fs_err::create_dir_all(dir).unwrap();
        }
        for (name, source) in BINARIES {
            fs_err::copy(source, bin_dir.join(name)).unwrap();
        }
        let trust = json!({
            "hasCompletedOnboarding": true,
            "projects": { project.to_string_lossy(): { "hasTrustDialogAccepted": true } }
        });
        fs_err::write(
            home.join(".claude.json"),
            serde_json::to_vec_pretty(&trust).unwrap(),
        )
        .unwrap();
        Some(Self {
            scratch,
            home,
            project,
            bin_dir,
            claude,
        })
    }

    /// The scratch folder holding everything.
    pub fn root(&self) -> &Path {
        self.scratch.path()
    }

    /// Our state folder in this sandbox (`$HOME/.claude/ctxhooks`).
    pub fn state_dir(&self) -> PathBuf {
        self.home.join(".claude/ctxhooks")
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

    /// A command for one of our installed binaries, run in the project with the sandbox's env.
    pub fn ctxhooks_command(&self, binary: &str) -> Command {
        let mut command = Command::new(self.bin_dir.join(binary));
        self.apply_environment(&mut command);
        command
    }

    /// Runs `ctxhooks ARGS` and returns its output (not checked).
    pub fn ctxhooks(&self, args: &[&str]) -> Output {
        self.ctxhooks_command("ctxhooks")
            .args(args)
            .output()
            .unwrap()
    }

    /// Runs `ctxhooks ARGS`, asserts success, and parses stdout as JSON.
    pub fn ctxhooks_json(&self, args: &[&str]) -> Value {
        let output = self.ctxhooks(args);
        assert!(
            output.status.success(),
            "ctxhooks {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&output.stderr),
            String::from_utf8_lossy(&output.stdout)
        );
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
            panic!(
                "ctxhooks {args:?} printed no JSON ({error}): {}",
                String::from_utf8_lossy(&output.stdout)
            )
        })
    }

    /// Installs our hooks into the project's settings with the real installer.
    pub fn install_hooks(&self) {
        let output = self.ctxhooks(&["install", "--scope", "project"]);
        assert!(
            output.status.success(),
            "ctxhooks install failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    fn apply_environment(&self, command: &mut Command) {
        command.current_dir(&self.project);
        for (key, _) in std::env::vars_os() {
            let key_text = key.to_string_lossy();
            if key_text.starts_with("ANTHROPIC_")
                || key_text.starts_with("CLAUDE")
                || key_text.starts_with("CTXHOOKS_")
                || key_text.starts_with("OTEL_")
            {
                command.env_remove(&key);
            }
        }
        command.env("HOME", &self.home);
        command.env("CTXHOOKS_STDIN_TIMEOUT_MS", "10000");
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
        let mut command = Command::new(&self.claude);
        self.apply_environment(&mut command);
        command
            .env("ANTHROPIC_BASE_URL", server.base_url())
            .env("ANTHROPIC_API_KEY", "sk-ant-test-ctxhooks")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .args(args)
            .stdin(std::process::Stdio::null());
        for (key, value) in env {
            command.env(key, value);
        }
        command.output().unwrap()
    }

    /// Runs `claude -p PROMPT --output-format json [--resume SESSION]` and returns the result
    /// object, asserting the CLI succeeded.
    pub fn prompt(&self, server: &ModelServer, prompt: &str, resume: Option<&str>) -> Value {
        let mut args = vec![
            "-p",
            prompt,
            "--output-format",
            "json",
            "--allowedTools",
            "Bash",
        ];
        if let Some(session) = resume {
            args.extend(["--resume", session]);
        }
        let output = self.claude(server, &args);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "claude {args:?} failed ({}):\nstdout: {stdout}\nstderr: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
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
        let slug: String = self
            .project
            .to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        self.home
            .join(".claude/projects")
            .join(slug)
            .join(format!("{session}.jsonl"))
    }

    /// Runs `tests/e2e/sdk-interrupt.mjs SCENARIO` with the pinned Agent SDK against `server`, in
    /// this sandbox's project and `HOME`, marking through the real `ctxhooks mark-interrupt`.
    /// Returns the driver's JSON report.
    pub fn run_sdk_driver(&self, server: &ModelServer, scenario: &str) -> Value {
        let driver = repository_root().join("tests/e2e/sdk-interrupt.mjs");
        let mut command = Command::new("node");
        self.apply_environment(&mut command);
        command
            .arg(&driver)
            .arg(server.base_url())
            .arg(scenario)
            .arg(&self.project)
            .env("CTXHOOKS_HOME", self.state_dir())
            .env("CTXHOOKS_E2E_HOME", &self.home)
            .env("CTXHOOKS_MARK_BIN", self.bin_dir.join("ctxhooks"))
            .stdin(std::process::Stdio::null());
        let output = command.output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "sdk driver {scenario} failed ({}):\nstdout: {stdout}\nstderr: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_str(stdout.trim())
            .unwrap_or_else(|error| panic!("the sdk driver printed no JSON ({error}): {stdout}"))
    }

    /// The lines of `errors.log`, if any.
    pub fn error_log_lines(&self) -> Vec<String> {
        fs_err::read_to_string(self.state_dir().join("errors.log"))
            .map(|text| text.lines().map(str::to_owned).collect())
            .unwrap_or_default()
    }
}
