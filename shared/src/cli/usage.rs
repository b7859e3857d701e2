//! `ctxhooks usage` (not built yet).

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

/// Arguments of `ctxhooks usage`.
#[derive(Debug, Args)]
pub struct UsageArgs {}

/// Runs the command.
pub fn run(_args: &UsageArgs) -> Result<ExitCode> {
    bail!("`ctxhooks usage` is not built yet")
}
