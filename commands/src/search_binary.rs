//! `ctxhooks search` and `ctxhooks mcp` run in a binary of their own, `ctxhooks-search`, beside
//! `ctxhooks`: `SQLite` and the MCP server's runtime would otherwise be in the binary every status
//! line update starts, and a statically linked binary relocates all of its pointers at each
//! start (BENCHMARKS.md, the status line). `ctxhooks` parses the arguments (its `--help` and its
//! errors stay whole) and hands them on unchanged.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use ctxhooks_shared::platform::program::{binary_file_name, run_in_place};

/// The binary that runs `search` and `mcp`.
pub const SEARCH_BINARY: &str = "ctxhooks-search";

/// Runs `ctxhooks-search` with `arguments` (this process's own, without its name) in this
/// process's place.
pub fn forward(arguments: &[OsString]) -> Result<ExitCode> {
    let program = beside_this_program()?;
    if !program.is_file() {
        bail!(
            "`ctxhooks search` and `ctxhooks mcp` run `{}`, which is not installed beside \
             ctxhooks (install both again with install/setup.sh)",
            program.display()
        );
    }
    let status = run_in_place(&program, arguments)
        .with_context(|| format!("failed to start `{}`", program.display()))?;
    Ok(ExitCode::from(u8::try_from(status).unwrap_or(1)))
}

/// `ctxhooks-search` in the folder of the running program.
fn beside_this_program() -> Result<PathBuf> {
    let this = std::env::current_exe().context("failed to find the running program")?;
    let folder = this
        .parent()
        .context("the running program is in no folder")?;
    Ok(folder.join(binary_file_name(SEARCH_BINARY)))
}
