//! Which Claude Code settings file: the three scopes, and the path under which a file is edited.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::store::files;
use crate::store::state_dir::claude_config_dir;

/// Which Claude Code settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SettingsScope {
    /// `${CLAUDE_CONFIG_DIR:-~/.claude}/settings.json`.
    User,
    /// `<project>/.claude/settings.json`.
    Project,
    /// `<project>/.claude/settings.local.json`.
    Local,
}

impl SettingsScope {
    /// Every scope, in the order Claude Code's docs list them.
    pub const ALL: [Self; 3] = [Self::User, Self::Project, Self::Local];

    /// The scope's name as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Project => "project",
            Self::Local => "local",
        }
    }

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

/// How many symbolic links in a row [`resolve_settings_path`] follows (as the kernel does).
const MAX_SYMBOLIC_LINKS: usize = 40;

/// The path under which a settings file is edited and recorded: absolute, with symlinks
/// resolved, so that a settings file symlinked from a dotfiles repository is edited where it
/// lives and the link survives. A link whose target does not exist yet resolves to that target
/// (which install then creates), as long as the target's folder exists; otherwise it is refused.
pub fn resolve_settings_path(path: &Path) -> Result<PathBuf> {
    let mut current =
        std::path::absolute(path).context("failed to make the settings path absolute")?;
    let mut followed_link = false;
    for _ in 0..=MAX_SYMBOLIC_LINKS {
        if let Ok(resolved) = fs_err::canonicalize(&current) {
            return Ok(resolved);
        }
        // The file does not exist (yet): resolve its folder; when the name itself is a link
        // (a dangling one), follow it to where the file will be.
        let (Some(parent), Some(name)) = (current.parent(), current.file_name()) else {
            return Ok(current);
        };
        let Ok(folder) = fs_err::canonicalize(parent) else {
            if followed_link {
                bail!(
                    "`{}` is a symbolic link to `{}`, whose folder does not exist; create the \
                     folder or remove the link",
                    path.display(),
                    current.display()
                );
            }
            return Ok(current);
        };
        let candidate = folder.join(name);
        match fs_err::read_link(&candidate) {
            Ok(target) => {
                current = folder.join(target);
                followed_link = true;
            }
            Err(_) => return Ok(candidate),
        }
    }
    bail!(
        "`{}` is a chain of more than {MAX_SYMBOLIC_LINKS} symbolic links",
        path.display()
    )
}
