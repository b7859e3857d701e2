//! `ctxhooks archives`: list, verify and prune the snapshots taken before compactions, and
//! restore a kept transcript where Claude Code looks for it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::fmt::Write as _;

use anyhow::{Context, Result, bail};
use chrono::Utc;
use clap::{Args, Subcommand};
use serde::Serialize;

use super::prune::{PrunePolicy, delete_snapshot, deleted_verb, select_for_pruning};
use super::prune_kept::{KeptPolicy, run_prune_kept};
use super::restore::{RestoreRequest, restore};
use super::restore_deleted::{DeletedFilter, run_restore_deleted};
use super::verify::{
    FileCheck, FileStatus, VerifiedKind, VerifyOutcome, WholeGenerations, verify_kept,
    verify_snapshot,
};
use crate::output::{self, Emit, emit_exit, emit_ok};
use crate::projects::window::TimeWindow;
use crate::render::table::{Column, Table};
use crate::render::text::{controls_escaped, name_of};
use crate::snapshots::catalog::{Catalog, SnapshotEntry, read_compact_summary, scan_archive};
use ctxhooks_shared::keep::snapshot::is_abandoned;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::snapshot_metadata::{CompactSummary, METADATA_FILE_NAME};
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::store::storage::{Limits, parse_size};

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
    Verify(VerifyArgs),
    /// Write a kept transcript (and its sub-agents') back where Claude Code looks for it, as it
    /// is kept now or as a snapshot recorded it, so that `claude --resume ID` continues it; with
    /// `--deleted`, every session whose transcript Claude Code deleted, in one step.
    Restore(RestoreArgs),
    /// Delete old snapshots; with `--kept`, sessions' kept copies (with their snapshots) by age
    /// or until the state folder fits a size; with `--session ID --all`, a session's whole
    /// record. Kept copies and records are only listed unless `--yes` is given. Nothing is ever
    /// deleted automatically unless a limit is set in `<state>/config.json`.
    Prune(PruneArgs),
}

/// Arguments of `ctxhooks archives verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Only this session's snapshots.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Print the findings as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ctxhooks archives restore`.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The session (a full id, `last`, or the start of one).
    #[arg(long, value_name = "ID", required_unless_present = "deleted")]
    pub session: Option<String>,
    /// Every session whose transcript is gone from Claude Code's folder and is kept here,
    /// each as `--session` restores one, never over an existing file (a sub-agent's file
    /// that is there is left as it is); one that fails is said and the others go on (exit 1
    /// if any failed).
    #[arg(long, conflicts_with_all = ["session", "snapshot", "to", "force"])]
    pub deleted: bool,
    /// With `--deleted`: only sessions whose project folder (its `cwd`) or transcript
    /// folder's name contains this text.
    #[arg(long, value_name = "TEXT", requires = "deleted")]
    pub project: Option<String>,
    /// With `--deleted`: only sessions active on or after this day (`YYYY-MM-DD`, UTC) or
    /// time (RFC 3339).
    #[arg(long, value_name = "DATE", requires = "deleted")]
    pub since: Option<String>,
    /// Restore as this snapshot recorded it (its name, or the start of it) instead of the
    /// latest state.
    #[arg(long, value_name = "NAME")]
    pub snapshot: Option<String>,
    /// Write into this folder instead of where the transcript was: `DIR/<id>.jsonl`,
    /// `DIR/<id>/subagents/…`.
    #[arg(long, value_name = "DIR")]
    pub to: Option<PathBuf>,
    /// Replace files that exist (each is kept apart first, in the session's `replaced/`
    /// folder, so nothing is lost).
    #[arg(long)]
    pub force: bool,
    /// Print what was written as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `ctxhooks archives prune`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("policy").required(true).multiple(false))]
#[expect(clippy::struct_excessive_bools, reason = "command-line flags")]
pub struct PruneArgs {
    /// Keep the newest N snapshots of each session.
    #[arg(long, value_name = "N", group = "policy", conflicts_with = "kept")]
    pub keep: Option<usize>,
    /// Delete snapshots taken more than DAYS days ago; with `--kept`, the kept copies of
    /// sessions last active more than DAYS days ago.
    #[arg(long, value_name = "DAYS", group = "policy")]
    pub older_than: Option<u32>,
    /// With `--kept`: delete the kept copies of the sessions least recently active until the
    /// state folder holds at most SIZE (`20 GB`, `500MiB`); a session active within the day
    /// is never deleted.
    #[arg(long, value_name = "SIZE", group = "policy", requires = "kept")]
    pub max_size: Option<String>,
    /// With `--session ID`: delete everything ctxhooks holds of that session (kept copies,
    /// snapshots, logs).
    #[arg(long, group = "policy", requires = "session")]
    pub all: bool,
    /// Apply `--older-than` and `--max-size` to sessions' kept copies, not to snapshots
    /// alone.
    #[arg(long)]
    pub kept: bool,
    /// Delete the kept copies or the record listed (without it, they are only listed).
    #[arg(long)]
    pub yes: bool,
    /// Only this session's snapshots (or kept copies).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Show what would be deleted and delete nothing.
    #[arg(long, conflicts_with = "yes")]
    pub dry_run: bool,
    /// Print the outcome as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &ArchivesArgs) -> Result<ExitCode> {
    let state = StateDir::locate()?;
    match &args.action {
        None => list(&state, args.session.as_deref(), args.json),
        Some(ArchivesAction::Verify(args)) => verify(&state, args.session.as_deref(), args.json),
        Some(ArchivesAction::Restore(args)) => restore_command(&state, args),
        Some(ArchivesAction::Prune(args)) => prune_command(&state, args),
    }
}

/// `archives restore`: one session, or with `--deleted` every one Claude Code deleted.
fn restore_command(state: &StateDir, args: &RestoreArgs) -> Result<ExitCode> {
    if args.deleted {
        let filter = DeletedFilter {
            project: args.project.clone(),
            window: TimeWindow::parse(args.since.as_deref(), None)?,
        };
        return run_restore_deleted(state, &filter, args.json);
    }
    let session = session_filter(args.session.as_deref())?;
    let request = RestoreRequest {
        session: session.context("give `--session ID` or `--deleted`")?,
        snapshot: args.snapshot.clone(),
        to: args.to.clone(),
        force: args.force,
        leave_existing: false,
    };
    emit_ok(args.json, &restore(state, &request)?)
}

/// `archives prune`: snapshots by `--keep` or `--older-than`, or with `--kept`/`--all`, kept
/// copies and records.
fn prune_command(state: &StateDir, args: &PruneArgs) -> Result<ExitCode> {
    if args.all || args.kept {
        let session = session_filter(args.session.as_deref())?;
        let policy = if args.all {
            KeptPolicy::Record(session.clone().context("`--all` needs `--session ID`")?)
        } else {
            if args.max_size.is_some() && session.is_some() {
                bail!("`--max-size` bounds the whole state folder; it takes no `--session`");
            }
            KeptPolicy::Limits(Limits {
                older_than_days: args.older_than,
                max_bytes: args.max_size.as_deref().map(parse_size).transpose()?,
            })
        };
        return run_prune_kept(state, &policy, session.as_ref(), args.yes, args.json);
    }
    if args.yes {
        bail!("`--yes` is for `--kept` and `--all`: snapshots are deleted without it");
    }
    let policy = match (args.keep, args.older_than) {
        (Some(keep), None) => PrunePolicy::Keep(keep),
        (None, Some(days)) => PrunePolicy::OlderThanDays(days),
        _ => bail!("give exactly one of `--keep N` or `--older-than DAYS`"),
    };
    prune(state, args, policy)
}

fn session_filter(session: Option<&str>) -> Result<Option<SessionId>> {
    session
        .map(SessionId::parse)
        .transpose()
        .context("invalid `--session`")
}

/// Tells, on stderr, about archive folders that are not readable snapshots.
fn note_damage(catalog: &Catalog) {
    for broken in &catalog.broken {
        output::note(&format!(
            "ctxhooks: warning: `{}` is not a readable snapshot: {}",
            broken.path.display(),
            broken.error
        ));
    }
    for unfinished in &catalog.unfinished {
        output::note(&format!(
            "ctxhooks: note: `{}` is a snapshot that was never finished (its hook was stopped); \
             `ctxhooks archives prune`, or the next snapshot of the session, removes such folders \
             once they are four minutes old",
            unfinished.display()
        ));
    }
}

/// A snapshot as `archives --json` lists it: `snapshot.json`, its folder, and the summary
/// `PostCompact` recorded beside it (null when none was).
#[derive(Serialize)]
struct ListedSnapshot<'entry> {
    #[serde(flatten)]
    entry: &'entry SnapshotEntry,
    compact_summary: Option<CompactSummary>,
}

/// The snapshots `archives` lists, in the state folder at `root`.
#[derive(Serialize)]
#[serde(transparent)]
struct Listing<'a> {
    snapshots: Vec<ListedSnapshot<'a>>,
    #[serde(skip)]
    root: &'a Path,
}

fn list(state: &StateDir, session: Option<&str>, json: bool) -> Result<ExitCode> {
    let catalog = scan_archive(state, session_filter(session)?.as_ref())?;
    note_damage(&catalog);
    let snapshots = catalog
        .entries
        .iter()
        .map(|entry| ListedSnapshot {
            entry,
            compact_summary: read_compact_summary(&entry.path),
        })
        .collect();
    let root = state.root();
    emit_ok(json, &Listing { snapshots, root })
}

/// The snapshot table: session, snapshot, trigger, bytes, files, custom instructions.
const TABLE: Table<6> = Table {
    indent: "",
    gap: "  ",
    columns: [
        Column::left("SESSION", 36),
        Column::left("SNAPSHOT", 31),
        Column::left("TRIGGER", 7),
        Column::right("BYTES", 12),
        Column::right("FILES", 5),
        Column::left("INSTRUCTIONS", 0),
    ],
};

/// The snapshots as a table, each with the first line of the summary recorded beside it.
impl Emit for Listing<'_> {
    fn text(&self) -> String {
        let (listed, root) = (&self.snapshots, self.root);
        if listed.is_empty() {
            return format!("no snapshots in `{}`\n", root.display());
        }
        let mut text = String::new();
        TABLE.write_header(&mut text);
        for listed in listed {
            let metadata = &listed.entry.metadata;
            let cells = [
                metadata.session_id.clone(),
                metadata.name.clone(),
                metadata.trigger.to_string(),
                metadata.size.to_string(),
                metadata.files.len().to_string(),
                controls_escaped(metadata.custom_instructions.as_deref().unwrap_or("-")),
            ];
            TABLE.write_row(&mut text, cells);
            text.push('\n');
            if let Some(summary) = &listed.compact_summary {
                let summary = &summary.compact_summary;
                let first = summary.lines().next().unwrap_or_default();
                let shown: String = first.chars().take(120).collect();
                let more = if shown.len() < summary.trim_end().len() {
                    " …"
                } else {
                    ""
                };
                let _ = writeln!(text, "    summary: {}{more}", controls_escaped(&shown));
            }
        }
        let _ = writeln!(text, "{} snapshot(s) in `{}`", listed.len(), root.display());
        text
    }
}

fn verify(state: &StateDir, session: Option<&str>, json: bool) -> Result<ExitCode> {
    let filter = session_filter(session)?;
    let catalog = scan_archive(state, filter.as_ref())?;
    // Every byte of every kept copy, snapshots or not: read first, so that a snapshot whose
    // generation was found whole need not read its bytes again.
    let sessions = filter
        .clone()
        .map_or_else(|| state.session_ids(), |session| Ok(vec![session]))?;
    let mut kept_outcomes = Vec::new();
    let mut whole = WholeGenerations::default();
    for session in &sessions {
        kept_outcomes.extend(verify_kept(state, session, &mut whole)?);
    }
    let mut outcomes = catalog
        .entries
        .iter()
        .map(|entry| verify_snapshot(entry, &whole))
        .collect::<Result<Vec<_>>>()?;
    // A folder whose metadata cannot be read fails verification; it does not stop the others.
    outcomes.extend(catalog.broken.iter().map(|broken| VerifyOutcome {
        kind: VerifiedKind::Snapshot,
        path: broken.path.clone(),
        session_id: name_of(broken.path.parent().and_then(Path::parent)),
        name: name_of(Some(&broken.path)),
        ok: false,
        files: vec![FileCheck {
            path: METADATA_FILE_NAME.to_owned(),
            status: FileStatus::Unreadable,
            detail: Some(broken.error.clone()),
        }],
    }));
    outcomes.extend(kept_outcomes);
    let verified = Verified(outcomes);
    emit_exit(json, &verified, verified.failed() == 0)
}

/// What `verify` found of each snapshot and kept copy.
#[derive(Serialize)]
#[serde(transparent)]
struct Verified(Vec<VerifyOutcome>);

impl Verified {
    fn failed(&self) -> usize {
        self.0.iter().filter(|outcome| !outcome.ok).count()
    }
}

/// Each outcome in words: what is wrong, and the notes on what is fine (an older generation
/// that keeps nothing).
impl Emit for Verified {
    fn text(&self) -> String {
        let (outcomes, failed) = (&self.0, self.failed());
        let mut text = String::new();
        for outcome in outcomes {
            let status = if outcome.ok { "ok" } else { "FAILED" };
            let _ = writeln!(
                text,
                "{status:<6}  {}  {}",
                outcome.session_id, outcome.name
            );
            for check in outcome
                .files
                .iter()
                .filter(|check| check.status != FileStatus::Ok || check.detail.is_some())
            {
                let status = match check.status {
                    FileStatus::Ok => "note",
                    status => status.into(),
                };
                let detail = check.detail.as_deref().map(|detail| format!(" ({detail})"));
                let _ = writeln!(
                    text,
                    "        {}: {status}{}",
                    check.path,
                    detail.unwrap_or_default()
                );
            }
        }
        let kept = outcomes
            .iter()
            .filter(|outcome| outcome.kind == VerifiedKind::Kept)
            .count();
        let _ = writeln!(
            text,
            "{} snapshot(s) and {kept} kept cop(ies) checked, {failed} failed",
            outcomes.len() - kept
        );
        text
    }
}

#[derive(Serialize)]
struct PruneOutcome<'entries> {
    dry_run: bool,
    deleted: Vec<&'entries SnapshotEntry>,
    kept: usize,
    /// Temporary folders of snapshots never finished whose writer is gone (see `is_abandoned`).
    unfinished_deleted: Vec<&'entries PathBuf>,
}

/// Deletes the snapshots `policy` selects (of `--session`, or of every session), and the
/// unfinished ones whose writer is gone; with `--dry-run`, only says which.
fn prune(state: &StateDir, args: &PruneArgs, policy: PrunePolicy) -> Result<ExitCode> {
    let (dry_run, json) = (args.dry_run, args.json);
    let catalog = scan_archive(state, session_filter(args.session.as_deref())?.as_ref())?;
    note_damage(&catalog);
    let entries = &catalog.entries;
    let selected = select_for_pruning(entries, policy, Utc::now());
    let abandoned: Vec<&PathBuf> = catalog
        .unfinished
        .iter()
        .filter(|folder| is_abandoned(folder))
        .collect();
    if !dry_run {
        for entry in &selected {
            delete_snapshot(&entry.path, "a snapshot")?;
        }
        for folder in &abandoned {
            delete_snapshot(folder, "an unfinished snapshot")?;
        }
    }
    let outcome = PruneOutcome {
        dry_run,
        kept: entries.len() - selected.len(),
        deleted: selected,
        unfinished_deleted: abandoned,
    };
    emit_ok(json, &outcome)
}

impl Emit for PruneOutcome<'_> {
    fn text(&self) -> String {
        let verb = deleted_verb(self.dry_run);
        let mut text = String::new();
        for entry in &self.deleted {
            let _ = writeln!(
                text,
                "{verb} {}  {}",
                entry.metadata.session_id, entry.metadata.name
            );
        }
        for folder in &self.unfinished_deleted {
            let _ = writeln!(text, "{verb} unfinished {}", folder.display());
        }
        let _ = writeln!(
            text,
            "{verb} {} snapshot(s), kept {}",
            self.deleted.len(),
            self.kept
        );
        text
    }
}
