//! `ctxhooks mark-interrupt`: the runtime's record, written just before it calls `interrupt()`.

use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;
use serde::Serialize;

use super::sidecar::{RECENT_BYTES, has_recent_tool_events};
use crate::output::{self, Emit, emit_ok};
use ctxhooks_shared::store::clock::now_ms;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::sidecar::{RuntimeMark, SidecarLine, append_mark};
use ctxhooks_shared::store::state_dir::StateDir;

/// Arguments of `ctxhooks mark-interrupt`.
///
/// Run it (or append the same line yourself, see docs/provenance.md) right BEFORE calling the
/// Agent SDK's `interrupt()`: the mark covers the interrupt records that follow it within 5 s.
#[derive(Debug, Args)]
pub struct MarkInterruptArgs {
    /// The session about to be interrupted.
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// Why the runtime interrupts (such as "context backstop at 78%").
    #[arg(long, value_name = "TEXT")]
    pub reason: String,
    /// Which part of the runtime interrupts (such as "compaction-backstop").
    #[arg(long, value_name = "NAME")]
    pub source: Option<String>,
    /// The context gauge's reading in percent.
    #[arg(long, value_name = "X")]
    pub gauge_pct: Option<f64>,
    /// Print the recorded line (the JSON appended to the sidecar, with its `kind`).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &MarkInterruptArgs) -> Result<ExitCode> {
    let session = SessionId::parse(&args.session).context("refusing --session")?;
    if args.reason.trim().is_empty() {
        bail!("--reason must say why the runtime interrupts");
    }
    if let Some(pct) = args.gauge_pct
        && !(pct.is_finite() && pct >= 0.0)
    {
        bail!("--gauge-pct must be a number of percent, 0 or more (got {pct})");
    }
    let mark = RuntimeMark {
        time_ms: now_ms(),
        reason: args.reason.clone(),
        source: args.source.clone().filter(|source| !source.is_empty()),
        gauge_pct: args.gauge_pct,
        pid: Some(std::process::id()),
    };
    let state = StateDir::locate()?;
    // A cheap look at the sidecar's end only (this runs just before an interrupt, whatever the
    // sidecar's size); an unreadable sidecar counts as having no events, and the mark is still
    // written.
    let has_hook_events = has_recent_tool_events(&state.sidecar(&session)).unwrap_or(false);
    append_mark(&state, &session, &mark)?;
    if !has_hook_events {
        output::note(&format!(
            "ctxhooks: warning: session `{session}` has no recent tool hook events (none in the \
             last {} KiB of its sidecar; is ctxhooks-tooluse installed?); the mark was written, \
             but without hook events the state of the interrupted call cannot be known",
            RECENT_BYTES / 1024
        ));
    }
    let recorded = Recorded(SidecarLine::RuntimeInterruptMark(mark));
    emit_ok(args.json, &recorded)
}

/// What `mark-interrupt` prints: nothing, or in JSON exactly the line appended to the sidecar
/// (the same serialisation, with its `kind`).
#[derive(Serialize)]
#[serde(transparent)]
struct Recorded(SidecarLine);

impl Emit for Recorded {
    fn text(&self) -> String {
        String::new()
    }

    fn json(&self) -> serde_json::Result<String> {
        Ok(serde_json::to_string(self)? + "\n")
    }
}
