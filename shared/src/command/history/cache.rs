//! What reading each transcript gave, kept for the next run of `history` or `export`:
//! `<state>/history-cache/<sha256 of the path>.json`, one file per transcript (folder 0700, files
//! 0600, replaced atomically), used only while the transcript's size and modification time and
//! the `ctxhooks` binary (its size and modification time) are what they were when it was written.
//! A transcript that grew or changed is read again; `--no-cache` reads every one.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::read::{TranscriptRead, read_transcript};
use crate::store::files;
use crate::store::state_dir::StateDir;

/// Version of a cache file's layout.
const CACHE_SCHEMA: u32 = 3;

/// Where the cache lives and what its entries must match.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
    binary: String,
}

/// One cache file.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    schema: u32,
    binary: String,
    path: String,
    size: u64,
    modified_ns: i128,
    read: TranscriptRead,
}

/// What a transcript was, when it was read: its size and modification time.
fn stamp(path: &Path) -> Option<(u64, i128)> {
    let metadata = fs_err::symlink_metadata(path).ok()?;
    let modified = i128::from(metadata.mtime()) * 1_000_000_000 + i128::from(metadata.mtime_nsec());
    Some((metadata.len(), modified))
}

impl Cache {
    /// The cache in `state`, for this binary; `None` when the binary cannot be looked at.
    pub fn open(state: &StateDir) -> Option<Self> {
        let binary = std::env::current_exe().ok()?;
        let (size, modified) = stamp(&binary)?;
        Some(Self {
            dir: state.history_cache_dir(),
            binary: format!("{size}:{modified}"),
        })
    }

    fn file(&self, path: &Path) -> PathBuf {
        let name = files::sha256_hex(path.as_os_str().as_encoded_bytes());
        self.dir.join(format!("{name}.json"))
    }

    /// What reading `path` gave, from the cache when it is still true, else read now and kept.
    /// Whether the cache served it is returned too.
    pub fn read(&self, path: &Path) -> Result<(TranscriptRead, bool)> {
        let before = stamp(path);
        let file = self.file(path);
        if let Some((size, modified)) = before
            && let Ok(bytes) = fs_err::read(&file)
            && let Ok(entry) = serde_json::from_slice::<Entry>(&bytes)
            && entry.schema == CACHE_SCHEMA
            && entry.binary == self.binary
            && entry.path == path.to_string_lossy()
            && (entry.size, entry.modified_ns) == (size, modified)
        {
            return Ok((entry.read, true));
        }
        let read = read_transcript(path)?;
        // Kept only when the file did not change while it was read; a failure to keep it costs
        // the next run a read, nothing more.
        if let Some((size, modified_ns)) = before
            && stamp(path) == before
        {
            let entry = Entry {
                schema: CACHE_SCHEMA,
                binary: self.binary.clone(),
                path: path.to_string_lossy().into_owned(),
                size,
                modified_ns,
                read,
            };
            let _ = self.keep(&file, &entry);
            return Ok((entry.read, false));
        }
        Ok((read, false))
    }

    fn keep(&self, file: &Path, entry: &Entry) -> Result<()> {
        files::create_private_dir_all(&self.dir).context("failed to create the history cache")?;
        let bytes = serde_json::to_vec(entry).context("failed to serialize a cache entry")?;
        files::write_atomic(file, &bytes, files::PRIVATE_FILE_MODE)
            .context("failed to write a cache entry")
    }
}

/// How transcripts are read: through the cache, or each one afresh.
#[derive(Debug, Clone, Default)]
pub struct Reading {
    /// The cache, unless `--no-cache` or no state folder could be found.
    pub cache: Option<Cache>,
}

impl Reading {
    /// Reads `path`, through the cache when there is one; says whether the cache served it.
    pub fn read(&self, path: &Path) -> Result<(TranscriptRead, bool)> {
        match &self.cache {
            Some(cache) => cache.read(path),
            None => read_transcript(path).map(|read| (read, false)),
        }
    }
}
