//! Which error of the file system is behind an error of any type: above the state folder's
//! typed errors ([`FileError`], [`KeptError`], [`LogError`], [`GaugeError`]), which hide theirs
//! from the chain of causes when they pass it through a transparent variant.

use std::error::Error;
use std::io;

use super::files::FileError;
use super::gauge::GaugeError;
use super::kept::KeptError;
use super::rotation::LogError;

/// Returns true if and only if the file system's error behind `error`, wherever in its chain of
/// causes it is (an `io::Error`, or one an error of the state folder holds), is of one of
/// `kinds`: how a caller that holds an error of any type (a command's) tells a full disk or a
/// closed pipe from the rest. An error of a rule above the store (`keep`) says the one its own
/// transparent variants hide with `io_error`, which its caller asks as well.
pub fn is_io_kind(error: &(dyn Error + 'static), kinds: &[io::ErrorKind]) -> bool {
    let mut cause = Some(error);
    while let Some(current) = cause {
        if io_error_of(current).is_some_and(|io| kinds.contains(&io.kind())) {
            return true;
        }
        cause = current.source();
    }
    false
}

/// The file system's error `cause` is or holds, as its own type says.
fn io_error_of<'error>(cause: &'error (dyn Error + 'static)) -> Option<&'error io::Error> {
    if let Some(error) = cause.downcast_ref::<FileError>() {
        error.io_error()
    } else if let Some(error) = cause.downcast_ref::<KeptError>() {
        error.io_error()
    } else if let Some(error) = cause.downcast_ref::<LogError>() {
        error.io_error()
    } else if let Some(error) = cause.downcast_ref::<GaugeError>() {
        error.io_error()
    } else {
        cause.downcast_ref::<io::Error>()
    }
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

    #[test]
    fn an_io_kind_is_found_through_the_logs_and_the_gauges_transparent_errors() {
        let full = || io::Error::from(io::ErrorKind::StorageFull);
        let kinds = [io::ErrorKind::StorageFull];
        assert!(is_io_kind(&LogError::Io(full()), &kinds));
        let file = LogError::File(FileError::Io(full()));
        assert!(is_io_kind(&file, &kinds));
        assert!(is_io_kind(&GaugeError::File(FileError::Io(full())), &kinds));
        assert!(!is_io_kind(
            &LogError::RotatedWhileRead("log".into()),
            &kinds
        ));
    }
}
