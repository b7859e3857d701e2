//! `ctxhooks compactions --session ID | --transcript PATH [--json]`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use serde::Serialize;

use super::ledger::{Ledger, read_ledger};
use super::text::ledger_text;
use crate::output::{Emit, Schema, Versioned, emit_ok};
use crate::sessions::transcript::open_session_transcript;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::transcript::file::TranscriptFile;

/// Arguments of `ctxhooks compactions`.
///
/// For every compaction of a session: its trigger, tokens before and after, how long it took,
/// its summary, and what the conversation before it held (files edited and read, commands with
/// how they ended, errors, the person's prompts), each marked as named by the summary, kept
/// word for word, or LEFT OUT (docs/compactions.md gives the rule).
#[derive(Debug, Args)]
pub struct CompactionsArgs {
    #[command(flatten)]
    pub input: LedgerInput,
    /// Print JSON: `{schema, session_id, transcript, kept_copy, compactions, since_last,
    /// unreadable_lines, overlong_lines}`.
    #[arg(long)]
    pub json: bool,
}

/// The transcript whose ledger is read: a session's, or a file's (exactly one of them).
#[derive(Debug, Args)]
#[group(id = "input", required = true, multiple = false)]
pub struct LedgerInput {
    /// The session (a full id, `last`, or the start of one): its transcript, or the kept copy
    /// once Claude Code has deleted it.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Read a transcript file instead (no state folder needed).
    #[arg(long, value_name = "PATH")]
    pub transcript: Option<PathBuf>,
}

/// What `ctxhooks compactions` prints: the transcript read, and its ledger.
#[derive(Debug, Serialize)]
pub struct CompactionsOutput {
    /// The session, with `--session`.
    pub session_id: Option<String>,
    /// The file read.
    pub transcript: String,
    /// True when the file read is the kept copy (Claude Code's transcript is gone).
    pub kept_copy: bool,
    #[serde(flatten)]
    pub ledger: Ledger,
}

impl Schema for CompactionsOutput {
    const SCHEMA: u32 = 1;
}

impl Emit for CompactionsOutput {
    fn text(&self) -> String {
        let mut title = self.transcript.clone();
        if let Some(session) = &self.session_id {
            title = format!("session {session}: {title}");
        }
        if self.kept_copy {
            title.push_str(" (the kept copy: Claude Code's transcript is gone)");
        }
        ledger_text(&title, &self.ledger)
    }
}

impl LedgerInput {
    /// Opens the transcript and reads its ledger.
    fn read(&self) -> Result<CompactionsOutput> {
        let (session_id, transcript, kept_copy, ledger) = if let Some(path) = &self.transcript {
            let file = TranscriptFile::open_named(path)?;
            let ledger = read_ledger(file.into_file())
                .with_context(|| format!("failed to read the transcript `{}`", path.display()))?;
            (None, path.clone(), false, ledger)
        } else {
            let session = SessionId::parse(self.session.as_deref().unwrap_or_default())
                .context("invalid `--session`")?;
            let opened = open_session_transcript(&StateDir::locate()?, &session)?;
            let ledger = read_ledger(opened.reader)
                .with_context(|| format!("failed to read `{}`", opened.source.display()))?;
            (
                Some(session.to_string()),
                opened.source,
                opened.kept,
                ledger,
            )
        };
        Ok(CompactionsOutput {
            session_id,
            transcript: transcript.to_string_lossy().into_owned(),
            kept_copy,
            ledger,
        })
    }
}

pub fn run(args: &CompactionsArgs) -> Result<ExitCode> {
    let output = Versioned::new(args.input.read()?);
    emit_ok(args.json, &output)
}
