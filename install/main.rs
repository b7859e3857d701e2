//! `ctxhooks`: the user's command line (install, doctor, archives, usage, report, provenance).

use std::process::ExitCode;

fn main() -> ExitCode {
    match ctxhooks_commands::cli::run() {
        Ok(code) => code,
        Err(error) => {
            // A closed pipe (`ctxhooks usage | head`) is not an error worth reporting.
            let broken_pipe = error.chain().any(|cause| {
                cause
                    .downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            });
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            ctxhooks_commands::output::note(&format!("ctxhooks: error: {error:#}"));
            ExitCode::FAILURE
        }
    }
}
