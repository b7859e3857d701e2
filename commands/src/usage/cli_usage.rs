//! `ctxhooks usage`: one session's per-request context usage rows.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;
use serde::Serialize;

use super::text::rows_table;
use crate::facts::log::{
    SessionLog, SkippedLogLines, TimelineItem, log_from_transcript, read_session_log,
};
use crate::output::{Emit, Schema, Versioned, emit_ok};
use ctxhooks_shared::store::rotation;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::store::usage_record::{BoundaryRow, SkippedLinesRow, UsageRow};

/// Arguments of `ctxhooks usage`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("input").required(true).multiple(false))]
pub struct UsageArgs {
    /// The session whose usage log (written by the Stop hook) to show.
    #[arg(long, value_name = "ID", group = "input")]
    pub session: Option<String>,
    /// Compute the rows straight from a transcript file instead (no state folder needed).
    #[arg(long, value_name = "PATH", group = "input")]
    pub transcript: Option<PathBuf>,
    /// Print JSON: `{schema, session_id, transcript, rows, compactions, micro_compactions,
    /// skipped_lines, skipped_log_lines}`.
    #[arg(long)]
    pub json: bool,
}

/// Reads the log `--session` or `--transcript` names.
pub fn load_log(session: Option<&str>, transcript: Option<&PathBuf>) -> Result<SessionLog> {
    if let Some(path) = transcript {
        return log_from_transcript(path)
            .with_context(|| format!("failed to read the transcript `{}`", path.display()));
    }
    let Some(session) = session else {
        bail!("give `--session ID` or `--transcript PATH`");
    };
    let session = SessionId::parse(session).context("invalid `--session`")?;
    let state = StateDir::locate()?;
    let path = state.usage_log(&session);
    if !rotation::log_exists(&path) {
        bail!(
            "no usage log for session {session} at `{}` (is the Stop hook installed? \
             `ctxhooks usage --transcript PATH` reads a transcript directly)",
            path.display()
        );
    }
    read_session_log(&state, &session)
}

pub fn run(args: &UsageArgs) -> Result<ExitCode> {
    let log = load_log(args.session.as_deref(), args.transcript.as_ref())?;
    let mut requests = Requests {
        session_id: args.session.as_deref(),
        transcript: args
            .transcript
            .as_ref()
            .map(|path| path.display().to_string()),
        rows: Vec::new(),
        compactions: Vec::new(),
        micro_compactions: Vec::new(),
        skipped_lines: &log.skipped,
        skipped_log_lines: log.skipped_log_lines.as_ref(),
        log: &log,
    };
    for item in &log.timeline {
        match item {
            TimelineItem::Request(request) => requests.rows.push(&request.row),
            TimelineItem::Compaction(boundary) => requests.compactions.push(&boundary.row),
            TimelineItem::MicroCompaction(boundary) => {
                requests.micro_compactions.push(&boundary.row);
            }
        }
    }
    emit_ok(args.json, &Versioned::new(requests))
}

/// What `ctxhooks usage` prints: the log as a table, or in JSON (docs/usage.md) the requests,
/// the boundaries by kind, and what was skipped.
#[derive(Serialize)]
struct Requests<'a> {
    session_id: Option<&'a str>,
    transcript: Option<String>,
    rows: Vec<&'a UsageRow>,
    compactions: Vec<&'a BoundaryRow>,
    micro_compactions: Vec<&'a BoundaryRow>,
    skipped_lines: &'a [SkippedLinesRow],
    skipped_log_lines: Option<&'a SkippedLogLines>,
    #[serde(skip)]
    log: &'a SessionLog,
}

impl Schema for Requests<'_> {
    const SCHEMA: u32 = 1;
}

impl Emit for Requests<'_> {
    fn text(&self) -> String {
        rows_table(self.log)
    }
}
