//! Where ctxhooks keeps its files: the state folder and one subfolder per session.

use std::path::{Path, PathBuf};

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
    pub fn locate() -> Result<Self, FileError> {
        if let Some(home) = env_vars::non_empty(env_vars::CTXHOOKS_HOME) {
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
    pub fn ensure(&self) -> Result<(), FileError> {
        files::create_private_dir_all(&self.root)
            .map_err(|error| FileError::CreateStateFolder(Box::new(error)))
    }

    /// One session's folder: `<state>/sessions/<session id>`. Not created here.
    pub fn session_dir(&self, session: &SessionId) -> PathBuf {
        self.sessions_dir().join(session.as_str())
    }

    /// Creates one session's folder (mode 0700) and returns it.
    pub fn ensure_session_dir(&self, session: &SessionId) -> Result<PathBuf, FileError> {
        let dir = self.session_dir(session);
        files::create_private_dir_all(&dir)
            .map_err(|error| FileError::CreateSessionFolder(Box::new(error)))?;
        Ok(dir)
    }

    /// `ctxhooks search`'s index of every transcript (an `SQLite` database; only the commands
    /// write it, never a hook).
    pub fn search_index(&self) -> PathBuf {
        self.root.join("search").join("index.sqlite")
    }

    /// What `ctxhooks search` last found in each kept session's folder (its listing and the
    /// newest generations' headers), kept for the next search while the folders look the same
    /// (only the commands write it, never a hook; safe to delete).
    pub fn search_kept_listing(&self) -> PathBuf {
        self.root.join("search").join("kept-listing.json")
    }

    /// The lock that serializes the writers of one session's kept copies.
    pub fn kept_lock(&self, session: &SessionId) -> PathBuf {
        self.kept_dir(session).join("lock")
    }

    /// Creates `path` (inside the state folder) and its missing parents below the state folder
    /// with mode 0700, and refuses any of them, existing or not, that is a symbolic link: what
    /// is kept never leaves the state folder through a link. The state folder itself may be one
    /// (a user may well keep it on another disk).
    pub fn ensure_real_dir(&self, path: &Path) -> Result<(), FileError> {
        let relative =
            path.strip_prefix(&self.root)
                .map_err(|source| FileError::OutsideStateFolder {
                    path: path.to_owned(),
                    root: self.root.clone(),
                    source,
                })?;
        self.ensure()?;
        let mut current = self.root.clone();
        for component in relative.components() {
            let std::path::Component::Normal(part) = component else {
                return Err(FileError::NotPlainPath(path.to_owned()));
            };
            current.push(part);
            match files::present(fs_err::symlink_metadata(&current))? {
                Some(metadata) if crate::platform::open::is_link(&metadata) => {
                    return Err(FileError::LinkOutOfStateFolder(current));
                }
                Some(metadata) if metadata.is_dir() => {}
                Some(_) => return Err(FileError::NotAFolder(current)),
                None => files::create_private_dir_all(&current)?,
            }
        }
        Ok(())
    }

    /// The ids of every session that has a folder, sorted.
    pub fn session_ids(&self) -> Result<Vec<SessionId>, FileError> {
        let dir = self.sessions_dir();
        if !dir.exists() {
            return Ok(Vec::new());
        }
        let mut ids = Vec::new();
        for entry in fs_err::read_dir(&dir).map_err(FileError::ListSessions)? {
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

/// Generates one method per file or folder of the state folder (`root`, its path there) and of
/// a session's folder (`session`, its path in the session's folder): where each is, created
/// by nobody here.
macro_rules! paths {
    (
        root { $($(#[$root_doc:meta])* $root:ident => $root_path:expr;)* }
        session { $($(#[$session_doc:meta])* $session:ident => $session_path:expr;)* }
    ) => {
        impl StateDir {
            $($(#[$root_doc])* pub fn $root(&self) -> PathBuf {
                self.root.join($root_path)
            })*
            $($(#[$session_doc])* pub fn $session(&self, session: &SessionId) -> PathBuf {
                self.session_dir(session).join($session_path)
            })*
        }
    };
}

paths! {
    root {
    /// The folder that holds every session's subfolder.
    sessions_dir => "sessions";
    /// The error log every hook appends its problems to.
    errors_log => "errors.log";
    /// The limits a person set on ctxhooks' own storage (`config.json`, see `store/config.rs`).
    config_file => "config.json";
    /// Every deletion of a session's copies or record, by `archives prune` or the configured
    /// limit (`pruned.jsonl`, see `store/storage.rs`).
    prune_log => "pruned.jsonl";
    /// When the configured limit was last applied (`prune.stamp`; its modification time).
    prune_stamp => "prune.stamp";
    /// The lock that keeps two Stop hooks from applying the configured limit at once.
    prune_lock => "prune.lock";
    /// What `ctxhooks install` added to which settings file.
    installs_file => "installs.json";
    /// The lock that serializes installs and uninstalls.
    installs_lock => "installs.lock";
    /// Settings files as they were before each change by install or uninstall.
    backups_dir => "backups";
    /// What `history` and `export` read from each transcript, kept for their next run
    /// (`history-cache/`, one file per transcript).
    history_cache_dir => "history-cache";
    /// The sessions whose end a `SessionEnd` run could not keep whole in its time, for the next
    /// Stop hook to take up (`catch-up/`, one record per run cut short; see `keep/catch_up.rs`).
    catch_up_dir => "catch-up";
    /// The HTML pages `ctxhooks view` writes (`views/`, one `<session id>.html` each and
    /// `index.html`); only that command writes them, never a hook.
    views_dir => "views";
    }
    session {
    /// One session's usage log (`usage.jsonl`).
    usage_log => "usage.jsonl";
    /// The lock that serializes one session's usage ingests (Stop and `SubagentStop` overlap).
    usage_lock => "usage.lock";
    /// Where the last ingest of each of the session's transcripts stopped (`cursor.json`).
    cursor_file => "cursor.json";
    /// One session's gauge (`gauge.json`, see `store/gauge.rs`).
    gauge_file => "gauge.json";
    /// The window the status line gave for one session (`window.json`, see
    /// `store/status_window.rs`).
    status_window_file => "window.json";
    /// One session's provenance sidecar (`provenance.jsonl`).
    sidecar => "provenance.jsonl";
    /// One session's snapshots (`archive/`).
    archive_dir => "archive";
    /// One session's kept transcript copies (`kept/`, see `store/kept.rs`).
    kept_dir => crate::store::kept::KEPT_DIR;
    /// The files `ctxhooks archives restore --force` replaced, kept apart (`replaced/`, see
    /// the commands crate's `archives/replaced.rs`): never part of the kept copies, never deleted by ctxhooks.
    replaced_dir => "replaced";
    }
}

/// Claude Code's configuration folder: `$CLAUDE_CONFIG_DIR`, else `$HOME/.claude`.
pub fn claude_config_dir() -> Result<PathBuf, FileError> {
    if let Some(dir) = env_vars::non_empty(env_vars::CLAUDE_CONFIG_DIR) {
        return Ok(PathBuf::from(dir));
    }
    Ok(home_dir().ok_or(FileError::NoHome)?.join(".claude"))
}

/// The user's home folder: `$HOME`, else on Windows `%USERPROFILE%` (where Claude Code finds
/// it when `HOME` is not set); `None` when neither is set.
pub fn home_dir() -> Option<PathBuf> {
    env_vars::non_empty(env_vars::HOME)
        .or_else(|| {
            if cfg!(windows) {
                env_vars::non_empty(env_vars::USERPROFILE)
            } else {
                None
            }
        })
        .map(PathBuf::from)
}
