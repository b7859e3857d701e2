//! `ctxhooks-search`: `ctxhooks search` and `ctxhooks mcp`, which `ctxhooks` hands over to it so
//! that `SQLite` and the MCP server stay out of the binary the status line starts.

use std::process::ExitCode;

use ctxhooks_commands::cli;

fn main() -> ExitCode {
    cli::exit_code(cli::run_search())
}
