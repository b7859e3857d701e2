//! Logs kept within a size: `errors.log`, each session's `usage.jsonl` and `provenance.jsonl`.
//! A log past its limit is renamed, under the lock its writers take, to a numbered part beside
//! it (`<log>.<N>`, N from 1, oldest first), and compressed to `<log>.<N>.gz` (gzip, 0600; the
//! uncompressed part is removed once the compressed one is whole and synced); the next line
//! starts a new log. Every reader reads the parts, oldest first, then the log, as one stream
//! ([`open_log`], [`read_log`], [`read_tail`]), so nothing a command reads goes missing. A part
//! is never written again; `errors.log` keeps its newest [`ERRORS_LOG_LIMIT`]`.parts_kept` parts
//! (older errors are dropped), a session's logs keep all of theirs (they go with the session's
//! record). The Stop hook rotates, after its work (`hook/stop.rs`); the tool hook only appends.

use std::io::{self, Read, Write as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;

use crate::store::files::{self, Access, FileError};

/// What went wrong reading or rotating a log and its parts (each variant's words are the ones a
/// person reads).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(
    missing_docs,
    reason = "each variant's message says what it is; its fields are named for what they hold"
)]
pub enum LogError {
    #[error("failed to list `{}`'s parts", .log.display())]
    ListParts { log: PathBuf, source: io::Error },
    /// Every attempt to read it overlapped a rotation.
    #[error(
        "`{}` was rotated again and again while it was read; try again",
        .0.display()
    )]
    RotatedWhileRead(PathBuf),
    #[error("failed to read `{}`", .log.display())]
    Read { log: PathBuf, source: io::Error },
    #[error("failed to rotate `{}`", .log.display())]
    Rotate { log: PathBuf, source: io::Error },
    #[error("failed to compress `{}`", .part.display())]
    Compress { part: PathBuf, source: io::Error },
    /// A file of the log, opened as a state file, where no step is named.
    #[error(transparent)]
    File(#[from] FileError),
    /// Anything else the file system said where no step is named.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl LogError {
    /// The file system's error behind this one, wherever it is (a step's source, or one a
    /// transparent variant hides from the chain of causes): what
    /// [`super::io_kind::is_io_kind`] reads.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            Self::ListParts { source, .. }
            | Self::Read { source, .. }
            | Self::Rotate { source, .. }
            | Self::Compress { source, .. }
            | Self::Io(source) => Some(source),
            Self::File(file) => file.io_error(),
            Self::RotatedWhileRead(_) => None,
        }
    }
}

/// When a log is rotated, and how many of its parts are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogLimit {
    /// A log holding more bytes than this is rotated.
    pub bytes: u64,
    /// The newest parts kept (older ones are removed); `None`: every part.
    pub parts_kept: Option<usize>,
}

/// `errors.log`: 1 MiB per part, the newest 8 parts kept (about 9 MiB of errors in all, under 1
/// MiB compressed).
pub const ERRORS_LOG_LIMIT: LogLimit = LogLimit {
    bytes: 1024 * 1024,
    parts_kept: Some(8),
};

/// A session's `usage.jsonl` and `provenance.jsonl`: 8 MiB per part, every part kept.
pub const SESSION_LOG_LIMIT: LogLimit = LogLimit {
    bytes: 8 * 1024 * 1024,
    parts_kept: None,
};

impl LogLimit {
    /// The limit in force: `CTXHOOKS_ROTATE_AT_BYTES` may lower the size (for tests), never
    /// raise it.
    #[must_use]
    pub fn in_force(self) -> Self {
        let lowered =
            crate::store::env_vars::number(crate::store::env_vars::CTXHOOKS_ROTATE_AT_BYTES);
        Self {
            bytes: lowered.map_or(self.bytes, |lowered| lowered.min(self.bytes)),
            ..self
        }
    }
}

/// Who keeps a log's writers apart while it is renamed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writers {
    /// Each writer locks the log itself (`files::append_line`): the rotation takes that lock, and
    /// a writer that locked the old file after the rename opens the log again.
    LockTheLog,
    /// Every writer holds a lock the caller holds now (the usage log's `usage.lock`).
    CallerHoldsTheirLock,
}

/// How long a rotation waits for a writer's lock on the log; a rotation that cannot have it
/// is left to the next run.
const LOCK_WAIT: Duration = Duration::from_millis(500);

/// One part of a rotated log.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Part {
    number: u32,
    /// Its compressed file is whole (its plain file, if still there, is a leftover).
    compressed: bool,
}

fn plain_path(log: &Path, number: u32) -> PathBuf {
    files::suffixed(log, &format!(".{number}"))
}

fn compressed_path(log: &Path, number: u32) -> PathBuf {
    files::suffixed(log, &format!(".{number}.gz"))
}

/// The log's parts, oldest first.
fn parts(log: &Path) -> io::Result<Vec<Part>> {
    let mut found: Vec<Part> = Vec::new();
    for rest in files::numbered_siblings(log)? {
        let (digits, compressed) = rest
            .strip_suffix(".gz")
            .map_or((rest.as_str(), false), |digits| (digits, true));
        let Some(number) = files::parse_number(digits) else {
            continue;
        };
        match found.iter_mut().find(|part| part.number == number) {
            Some(part) => part.compressed |= compressed,
            None => found.push(Part { number, compressed }),
        }
    }
    found.sort_by_key(|part| part.number);
    Ok(found)
}

/// Whether the log or any part of it exists.
pub fn log_exists(log: &Path) -> bool {
    fs_err::symlink_metadata(log).is_ok() || parts(log).is_ok_and(|parts| !parts.is_empty())
}

/// The log's parts and the log itself, read as one stream, oldest first: what [`open_log`]
/// returns.
pub struct LogReader {
    readers: Vec<Box<dyn Read + Send>>,
    current: usize,
}

impl Read for LogReader {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        while let Some(reader) = self.readers.get_mut(self.current) {
            let read = reader.read(buffer)?;
            if read > 0 || buffer.is_empty() {
                return Ok(read);
            }
            self.current += 1;
        }
        Ok(0)
    }
}

/// How many times a read that overlapped a rotation is started again.
const READ_ATTEMPTS: usize = 8;

/// Opens the log's parts (decompressed) and the log, as one stream; `None` when neither the log
/// nor any part exists. Each file is opened as a state file (never through a link, never
/// waiting on a FIFO), and an open file keeps its bytes when it is renamed or removed. The log
/// is opened first, then the parts listed: when the log at the path is no longer the file
/// opened, a rotation made it a part meanwhile (listed, so it would be read twice), and the
/// opening starts again; a rotation after that check makes a part of the log this has open,
/// not listed: read once, as the log.
pub fn open_log(log: &Path) -> Result<Option<LogReader>, LogError> {
    for _ in 0..READ_ATTEMPTS {
        let live = files::open_state_file(log)?;
        let listed = parts(log).map_err(|source| LogError::ListParts {
            log: log.to_owned(),
            source,
        })?;
        if let Some(live) = &live
            && !crate::platform::identity::is_file_at(live.file(), log)
        {
            continue;
        }
        let mut readers: Vec<Box<dyn Read + Send>> = Vec::new();
        for part in &listed {
            let Some(reader) = open_part(log, part)? else {
                break;
            };
            readers.push(reader);
        }
        // A part removed meanwhile (an old one past the parts kept): listed again.
        if readers.len() < listed.len() {
            continue;
        }
        if live.is_none() && readers.is_empty() {
            return Ok(None);
        }
        if let Some(live) = live {
            readers.push(Box::new(live));
        }
        return Ok(Some(LogReader {
            readers,
            current: 0,
        }));
    }
    Err(LogError::RotatedWhileRead(log.to_owned()))
}

/// A part's reader: its compressed file, else its plain one (a rotation's compression not done
/// yet), else, when the plain one was compressed and removed meanwhile, its compressed one.
/// `None` when neither is there any more (removed as an old part).
fn open_part(log: &Path, part: &Part) -> Result<Option<Box<dyn Read + Send>>, FileError> {
    let compressed = compressed_path(log, part.number);
    if !part.compressed
        && let Some(file) = files::open_unlinked(&plain_path(log, part.number), Access::Read)?
    {
        return Ok(Some(Box::new(io::BufReader::new(file))));
    }
    Ok(
        files::open_unlinked(&compressed, Access::Read)?.map(|file| {
            Box::new(MultiGzDecoder::new(io::BufReader::new(file))) as Box<dyn Read + Send>
        }),
    )
}

/// Every byte of the log's parts and the log, oldest first; `None` when none exists.
pub fn read_log(log: &Path) -> Result<Option<Vec<u8>>, LogError> {
    let Some(mut reader) = open_log(log)? else {
        return Ok(None);
    };
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|source| LogError::Read {
            log: log.to_owned(),
            source,
        })?;
    Ok(Some(bytes))
}

/// The last `length` bytes of the log's stream (fewer when it holds fewer): the log's own end,
/// and when the log holds less (it was just rotated), the newest part's end before it. Reads
/// `length` bytes of the log, whatever its size, and a part only when the log is short.
pub fn read_tail(log: &Path, length: u64) -> Result<Vec<u8>, LogError> {
    let mut tail = Vec::new();
    if let Some(mut live) = files::open_state_file(log)? {
        let size = live.metadata()?.len();
        io::Seek::seek(&mut live, io::SeekFrom::Start(size.saturating_sub(length)))?;
        live.take(length).read_to_end(&mut tail)?;
    }
    let missing = length.saturating_sub(tail.len() as u64);
    if missing == 0 {
        return Ok(tail);
    }
    let Some(newest) = parts(log)?.pop() else {
        return Ok(tail);
    };
    let Some(mut part) = open_part(log, &newest)? else {
        return Ok(tail);
    };
    // A part holds at most its limit and a little more: read through, keeping the end.
    let mut end: std::collections::VecDeque<u8> = std::collections::VecDeque::new();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = part.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        end.extend(&buffer[..read]);
        let excess = end
            .len()
            .saturating_sub(usize::try_from(missing).unwrap_or(usize::MAX));
        end.drain(..excess);
    }
    let mut joined: Vec<u8> = end.into_iter().collect();
    joined.extend_from_slice(&tail);
    Ok(joined)
}

/// Rotates `log` when it holds more than `limit.bytes` (one `lstat` when it does not):
/// [`rename_if_over`], then [`finish_parts`] with the writers' lock released. Returns the new
/// part's number when it rotated.
pub fn rotate_if_over(
    log: &Path,
    limit: LogLimit,
    writers: Writers,
) -> Result<Option<u32>, LogError> {
    let Some(number) = rename_if_over(log, limit, writers)? else {
        return Ok(None);
    };
    finish_parts(log, limit)?;
    Ok(Some(number))
}

/// Renames `log` to its next part's name when it holds more than `limit.bytes` (one `lstat`
/// when it does not), under its writers' lock: the log's own (`Writers::LockTheLog`, waited
/// for at most half a second, else the rotation is left to the next run), or the one the
/// caller holds. Returns the part's number when it renamed; the part is then compressed by
/// [`finish_parts`] (until then, readers read it as it is).
pub fn rename_if_over(
    log: &Path,
    limit: LogLimit,
    writers: Writers,
) -> Result<Option<u32>, LogError> {
    let limit = limit.in_force();
    match fs_err::symlink_metadata(log) {
        Ok(metadata) if metadata.is_file() && metadata.len() > limit.bytes => {}
        Ok(_) => return Ok(None),
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error.into()),
    }
    match writers {
        Writers::CallerHoldsTheirLock => rename_to_part(log, limit),
        Writers::LockTheLog => {
            let Some(file) = files::open_unlinked(log, Access::Read)? else {
                return Ok(None);
            };
            if files::lock_within(file.file(), LOCK_WAIT).is_err() {
                return Ok(None);
            }
            // Another rotation may have renamed it while this one waited.
            if crate::platform::identity::is_file_at(file.file(), log) {
                rename_to_part(log, limit)
            } else {
                Ok(None)
            }
        }
    }
}

/// Renames the log to the next part's plain name, if it is still past its limit.
fn rename_to_part(log: &Path, limit: LogLimit) -> Result<Option<u32>, LogError> {
    if fs_err::symlink_metadata(log).map_or(true, |metadata| metadata.len() <= limit.bytes) {
        return Ok(None);
    }
    let number = parts(log)?.last().map_or(1, |part| part.number + 1);
    fs_err::rename(log, plain_path(log, number)).map_err(|source| LogError::Rotate {
        log: log.to_owned(),
        source,
    })?;
    if let Some(folder) = log.parent() {
        files::sync_dir(folder);
    }
    Ok(Some(number))
}

/// Compresses every part not compressed yet (removing a plain part whose compressed one is
/// whole), then removes the parts past `limit.parts_kept`, oldest first.
pub fn finish_parts(log: &Path, limit: LogLimit) -> Result<(), LogError> {
    let listed = parts(log)?;
    for part in &listed {
        let plain = plain_path(log, part.number);
        if !part.compressed {
            compress(&plain, &compressed_path(log, part.number))?;
        }
        files::remove_file_if_present(&plain)?;
    }
    if let Some(kept) = limit.parts_kept {
        for part in &listed[..listed.len().saturating_sub(kept)] {
            files::remove_file_if_present(&compressed_path(log, part.number))?;
            files::remove_file_if_present(&plain_path(log, part.number))?;
        }
    }
    if let Some(folder) = log.parent() {
        files::sync_dir(folder);
    }
    Ok(())
}

/// Writes `plain`'s bytes gzip-compressed to `compressed`: in a temporary sibling (0600),
/// synced, then renamed into place, so that a compressed part exists whole or not at all.
fn compress(plain: &Path, compressed: &Path) -> Result<(), LogError> {
    let Some(mut source) = files::open_unlinked(plain, Access::Read)? else {
        // Compressed and removed by another rotation meanwhile.
        return Ok(());
    };
    let temp = files::temp_sibling(compressed);
    let written = (|| -> io::Result<()> {
        let target = files::create_new_file(&temp, files::PRIVATE_FILE_MODE)?;
        let mut encoder = GzEncoder::new(io::BufWriter::new(target), flate2::Compression::new(6));
        // A line a runtime appended without the lock (`provenance.md`), through a file it opened
        // before the rename, may still land in the part: read until it stops growing.
        let mut copied = io::copy(&mut source, &mut encoder)?;
        while source.metadata()?.len() > copied {
            copied += io::copy(&mut source, &mut encoder)?;
        }
        let mut writer = encoder.finish()?;
        writer.flush()?;
        let target = writer
            .into_inner()
            .map_err(io::IntoInnerError::into_error)?;
        target.sync_all()?;
        fs_err::rename(&temp, compressed)?;
        Ok(())
    })();
    if written.is_err() {
        let _ = fs_err::remove_file(&temp);
    }
    written.map_err(|source| LogError::Compress {
        part: plain.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{TempFolder, open_in_this_process};

    const SMALL: LogLimit = LogLimit {
        bytes: 100,
        parts_kept: None,
    };

    fn append(log: &Path, text: &str) {
        files::append_line(log, text.as_bytes()).unwrap();
    }

    #[test]
    fn a_log_past_its_limit_becomes_a_compressed_part_and_readers_read_it_all() {
        let folder = TempFolder::new("rotation");
        let log = folder.join("usage.jsonl");
        assert!(read_log(&log).unwrap().is_none());
        let mut all = String::new();
        for turn in 0..30 {
            let line = format!("{{\"turn\":{turn},\"pad\":\"{}\"}}", "x".repeat(turn));
            append(&log, &line);
            all.push_str(&line);
            all.push('\n');
            rotate_if_over(&log, SMALL, Writers::LockTheLog).unwrap();
        }
        let listed = parts(&log).unwrap();
        assert!(listed.len() > 5, "{listed:?}");
        assert!(listed.iter().all(|part| part.compressed));
        for part in &listed {
            let path = compressed_path(&log, part.number);
            assert_eq!(
                crate::platform::private::mode_of(&path).unwrap() & 0o777,
                0o600
            );
            assert!(!plain_path(&log, part.number).exists());
        }
        assert_eq!(
            String::from_utf8(read_log(&log).unwrap().unwrap()).unwrap(),
            all
        );
        assert!(log_exists(&log));
        // The tail reaches into the newest part when the log itself is short (here: gone, all
        // of it rotated).
        let everything = LogLimit {
            bytes: 0,
            parts_kept: None,
        };
        rotate_if_over(&log, everything, Writers::LockTheLog).unwrap();
        assert!(!log.exists());
        let tail = read_tail(&log, 40).unwrap();
        assert!(all.as_bytes().ends_with(&tail) && tail.len() == 40);
        assert!(log_exists(&log));
    }

    #[test]
    fn a_stopped_rotation_leaves_a_readable_part_the_next_one_compresses() {
        let folder = TempFolder::new("rotation-stopped");
        let log = folder.join("errors.log");
        append(&log, &"a".repeat(150));
        // Stopped after its rename: a plain part, no compressed one.
        fs_err::rename(&log, plain_path(&log, 1)).unwrap();
        // Stopped after compressing, before removing the plain part: both are there.
        fs_err::write(plain_path(&log, 2), "b\n").unwrap();
        compress(&plain_path(&log, 2), &compressed_path(&log, 2)).unwrap();
        append(&log, &"c".repeat(150));
        let expected = format!("{}\nb\n{}\n", "a".repeat(150), "c".repeat(150));
        assert_eq!(read_log(&log).unwrap().unwrap(), expected.as_bytes());
        assert_eq!(
            rotate_if_over(&log, SMALL, Writers::LockTheLog).unwrap(),
            Some(3)
        );
        assert_eq!(
            parts(&log).unwrap(),
            (1..=3)
                .map(|number| Part {
                    number,
                    compressed: true
                })
                .collect::<Vec<_>>()
        );
        assert!(!plain_path(&log, 1).exists() && !plain_path(&log, 2).exists());
        assert_eq!(read_log(&log).unwrap().unwrap(), expected.as_bytes());
    }

    #[test]
    fn only_the_newest_parts_are_kept_when_the_limit_says_so() {
        let folder = TempFolder::new("rotation-kept");
        let log = folder.join("errors.log");
        let limit = LogLimit {
            bytes: 10,
            parts_kept: Some(2),
        };
        for turn in 0..5 {
            append(&log, &format!("line {turn} of the errors"));
            rotate_if_over(&log, limit, Writers::LockTheLog).unwrap();
        }
        let numbers: Vec<u32> = parts(&log)
            .unwrap()
            .iter()
            .map(|part| part.number)
            .collect();
        assert_eq!(numbers, [4, 5]);
        assert_eq!(
            read_log(&log).unwrap().unwrap(),
            b"line 3 of the errors\nline 4 of the errors\n"
        );
    }

    #[test]
    fn names_that_only_look_like_parts_are_not_parts() {
        let folder = TempFolder::new("rotation-names");
        let log = folder.join("usage.jsonl");
        for name in [
            "usage.jsonl.0.gz",
            "usage.jsonl.01",
            "usage.jsonl.x.gz",
            "usage.jsonl.lock",
        ] {
            fs_err::write(folder.join(name), "no\n").unwrap();
        }
        assert!(parts(&log).unwrap().is_empty());
        assert!(read_log(&log).unwrap().is_none());
        assert!(!log_exists(&log));
    }

    #[test]
    fn a_writer_waiting_on_the_lock_of_a_log_being_rotated_appends_to_the_new_log() {
        let folder = TempFolder::new("rotation-writer");
        let log = folder.join("provenance.jsonl");
        append(&log, &"a".repeat(200));
        // The rotation holds the log's lock; a writer opens the log and waits for it.
        let held = files::open_unlinked(&log, Access::Read).unwrap().unwrap();
        files::lock_within(held.file(), Duration::from_secs(1)).unwrap();
        let writer = {
            let log = log.clone();
            std::thread::spawn(move || append(&log, "after"))
        };
        // Renamed once the writer has the log open (Linux says so; elsewhere at once, and the
        // test then holds that a writer that comes after the rename appends to the new log too).
        let started = std::time::Instant::now();
        while open_in_this_process(&log).is_some_and(|open| open < 2) {
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "the writer never opened the log"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(rename_to_part(&log, SMALL).unwrap(), Some(1));
        drop(held);
        writer.join().unwrap();
        // The line went to the new log, not into the part being compressed.
        assert_eq!(
            fs_err::read(plain_path(&log, 1)).unwrap(),
            format!("{}\n", "a".repeat(200)).as_bytes()
        );
        assert_eq!(fs_err::read(&log).unwrap(), b"after\n");
        finish_parts(&log, SMALL).unwrap();
        let expected = format!("{}\nafter\n", "a".repeat(200));
        assert_eq!(read_log(&log).unwrap().unwrap(), expected.as_bytes());
    }
}
