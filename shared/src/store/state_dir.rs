//! Where ctxhooks keeps its files: the state folder and one subfolder per session.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::store::env_vars;
use crate::store::files::{self, FileError};
use crate::store::session_id::SessionId;

/// The state folder: `$CTXHOOKS_HOME`, else `${CLAUDE_CONFIG_DIR:-$HOME/.claude}/ctxhooks`.
#[derive(Debug, Clone)]
pub struct StateDir {
    root: PathBuf,
}

impl StateDir {
    /// Finds the state folder from the environment. It is not created here.
    pub fn locate() -> Result<Self> {
        if let Some(home) = non_empty_var(env_vars::CTXHOOKS_HOME) {
            return Ok(Self::at(PathBuf::from(home)));
        }
        Ok(Self::at(claude_config_dir()?.join("ctxhooks")))
    }

    /// A state folder at an explicit place.
    pub fn at(root: PathBuf) -> Self {
        Self { root }
    }

    /// The folder itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Creates the folder (mode 0700) if it does not exist yet.
    pub fn ensure(&self) -> Result<()> {
        files::create_private_dir_all(&self.root).context("failed to create the state folder")
    }

    /// The folder that holds every session's subfolder.
    pub fn sessions_dir(&self) -> PathBuf {
        self.root.join("sessions")
    }

    /// One session's folder: `<state>/sessions/<session id>`. Not created here.
    pub fn session_dir(&self, session: &SessionId) -> PathBuf {
        self.sessions_dir().join(session.as_str())
    }

    /// Creates one session's folder (mode 0700) and returns it.
    pub fn ensure_session_dir(&self, session: &SessionId) -> Result<PathBuf> {
        let dir = self.session_dir(session);
        files::create_private_dir_all(&dir).context("failed to create the session folder")?;
        Ok(dir)
    }

    /// `ctxhooks search`'s index of every transcript (an `SQLite` database; only the commands
    /// write it, never a hook).
    pub fn search_index(&self) -> PathBuf {
        self.root.join("search").join("index.sqlite")
    }

    /// The error log every hook appends its problems to.
    pub fn errors_log(&self) -> PathBuf {
        self.root.join("errors.log")
    }

    /// The limits a person set on ctxhooks' own storage (`config.json`, see `store/config.rs`).
    pub fn config_file(&self) -> PathBuf {
        self.root.join("config.json")
    }

    /// Every deletion of a session's copies or record, by `archives prune` or the configured
    /// limit (`pruned.jsonl`, see `store/storage.rs`).
    pub fn prune_log(&self) -> PathBuf {
        self.root.join("pruned.jsonl")
    }

    /// When the configured limit was last applied (`prune.stamp`; its modification time).
    pub fn prune_stamp(&self) -> PathBuf {
        self.root.join("prune.stamp")
    }

    /// The lock that keeps two Stop hooks from applying the configured limit at once.
    pub fn prune_lock(&self) -> PathBuf {
        self.root.join("prune.lock")
    }

    /// What `ctxhooks install` added to which settings file.
    pub fn installs_file(&self) -> PathBuf {
        self.root.join("installs.json")
    }

    /// The lock that serializes installs and uninstalls.
    pub fn installs_lock(&self) -> PathBuf {
        self.root.join("installs.lock")
    }

    /// Settings files as they were before each change by install or uninstall.
    pub fn backups_dir(&self) -> PathBuf {
        self.root.join("backups")
    }

    /// What `history` and `export` read from each transcript, kept for their next run
    /// (`history-cache/`, one file per transcript).
    pub fn history_cache_dir(&self) -> PathBuf {
        self.root.join("history-cache")
    }

    /// One session's usage log (`usage.jsonl`).
    pub fn usage_log(&self, session: &SessionId) -> PathBuf {
        self.session_dir(session).join("usage.jsonl")
    }

    /// The lock that serializes one session's usage ingests (Stop and `SubagentStop` overlap).
    pub fn usage_lock(&self, session: &SessionId) -> PathBuf {
        self.session_dir(session).join("usage.lock")
    }

    /// Where the last ingest of each of the session's transcripts stopped (`cursor.json`).
    pub fn cursor_file(&self, session: &SessionId) -> PathBuf {
        self.session_dir(session).join("cursor.json")
    }

    /// One session's gauge (`gauge.json`, see `store/gauge.rs`).
    pub fn gauge_file(&self, session: &SessionId) -> PathBuf {
        self.session_dir(session).join("gauge.json")
    }

    /// The window the status line gave for one session (`window.json`, see
    /// `store/status_window.rs`).
    pub fn status_window_file(&self, session: &SessionId) -> PathBuf {
        self.session_dir(session).join("window.json")
    }

    /// One session's provenance sidecar (`provenance.jsonl`).
    pub fn sidecar(&self, session: &SessionId) -> PathBuf {
        self.session_dir(session).join("provenance.jsonl")
    }

    /// One session's snapshots (`archive/`).
    pub fn archive_dir(&self, session: &SessionId) -> PathBuf {
        self.session_dir(session).join("archive")
    }

    /// One session's kept transcript copies (`kept/`, see `store/kept.rs`).
    pub fn kept_dir(&self, session: &SessionId) -> PathBuf {
        self.session_dir(session).join(crate::store::kept::KEPT_DIR)
    }

    /// The files `ctxhooks archives restore --force` replaced, kept apart (`replaced/`, see
    /// the commands crate's `archives/replaced.rs`): never part of the kept copies, never deleted by ctxhooks.
    pub fn replaced_dir(&self, session: &SessionId) -> PathBuf {
        self.session_dir(session).join("replaced")
    }

    /// The lock that serializes the writers of one session's kept copies.
    pub fn kept_lock(&self, session: &SessionId) -> PathBuf {
        self.kept_dir(session).join("lock")
    }

    /// Creates `path` (inside the state folder) and its missing parents below the state folder
    /// with mode 0700, and refuses any of them, existing or not, that is a symbolic link: what
    /// is kept never leaves the state folder through a link. The state folder itself may be one
    /// (a user may well keep it on another disk).
    pub fn ensure_real_dir(&self, path: &Path) -> Result<()> {
        let relative = path.strip_prefix(&self.root).with_context(|| {
            format!(
                "`{}` is not inside the state folder `{}`",
                path.display(),
                self.root.display()
            )
        })?;
        self.ensure()?;
        let mut current = self.root.clone();
        for component in relative.components() {
            let std::path::Component::Normal(part) = component else {
                bail!(
                    "`{}` is not a plain path inside the state folder",
                    path.display()
                );
            };
            current.push(part);
            match fs_err::symlink_metadata(&current) {
                Ok(metadata) if crate::platform::open::is_link(&metadata) => {
                    return Err(FileError::LinkOutOfStateFolder(current).into());
                }
                Ok(metadata) if metadata.is_dir() => {}
                Ok(_) => bail!("`{}` is not a folder", current.display()),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                    files::create_private_dir_all(&current)?;
                }
                Err(error) => return Err(error.into()),
            }
        }
        Ok(())
    }

    /// The ids of every session that has a folder, sorted.
    pub fn session_ids(&self) -> Result<Vec<SessionId>> {
        let dir = self.sessions_dir();
        if !dir.exists() {
            return Ok(Vec::new());
        }
        let mut ids = Vec::new();
        for entry in fs_err::read_dir(&dir).context("failed to list sessions")? {
            let entry = entry?;
            if let Some(name) = entry.file_name().to_str()
                && let Ok(id) = SessionId::parse(name)
                && entry.file_type()?.is_dir()
            {
                ids.push(id);
            }
        }
        ids.sort();
        Ok(ids)
    }
}

/// Claude Code's configuration folder: `$CLAUDE_CONFIG_DIR`, else `$HOME/.claude`.
pub fn claude_config_dir() -> Result<PathBuf> {
    if let Some(dir) = non_empty_var(env_vars::CLAUDE_CONFIG_DIR) {
        return Ok(PathBuf::from(dir));
    }
    match non_empty_var(env_vars::HOME) {
        Some(home) => Ok(PathBuf::from(home).join(".claude")),
        None => bail!("neither `CTXHOOKS_HOME`, `CLAUDE_CONFIG_DIR` nor `HOME` is set"),
    }
}

fn non_empty_var(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|value| !value.is_empty())
}
