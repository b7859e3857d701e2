//! A rename that never replaces a file at its target (`AlreadyExists` then): `renameat2` with
//! `RENAME_NOREPLACE` on Linux, `renameatx_np` with `RENAME_EXCL` on macOS; where the file system
//! cannot rename so, and on Windows, whose rename replaces, a hard link (which never replaces)
//! and the removal of the old name do the same.

use std::io;
use std::path::Path;

/// Renames `from` to `to` only if nothing is at `to`.
pub fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        match rustix::fs::renameat_with(
            rustix::fs::CWD,
            from,
            rustix::fs::CWD,
            to,
            rustix::fs::RenameFlags::NOREPLACE,
        ) {
            Ok(()) => return Ok(()),
            Err(errno)
                if errno == rustix::io::Errno::INVAL || errno == rustix::io::Errno::NOSYS => {}
            Err(errno) => return Err(io::Error::from(errno)),
        }
    }
    fs_err::hard_link(from, to)?;
    fs_err::remove_file(from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_at_the_target_is_never_replaced() {
        let scratch = crate::test_support::TempFolder::new("rename");
        let (from, to) = (scratch.join("from"), scratch.join("to"));
        fs_err::write(&from, "new").unwrap();
        fs_err::write(&to, "old").unwrap();
        let error = rename_no_replace(&from, &to).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs_err::read(&to).unwrap(), b"old");
        fs_err::remove_file(&to).unwrap();
        rename_no_replace(&from, &to).unwrap();
        assert_eq!(fs_err::read(&to).unwrap(), b"new");
        assert!(!from.exists());
    }
}
