//! What the tests share (for the commands crate and the integration tests, behind the
//! `test-support` feature): a temporary folder that is removed when dropped, a gauge, and the
//! words an error and the problems a rule noted are logged in. (The
//! [`Shape`](crate::transcript::table::Shape) of the transcript table, which tests build lines
//! from, is beside the table.)

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::store::gauge::{GAUGE_SCHEMA, Gauge, TriggerBasis, TriggerDerivation, percent_of};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fresh folder under the system temp folder, unique per test, removed when dropped.
pub struct TempFolder(PathBuf);

impl TempFolder {
    /// Creates `<tmp>/ctxhooks-unit-<name>-<pid>-<n>`.
    pub fn new(name: &str) -> Self {
        let number = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "ctxhooks-unit-{name}-{}-{number}",
            std::process::id()
        ));
        let _ = fs_err::remove_dir_all(&path);
        fs_err::create_dir_all(&path).expect("the system temp folder takes a scratch folder");
        Self(path)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// A path inside the folder.
    pub fn join(&self, relative: impl AsRef<Path>) -> PathBuf {
        self.0.join(relative)
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        let _ = fs_err::remove_dir_all(&self.0);
    }
}

/// Sets the modification time of the file or folder at `path` (on Windows a folder is opened
/// with the right to write its attributes, which std's `File::open` does not ask for).
pub fn set_modified(path: &Path, time: std::time::SystemTime) {
    let mut options = fs_err::OpenOptions::new();
    #[cfg(unix)]
    options.read(true);
    #[cfg(windows)]
    {
        use fs_err::os::windows::fs::OpenOptionsExt as _;
        use windows_sys::Win32::Storage::FileSystem::{
            FILE_FLAG_BACKUP_SEMANTICS, FILE_WRITE_ATTRIBUTES,
        };
        options
            .access_mode(FILE_WRITE_ATTRIBUTES)
            .custom_flags(FILE_FLAG_BACKUP_SEMANTICS);
    }
    let file = options
        .open(path)
        .unwrap_or_else(|error| panic!("`{}` opens: {error}", path.display()));
    file.file()
        .set_modified(time)
        .unwrap_or_else(|error| panic!("`{}` takes a time: {error}", path.display()));
}

/// How many open files of this process (of any of its threads) are the file at `path`, as
/// Linux tells it in `/proc/self/fd`: a deterministic sign that a thread has opened it. `None`
/// where that cannot be told (another system; under Wine, `/proc` is the Linux one of Wine's
/// own processes).
pub fn open_in_this_process(path: &Path) -> Option<usize> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let target = path.canonicalize().ok()?;
    let entries = fs_err::read_dir("/proc/self/fd").ok()?;
    Some(
        entries
            .flatten()
            .filter(|entry| fs_err::read_link(entry.path()).is_ok_and(|link| link == target))
            .count(),
    )
}

/// Whether the tests run under Wine (which sets `WINELOADER` or `WINEPREFIX` for its programs'
/// environment when the runner does; the platform scripts set `WINEPREFIX`).
pub fn under_wine() -> bool {
    cfg!(windows) && std::env::var_os("WINEPREFIX").is_some()
}

/// Makes a symbolic link to the file `original` at `link`. True when it is there and reads back
/// as a link; on Windows false when it cannot be made so (an account without the right to make
/// links, or Wine 8, which makes none that reads back as one): the caller then skips what needs
/// the link, and this says so on stderr. On Unix a failure panics.
pub fn symlink_file(original: &Path, link: &Path) -> bool {
    #[cfg(unix)]
    let made = std::os::unix::fs::symlink(original, link);
    #[cfg(windows)]
    let made = std::os::windows::fs::symlink_file(original, link);
    link_made(&made, link)
}

/// [`symlink_file`] for a folder (on Windows a folder link).
pub fn symlink_dir(original: &Path, link: &Path) -> bool {
    #[cfg(unix)]
    let made = std::os::unix::fs::symlink(original, link);
    #[cfg(windows)]
    let made = std::os::windows::fs::symlink_dir(original, link);
    link_made(&made, link)
}

fn link_made(made: &std::io::Result<()>, link: &Path) -> bool {
    let reads_as_link = made.is_ok()
        && fs_err::symlink_metadata(link)
            .is_ok_and(|metadata| crate::platform::open::is_link(&metadata));
    if reads_as_link {
        return true;
    }
    #[cfg(unix)]
    panic!("a link at `{}`: {made:?}", link.display());
    #[cfg(windows)]
    {
        let _ = fs_err::remove_file(link);
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!(
                "\nSKIPPED: a check that needs a symbolic link (`{}`): none can be made here\n",
                link.display()
            )
            .as_bytes(),
        );
        false
    }
}

/// Makes a FIFO at `path` with `mkfifo` (there on Linux and macOS alike; rustix has no
/// `mknodat` on Apple targets).
#[cfg(unix)]
pub fn make_fifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// A gauge as the Stop hook writes it: 142,503 tokens of claude-opus-4-6's T of 167,000 under
/// 2.1.332 (a 200,000 window), two compactions, no warning yet.
pub fn sample_gauge() -> Gauge {
    Gauge {
        schema: GAUGE_SCHEMA,
        session_id: "s1".into(),
        transcript: "/t.jsonl".into(),
        updated_at: "2026-12-01T00:00:00.000Z".into(),
        context_tokens: Some(142_503),
        context_time: None,
        after_compaction: false,
        trigger_tokens: Some(167_000),
        trigger: TriggerBasis {
            derivation: TriggerDerivation::Rule,
            window_tokens: Some(200_000),
            window_source: Some("model".into()),
            model: Some("claude-opus-4-6".into()),
            version: Some("2.1.332".into()),
        },
        percent: percent_of(142_503, 167_000),
        room_left: Some(24_497),
        compactions: 2,
        compaction_pending: false,
        warn_at_percent: Some(90),
        warned: false,
        title: None,
    }
}

/// What a line of the error log records of `error` (`store/error_log.rs`): it and each of its
/// causes, outermost first, each in its own words.
pub fn causes_of(error: &(dyn std::error::Error + 'static)) -> Vec<String> {
    std::iter::successors(Some(error), |cause| cause.source())
        .map(ToString::to_string)
        .collect()
}

/// The problems a rule noted, in the order it noted them, as a hook's frame would log them.
#[derive(Debug, Default)]
pub struct KeptNotes(std::sync::Mutex<Vec<crate::notes::Problem>>);

impl KeptNotes {
    /// Each problem noted so far as [`causes_of`] words it.
    pub fn causes(&self) -> Vec<Vec<String>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .map(|problem| causes_of(&**problem))
            .collect()
    }
}

impl crate::notes::Notes for KeptNotes {
    fn note(&self, problem: crate::notes::Problem) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(problem);
    }
}
