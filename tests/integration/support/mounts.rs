//! Filesystems mounted for one test (they need root, as on this project's machines and CI): a
//! small tmpfs for a full disk, a read-only one for a state folder nobody may write. Unmounted
//! when dropped.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A tmpfs mounted over a folder for one test; unmounted when dropped.
pub struct SmallFilesystem {
    path: PathBuf,
}

impl SmallFilesystem {
    /// Mounts a tmpfs of `size` (`16k`, `1m`) with mode 0700 at `path` (created if needed).
    /// `None` when it cannot (the tests do not run as root).
    pub fn mount(path: PathBuf, size: &str) -> Option<Self> {
        Self::mount_with(path, &format!("size={size},mode=0700"))
    }

    /// Mounts an empty read-only tmpfs at `path`: nothing can be created in it, not even by root.
    pub fn read_only(path: PathBuf) -> Option<Self> {
        Self::mount_with(path, "size=64k,mode=0700,ro")
    }

    fn mount_with(path: PathBuf, options: &str) -> Option<Self> {
        fs_err::create_dir_all(&path).unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(&path)
            .stderr(Stdio::null())
            .status()
            .ok()?;
        status.success().then_some(Self { path })
    }

    /// Gives the filesystem a new size, keeping what it holds (a full disk that was freed).
    pub fn resize(&self, size: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.path)
            .status()
            .unwrap();
        assert!(status.success(), "remount {}", self.path.display());
    }

    /// Makes the filesystem read-only, keeping what it holds.
    pub fn remount_read_only(&self) {
        let status = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(&self.path)
            .status()
            .unwrap();
        assert!(status.success(), "remount ro {}", self.path.display());
    }

    /// Where it is mounted.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SmallFilesystem {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.path).status();
    }
}
