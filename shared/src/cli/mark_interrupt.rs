//! `ctxhooks mark-interrupt` (not built yet).

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

/// Arguments of `ctxhooks mark-interrupt`.
#[derive(Debug, Args)]
pub struct MarkInterruptArgs {}

/// Runs the command.
pub fn run(_args: &MarkInterruptArgs) -> Result<ExitCode> {
    bail!("`ctxhooks mark-interrupt` is not built yet")
}
