//! What the unit tests of both library crates share: a temporary folder that is removed when
//! dropped (for the commands crate, behind the `test-support` feature).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

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
