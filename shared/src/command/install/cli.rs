//! `ctxhooks install` and `ctxhooks uninstall`: our hook handlers in a Claude Code settings file.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde_json::Value;

use super::claude_version::{InstalledClaude, installed_claude, refused_note};
use super::handlers::install_dir;
use super::installer::{self, Action, Outcome, WriteKind};
use super::scope::{SettingsScope, resolve_settings_path};
use crate::command::output;
use crate::store::state_dir::StateDir;

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

impl From<Scope> for SettingsScope {
    fn from(scope: Scope) -> Self {
        match scope {
            Scope::User => Self::User,
            Scope::Project => Self::Project,
            Scope::Local => Self::Local,
        }
    }
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

impl InstallArgs {
    fn settings_path(&self) -> Result<PathBuf> {
        let path = if let Some(path) = &self.settings {
            path.clone()
        } else {
            let project = std::env::current_dir().context("failed to read the current folder")?;
            SettingsScope::from(self.scope).settings_path(&project)?
        };
        resolve_settings_path(&path)
    }

    fn new_file_mode(&self) -> u32 {
        if self.settings.is_some() {
            crate::store::files::PRIVATE_FILE_MODE
        } else {
            SettingsScope::from(self.scope).new_file_mode()
        }
    }
}

/// Runs `ctxhooks install`.
pub fn run_install(args: &InstallArgs) -> Result<ExitCode> {
    let state = StateDir::locate()?;
    let path = args.settings_path()?;
    let binaries = install_dir()?;
    // An older Claude Code refuses a whole settings file over an event it does not know.
    let claude = installed_claude();
    let omitted = claude
        .as_ref()
        .map(InstalledClaude::refused_events)
        .unwrap_or_default();
    let mut outcome = installer::install(
        &state,
        &path,
        &binaries,
        &omitted,
        args.new_file_mode(),
        args.dry_run,
    )?;
    if let Some(claude) = claude.filter(|_| !omitted.is_empty()) {
        outcome.notes.push(refused_note(&claude, &omitted));
    }
    report(&outcome, args.json)
}

/// Runs `ctxhooks uninstall`.
pub fn run_uninstall(args: &InstallArgs) -> Result<ExitCode> {
    let state = StateDir::locate()?;
    let path = args.settings_path()?;
    let outcome = installer::uninstall(&state, &path, args.dry_run)?;
    report(&outcome, args.json)
}

fn report(outcome: &Outcome, json: bool) -> Result<ExitCode> {
    if json {
        output::print_json(outcome)?;
    } else {
        output::print(&describe(outcome))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The outcome in words, for people.
fn describe(outcome: &Outcome) -> String {
    let path = outcome.path.display();
    let mut text = String::new();
    let verb = match (outcome.action, outcome.dry_run) {
        (Action::Install, false) => "installed into",
        (Action::Install, true) => "would install into",
        (Action::Uninstall, false) => "uninstalled from",
        (Action::Uninstall, true) => "would uninstall from",
    };
    if outcome.changed {
        let _ = writeln!(text, "{verb} `{path}`:");
    } else if outcome.action == Action::Install {
        let _ = writeln!(
            text,
            "ctxhooks hooks are already in `{path}`; nothing changed"
        );
    } else if outcome.notes.is_empty() {
        let _ = writeln!(text, "no ctxhooks hooks left in `{path}`; nothing changed");
    }
    for (sign, handlers) in [("+", &outcome.added), ("-", &outcome.removed)] {
        for owned in handlers {
            let command = owned.handler.get("command").and_then(Value::as_str);
            let timeout = owned.handler.get("timeout").and_then(Value::as_u64);
            let _ = writeln!(
                text,
                "  {sign} {:<19} {}{}",
                owned.event,
                command.unwrap_or("?"),
                timeout
                    .map(|seconds| format!(" (timeout {seconds}s)"))
                    .unwrap_or_default()
            );
        }
    }
    if outcome.write == WriteKind::RestoredOriginal {
        let _ = writeln!(
            text,
            "  the file's bytes from before the first install were restored"
        );
    }
    if outcome.write == WriteKind::Deleted {
        let _ = writeln!(
            text,
            "  the file did not exist before the first install: deleted"
        );
    }
    if let Some(backup) = &outcome.backup {
        let _ = writeln!(
            text,
            "  backup of the previous content: {}",
            backup.display()
        );
    }
    for note in &outcome.notes {
        let _ = writeln!(text, "note: {note}");
    }
    if outcome.dry_run && !outcome.diff.is_empty() {
        text.push('\n');
        text.push_str(&outcome.diff);
        let _ = writeln!(text, "(dry run: nothing was written)");
    }
    text
}
