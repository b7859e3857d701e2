//! `ctxhooks doctor` (being built).

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

/// Arguments of `ctxhooks doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print the findings as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs the command.
pub fn run(_args: &DoctorArgs) -> Result<ExitCode> {
    bail!("`ctxhooks doctor` is not built yet")
}
