//! `ctxhooks install` and `ctxhooks uninstall` (being built).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::{Args, ValueEnum};

/// Which Claude Code settings file to edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scope {
    /// `${CLAUDE_CONFIG_DIR:-~/.claude}/settings.json`, for every project.
    User,
    /// `.claude/settings.json` in the current folder, shared with the project.
    Project,
    /// `.claude/settings.local.json` in the current folder, yours only.
    Local,
}

/// Arguments of `ctxhooks install` and `ctxhooks uninstall`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The settings file's scope.
    #[arg(long, value_enum, default_value_t = Scope::User)]
    pub scope: Scope,
    /// Edit this settings file instead of the scope's.
    #[arg(long, value_name = "PATH")]
    pub settings: Option<PathBuf>,
    /// Show what would change and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the outcome as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `ctxhooks install`.
pub fn run_install(_args: &InstallArgs) -> Result<ExitCode> {
    bail!("`ctxhooks install` is not built yet")
}

/// Runs `ctxhooks uninstall`.
pub fn run_uninstall(_args: &InstallArgs) -> Result<ExitCode> {
    bail!("`ctxhooks uninstall` is not built yet")
}
