//! `ctxhooks mcp` runs in a binary of its own, `ctxhooks-search`, beside `ctxhooks`: the MCP
//! server's runtime (tokio, rmcp) stays out of the binary every status line update starts.
//! `ctxhooks search` runs in `ctxhooks` itself: `SQLite`'s pointers, relocated at each start of a
//! statically linked binary, cost the status line's start 8 % more instructions and no wall time
//! that could be measured, while handing a search to a second process cost it a process start,
//! an eighth of a warm search (BENCHMARKS.md, issue 32). `ctxhooks-search` parses the same
//! arguments with the same parser, so `ctxhooks` hands them on unchanged: where it can replace
//! itself with it (`exec`, on Unix), before parsing them, under its own name (its `--help` and
//! its errors read the same); otherwise, and when `ctxhooks-search` is not installed, after (the
//! help and the errors are whole without it). It still runs `search` too, as the MCP server's
//! search tool does.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use ctxhooks_shared::platform::program::{REPLACES_PROCESS, binary_file_name, run_in_place};

/// The binary that runs `mcp`.
pub const SEARCH_BINARY: &str = "ctxhooks-search";

/// Whether `arguments` (this process's own, without its name) run a command of
/// `ctxhooks-search`.
pub fn is_for_search_binary(arguments: &[OsString]) -> bool {
    arguments.first().is_some_and(|first| first == "mcp")
}

/// Replaces this process with `ctxhooks-search` under this process's own name, before
/// `ctxhooks` parses `arguments`, when the platform replaces processes and it is installed;
/// `None` otherwise (the caller parses them and calls [`forward`]).
pub fn hand_over_early(name: Option<&OsStr>, arguments: &[OsString]) -> Option<Result<ExitCode>> {
    if !REPLACES_PROCESS {
        return None;
    }
    let program = beside_this_program().ok().filter(|path| path.is_file())?;
    Some(start(&program, name, arguments))
}

/// Runs `ctxhooks-search` with `arguments` (this process's own, without its name) in this
/// process's place.
pub fn forward(arguments: &[OsString]) -> Result<ExitCode> {
    let program = beside_this_program()?;
    if !program.is_file() {
        bail!(
            "`ctxhooks mcp` runs `{}`, which is not installed beside ctxhooks (install both \
             again with install/setup.sh)",
            program.display()
        );
    }
    start(&program, None, arguments)
}

fn start(program: &Path, name: Option<&OsStr>, arguments: &[OsString]) -> Result<ExitCode> {
    let status = run_in_place(program, name, arguments)
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
