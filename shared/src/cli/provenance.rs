//! `ctxhooks provenance` (not built yet).

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

/// Arguments of `ctxhooks provenance`.
#[derive(Debug, Args)]
pub struct ProvenanceArgs {}

/// Runs the command.
pub fn run(_args: &ProvenanceArgs) -> Result<ExitCode> {
    bail!("`ctxhooks provenance` is not built yet")
}
