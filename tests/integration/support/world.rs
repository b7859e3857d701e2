//! A world for one test: a private `HOME` laid out as Claude Code lays it out, our state folder
//! in it, and a project folder. Every program a test runs gets this world's environment (see
//! [`World::hook`], [`World::ctxhooks`] and [`World::program`]).
//!
//! ```text
//! <scratch>/
//!   home/                               HOME
//!   home/.claude/                       config_dir()      CLAUDE_CONFIG_DIR
//!   home/.claude/settings.json          user_settings()
//!   home/.claude/ctxhooks/              state_dir()       CTXHOOKS_HOME (not created)
//!   home/.claude/projects/<slug>/       transcripts_dir() where Claude Code writes transcripts
//!   managed/                            managed_settings_dir()  CTXHOOKS_MANAGED_SETTINGS_DIR
//!   project/                            project()         the current folder of every program
//! ```
//!
//! Only `home/` and `project/` exist at first (the tests check what the programs create); asking
//! for a transcript path creates the transcript folder.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use ctxhooks_shared::store::state_dir::StateDir;
use serde_json::Value;

use super::files::{json_lines, text_lines};
use super::run::{Hook, Run};
use super::scratch::Scratch;

/// A private home, state folder and project, removed when dropped.
pub struct World {
    scratch: Scratch,
}

impl World {
    /// A new world in a fresh scratch folder named after `name`.
    pub fn new(name: &str) -> Self {
        let world = Self {
            scratch: Scratch::new(name),
        };
        fs_err::create_dir_all(world.home()).unwrap();
        fs_err::create_dir_all(world.project()).unwrap();
        world
    }

    /// The folder holding everything.
    pub fn root(&self) -> &Path {
        self.scratch.path()
    }

    /// A path in the world's folder, beside `home/` and `project/`, for files a test makes.
    pub fn join(&self, relative: impl AsRef<Path>) -> PathBuf {
        self.scratch.join(relative)
    }

    /// `HOME`.
    pub fn home(&self) -> PathBuf {
        self.join("home")
    }

    /// Claude Code's configuration folder, `CLAUDE_CONFIG_DIR` (its default place).
    pub fn config_dir(&self) -> PathBuf {
        self.home().join(".claude")
    }

    /// Our state folder, `CTXHOOKS_HOME` (its default place). Not created by the world.
    pub fn state_dir(&self) -> PathBuf {
        self.config_dir().join("ctxhooks")
    }

    /// The state folder, as the library names it.
    pub fn state(&self) -> StateDir {
        StateDir::at(self.state_dir())
    }

    /// A session's folder in the state folder.
    pub fn session_dir(&self, session: &str) -> PathBuf {
        self.state_dir().join("sessions").join(session)
    }

    /// A session's provenance sidecar.
    pub fn sidecar(&self, session: &str) -> PathBuf {
        self.session_dir(session).join("provenance.jsonl")
    }

    /// The project folder: the current folder of every program run in this world.
    pub fn project(&self) -> PathBuf {
        self.join("project")
    }

    /// The user settings file, `$CLAUDE_CONFIG_DIR/settings.json`.
    pub fn user_settings(&self) -> PathBuf {
        self.config_dir().join("settings.json")
    }

    /// The folder of Claude Code's managed settings as every program in this world reads it
    /// (`CTXHOOKS_MANAGED_SETTINGS_DIR`; not created by the world).
    pub fn managed_settings_dir(&self) -> PathBuf {
        self.join("managed")
    }

    /// Writes the user settings file.
    pub fn write_user_settings(&self, text: &str) {
        fs_err::create_dir_all(self.config_dir()).unwrap();
        fs_err::write(self.user_settings(), text).unwrap();
    }

    /// The project's transcript folder, `$CLAUDE_CONFIG_DIR/projects/<slug>`, where the slug is
    /// the project's path with every character but ASCII letters and digits replaced by `-`, as
    /// Claude Code names it.
    pub fn transcripts_dir(&self) -> PathBuf {
        let slug: String = self
            .project()
            .to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        self.config_dir().join("projects").join(slug)
    }

    /// A path in the transcript folder, which this creates (with `home/.claude`) if needed.
    pub fn transcript(&self, relative: impl AsRef<Path>) -> PathBuf {
        let path = self.transcripts_dir().join(relative);
        fs_err::create_dir_all(path.parent().unwrap()).unwrap();
        path
    }

    /// The main transcript of `session`, where Claude Code writes it.
    pub fn transcript_path(&self, session: &str) -> PathBuf {
        self.transcript(format!("{session}.jsonl"))
    }

    /// Writes a file in the transcript folder and returns its path.
    pub fn write_transcript(
        &self,
        relative: impl AsRef<Path>,
        contents: impl AsRef<[u8]>,
    ) -> PathBuf {
        let path = self.transcript(relative);
        fs_err::write(&path, contents).unwrap();
        path
    }

    /// The lines of the hooks' `errors.log`, parsed.
    pub fn errors(&self) -> Vec<Value> {
        json_lines(&self.state_dir().join("errors.log"))
    }

    /// The lines of the hooks' `errors.log`, as text.
    pub fn error_lines(&self) -> Vec<String> {
        text_lines(&self.state_dir().join("errors.log"))
    }

    /// Every path under the state folder, relative, sorted.
    pub fn state_entries(&self) -> Vec<String> {
        let mut entries = Vec::new();
        collect(&self.state_dir(), &self.state_dir(), &mut entries);
        entries.sort();
        entries
    }

    /// The installer's backups of settings files, sorted.
    pub fn backups(&self) -> Vec<PathBuf> {
        let dir = self.state_dir().join("backups");
        if !dir.exists() {
            return Vec::new();
        }
        let mut backups: Vec<PathBuf> = fs_err::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        backups.sort();
        backups
    }

    /// Runs one of our hooks in this world.
    pub fn hook(&self, hook: Hook) -> Run {
        Run::hook(hook).world(self)
    }

    /// Runs `ctxhooks ARGS` in this world.
    pub fn ctxhooks<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        Run::ctxhooks(args).world(self)
    }

    /// Runs any program in this world.
    pub fn program(&self, program: impl AsRef<OsStr>) -> Run {
        Run::program(program).world(self)
    }
}

fn collect(root: &Path, dir: &Path, entries: &mut Vec<String>) {
    let Ok(read) = fs_err::read_dir(dir) else {
        return;
    };
    for entry in read {
        let entry = entry.unwrap();
        entries.push(
            entry
                .path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned(),
        );
        if entry.file_type().unwrap().is_dir() {
            collect(root, &entry.path(), entries);
        }
    }
}
