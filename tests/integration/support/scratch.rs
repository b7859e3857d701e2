//! Scratch folders for tests, removed when dropped (kept when `CTXHOOKS_KEEP_SCRATCH` is set).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fresh folder under the system temp folder.
pub struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// Creates `<tmp>/ctxhooks-test-<name>-<pid>-<n>`.
    pub fn new(name: &str) -> Self {
        let number = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "ctxhooks-test-{name}-{}-{number}",
            std::process::id()
        ));
        let _ = fs_err::remove_dir_all(&path);
        fs_err::create_dir_all(&path).unwrap();
        // Canonical, so paths compare equal to what programs report.
        let path = ctxhooks_shared::platform::canonical::canonicalize(&path).unwrap();
        Self { path }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A path inside the folder.
    pub fn join(&self, relative: impl AsRef<Path>) -> PathBuf {
        self.path.join(relative)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::env::var_os("CTXHOOKS_KEEP_SCRATCH").is_some() {
            return;
        }
        // A process the test started may still be writing as its last act (a hook run at the
        // session's end): a removal that raced it is tried again.
        for _ in 0..5 {
            if fs_err::remove_dir_all(&self.path).is_ok() || !self.path.exists() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }
}
