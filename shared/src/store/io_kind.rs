//! Which error of the file system is behind an error of any type: above both typed errors of
//! the state folder ([`FileError`], [`KeptError`]), which hide theirs from the chain of causes
//! when they pass it through.

use std::io;

use super::files::FileError;
use super::kept::KeptError;

/// Returns true if and only if the file system's error behind `error`, wherever in its chain of
/// causes it is (an `io::Error`, or one a [`FileError`] or a [`KeptError`] holds), is of one of `kinds`: how a
/// caller that holds an error of any type (a command's) tells a full disk or a closed pipe from
/// the rest. A typed error of this crate says it itself (`io_error`).
pub fn is_io_kind(error: &(dyn std::error::Error + 'static), kinds: &[io::ErrorKind]) -> bool {
    std::iter::successors(Some(error), |cause| cause.source()).any(|cause| {
        let io = match (
            cause.downcast_ref::<FileError>(),
            cause.downcast_ref::<KeptError>(),
        ) {
            (Some(file), _) => file.io_error(),
            (_, Some(kept)) => kept.io_error(),
            _ => cause.downcast_ref::<io::Error>(),
        };
        io.is_some_and(|io| kinds.contains(&io.kind()))
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;

    #[test]
    fn an_io_kind_is_found_through_contexts_and_file_errors() {
        let full = || io::Error::from(io::ErrorKind::StorageFull);
        let kinds = [io::ErrorKind::StorageFull];
        let held = FileError::CreateStateFolder(Box::new(FileError::Io(full())));
        assert!(is_io_kind(&held, &kinds));
        let plain = FileError::Append {
            path: PathBuf::from("log"),
            source: full(),
        };
        assert!(is_io_kind(&plain, &kinds));
        let bare = full();
        assert!(is_io_kind(&bare, &kinds));
        let locked = FileError::LockForAppend {
            path: PathBuf::from("log"),
            source: Box::new(FileError::LockHeld(Duration::ZERO)),
        };
        assert!(!is_io_kind(&locked, &kinds));
    }

    #[test]
    fn an_io_kind_is_found_through_a_kept_copys_errors() {
        let missing = KeptError::Open(FileError::Io(io::Error::from(io::ErrorKind::NotFound)));
        assert!(is_io_kind(&missing, &[io::ErrorKind::NotFound]));
        // A transparent variant hides the error it passes through from the chain of causes.
        let full = KeptError::from(io::Error::from(io::ErrorKind::StorageFull));
        assert!(is_io_kind(&full, &[io::ErrorKind::StorageFull]));
        assert!(!is_io_kind(&full, &[io::ErrorKind::NotFound]));
    }
}
