//! Opening a file that must not make a hook wait or lead out of where it belongs: on Unix with
//! `O_NONBLOCK` (an open of a FIFO returns at once instead of waiting for its other end) and,
//! where no link may be followed, `O_NOFOLLOW`; on Windows, where no FIFO lives in a file
//! system, with `FILE_FLAG_OPEN_REPARSE_POINT`, so that a symbolic link or a junction is opened
//! as itself and refused, never followed.

use std::io;
use std::path::Path;

/// Why an open that follows no link failed.
#[derive(Debug)]
pub enum OpenError {
    /// `path` is a symbolic link (on Windows, any reparse point: a junction too).
    Link,
    /// Anything else the file system said.
    Io(io::Error),
}

/// Opens `path` with `options`, never waiting on a FIFO. What was opened may still be anything
/// but a regular file: the caller looks.
pub fn open_no_wait(options: &mut fs_err::OpenOptions, path: &Path) -> io::Result<fs_err::File> {
    #[cfg(unix)]
    {
        use fs_err::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits().cast_signed());
    }
    options
        .open(path)
        .or_else(|error| folder_instead(error, path))
}

/// On Windows a folder opened as a file is "access denied": the folder is opened as one then, so
/// that the caller sees a folder and refuses it by name, as on Unix.
fn folder_instead(error: io::Error, path: &Path) -> io::Result<fs_err::File> {
    if cfg!(windows)
        && error.kind() == io::ErrorKind::PermissionDenied
        && fs_err::symlink_metadata(path).is_ok_and(|metadata| metadata.is_dir())
    {
        return open_folder(path);
    }
    Err(error)
}

/// Opens `path` with `options`, never waiting on a FIFO and never through a link: a link at
/// `path` (dangling or not) is [`OpenError::Link`], whatever `options` asks (nothing is created
/// through it).
pub fn open_no_follow(
    options: &mut fs_err::OpenOptions,
    path: &Path,
) -> Result<fs_err::File, OpenError> {
    #[cfg(unix)]
    {
        use fs_err::os::unix::fs::OpenOptionsExt as _;
        let flags = rustix::fs::OFlags::NOFOLLOW.union(rustix::fs::OFlags::NONBLOCK);
        options.custom_flags(flags.bits().cast_signed());
        match options.open(path) {
            Ok(file) => Ok(file),
            // `O_NOFOLLOW` on a link: ELOOP. fs_err keeps its kind, not the raw OS error, and
            // std names that kind only on nightly: compared with the kind std gives ELOOP.
            Err(error)
                if error.kind()
                    == io::Error::from_raw_os_error(rustix::io::Errno::LOOP.raw_os_error())
                        .kind() =>
            {
                Err(OpenError::Link)
            }
            Err(error) => Err(OpenError::Io(error)),
        }
    }
    #[cfg(windows)]
    {
        use fs_err::os::windows::fs::OpenOptionsExt as _;
        use std::os::windows::fs::MetadataExt as _;
        use windows_sys::Win32::Storage::FileSystem::{
            FILE_ATTRIBUTE_REPARSE_POINT, FILE_FLAG_OPEN_REPARSE_POINT,
        };
        options.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT);
        let file = options
            .open(path)
            .or_else(|error| folder_instead(error, path))
            .map_err(OpenError::Io)?;
        let attributes = file.metadata().map_err(OpenError::Io)?.file_attributes();
        if attributes & FILE_ATTRIBUTE_REPARSE_POINT != 0 {
            return Err(OpenError::Link);
        }
        Ok(file)
    }
}

/// Opens the folder at `path` for reading its metadata and taking its lock (on Windows with
/// `FILE_FLAG_BACKUP_SEMANTICS`, without which no folder opens; a folder cannot be locked
/// there, and the caller's lock then fails as on any file system that cannot lock folders).
pub fn open_folder(path: &Path) -> io::Result<fs_err::File> {
    let mut options = fs_err::OpenOptions::new();
    options.read(true);
    #[cfg(windows)]
    {
        use fs_err::os::windows::fs::OpenOptionsExt as _;
        options.custom_flags(windows_sys::Win32::Storage::FileSystem::FILE_FLAG_BACKUP_SEMANTICS);
    }
    options.open(path)
}

/// Whether `metadata` (from `symlink_metadata`) is a link to refuse: a symbolic link, or on
/// Windows any reparse point that leads elsewhere (a junction too).
pub fn is_link(metadata: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        metadata.file_type().is_symlink()
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::MetadataExt as _;
        use windows_sys::Win32::Storage::FileSystem::FILE_ATTRIBUTE_REPARSE_POINT;
        metadata.file_type().is_symlink()
            || metadata.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT != 0
    }
}

/// Whether a file of `kind` is a stream to write into rather than a file to replace: a FIFO or
/// a character device on Unix (`/dev/stdout`, a shipper's pipe); none lives in a Windows file
/// system.
pub fn is_stream(kind: &std::fs::FileType) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        kind.is_fifo() || kind.is_char_device()
    }
    #[cfg(windows)]
    {
        let _ = kind;
        false
    }
}
