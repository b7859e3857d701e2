//! `ctxhooks sessions`: every session ctxhooks knows, newest first.

use std::process::ExitCode;

use anyhow::{Context, Result};
use chrono::Utc;
use clap::Args;

use super::catalog::list_sessions;
use super::text::SessionList;
use crate::output::emit_ok;
use crate::retention::settings::Retention;
use ctxhooks_shared::store::state_dir::StateDir;

/// Arguments of `ctxhooks sessions`.
///
/// Every session ctxhooks knows, newest activity first: its project, first and last activity,
/// kept size, requests, compactions, and where its transcript stands with Claude Code's cleanup:
/// `live`, `due in Nd` (its sweep deletes it within 7 days by the `cleanupPeriodDays` Claude
/// Code reads in this folder), or `deleted` (kept only here: `ctxhooks archives restore
/// --deleted` writes them back). Any `--session` takes a full id, `last`, or the start of one id.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Print the list as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &SessionsArgs) -> Result<ExitCode> {
    let state = StateDir::locate()?;
    let retention =
        Retention::read(&std::env::current_dir().context("failed to read the current folder")?);
    let sessions = list_sessions(&state, retention.days, Utc::now())?;
    let list = SessionList {
        sessions,
        retention: &retention,
        state_root: state.root(),
    };
    emit_ok(args.json, &list)
}
