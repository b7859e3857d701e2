//! Small readers for what the programs under test leave on disk.

use std::path::Path;

use serde_json::Value;

/// The permission bits of `path` (`0o600`, `0o700`, ...; on Windows 0600 or 0700 for an
/// owner-only access list: `platform/private.rs`).
pub fn mode(path: &Path) -> u32 {
    ctxhooks_shared::platform::private::mode_of(path).unwrap() & 0o777
}

/// The lines of a text file; none when it does not exist.
pub fn text_lines(path: &Path) -> Vec<String> {
    if !path.exists() {
        return Vec::new();
    }
    fs_err::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The lines of a JSON Lines file, each parsed; none when it does not exist.
pub fn json_lines(path: &Path) -> Vec<Value> {
    text_lines(path)
        .iter()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|error| {
                panic!(
                    "`{}` holds a line that is not JSON ({error}): {line}",
                    path.display()
                )
            })
        })
        .collect()
}

/// Appends `text` to `path`, creating the file (and its folder) if needed.
pub fn append(path: &Path, text: impl AsRef<[u8]>) {
    use std::io::Write as _;
    fs_err::create_dir_all(path.parent().unwrap()).unwrap();
    let mut file = fs_err::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    file.write_all(text.as_ref()).unwrap();
}

/// Makes a FIFO at `path`: opening it blocks until someone opens the other end.
#[cfg(unix)]
pub fn make_fifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

/// Returns true if and only if the tests run as root. A test that needs root asks
/// [`needs_root`](super::root::needs_root) instead, which records it for the summary; this is
/// for a test that only runs differently as root.
pub fn running_as_root() -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        // `/proc/self` belongs to the process's effective user (Linux, where the root tests run).
        fs_err::metadata("/proc/self").is_ok_and(|metadata| metadata.uid() == 0)
    }
    #[cfg(windows)]
    {
        false
    }
}

/// Says on the process's stderr, past the test harness's capture, that a test skipped a check.
pub fn say_skipped(what: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "\nSKIPPED: {what}\n");
}

/// Says on the process's stderr, past the test harness's capture, what a fault group tried and
/// what held (`faults: concurrency: 16 tooluse × 20 events, 320 lines, none torn`).
pub fn say_held(group: &str, what: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "\nfaults: {group}: {what}");
}
