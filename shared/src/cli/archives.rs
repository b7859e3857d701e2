//! `ctxhooks archives`: list, verify and prune the snapshots taken before compactions.

use std::process::ExitCode;

use std::fmt::Write as _;

use anyhow::{Context, Result, bail};
use chrono::Utc;
use clap::{Args, Subcommand};
use serde::Serialize;

use super::output;
use crate::archive::prune::{PrunePolicy, delete_snapshot, select_for_pruning};
use crate::archive::{SnapshotEntry, list_snapshots, verify_snapshot};
use crate::session_id::SessionId;
use crate::state::StateDir;

/// Arguments of `ctxhooks archives`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ArchivesArgs {
    /// Verify or prune instead of listing.
    #[command(subcommand)]
    pub action: Option<ArchivesAction>,
    /// Only this session's snapshots.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Print the list as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What `ctxhooks archives` can do besides listing.
#[derive(Debug, Subcommand)]
pub enum ArchivesAction {
    /// Re-check every snapshot's sizes and SHA-256 checksums; exits 1 on any mismatch.
    Verify {
        /// Only this session's snapshots.
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// Print the findings as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Delete old snapshots (nothing is ever deleted automatically).
    #[command(group = clap::ArgGroup::new("policy").required(true).multiple(false))]
    Prune {
        /// Keep the newest N snapshots of each session.
        #[arg(long, value_name = "N", group = "policy")]
        keep: Option<usize>,
        /// Delete snapshots taken more than DAYS days ago.
        #[arg(long, value_name = "DAYS", group = "policy")]
        older_than: Option<u32>,
        /// Only this session's snapshots.
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// Show what would be deleted and delete nothing.
        #[arg(long)]
        dry_run: bool,
        /// Print the outcome as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Runs the command.
pub fn run(args: &ArchivesArgs) -> Result<ExitCode> {
    let state = StateDir::locate()?;
    match &args.action {
        None => list(&state, args.session.as_deref(), args.json),
        Some(ArchivesAction::Verify { session, json }) => verify(&state, session.as_deref(), *json),
        Some(ArchivesAction::Prune {
            keep,
            older_than,
            session,
            dry_run,
            json,
        }) => {
            let policy = match (keep, older_than) {
                (Some(keep), None) => PrunePolicy::Keep(*keep),
                (None, Some(days)) => PrunePolicy::OlderThanDays(*days),
                _ => bail!("give exactly one of `--keep N` or `--older-than DAYS`"),
            };
            prune(&state, session.as_deref(), policy, *dry_run, *json)
        }
    }
}

fn session_filter(session: Option<&str>) -> Result<Option<SessionId>> {
    session
        .map(SessionId::parse)
        .transpose()
        .context("invalid `--session`")
}

fn list(state: &StateDir, session: Option<&str>, json: bool) -> Result<ExitCode> {
    let entries = list_snapshots(state, session_filter(session)?.as_ref())?;
    if json {
        output::print_json(&entries)?;
        return Ok(ExitCode::SUCCESS);
    }
    if entries.is_empty() {
        output::println(&format!("no snapshots in `{}`", state.root().display()))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = format!(
        "{:<36}  {:<31}  {:<7}  {:>12}  {:>5}  {}\n",
        "SESSION", "SNAPSHOT", "TRIGGER", "BYTES", "FILES", "INSTRUCTIONS"
    );
    for entry in &entries {
        let metadata = &entry.metadata;
        let _ = writeln!(
            text,
            "{:<36}  {:<31}  {:<7}  {:>12}  {:>5}  {}",
            metadata.session_id,
            metadata.name,
            metadata.trigger,
            metadata.size,
            metadata.files.len(),
            metadata.custom_instructions.as_deref().unwrap_or("-"),
        );
    }
    let _ = writeln!(
        text,
        "{} snapshot(s) in `{}`",
        entries.len(),
        state.root().display()
    );
    output::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn verify(state: &StateDir, session: Option<&str>, json: bool) -> Result<ExitCode> {
    let entries = list_snapshots(state, session_filter(session)?.as_ref())?;
    let outcomes = entries
        .iter()
        .map(verify_snapshot)
        .collect::<Result<Vec<_>>>()?;
    let failed = outcomes.iter().filter(|outcome| !outcome.ok).count();
    if json {
        output::print_json(&outcomes)?;
    } else {
        let mut text = String::new();
        for outcome in &outcomes {
            let status = if outcome.ok { "ok" } else { "FAILED" };
            let _ = writeln!(
                text,
                "{status:<6}  {}  {}",
                outcome.session_id, outcome.name
            );
            for check in outcome.files.iter().filter(|check| check.status != "ok") {
                let _ = writeln!(
                    text,
                    "        {}: {}{}",
                    check.path,
                    check.status,
                    check
                        .detail
                        .as_deref()
                        .map(|detail| format!(" ({detail})"))
                        .unwrap_or_default()
                );
            }
        }
        let _ = writeln!(
            text,
            "{} snapshot(s) checked, {failed} failed",
            outcomes.len()
        );
        output::print(&text)?;
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[derive(Serialize)]
struct PruneOutcome<'entries> {
    dry_run: bool,
    deleted: Vec<&'entries SnapshotEntry>,
    kept: usize,
}

fn prune(
    state: &StateDir,
    session: Option<&str>,
    policy: PrunePolicy,
    dry_run: bool,
    json: bool,
) -> Result<ExitCode> {
    let entries = list_snapshots(state, session_filter(session)?.as_ref())?;
    let selected = select_for_pruning(&entries, policy, Utc::now());
    if !dry_run {
        for entry in &selected {
            delete_snapshot(entry)?;
        }
    }
    let outcome = PruneOutcome {
        dry_run,
        deleted: selected.iter().collect(),
        kept: entries.len() - selected.len(),
    };
    if json {
        output::print_json(&outcome)?;
    } else {
        let verb = if dry_run { "would delete" } else { "deleted" };
        let mut text = String::new();
        for entry in &selected {
            let _ = writeln!(
                text,
                "{verb} {}  {}",
                entry.metadata.session_id, entry.metadata.name
            );
        }
        let _ = writeln!(
            text,
            "{verb} {} snapshot(s), kept {}",
            selected.len(),
            outcome.kept
        );
        output::print(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}
