//! `ctxhooks gauge`: one session's gauge, for a person or (`--json`) a runtime: the context, the
//! trigger, the percent of it, the room left, the compactions, the warning's state.

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

use crate::output::emit_ok;
use ctxhooks_shared::store::gauge::Gauge;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;

/// Arguments of `ctxhooks gauge`.
#[derive(Debug, Args)]
pub struct GaugeArgs {
    /// The session (an id, `last`, or the start of one id).
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// Print the gauge file's JSON: `{schema, session_id, transcript, updated_at,
    /// context_tokens, context_time, after_compaction, trigger_tokens, trigger, percent,
    /// room_left, compactions, warn_at_percent, warned}` (docs/usage.md).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &GaugeArgs) -> Result<ExitCode> {
    let state = StateDir::locate()?;
    let session = SessionId::parse(&args.session)?;
    let Some(gauge) = Gauge::read(&state.gauge_file(&session))? else {
        bail!(
            "session {session} has no gauge yet: the Stop hook writes it at the end of every \
             turn once the hooks are installed (`ctxhooks doctor` shows whether they run)"
        );
    };
    emit_ok(args.json, &gauge)
}
