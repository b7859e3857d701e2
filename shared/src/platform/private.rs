//! Files and folders only their owner can reach. On Unix, exact modes whatever the umask (files
//! 0600, folders 0700; a restrictive umask would otherwise leave a folder the hooks can never
//! write to again). On Windows, an owner-only access list: one entry, full access for the user
//! the process runs as, inherited by everything created below a folder, and nothing inherited
//! from above; a mode that lets group or others in leaves a file the access list its folder
//! gives it.

use std::io;
use std::path::Path;

/// Mode of every file ctxhooks creates: archives and logs may hold secrets.
pub const PRIVATE_FILE_MODE: u32 = 0o600;

/// Mode of every folder ctxhooks creates.
pub const PRIVATE_DIR_MODE: u32 = 0o700;

/// The bits of a mode that let the group or others in.
#[cfg(windows)]
const GROUP_AND_OTHERS: u32 = 0o077;

/// Creates the folder `path` (its parent must exist) reachable by its owner only. The error of
/// the creation itself comes back as it is (`AlreadyExists` when something is there).
pub fn create_private_dir(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
        std::fs::DirBuilder::new()
            .mode(PRIVATE_DIR_MODE)
            .create(path)?;
        fs_err::set_permissions(path, std::fs::Permissions::from_mode(PRIVATE_DIR_MODE))
    }
    #[cfg(windows)]
    {
        fs_err::create_dir(path)?;
        super::windows::make_dir_owner_only(path)
    }
}

/// Gives the open `file` exactly `mode` (Unix); on Windows, when `mode` lets no one but the
/// owner in, an owner-only access list, and otherwise nothing (it keeps what its folder gives).
pub fn set_mode(file: &fs_err::File, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        file.set_permissions(std::fs::Permissions::from_mode(mode))
    }
    #[cfg(windows)]
    {
        if mode & GROUP_AND_OTHERS == 0 {
            super::windows::make_file_owner_only(file.file())
        } else {
            Ok(())
        }
    }
}

/// Asks `options` (a file about to be created) for `mode` from the start (Unix: the umask may
/// still narrow it; [`set_mode`] then makes it exact). Nothing on Windows, where the file gets its
/// folder's inheritable access list until [`set_mode`].
pub fn create_with_mode(options: &mut fs_err::OpenOptions, mode: u32) -> &mut fs_err::OpenOptions {
    #[cfg(unix)]
    {
        use fs_err::os::unix::fs::OpenOptionsExt as _;
        options.mode(mode)
    }
    #[cfg(windows)]
    {
        let _ = mode;
        options
    }
}

/// The mode of the file or folder at `path`, as the doctor shows it: the permission bits on
/// Unix; on Windows 0700 for a folder (0600 for a file) whose access list lets only the user in,
/// and 0777 (0666) when it lets anyone else in.
pub fn mode_of(path: &Path) -> io::Result<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        Ok(fs_err::metadata(path)?.permissions().mode() & 0o7777)
    }
    #[cfg(windows)]
    {
        let folder = fs_err::metadata(path)?.is_dir();
        let owner_only = super::windows::is_owner_only(path)?;
        Ok(match (folder, owner_only) {
            (true, true) => PRIVATE_DIR_MODE,
            (true, false) => 0o777,
            (false, true) => PRIVATE_FILE_MODE,
            (false, false) => 0o666,
        })
    }
}

/// Whether the file at `path` can be written, as far as its own flags say (its write bit for
/// the owner on Unix, the read-only attribute on Windows).
pub fn is_read_only(metadata: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        metadata.permissions().mode() & 0o200 == 0
    }
    #[cfg(windows)]
    {
        metadata.permissions().readonly()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_private_folder_and_file_are_the_owners_alone() {
        let scratch = crate::test_support::TempFolder::new("private");
        let folder = scratch.join("state");
        create_private_dir(&folder).unwrap();
        assert_eq!(mode_of(&folder).unwrap(), PRIVATE_DIR_MODE);
        let path = folder.join("usage.jsonl");
        let file = fs_err::File::create(&path).unwrap();
        set_mode(&file, PRIVATE_FILE_MODE).unwrap();
        assert_eq!(mode_of(&path).unwrap(), PRIVATE_FILE_MODE);
        let error = create_private_dir(&folder).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
    }

    #[test]
    fn a_folder_made_by_anything_else_is_not_private() {
        let scratch = crate::test_support::TempFolder::new("not-private");
        let folder = scratch.join("open");
        fs_err::create_dir(&folder).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            fs_err::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        assert_ne!(mode_of(&folder).unwrap(), PRIVATE_DIR_MODE);
    }
}
