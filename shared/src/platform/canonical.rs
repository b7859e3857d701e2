//! A path with every link resolved, absolute, in the form people and other programs read: on
//! Windows without the `\\?\` prefix std's `canonicalize` puts before it (removed by `dunce`
//! only where the path means the same without it), which neither Git Bash nor a settings file
//! a person reads should get.

use std::io;
use std::path::{Path, PathBuf};

/// `path` with its links resolved; an error naming `path` when it does not exist.
pub fn canonicalize(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    let path = path.as_ref();
    #[cfg(unix)]
    {
        fs_err::canonicalize(path)
    }
    #[cfg(windows)]
    {
        dunce::canonicalize(path).map_err(|error| {
            io::Error::new(
                error.kind(),
                format!("failed to resolve `{}`: {error}", path.display()),
            )
        })
    }
}
