//! `ctxhooks`: the user's command line (install, doctor, archives, usage, report, provenance).

use std::process::ExitCode;

use ctxhooks_shared::store::files::is_io_kind;

fn main() -> ExitCode {
    match ctxhooks_commands::cli::run() {
        Ok(code) => code,
        Err(error) => {
            // A closed pipe (`ctxhooks usage | head`) is not an error worth reporting.
            if is_io_kind(&error, &[std::io::ErrorKind::BrokenPipe]) {
                return ExitCode::SUCCESS;
            }
            ctxhooks_commands::output::note(&format!("ctxhooks: error: {error:#}"));
            ExitCode::FAILURE
        }
    }
}
