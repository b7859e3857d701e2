//! `ctxhooks ledger-input` (not built yet).

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

/// Arguments of `ctxhooks ledger-input`.
#[derive(Debug, Args)]
pub struct LedgerInputArgs {}

/// Runs the command.
pub fn run(_args: &LedgerInputArgs) -> Result<ExitCode> {
    bail!("`ctxhooks ledger-input` is not built yet")
}
