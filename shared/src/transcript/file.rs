//! A transcript opened once and checked once: a regular file, reached without following a
//! symbolic link and without ever blocking on a FIFO or a device. In a hook, the snapshot copies
//! from the open handle and the usage ingest reads the same handle; the commands open the files
//! a person names the same way, after resolving their links.

use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use crate::platform::open::{OpenError, is_link, open_no_follow};

/// Why a transcript was not opened or read: what is at its path, and the steps that failed
/// (each variant's words are the ones a person reads).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(
    missing_docs,
    reason = "each variant's message says what it is; its fields are named for what they hold"
)]
pub enum TranscriptError {
    #[error("the transcript `{}` does not exist", .0.display())]
    Missing(PathBuf),
    /// A symbolic link is never followed.
    #[error("the transcript `{}` is a symbolic link; refusing to follow it", .0.display())]
    Link(PathBuf),
    #[error("the transcript `{}` is a folder, not a file", .0.display())]
    Folder(PathBuf),
    /// A FIFO, a device, anything but a regular file.
    #[error("the transcript `{}` is not a regular file", .0.display())]
    NotRegular(PathBuf),
    /// A file that cannot be Claude Code's transcript, by its name.
    #[error(
        "`{}` is not a transcript (its name does not end in `.jsonl`); refused",
        .0.display()
    )]
    NotJsonl(PathBuf),
    /// A file that cannot be Claude Code's transcript, by its first byte.
    #[error(
        "`{}` is not a transcript (it does not start with a JSON object); refused",
        .0.display()
    )]
    NotJson(PathBuf),
    #[error("failed to inspect the transcript")]
    Inspect(#[source] std::io::Error),
    #[error("failed to open the transcript")]
    Open(#[source] std::io::Error),
    #[error("failed to read the transcript's size")]
    Size(#[source] std::io::Error),
    /// A path a person named whose links could not be resolved.
    #[error("failed to read the transcript `{}`", .path.display())]
    Resolve {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("failed to read the transcript")]
    Read(#[source] std::io::Error),
    #[error("failed to seek in the transcript")]
    Seek(#[source] std::io::Error),
    #[error("failed to read the bytes before the cursor")]
    ReadBeforeCursor(#[source] std::io::Error),
}

impl TranscriptError {
    /// The file system's error behind this one, if any.
    pub fn io_error(&self) -> Option<&std::io::Error> {
        match self {
            Self::Inspect(source)
            | Self::Open(source)
            | Self::Size(source)
            | Self::Resolve { source, .. }
            | Self::Read(source)
            | Self::Seek(source)
            | Self::ReadBeforeCursor(source) => Some(source),
            Self::Missing(_)
            | Self::Link(_)
            | Self::Folder(_)
            | Self::NotRegular(_)
            | Self::NotJsonl(_)
            | Self::NotJson(_) => None,
        }
    }
}

/// A transcript (or a sub-agent's), open for reading.
#[derive(Debug)]
pub struct TranscriptFile {
    path: PathBuf,
    file: fs_err::File,
    size: u64,
}

impl TranscriptFile {
    /// Opens the transcript at `path`. A path that is missing, a symbolic link, a folder, a
    /// FIFO, a device or anything else but a regular file is refused, without blocking.
    pub fn open(path: &Path) -> Result<Self, TranscriptError> {
        Self::open_if_present(path)?.ok_or_else(|| TranscriptError::Missing(path.to_owned()))
    }

    /// [`Self::open`], but `None` when nothing is at `path`.
    pub fn open_if_present(path: &Path) -> Result<Option<Self>, TranscriptError> {
        // A look at the path first: it never blocks, and it names what is wrong.
        let metadata = match fs_err::symlink_metadata(path) {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(TranscriptError::Inspect(error)),
        };
        let kind = metadata.file_type();
        if is_link(&metadata) {
            return Err(TranscriptError::Link(path.to_owned()));
        }
        if kind.is_dir() {
            return Err(TranscriptError::Folder(path.to_owned()));
        }
        if !kind.is_file() {
            return Err(TranscriptError::NotRegular(path.to_owned()));
        }
        // Then the open, which must not follow or wait either: something else may have been put
        // at the path in between. What was opened is what counts.
        let file = match open_no_follow(fs_err::OpenOptions::new().read(true), path) {
            Ok(file) => file,
            Err(OpenError::Link) => return Err(TranscriptError::Link(path.to_owned())),
            Err(OpenError::Io(error)) => return Err(TranscriptError::Open(error)),
        };
        let opened = file.metadata().map_err(TranscriptError::Size)?;
        if !opened.is_file() {
            return Err(TranscriptError::NotRegular(path.to_owned()));
        }
        Ok(Some(Self {
            path: path.to_path_buf(),
            file,
            size: opened.len(),
        }))
    }

    /// Opens a transcript a person named on the command line: symbolic links are resolved first
    /// (a person may well keep links to transcripts), then it is opened as [`Self::open`] does, so
    /// that a FIFO or a device is refused instead of blocking or never ending.
    pub fn open_named(path: &Path) -> Result<Self, TranscriptError> {
        let resolved = crate::platform::canonical::canonicalize(path).map_err(|source| {
            TranscriptError::Resolve {
                path: path.to_owned(),
                source,
            }
        })?;
        let mut opened = Self::open(&resolved)?;
        opened.path = path.to_path_buf();
        Ok(opened)
    }

    /// The file, when it can be a Claude Code transcript; refused otherwise, before a hook copies
    /// or reads it: its name must end in `.jsonl` and its first byte be `{` (an empty file is a transcript not
    /// yet written). A payload naming `/etc/shadow` must not get it archived.
    pub fn checked(mut self) -> Result<Self, TranscriptError> {
        let is_jsonl = self
            .path
            .extension()
            .is_some_and(|extension| extension == "jsonl");
        if !is_jsonl {
            return Err(TranscriptError::NotJsonl(self.path));
        }
        if self.size == 0 {
            return Ok(self);
        }
        let mut first = [0u8; 1];
        self.file
            .seek(SeekFrom::Start(0))
            .and_then(|_| self.file.read_exact(&mut first))
            .map_err(TranscriptError::Read)?;
        if first[0] != b'{' {
            return Err(TranscriptError::NotJson(self.path));
        }
        Ok(self)
    }

    /// The path it was opened at.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its size when it was opened: nothing past it is read, however the file grows.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The open file, for reading (every reader seeks to where it starts).
    pub fn file_mut(&mut self) -> &mut fs_err::File {
        &mut self.file
    }

    /// The open file, for a reader that outlives this value.
    pub fn into_file(self) -> fs_err::File {
        self.file
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_without_blocking_what_is_not_a_regular_file() {
        let temp = crate::test_support::TempFolder::new("transcript-file");
        let dir = temp.path().to_path_buf();
        let real = dir.join("real.jsonl");
        fs_err::write(&real, "{}\n").unwrap();
        let link = dir.join("link.jsonl");
        let linked = crate::test_support::symlink_file(&real, &link);
        let missing = dir.join("missing.jsonl");
        let opened = TranscriptFile::open(&real).unwrap();
        assert_eq!((opened.path(), opened.size()), (real.as_path(), 3));
        let mut cases = vec![
            (dir.as_path(), "folder"),
            (missing.as_path(), "does not exist"),
        ];
        if linked {
            cases.push((link.as_path(), "symbolic link"));
        }
        if cfg!(unix) {
            cases.push((Path::new("/dev/zero"), "not a regular file"));
        }
        for (path, expected) in cases {
            let error = TranscriptFile::open(path).unwrap_err().to_string();
            assert!(error.contains(expected), "{error}");
        }
        assert!(TranscriptFile::open_if_present(&missing).unwrap().is_none());
        drop(opened);
        fs_err::remove_dir_all(&dir).unwrap();
    }
}
