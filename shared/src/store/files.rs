//! File writing that never leaves a half-written file under its final name: atomic replace,
//! whole-line appends, and private modes (files 0600, folders 0700).

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::platform::open::{OpenError, open_no_follow, open_no_wait};
use crate::platform::owner::Owner;
use crate::platform::positioned::read_exact_at;
use crate::platform::private;

/// What went wrong with the state folder or one of its files, in the cases its callers tell
/// apart (a link refused, not a regular file, past a bound, a lock held) and the steps they say
/// (each variant's words are the ones a person reads: the error log's lines, a command's
/// stderr). The file system's own error is the source of the step it failed, or [`Self::Io`]
/// where no step is named; its kind tells the rest ([`Self::io_error`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(
    missing_docs,
    reason = "each variant's message says what it is; its fields are named for what they hold"
)]
pub enum FileError {
    /// A state file that is never reached through a link is one.
    #[error("`{}` is a symbolic link; refusing to follow it", .0.display())]
    SymbolicLink(PathBuf),
    /// A folder below the state folder is a link: nothing kept leaves the state folder.
    #[error(
        "`{}` is a symbolic link; refusing to follow it out of the state folder",
        .0.display()
    )]
    LinkOutOfStateFolder(PathBuf),
    /// A folder, FIFO or device where a state file belongs (it would block or swallow).
    #[error(
        "`{}` is not a regular file (a folder, FIFO or device?); move it away",
        .0.display()
    )]
    NotRegular(PathBuf),
    /// A file read within a bound (in bytes) holds more.
    #[error("`{}` holds more than {} bytes", .0.display(), .1)]
    TooLarge(PathBuf, u64),
    /// Another process held the lock for the whole wait.
    #[error("another process held the lock for {} ms", .0.as_millis())]
    LockHeld(Duration),
    /// A file that must be there is not (its source is the file system's `NotFound`).
    #[error("`{}` does not exist", .path.display())]
    Missing { path: PathBuf, source: io::Error },
    /// A lock file that was there a moment ago is not any more.
    #[error("`{}` vanished", .0.display())]
    Vanished(PathBuf),
    /// A folder could not be created.
    #[error("failed to create folder `{}`", .path.display())]
    CreateFolder { path: PathBuf, source: io::Error },
    /// The state folder could not be created.
    #[error("failed to create the state folder")]
    CreateStateFolder(#[source] Box<FileError>),
    /// A session's folder could not be created.
    #[error("failed to create the session folder")]
    CreateSessionFolder(#[source] Box<FileError>),
    /// No variable says where the state folder is.
    #[cfg_attr(
        windows,
        error("neither `CTXHOOKS_HOME`, `CLAUDE_CONFIG_DIR`, `HOME` nor `USERPROFILE` is set")
    )]
    #[cfg_attr(
        not(windows),
        error("neither `CTXHOOKS_HOME`, `CLAUDE_CONFIG_DIR` nor `HOME` is set")
    )]
    NoHome,
    /// A folder to be made below the state folder is elsewhere.
    #[error("`{}` is not inside the state folder `{}`", .path.display(), .root.display())]
    OutsideStateFolder {
        path: PathBuf,
        root: PathBuf,
        source: std::path::StripPrefixError,
    },
    /// A folder to be made below the state folder has a part that is no plain name (`..`).
    #[error("`{}` is not a plain path inside the state folder", .0.display())]
    NotPlainPath(PathBuf),
    /// Something else than a folder is where a folder of the state folder belongs.
    #[error("`{}` is not a folder", .0.display())]
    NotAFolder(PathBuf),
    /// The sessions' folder could not be listed.
    #[error("failed to list sessions")]
    ListSessions(#[source] io::Error),
    /// A replaced file could not be given back to the user and group it belonged to.
    #[error("`{}` belongs to {owner}; failed to keep it so", .path.display())]
    KeepOwner {
        path: PathBuf,
        owner: Owner,
        source: io::Error,
    },
    /// A line to append holds a newline (it would be two lines).
    #[error("a log line must not contain a newline")]
    NewlineInLine,
    /// Lines to append do not end with a newline.
    #[error("appended lines must end with a newline")]
    UnterminatedLines,
    /// The write of an append failed (and was cut back).
    #[error("failed to append to `{}`", .path.display())]
    Append { path: PathBuf, source: io::Error },
    /// The lock of a file to append to could not be taken.
    #[error("failed to lock `{}` for appending", .path.display())]
    LockForAppend {
        path: PathBuf,
        source: Box<FileError>,
    },
    /// The file to append to was renamed to a part every time its lock was had.
    #[error(
        "`{}` was rotated again and again while a line waited to be appended",
        .0.display()
    )]
    RotatedWhileAppending(PathBuf),
    /// The end of a log could not be read to find its last whole line.
    #[error("failed to read the end of `{}`", .path.display())]
    ReadEnd { path: PathBuf, source: io::Error },
    /// A partial line could not be cut off a log's end.
    #[error("failed to cut a partial line off `{}`", .path.display())]
    CutPartialLine { path: PathBuf, source: io::Error },
    /// A record to append as a JSON line could not be serialized.
    #[error("failed to serialize a log record")]
    SerializeRecord(#[source] serde_json::Error),
    /// The status line's window could not be encoded.
    #[error("failed to encode the status window")]
    EncodeStatusWindow(#[source] serde_json::Error),
    /// Anything else the file system said; its kind tells the rest.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl FileError {
    /// The file system's error behind this one, wherever it is (a step's source, or one a
    /// [`FileError`] inside holds): what tells a full disk or a closed pipe from the rest.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            Self::Io(source)
            | Self::Missing { source, .. }
            | Self::CreateFolder { source, .. }
            | Self::ListSessions(source)
            | Self::KeepOwner { source, .. }
            | Self::Append { source, .. }
            | Self::ReadEnd { source, .. }
            | Self::CutPartialLine { source, .. } => Some(source),
            Self::CreateStateFolder(inner)
            | Self::CreateSessionFolder(inner)
            | Self::LockForAppend { source: inner, .. } => inner.io_error(),
            Self::SymbolicLink(_)
            | Self::LinkOutOfStateFolder(_)
            | Self::NotRegular(_)
            | Self::TooLarge(..)
            | Self::LockHeld(_)
            | Self::Vanished(_)
            | Self::NoHome
            | Self::OutsideStateFolder { .. }
            | Self::NotPlainPath(_)
            | Self::NotAFolder(_)
            | Self::NewlineInLine
            | Self::UnterminatedLines
            | Self::RotatedWhileAppending(_)
            | Self::SerializeRecord(_)
            | Self::EncodeStatusWindow(_) => None,
        }
    }
}

pub use crate::platform::private::{PRIVATE_DIR_MODE, PRIVATE_FILE_MODE};

static TEMP_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Creates `path` and its missing parents private to their owner (mode 0700 exactly whatever the
/// umask, or an owner-only access list on Windows: `platform/private.rs`).
pub fn create_private_dir_all(path: &Path) -> Result<(), FileError> {
    if path.is_dir() {
        return Ok(());
    }
    // A relative path ends in an empty ancestor, which stands for the current folder.
    let missing: Vec<&Path> = path
        .ancestors()
        .take_while(|ancestor| !ancestor.as_os_str().is_empty() && !ancestor.is_dir())
        .collect();
    for folder in missing.into_iter().rev() {
        match private::create_private_dir(folder) {
            Ok(()) => {}
            // Another process made it in between: fine.
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists && folder.is_dir() => {}
            Err(source) => {
                return Err(FileError::CreateFolder {
                    path: folder.to_owned(),
                    source,
                });
            }
        }
    }
    Ok(())
}

/// `result`, with "nothing is there" (`NotFound`) as `None`: how a file that may be missing is
/// opened, listed or looked at.
pub fn present<T>(result: io::Result<T>) -> io::Result<Option<T>> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

/// Refuses an open file that is not a regular file: a folder, a FIFO or a device where a state
/// file belongs would make a reader wait forever, or swallow what is written into it.
fn ensure_regular(file: &fs_err::File, path: &Path) -> Result<(), FileError> {
    if file.metadata()?.is_file() {
        return Ok(());
    }
    Err(FileError::NotRegular(path.to_owned()))
}

/// Opens a state file for reading, without ever waiting (a FIFO is refused, not waited on);
/// `None` when it does not exist. Anything but a regular file is an error naming the path.
pub fn open_state_file(path: &Path) -> Result<Option<fs_err::File>, FileError> {
    open_regular(fs_err::OpenOptions::new().read(true), path)
}

/// Opens `path` with `options` without ever waiting, as [`open_state_file`] does; `None` when it
/// does not exist.
fn open_regular(
    options: &mut fs_err::OpenOptions,
    path: &Path,
) -> Result<Option<fs_err::File>, FileError> {
    let Some(file) = present(open_no_wait(options, path))? else {
        return Ok(None);
    };
    ensure_regular(&file, path)?;
    Ok(Some(file))
}

/// What a file that is never reached through a link is opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs, reason = "`Read` is plain")]
pub enum Access {
    Read,
    /// Reading and writing in place; it must exist.
    Update,
    /// Reading and writing in place, created (0600) when missing.
    Create,
}

/// Opens a state file that must never be reached through a symbolic link (the kept copies, a
/// file a restore replaces), as [`open_state_file`] does: never waiting (a FIFO is opened with
/// `O_NONBLOCK`, and read and write at once when writing, so that no open waits for another
/// end), and refusing anything but a regular file. `None` when nothing is there (and it is not
/// to be created). A link is an error that says it is one.
pub fn open_unlinked(path: &Path, access: Access) -> Result<Option<fs_err::File>, FileError> {
    let mut options = fs_err::OpenOptions::new();
    options.read(true);
    if access != Access::Read {
        options.write(true);
    }
    if access == Access::Create {
        private::create_with_mode(options.create(true), PRIVATE_FILE_MODE);
    }
    let file = match open_no_follow(&mut options, path) {
        Ok(file) => file,
        Err(OpenError::Io(error)) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(OpenError::Link) => return Err(FileError::SymbolicLink(path.to_owned())),
        Err(OpenError::Io(error)) => return Err(error.into()),
    };
    ensure_regular(&file, path)?;
    Ok(Some(file))
}

/// [`open_unlinked`] for a file that must be there: a missing one is an error naming it.
pub fn open_unlinked_existing(path: &Path, access: Access) -> Result<fs_err::File, FileError> {
    open_unlinked(path, access)?.ok_or_else(|| missing(path))
}

/// A file that must be there is not: [`FileError::Missing`], with the file system's `NotFound`.
fn missing(path: &Path) -> FileError {
    FileError::Missing {
        path: path.to_owned(),
        source: io::Error::from(io::ErrorKind::NotFound),
    }
}

/// The bytes of a state file, read as [`open_state_file`] opens it (never waiting on a FIFO, a
/// device refused), when it holds at most `limit` bytes; `None` when it does not exist. A larger
/// file is an error naming it, and nothing past `limit` is ever read, whatever the file claims.
pub fn read_state_file_within(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, FileError> {
    let Some(file) = open_state_file(path)? else {
        return Ok(None);
    };
    read_within(file, path, limit).map(Some)
}

/// [`read_state_file_within`] for a file never reached through a symbolic link (opened as
/// [`open_unlinked`] opens it: a link there is [`FileError::SymbolicLink`]).
pub fn read_unlinked_within(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, FileError> {
    let Some(file) = open_unlinked(path, Access::Read)? else {
        return Ok(None);
    };
    read_within(file, path, limit).map(Some)
}

/// The bytes of the open `file` (at `path`) when it holds at most `limit`; nothing past `limit`
/// is read, whatever the file claims.
fn read_within(file: fs_err::File, path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let too_large = || FileError::TooLarge(path.to_owned(), limit);
    let length = file.metadata()?.len();
    if length > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(length).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// The most a small state file (a cursor, a snapshot's record, a compaction's summary, an
/// ownership record, a damage mark, a settings backup) is read up to: far above what any of them
/// holds, so that one grown by accident or on purpose costs an error, not the memory it claims.
pub const SMALL_STATE_FILE_LIMIT: u64 = 64 * 1024 * 1024;

/// How long an append waits for another writer's lock on the same file.
const APPEND_LOCK_WAIT: Duration = Duration::from_secs(2);

/// A name for a temporary sibling of `target`, unique within this process and across processes.
pub fn temp_sibling(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map_or_else(|| "file".into(), |name| name.to_string_lossy().into_owned());
    let counter = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    target.with_file_name(format!(".{name}.{}.{counter}.tmp", std::process::id()))
}

/// Opens a new file that must not exist yet, with exactly `mode` whatever the umask
/// (`AlreadyExists` when one does).
pub fn create_new_file(path: &Path, mode: u32) -> io::Result<fs_err::File> {
    let file = private::create_with_mode(
        fs_err::OpenOptions::new().write(true).create_new(true),
        mode,
    )
    .open(path)?;
    private::set_mode(&file, mode)?;
    Ok(file)
}

/// Replaces `target` with `bytes` atomically: a temp file in the same folder (rename is atomic
/// only within one filesystem), fsync, rename, fsync of the folder. The new file gets `mode`.
pub fn write_atomic(target: &Path, bytes: &[u8], mode: u32) -> Result<(), FileError> {
    replace(target, bytes, mode, None, true)
}

/// [`write_atomic`], and the new file gets `owner` when given and different from the writer's:
/// a file replaced by root for a user stays the user's (`platform/owner.rs`).
pub fn write_atomic_owned(
    target: &Path,
    bytes: &[u8],
    mode: u32,
    owner: Option<Owner>,
) -> Result<(), FileError> {
    replace(target, bytes, mode, owner, true)
}

/// Replaces `target` with `bytes` the way [`write_atomic`] does (a temp file in the same folder,
/// then a rename, so a reader sees the old file or the new one, never a part), without flushing
/// either to disk: only for a small file derived from others that the next run writes again
/// (the gauge), where a crash may leave it stale but an fsync on every run would cost more than
/// the file is worth.
pub fn replace_unsynced(target: &Path, bytes: &[u8], mode: u32) -> Result<(), FileError> {
    replace(target, bytes, mode, None, false)
}

/// A temporary sibling of `target` written with `bytes` (its mode exactly `mode`, given to
/// `owner`), flushed to disk when `synced`, then renamed over `target` (and the folder flushed
/// too when `synced`); removed when a step fails.
fn replace(
    target: &Path,
    bytes: &[u8],
    mode: u32,
    owner: Option<Owner>,
    synced: bool,
) -> Result<(), FileError> {
    let temp = temp_sibling(target);
    let result = (|| -> Result<(), FileError> {
        let mut file = create_new_file(&temp, mode)?;
        if let Some(owner) = owner {
            owner.give(&file).map_err(|source| FileError::KeepOwner {
                path: target.to_owned(),
                owner,
                source,
            })?;
        }
        file.write_all(bytes)?;
        if synced {
            file.sync_all()?;
        }
        drop(file);
        fs_err::rename(&temp, target)?;
        if synced {
            sync_dir(folder_of(target));
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs_err::remove_file(&temp);
    }
    result
}

/// Appends one whole line (`line` plus a newline) with a single write on a file opened for
/// appending (created 0600), under an exclusive lock, so that concurrent writers never
/// interleave or lose lines.
pub fn append_line(path: &Path, line: &[u8]) -> Result<(), FileError> {
    if line.contains(&b'\n') {
        return Err(FileError::NewlineInLine);
    }
    append_whole_lines(path, &[line, b"\n"].concat(), Some(APPEND_LOCK_WAIT))
}

/// Appends `lines` (whole lines, each ending with a newline) with a single write on a file
/// opened for appending (created 0600), for a caller that already holds the lock every writer
/// of `path` takes (the usage log's writers hold `usage.lock`): one open and one write for a
/// whole batch, however many lines it has.
pub fn append_lines(path: &Path, lines: &[u8]) -> Result<(), FileError> {
    if !lines.is_empty() && !lines.ends_with(b"\n") {
        return Err(FileError::UnterminatedLines);
    }
    append_whole_lines(path, lines, None)
}

/// One open and one write of `buffer` at the end of `path`, under the file's own lock when
/// `lock_wait` is given. A write that fails part way (a full disk) is cut back to the length
/// before it, so no fragment is left for the next line to be glued to; and a fragment someone
/// else left (a writer killed in the middle of its write, which the kernel may stop at a page
/// boundary) is ended with a newline first, so that it stays a line of its own and the new
/// lines stay whole.
fn append_whole_lines(
    path: &Path,
    buffer: &[u8],
    lock_wait: Option<std::time::Duration>,
) -> Result<(), FileError> {
    if buffer.is_empty() {
        return Ok(());
    }
    let mut file = open_for_append(path, lock_wait)?;
    // One look at the file serves two things: a file just created (empty, not yet 0600 because
    // of the umask) gets exactly 0600; and a failed write is cut back to this length.
    let length_before = file.metadata().map(|metadata| metadata.len());
    if length_before.as_ref().is_ok_and(|length| *length == 0) {
        let _ = private::set_mode(&file, PRIVATE_FILE_MODE);
    }
    // An empty file has no last byte.
    let unterminated = length_before
        .as_ref()
        .is_ok_and(|length| last_byte(file.file(), *length).is_some_and(|byte| byte != b'\n'));
    let written = if unterminated {
        file.write_all(&[b"\n", buffer].concat())
    } else {
        file.write_all(buffer)
    };
    if written.is_err()
        && let Ok(length) = length_before
    {
        let _ = file.set_len(length);
    }
    if lock_wait.is_some() {
        let _ = file.file().unlock();
    }
    written.map_err(|source| FileError::Append {
        path: path.to_owned(),
        source,
    })
}

/// How many times an append opens a log again that was rotated while it waited for its lock.
const REOPENS: usize = 4;

/// Opens `path` for appending (created 0600), readable too, to look at the last byte; never
/// waiting on a FIFO, which is refused (it would swallow the lines). With `lock_wait`, takes its
/// lock, and when the file it locked is no longer the one at `path` (a rotation renamed it to a
/// part while this waited: `store/rotation.rs`), opens the new one instead: a line never lands
/// in a part.
fn open_for_append(
    path: &Path,
    lock_wait: Option<std::time::Duration>,
) -> Result<fs_err::File, FileError> {
    for _ in 0..REOPENS {
        // Readable too, to look at the last byte; never waiting on a FIFO, which is refused
        // (it would swallow the lines).
        let file = open_no_wait(
            private::create_with_mode(
                fs_err::OpenOptions::new()
                    .read(true)
                    .append(true)
                    .create(true),
                PRIVATE_FILE_MODE,
            ),
            path,
        )?;
        ensure_regular(&file, path)?;
        let Some(wait) = lock_wait else {
            return Ok(file);
        };
        lock_within(file.file(), wait).map_err(|source| FileError::LockForAppend {
            path: path.to_owned(),
            source: Box::new(source),
        })?;
        if crate::platform::identity::is_file_at(file.file(), path) {
            return Ok(file);
        }
    }
    Err(FileError::RotatedWhileAppending(path.to_owned()))
}

/// The byte at `length - 1` of `file`, when it can be read.
#[expect(
    clippy::disallowed_types,
    reason = "positioned reads work on the std handle inside an fs_err file"
)]
fn last_byte(file: &std::fs::File, length: u64) -> Option<u8> {
    let mut byte = [0u8; 1];
    read_exact_at(file, &mut byte, length.checked_sub(1)?).ok()?;
    Some(byte[0])
}

/// Cuts `path` back to the end of its last whole line, and returns its length then (0 when it
/// does not exist). Only for a file whose every writer appends whole lines under one lock the
/// caller holds (the usage log under `usage.lock`): a line without its newline at the end is then
/// what a writer stopped in the middle of its write left, and no one else's.
pub fn cut_to_last_line(path: &Path) -> Result<u64, FileError> {
    let Some(file) = open_regular(fs_err::OpenOptions::new().read(true).write(true), path)? else {
        return Ok(0);
    };
    let length = file.metadata()?.len();
    let mut end = length;
    let mut chunk = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(chunk.len() as u64);
        let window = &mut chunk[..usize::try_from(end - start).unwrap_or(0)];
        read_exact_at(file.file(), window, start).map_err(|source| FileError::ReadEnd {
            path: path.to_owned(),
            source,
        })?;
        if let Some(newline) = window.iter().rposition(|byte| *byte == b'\n') {
            end = start + newline as u64 + 1;
            break;
        }
        end = start;
    }
    if end < length {
        file.set_len(end)
            .map_err(|source| FileError::CutPartialLine {
                path: path.to_owned(),
                source,
            })?;
    }
    Ok(end)
}

/// Opens a lock file, creating it with mode 0600 exactly when it is missing. An existing one is
/// opened read-only: `flock` needs no write access, so a lock file left 0400 by a restrictive
/// umask (or by an older ctxhooks) still works. Anything but a regular file is refused at once,
/// a symbolic link too (a lock is never taken on a file elsewhere).
pub fn open_lock_file(path: &Path) -> Result<fs_err::File, FileError> {
    if let Some(file) = open_unlinked(path, Access::Read)? {
        return Ok(file);
    }
    match create_new_file(path, PRIVATE_FILE_MODE) {
        Ok(file) => Ok(file),
        // Another process created it in between: open theirs.
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            open_unlinked(path, Access::Read)?.ok_or_else(|| FileError::Vanished(path.to_owned()))
        }
        Err(error) => Err(error.into()),
    }
}

/// Takes `file`'s exclusive lock, waiting at most `wait` (a lock held forever must not hold a
/// hook past its budget).
#[expect(
    clippy::disallowed_types,
    reason = "locking works on the std handle inside an fs_err file"
)]
pub fn lock_within(file: &std::fs::File, wait: Duration) -> Result<(), FileError> {
    let deadline = std::time::Instant::now() + wait;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(std::fs::TryLockError::WouldBlock) => return Err(FileError::LockHeld(wait)),
            Err(std::fs::TryLockError::Error(error)) => return Err(error.into()),
        }
    }
}

/// Serializes `record` as one JSON line and appends it with [`append_line`].
pub fn append_json_line<T: serde::Serialize>(path: &Path, record: &T) -> Result<(), FileError> {
    let line = serde_json::to_vec(record).map_err(FileError::SerializeRecord)?;
    append_line(path, &line)
}

/// Size and SHA-256 of a byte stream.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct Digested {
    pub size: u64,
    /// Lowercase hex SHA-256.
    pub sha256: String,
}

/// Copies everything `source` yields into `sink`, hashing on the way.
pub fn copy_hashed(source: &mut impl Read, sink: &mut impl Write) -> io::Result<Digested> {
    let mut hasher = Sha256::new();
    let mut size = 0u64;
    let mut buffer = vec![0u8; 256 * 1024];
    loop {
        let read = match source.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        hasher.update(&buffer[..read]);
        sink.write_all(&buffer[..read])?;
        size += read as u64;
    }
    Ok(Digested {
        size,
        sha256: format!("{:x}", hasher.finalize()),
    })
}

/// Copies everything `source` yields into the new file `target` (which must not exist; created
/// with mode 0600), hashing on the way, then fsyncs it. A copy that fails (a full disk, a source
/// that cannot be read) removes the file it created: `target` is whole or not there, so a
/// caller trying the next free name never takes its own remains for another run's file.
pub fn copy_new_hashed(source: &mut impl Read, target: &Path) -> io::Result<Digested> {
    let mut file = create_new_file(target, PRIVATE_FILE_MODE)?;
    let copied = copy_hashed(source, &mut file).and_then(|digested| {
        file.sync_all()?;
        Ok(digested)
    });
    if copied.is_err() {
        drop(file);
        let _ = fs_err::remove_file(target);
    }
    copied
}

/// Size and SHA-256 of a file's current content (a FIFO or a folder is refused, not read).
pub fn digest_file(path: &Path) -> Result<Digested, FileError> {
    let mut file = open_state_file(path)?.ok_or_else(|| missing(path))?;
    Ok(copy_hashed(&mut file, &mut io::sink())?)
}

/// SHA-256 of a byte slice, as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// The ends of the names beside `path` that are its name, a dot and more (`<name>.<end>`: its
/// numbered parts, generations or temporary siblings); none when its folder does not exist.
pub fn numbered_siblings(path: &Path) -> io::Result<Vec<String>> {
    let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else {
        return Ok(Vec::new());
    };
    let prefix = format!("{}.", name.to_string_lossy());
    let Some(entries) = present(fs_err::read_dir(folder))? else {
        return Ok(Vec::new());
    };
    let mut ends = Vec::new();
    for entry in entries {
        let entry_name = entry?.file_name();
        if let Some(end) = entry_name
            .to_str()
            .and_then(|text| text.strip_prefix(&prefix))
        {
            ends.push(end.to_owned());
        }
    }
    Ok(ends)
}

/// The entries of the folder `path` that can be read (none when it cannot be listed).
pub fn entries(path: &Path) -> impl Iterator<Item = fs_err::DirEntry> + use<> {
    fs_err::read_dir(path).into_iter().flatten().flatten()
}

/// `path` with `suffix` added to its name.
pub fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// A part's or generation's number written as ctxhooks writes it: from 1, no sign, no leading
/// zero.
pub fn parse_number(digits: &str) -> Option<u32> {
    let number = digits.parse::<u32>().ok()?;
    (number > 0 && number.to_string() == digits).then_some(number)
}

/// Removes the file at `path`; nothing there is no error.
pub fn remove_file_if_present(path: &Path) -> io::Result<()> {
    present(fs_err::remove_file(path)).map(drop)
}

/// Flushes a folder's entries to disk so a rename inside it survives a crash. Best effort:
/// some filesystems refuse to open folders for syncing.
pub fn sync_dir(dir: &Path) {
    if let Ok(handle) = fs_err::File::open(dir) {
        let _ = handle.sync_all();
    }
}

/// The folder `path` is in (a bare file name, a relative path, lives in the current folder).
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::private::mode_of;
    use crate::test_support::symlink_file;

    fn scratch(name: &str) -> crate::test_support::TempFolder {
        crate::test_support::TempFolder::new(name)
    }

    #[test]
    fn private_folders_are_created_for_relative_paths_too() {
        // Relative to the test's current folder (the crate's), inside a scratch name.
        let relative = PathBuf::from(format!("ctxhooks-relative-{}", std::process::id()));
        let nested = relative.join("a/b");
        create_private_dir_all(&nested).unwrap();
        assert!(nested.is_dir());
        // Under Wine a folder on a drive mapped to the Linux file system (the current folder's)
        // reads back its Unix mode, user and group alike; the other tests check the access list.
        if !crate::test_support::under_wine() {
            assert_eq!(mode_of(&nested).unwrap() & 0o777, 0o700);
        }
        fs_err::remove_dir_all(&relative).unwrap();
    }

    #[test]
    fn a_missing_file_says_so_with_the_file_systems_words() {
        let dir = scratch("missing");
        let path = dir.join("index.jsonl");
        let error = open_unlinked_existing(&path, Access::Read).unwrap_err();
        assert!(matches!(error, FileError::Missing { .. }), "{error}");
        assert_eq!(
            error.io_error().map(io::Error::kind),
            Some(io::ErrorKind::NotFound)
        );
        assert_eq!(
            crate::causes::Causes(&error).to_string(),
            format!("`{}` does not exist: entity not found", path.display())
        );
    }

    #[test]
    fn a_lock_file_is_never_reached_through_a_link() {
        let dir = scratch("lock-link");
        let elsewhere = dir.join("elsewhere");
        fs_err::write(&elsewhere, "").unwrap();
        let lock = dir.join("usage.lock");
        if symlink_file(&elsewhere, &lock) {
            let error = open_lock_file(&lock).unwrap_err();
            assert!(matches!(error, FileError::SymbolicLink(_)), "{error}");
        }
        // A plain lock file, even one left read-only, is opened and locked.
        let plain = dir.join("kept.lock");
        let file = open_lock_file(&plain).unwrap();
        assert_eq!(mode_of(&plain).unwrap() & 0o777, 0o600);
        drop(file);
        let mut read_only = fs_err::metadata(&plain).unwrap().permissions();
        read_only.set_readonly(true);
        fs_err::set_permissions(&plain, read_only).unwrap();
        let file = open_lock_file(&plain).unwrap();
        lock_within(file.file(), std::time::Duration::ZERO).unwrap();
    }

    #[test]
    fn write_atomic_replaces_and_leaves_no_temp() {
        let dir = scratch("atomic");
        let target = dir.join("settings.json");
        write_atomic(&target, b"one", 0o600).unwrap();
        write_atomic(&target, b"two", 0o600).unwrap();
        assert_eq!(fs_err::read(&target).unwrap(), b"two");
        assert_eq!(fs_err::read_dir(dir.path()).unwrap().count(), 1);
        assert_eq!(mode_of(&target).unwrap() & 0o777, 0o600);
    }

    #[test]
    fn concurrent_appends_keep_every_line_whole() {
        let dir = scratch("append");
        let log = dir.join("log.jsonl");
        let threads: Vec<_> = (0..8)
            .map(|thread| {
                let log = log.clone();
                std::thread::spawn(move || {
                    for line in 0..200 {
                        let text = format!("{thread}:{line}:{}", "x".repeat(3000));
                        append_line(&log, text.as_bytes()).unwrap();
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        let text = fs_err::read_to_string(&log).unwrap();
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines.len(), 1600);
        assert!(
            lines
                .iter()
                .all(|line| line.len() > 3000 && line.ends_with('x'))
        );
        assert_eq!(mode_of(&log).unwrap() & 0o777, 0o600);
    }

    #[test]
    fn append_lines_writes_a_batch_of_whole_lines() {
        let dir = scratch("append-lines");
        let log = dir.join("usage.jsonl");
        append_lines(&log, b"one\ntwo\n").unwrap();
        append_lines(&log, b"").unwrap();
        append_lines(&log, b"three\n").unwrap();
        assert!(append_lines(&log, b"four").is_err());
        assert_eq!(fs_err::read(&log).unwrap(), b"one\ntwo\nthree\n");
        assert_eq!(mode_of(&log).unwrap() & 0o777, 0o600);
    }

    #[test]
    fn a_fragment_left_at_the_end_stays_apart_or_is_cut() {
        let dir = scratch("fragment");
        let log = dir.join("log.jsonl");
        fs_err::write(&log, b"one\ntw").unwrap();
        append_line(&log, b"three").unwrap();
        assert_eq!(fs_err::read(&log).unwrap(), b"one\ntw\nthree\n");
        fs_err::write(&log, b"one\ntw").unwrap();
        assert_eq!(cut_to_last_line(&log).unwrap(), 4);
        assert_eq!(fs_err::read(&log).unwrap(), b"one\n");
        assert_eq!(cut_to_last_line(&log).unwrap(), 4);
        // A fragment longer than one read, with no newline before it at all.
        fs_err::write(&log, vec![b'x'; 200_000]).unwrap();
        assert_eq!(cut_to_last_line(&log).unwrap(), 0);
        assert_eq!(cut_to_last_line(&dir.join("missing")).unwrap(), 0);
    }

    #[test]
    fn a_bounded_read_takes_no_fifo_device_or_file_past_its_bound() {
        let dir = scratch("bounded");
        let file = dir.join("entry.json");
        assert_eq!(read_state_file_within(&file, 4).unwrap(), None);
        fs_err::write(&file, b"1234").unwrap();
        assert_eq!(read_state_file_within(&file, 4).unwrap().unwrap(), b"1234");
        assert!(read_state_file_within(&file, 3).is_err());
        // No FIFO or device lives in a Windows file system.
        #[cfg(unix)]
        {
            let fifo = dir.join("fifo");
            crate::test_support::make_fifo(&fifo);
            assert!(read_state_file_within(&fifo, 4).is_err());
            let zero = dir.join("zero");
            assert!(symlink_file(Path::new("/dev/zero"), &zero));
            assert!(read_state_file_within(&zero, 4).is_err());
        }
    }

    #[test]
    fn an_unlinked_bounded_read_follows_no_link_and_waits_on_no_fifo() {
        let dir = scratch("bounded-unlinked");
        let file = dir.join("entry.json");
        assert_eq!(read_unlinked_within(&file, 4).unwrap(), None);
        fs_err::write(&file, b"1234").unwrap();
        assert_eq!(read_unlinked_within(&file, 4).unwrap().unwrap(), b"1234");
        assert!(matches!(
            read_unlinked_within(&file, 3),
            Err(FileError::TooLarge(..))
        ));
        let link = dir.join("link.json");
        if symlink_file(&file, &link) {
            assert!(matches!(
                read_unlinked_within(&link, 4),
                Err(FileError::SymbolicLink(_))
            ));
        }
        // No FIFO lives in a Windows file system.
        #[cfg(unix)]
        {
            let fifo = dir.join("fifo");
            crate::test_support::make_fifo(&fifo);
            assert!(matches!(
                read_unlinked_within(&fifo, 4),
                Err(FileError::NotRegular(_))
            ));
        }
    }

    #[test]
    fn copy_new_hashed_matches_digest_file() {
        let dir = scratch("copy");
        let target = dir.join("copy");
        let data = vec![7u8; 600_000];
        let copied = copy_new_hashed(&mut &data[..], &target).unwrap();
        assert_eq!(copied, digest_file(&target).unwrap());
        assert_eq!(copied.size, 600_000);
        assert!(
            copy_new_hashed(&mut &data[..], &target).is_err(),
            "existing target overwritten"
        );
        assert_eq!(
            digest_file(&target).unwrap().size,
            600_000,
            "existing target removed"
        );
    }

    #[test]
    fn a_copy_that_fails_leaves_no_file() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("the source failed"))
            }
        }
        let dir = scratch("copy-fails");
        let target = dir.join("copy");
        assert!(copy_new_hashed(&mut (&[7u8; 1000][..]).chain(Failing), &target).is_err());
        assert!(
            fs_err::symlink_metadata(&target).is_err(),
            "a partial copy was left"
        );
    }
}
