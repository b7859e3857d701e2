//! `ctxhooks report` (not built yet).

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

/// Arguments of `ctxhooks report`.
#[derive(Debug, Args)]
pub struct ReportArgs {}

/// Runs the command.
pub fn run(_args: &ReportArgs) -> Result<ExitCode> {
    bail!("`ctxhooks report` is not built yet")
}
