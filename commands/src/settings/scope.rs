//! Which Claude Code settings file: the three scopes.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::ValueEnum;
use serde::Serialize;

use ctxhooks_shared::store::files;
use ctxhooks_shared::store::state_dir::claude_config_dir;

/// Which Claude Code settings file (the variants' docs are `--scope`'s help), written as the
/// command line spells it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, strum::Display, ValueEnum)]
#[strum(serialize_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum SettingsScope {
    /// `${CLAUDE_CONFIG_DIR:-~/.claude}/settings.json`, for every project.
    #[default]
    User,
    /// `.claude/settings.json` in the current folder, shared with the project.
    Project,
    /// `.claude/settings.local.json` in the current folder, yours only.
    Local,
}

impl SettingsScope {
    /// Every scope, in the order Claude Code's docs list them.
    pub const ALL: [Self; 3] = [Self::User, Self::Project, Self::Local];

    /// The scope's settings file, with `project` the project folder for the project and local
    /// scopes.
    pub fn settings_path(self, project: &Path) -> Result<PathBuf> {
        Ok(match self {
            Self::User => claude_config_dir()?.join("settings.json"),
            Self::Project => project.join(".claude").join("settings.json"),
            Self::Local => project.join(".claude").join("settings.local.json"),
        })
    }

    /// The mode of a settings file we create: the project file is meant to be committed and
    /// shared (0644); the user and local files are private (0600).
    pub fn new_file_mode(self) -> u32 {
        match self {
            Self::Project => 0o644,
            Self::User | Self::Local => files::PRIVATE_FILE_MODE,
        }
    }
}
