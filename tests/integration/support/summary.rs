//! What `tests/run.sh` says at the end: which end-to-end groups ran and which were skipped, and
//! why. Each group records itself, one line per test, in the file `CTXHOOKS_TEST_SUMMARY` names
//! (when it is set), appended whole in one write; `tests/run.sh` reads it after `cargo test`.

use std::io::Write as _;
use std::path::Path;

/// The variable naming the summary file.
pub const SUMMARY_VARIABLE: &str = "CTXHOOKS_TEST_SUMMARY";

/// Records that a test of `group` ran (`outcome` = `ran`) or was skipped (`skipped: why`).
pub fn record_group(group: &str, outcome: &str) {
    let Some(path) = std::env::var_os(SUMMARY_VARIABLE) else {
        return;
    };
    let line = format!("{group}\t{outcome}\n");
    if let Ok(mut file) = fs_err::OpenOptions::new()
        .create(true)
        .append(true)
        .open(Path::new(&path))
    {
        let _ = file.write_all(line.as_bytes());
    }
}

/// The group of the test file at `path` (`tests/integration/e2e_claude.rs` is `e2e_claude`).
pub fn group_of(path: &str) -> String {
    Path::new(path).file_stem().map_or_else(
        || path.to_owned(),
        |stem| stem.to_string_lossy().into_owned(),
    )
}
