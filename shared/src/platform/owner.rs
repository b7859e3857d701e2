//! A file replaced for someone else stays theirs. On Unix a replacement is a new file, which
//! belongs to its writer: `sudo ctxhooks install` on a user's settings file gives the new file
//! the old one's user and group. On Windows a file's owner is whoever created it, and handing it
//! to another account needs a privilege a person's own process does not have: nothing is kept
//! there ([`Owner::of`] is `None`).

use std::io;

/// Who owns a file: its user and group ids on Unix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    #[cfg(unix)]
    user: u32,
    #[cfg(unix)]
    group: u32,
}

impl Owner {
    /// The owner of the file `metadata` describes, where one can be kept (Unix).
    pub fn of(metadata: &std::fs::Metadata) -> Option<Self> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            Some(Self {
                user: metadata.uid(),
                group: metadata.gid(),
            })
        }
        #[cfg(windows)]
        {
            let _ = metadata;
            None
        }
    }

    /// Gives the open `file` this owner, when it has another.
    pub fn give(self, file: &fs_err::File) -> io::Result<()> {
        #[cfg(unix)]
        {
            if Self::of(&file.metadata()?) == Some(self) {
                return Ok(());
            }
            std::os::unix::fs::fchown(file.file(), Some(self.user), Some(self.group))
        }
        #[cfg(windows)]
        {
            let _ = file;
            Ok(())
        }
    }
}

impl std::fmt::Display for Owner {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        #[cfg(unix)]
        {
            write!(formatter, "user {} and group {}", self.user, self.group)
        }
        #[cfg(windows)]
        {
            write!(formatter, "its owner")
        }
    }
}
