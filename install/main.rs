//! `ctxhooks`: the user's command line (install, doctor, archives, usage, report, provenance).

use std::process::ExitCode;

use ctxhooks_commands::cli;

fn main() -> ExitCode {
    cli::exit_code(cli::run())
}
