//! What the library's unit tests share: a temporary folder that is removed when dropped.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fresh folder under the system temp folder, unique per test, removed when dropped.
pub(crate) struct TempFolder(PathBuf);

impl TempFolder {
    /// Creates `<tmp>/ctxhooks-unit-<name>-<pid>-<n>`.
    pub(crate) fn new(name: &str) -> Self {
        let number = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "ctxhooks-unit-{name}-{}-{number}",
            std::process::id()
        ));
        let _ = fs_err::remove_dir_all(&path);
        fs_err::create_dir_all(&path).unwrap();
        Self(path)
    }

    /// The folder.
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    /// A path inside the folder.
    pub(crate) fn join(&self, relative: impl AsRef<Path>) -> PathBuf {
        self.0.join(relative)
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        let _ = fs_err::remove_dir_all(&self.0);
    }
}
