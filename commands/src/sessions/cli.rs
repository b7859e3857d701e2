//! `ctxhooks sessions`: every session ctxhooks knows, newest first.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::catalog::list_sessions;
use super::text::render;
use crate::output;
use ctxhooks_shared::store::state_dir::StateDir;

/// Arguments of `ctxhooks sessions`.
///
/// Every session ctxhooks knows, newest activity first: its project, first and last activity,
/// kept size, requests, compactions, and whether Claude Code still has its transcript. Any
/// `--session` takes a full id, `last`, or the start of one id.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Print the list as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs the command.
pub fn run(args: &SessionsArgs) -> Result<ExitCode> {
    let state = StateDir::locate()?;
    let sessions = list_sessions(&state)?;
    if args.json {
        output::print_json(&sessions)?;
    } else {
        output::print(&render(&sessions, state.root()))?;
    }
    Ok(ExitCode::SUCCESS)
}
