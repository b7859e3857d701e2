//! `ctxhooks install` and `ctxhooks uninstall`: our hook handlers in a Claude Code settings file.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use serde::Serialize;
use serde_json::Value;

use super::claude_version::{installed_claude, refused_events, refused_note};
use super::handlers::install_dir;
use super::installer::{self, Action, InstallRequest, Outcome, WriteKind};
use super::status_line::{StatusLineAction, StatusLinePlan};
use crate::links::resolve_links;
use crate::mcp::registration::{self, McpChange};
use crate::output::{Emit, emit_ok};
use crate::render::bytes::human_bytes;
use crate::search::database::remove_index;
use crate::settings::document::read_settings_bytes;
use crate::settings::scope::SettingsScope;
use ctxhooks_shared::store::state_dir::StateDir;

/// Arguments of `ctxhooks install`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Which file, how.
    #[command(flatten)]
    pub target: TargetArgs,
    /// Also set the status line to `ctxhooks statusline`, only where no status line is
    /// configured (in any scope); where one is, say how to add the segment to it and change
    /// nothing. Uninstall takes out exactly what was set.
    #[arg(long)]
    pub statusline: bool,
}

/// Arguments of `ctxhooks uninstall`, and the settings file `ctxhooks install` edits.
#[derive(Debug, Args)]
pub struct TargetArgs {
    /// The settings file's scope.
    #[arg(long, value_enum, default_value_t = SettingsScope::User)]
    pub scope: SettingsScope,
    /// Edit this settings file instead of the scope's.
    #[arg(long, value_name = "PATH")]
    pub settings: Option<PathBuf>,
    /// Show what would change and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the outcome as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also register (install) or remove (uninstall) the `ctxhooks mcp` server in Claude Code's
    /// user configuration (`mcpServers` in `~/.claude.json`).
    #[arg(long)]
    pub mcp: bool,
}

impl TargetArgs {
    fn settings_path(&self) -> Result<PathBuf> {
        let path = if let Some(path) = &self.settings {
            path.clone()
        } else {
            let project = std::env::current_dir().context("failed to read the current folder")?;
            self.scope.settings_path(&project)?
        };
        resolve_links(&path)
    }

    fn new_file_mode(&self) -> u32 {
        if self.settings.is_some() {
            ctxhooks_shared::store::files::PRIVATE_FILE_MODE
        } else {
            self.scope.new_file_mode()
        }
    }
}

/// Runs `ctxhooks install`.
pub fn run_install(install_args: &InstallArgs) -> Result<ExitCode> {
    let args = &install_args.target;
    let state = StateDir::locate()?;
    let path = args.settings_path()?;
    let binaries = install_dir()?;
    let plan = StatusLinePlan {
        requested: install_args.statusline,
        elsewhere: if install_args.statusline {
            status_lines_elsewhere(&path)
        } else {
            Vec::new()
        },
    };
    // An older Claude Code refuses a whole settings file over an event it does not know.
    let claude = installed_claude();
    let omitted = claude
        .as_ref()
        .map(|claude| refused_events(claude.version))
        .unwrap_or_default();
    let mut outcome = installer::install(
        &state,
        &InstallRequest {
            settings_path: &path,
            binaries_dir: &binaries,
            omitted: &omitted,
            new_file_mode: args.new_file_mode(),
            dry_run: args.dry_run,
            status_line: &plan,
        },
    )?;
    if let Some(claude) = claude.filter(|_| !omitted.is_empty()) {
        outcome.notes.push(refused_note(&claude, &omitted));
    }
    let mcp = args
        .mcp
        .then(|| {
            registration::register(
                &registration::config_path()?,
                &binaries.join("ctxhooks"),
                args.dry_run,
            )
        })
        .transpose()?;
    report(&outcome, mcp.as_ref(), None, args.json)
}

/// The status lines configured in the other scopes' settings files than `target` (user, and
/// project and local of the current folder), each with its file. A file that cannot be read
/// holds none here (doctor reports it).
fn status_lines_elsewhere(target: &Path) -> Vec<(PathBuf, Value)> {
    let project = std::env::current_dir().unwrap_or_default();
    SettingsScope::ALL
        .iter()
        .filter_map(|scope| scope.settings_path(&project).ok())
        .map(|path| resolve_links(&path).unwrap_or(path))
        .filter(|path| path != target)
        .filter_map(|path| {
            let bytes = read_settings_bytes(&path).ok()??;
            let value: Value = serde_json::from_slice(&bytes).ok()?;
            let line = value.get("statusLine")?.clone();
            Some((path, line))
        })
        .collect()
}

/// Runs `ctxhooks uninstall`.
pub fn run_uninstall(args: &TargetArgs) -> Result<ExitCode> {
    let state = StateDir::locate()?;
    let path = args.settings_path()?;
    let outcome = installer::uninstall(&state, &path, args.dry_run)?;
    let mcp = args
        .mcp
        .then(|| registration::unregister(&registration::config_path()?, args.dry_run))
        .transpose()?;
    // The search index goes too: words of every session, derived from the transcripts (which
    // stay), built again by the next search.
    let index = remove_index(&state, args.dry_run)?.map(|bytes| RemovedIndex {
        path: state.search_index(),
        bytes,
    });
    report(&outcome, mcp.as_ref(), index.as_ref(), args.json)
}

/// The search index `uninstall` removed (or, with `--dry-run`, would remove).
#[derive(Debug, Serialize)]
struct RemovedIndex {
    path: PathBuf,
    /// Its size, with the files `SQLite` keeps beside it and the kept listings searches remember.
    bytes: u64,
}

fn report(
    outcome: &Outcome,
    mcp: Option<&McpChange>,
    index: Option<&RemovedIndex>,
    json: bool,
) -> Result<ExitCode> {
    let search_index = (outcome.action == Action::Uninstall).then_some(index);
    let printed = Printed {
        outcome,
        mcp,
        search_index,
    };
    emit_ok(json, &printed)
}

/// What `install` and `uninstall` print: the outcome, then what `--mcp` changed (`mcp`, only
/// with it) and the search index `uninstall` removed (`search_index`: null when none was).
#[derive(Serialize)]
struct Printed<'a> {
    #[serde(flatten)]
    outcome: &'a Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    mcp: Option<&'a McpChange>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[expect(
        clippy::option_option,
        reason = "absent for install, null when none was removed"
    )]
    search_index: Option<Option<&'a RemovedIndex>>,
}

impl Emit for Printed<'_> {
    fn text(&self) -> String {
        let outcome = self.outcome;
        let mut text = describe(outcome);
        if let Some(mcp) = self.mcp {
            text.push_str(&describe_mcp(mcp, outcome.action, outcome.dry_run));
        }
        if let Some(index) = self.search_index.flatten() {
            let verb = if outcome.dry_run {
                "would remove"
            } else {
                "removed"
            };
            let _ = writeln!(
                text,
                "{verb} the search index `{}` ({}; the next `ctxhooks search` builds it again)",
                index.path.display(),
                human_bytes(index.bytes)
            );
        }
        text
    }
}

/// What `--mcp` did, in words.
fn describe_mcp(mcp: &McpChange, action: Action, dry_run: bool) -> String {
    let path = mcp.path.display();
    let would = if dry_run { "would be " } else { "" };
    match (&mcp.note, mcp.changed, action) {
        (Some(note), _, _) => format!("note: {note}\n"),
        (None, true, Action::Install) => {
            format!("MCP server `ctxhooks` {would}registered in `{path}` (runs `ctxhooks mcp`)\n")
        }
        (None, true, Action::Uninstall) => {
            format!("MCP server `ctxhooks` {would}removed from `{path}`\n")
        }
        (None, false, Action::Install) => {
            format!("MCP server `ctxhooks` already registered in `{path}`; nothing changed\n")
        }
        (None, false, Action::Uninstall) => {
            format!("no MCP server `ctxhooks` in `{path}`; nothing changed\n")
        }
    }
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
            let timeout = timeout.map(|seconds| format!(" (timeout {seconds}s)"));
            let (event, command) = (&owned.event, command.unwrap_or("?"));
            let _ = writeln!(
                text,
                "  {sign} {event:<19} {command}{}",
                timeout.unwrap_or_default()
            );
        }
    }
    if let Some(line) = &outcome.status_line {
        let command = line
            .value
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("?");
        let _ = match line.action {
            StatusLineAction::Added | StatusLineAction::Updated => {
                writeln!(text, "  + {:<19} {command}", "statusLine")
            }
            StatusLineAction::Removed => writeln!(text, "  - {:<19} {command}", "statusLine"),
            StatusLineAction::Kept => writeln!(text, "  the status line already runs `{command}`"),
            StatusLineAction::LeftAlone | StatusLineAction::ChangedSince => Ok(()),
        };
        if let Some(advice) = &line.advice {
            let _ = writeln!(text, "note: {advice}");
        }
    }
    text.push_str(match outcome.write {
        WriteKind::RestoredOriginal => {
            "  the file's bytes from before the first install were restored\n"
        }
        WriteKind::Deleted => "  the file did not exist before the first install: deleted\n",
        WriteKind::None | WriteKind::Merged => "",
    });
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
