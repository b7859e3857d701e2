//! Which file a handle or a path is, and when it last changed: the device and inode numbers and
//! the modification and change times on Unix; on Windows the volume's serial number, the file's
//! index on that volume, its last write and its last change (`ChangeTime`, which, like Unix's
//! change time, no one can set back by hand).

use std::io;
use std::path::Path;

/// What a file is and was, as one look at it gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct FileFacts {
    pub size: u64,
    /// Its last modification, in nanoseconds since 1970.
    pub modified_ns: i128,
    /// Its last change of data or metadata, in nanoseconds since 1970.
    pub changed_ns: i128,
    /// The device (Unix) or volume serial number (Windows) it lives on.
    pub device: u64,
    /// Its inode (Unix) or file index (Windows) there.
    pub inode: u64,
}

/// The facts of the open `file`.
#[expect(
    clippy::disallowed_types,
    reason = "file facts work on the std handle inside an fs_err file"
)]
pub fn of_file(file: &std::fs::File) -> io::Result<FileFacts> {
    let metadata = file.metadata()?;
    #[cfg(unix)]
    {
        Ok(of_metadata(&metadata))
    }
    #[cfg(windows)]
    {
        Ok(from_windows(
            metadata.len(),
            super::windows::file_facts(file)?,
        ))
    }
}

/// The facts of whatever is at `path`, never followed if it is a link.
pub fn of_path(path: &Path) -> io::Result<FileFacts> {
    #[cfg(unix)]
    {
        Ok(of_metadata(&fs_err::symlink_metadata(path)?))
    }
    #[cfg(windows)]
    {
        use windows_sys::Win32::Storage::FileSystem::FILE_READ_ATTRIBUTES;
        let file = super::windows::open_itself(path, FILE_READ_ATTRIBUTES)?;
        of_file(&file)
    }
}

/// The facts of what a folder's listing named, never followed if it is a link: on Unix looked at
/// relative to the listed folder (one name to resolve, not every component of its path again);
/// on Windows by its path, as [`of_path`] looks (a listing gives no file index).
pub fn of_entry(entry: &fs_err::DirEntry) -> io::Result<FileFacts> {
    #[cfg(unix)]
    {
        // `DirEntry::metadata` asks about the name at the listing's open folder and does not
        // follow a link (std's `fstatat`/`statx` with `AT_SYMLINK_NOFOLLOW`), as `of_path` does.
        Ok(of_metadata(&entry.metadata()?))
    }
    #[cfg(windows)]
    {
        of_path(&entry.path())
    }
}

/// Whether the open `file` is the file at `path` now (never followed, if it is a link): the same
/// device and inode, or volume and file index. False when nothing is there.
#[expect(
    clippy::disallowed_types,
    reason = "file facts work on the std handle inside an fs_err file"
)]
pub fn is_file_at(file: &std::fs::File, path: &Path) -> bool {
    match (of_file(file), of_path(path)) {
        (Ok(open), Ok(named)) => (open.device, open.inode) == (named.device, named.inode),
        _ => false,
    }
}

#[cfg(unix)]
fn of_metadata(metadata: &std::fs::Metadata) -> FileFacts {
    use std::os::unix::fs::MetadataExt as _;
    let nanoseconds = |seconds: i64, nanoseconds: i64| {
        i128::from(seconds) * 1_000_000_000 + i128::from(nanoseconds)
    };
    FileFacts {
        size: metadata.len(),
        modified_ns: nanoseconds(metadata.mtime(), metadata.mtime_nsec()),
        changed_ns: nanoseconds(metadata.ctime(), metadata.ctime_nsec()),
        device: metadata.dev(),
        inode: metadata.ino(),
    }
}

/// A Windows time (100 ns units since 1601) as nanoseconds since 1970.
#[cfg(windows)]
fn nanoseconds_since_1970(since_1601: i128) -> i128 {
    /// 100 ns units from 1601 to 1970.
    const FROM_1601_TO_1970: i128 = 116_444_736_000_000_000;
    (since_1601 - FROM_1601_TO_1970) * 100
}

#[cfg(windows)]
fn from_windows(size: u64, facts: super::windows::FileFacts) -> FileFacts {
    FileFacts {
        size,
        modified_ns: nanoseconds_since_1970(i128::from(facts.written)),
        changed_ns: nanoseconds_since_1970(i128::from(facts.changed)),
        device: facts.volume,
        inode: facts.index,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Unix only: Wine 8 makes no links.
    #[cfg(unix)]
    #[test]
    fn a_listed_link_is_looked_at_not_followed() {
        let scratch = crate::test_support::TempFolder::new("identity-link");
        let target = scratch.join("target.jsonl");
        fs_err::write(&target, "{}\n").unwrap();
        std::os::unix::fs::symlink(&target, scratch.join("link.jsonl")).unwrap();
        for entry in fs_err::read_dir(scratch.path()).unwrap() {
            let entry = entry.unwrap();
            assert_eq!(
                of_entry(&entry).unwrap(),
                of_path(&entry.path()).unwrap(),
                "{}",
                entry.path().display()
            );
        }
        let link = fs_err::read_dir(scratch.path())
            .unwrap()
            .map(Result::unwrap)
            .find(|entry| entry.file_name() == "link.jsonl")
            .unwrap();
        assert_ne!(
            of_entry(&link).unwrap().inode,
            of_path(&target).unwrap().inode
        );
    }

    #[test]
    fn a_file_keeps_its_identity_and_a_rewrite_changes_its_times() {
        let scratch = crate::test_support::TempFolder::new("identity");
        let path = scratch.join("transcript.jsonl");
        fs_err::write(&path, "{}\n").unwrap();
        let by_path = of_path(&path).unwrap();
        let file = fs_err::File::open(&path).unwrap();
        let by_handle = of_file(file.file()).unwrap();
        assert_eq!(by_path, by_handle);
        assert_eq!(by_path.size, 3);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let modified = u64::try_from(by_path.modified_ns / 1_000_000_000).unwrap();
        assert!(
            modified.abs_diff(now) < 300,
            "{modified} is not about {now}"
        );
        let listed: Vec<FileFacts> = fs_err::read_dir(scratch.path())
            .unwrap()
            .map(|entry| of_entry(&entry.unwrap()).unwrap())
            .collect();
        assert_eq!(listed, [by_path], "a listing's look is the path's look");
        let other = scratch.join("other.jsonl");
        fs_err::write(&other, "{}\n").unwrap();
        assert_ne!(of_path(&other).unwrap().inode, by_path.inode);
    }
}
