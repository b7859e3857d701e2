//! What reading each transcript gave, kept for the next run of `history` or `export`:
//! `<state>/history-cache/<sha256 of the path>.json`, one file per transcript (folder 0700, files
//! 0600, replaced atomically), used only while the transcript and the `ctxhooks` binary are the
//! files they were when it was written (size, modification and change times, inode) and the
//! entry's own SHA-256 holds. An entry is read without waiting (a FIFO or device is refused) and
//! never past a bound; one that cannot be read or checked is read again from the transcript.
//! `--no-cache` reads every transcript.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::read::{TranscriptRead, read_transcript};
use ctxhooks_shared::platform::identity::{self, FileFacts};
use ctxhooks_shared::store::files;
use ctxhooks_shared::store::state_dir::StateDir;

/// Version of a cache file's layout: 2 adds the change time, the inode and the entry's SHA-256;
/// 3 the transcript's `session` records (its title, kind and new folder); 4 the rows' 1-hour cache
/// writes (`cache_write_1h`, which prices them).
const CACHE_SCHEMA: u32 = 4;

/// The most bytes of an entry read for a transcript of no bytes; each byte of the transcript
/// allows four more (entries hold about a tenth of their transcript). A larger entry is not read:
/// the transcript is read again instead.
const ENTRY_FLOOR: u64 = 1024 * 1024;

/// Where the cache lives and what its entries must match.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
    binary: Stamp,
}

/// What a file was when it was looked at: a file rewritten in place with the same size and
/// modification time (set back by hand, or within one tick of the clock) still has another
/// change time, which no one can set; a file replaced by another has another inode.
type Stamp = FileFacts;

/// One cache file: the SHA-256 of the rest (lowercase hex) and a newline, then this as JSON.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    schema: u32,
    binary: Stamp,
    path: String,
    transcript: Stamp,
    read: TranscriptRead,
}

/// Length of an entry's first line: 64 hex digits and a newline.
const CHECK_LINE: usize = 65;

impl Entry {
    /// The file's bytes.
    fn to_bytes(&self) -> Result<Vec<u8>> {
        let body = serde_json::to_vec(self).context("failed to serialize a cache entry")?;
        let check = files::sha256_hex(&body);
        Ok([check.as_bytes(), b"\n", &body].concat())
    }

    /// The entry `bytes` hold, when their SHA-256 is the one they carry (an entry edited by hand,
    /// cut short or damaged is not believed).
    fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let (check, body) = bytes.split_at_checked(CHECK_LINE)?;
        if check.last() != Some(&b'\n')
            || check[..CHECK_LINE - 1] != *files::sha256_hex(body).as_bytes()
        {
            return None;
        }
        serde_json::from_slice(body).ok()
    }
}

impl Cache {
    /// The cache in `state`, for this binary; `None` when the binary cannot be looked at.
    pub fn open(state: &StateDir) -> Option<Self> {
        let binary = std::env::current_exe().ok()?;
        Some(Self {
            dir: state.history_cache_dir(),
            binary: identity::of_path(&binary).ok()?,
        })
    }

    fn file(&self, path: &Path) -> PathBuf {
        let name = files::sha256_hex(path.as_os_str().as_encoded_bytes());
        self.dir.join(format!("{name}.json"))
    }

    /// The entry in `file` for `path` as `stamp` describes it, when there is one that holds.
    fn load(&self, file: &Path, path: &Path, stamp: &Stamp) -> Option<TranscriptRead> {
        let limit = ENTRY_FLOOR.saturating_add(stamp.size.saturating_mul(4));
        let bytes = files::read_state_file_within(file, limit).ok()??;
        let entry = Entry::from_bytes(&bytes)?;
        (entry.schema == CACHE_SCHEMA
            && entry.binary == self.binary
            && entry.path == path.to_string_lossy()
            && entry.transcript == *stamp)
            .then_some(entry.read)
    }

    /// What reading `path` gave, from the cache when it is still true, else read now and kept.
    /// Whether the cache served it is returned too.
    pub fn read(&self, path: &Path) -> Result<(TranscriptRead, bool)> {
        // The file as it is now (a link is never followed).
        let before = identity::of_path(path).ok();
        let file = self.file(path);
        if let Some(stamp) = &before
            && let Some(read) = self.load(&file, path, stamp)
        {
            return Ok((read, true));
        }
        let read = read_transcript(path)?;
        // Kept only when the file did not change while it was read; a failure to keep it costs
        // the next run a read, nothing more.
        if let Some(transcript) = before
            && identity::of_path(path).ok().as_ref() == Some(&transcript)
        {
            let entry = Entry {
                schema: CACHE_SCHEMA,
                binary: self.binary,
                path: path.to_string_lossy().into_owned(),
                transcript,
                read,
            };
            let _ = self.keep(&file, &entry);
            return Ok((entry.read, false));
        }
        Ok((read, false))
    }

    fn keep(&self, file: &Path, entry: &Entry) -> Result<()> {
        files::create_private_dir_all(&self.dir).context("failed to create the history cache")?;
        files::write_atomic(file, &entry.to_bytes()?, files::PRIVATE_FILE_MODE)
            .context("failed to write a cache entry")
    }
}

/// Reads `path` through `cache` when there is one (none: `--no-cache`, or no state folder could
/// be found), else afresh; says whether the cache served it.
pub fn read_through(cache: Option<&Cache>, path: &Path) -> Result<(TranscriptRead, bool)> {
    match cache {
        Some(cache) => cache.read(path),
        None => read_transcript(path).map(|read| (read, false)),
    }
}
