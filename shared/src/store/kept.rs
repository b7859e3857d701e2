//! The kept copies of a session's transcripts (`<state>/sessions/<id>/kept/`, format version
//! [`KEPT_SCHEMA`], documented in docs/archive.md): for each transcript, main and sub-agent, one
//! or more *generations*, each a gzip file of members appended one per hook run
//! (`<name>.<generation>.gz`, readable whole with `zcat`) and an index of one JSON line per
//! member (`<name>.<generation>.index.jsonl`) that says which transcript bytes it holds, their
//! SHA-256, and the SHA-256 of everything kept up to its end. A new generation starts when the
//! transcript shrank or its earlier bytes changed; earlier generations are never written again.
//!
//! This module names the files, reads and checks them, and appends to them; when to append,
//! and what, is the hooks' (`keep.rs`).

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use serde::{Deserialize, Serialize};

use super::files::{self, Access, FileError};
use super::snapshot_metadata::FileRole;
use crate::platform::identity::{self, FileFacts};
use crate::platform::private;

/// What went wrong naming, reading or appending to a kept copy (each variant's words are the
/// ones a person reads).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(
    missing_docs,
    reason = "each variant's message says what it is; its fields are named for what they hold"
)]
pub enum KeptError {
    #[error("failed to read the transcript's sampled bytes")]
    ReadSamples(#[source] io::Error),
    #[error("`{0}` is not a kept transcript's name (a relative path of plain folders)")]
    NotPlainName(String),
    #[error("`{0}` is not a kept transcript's name (it must end in .jsonl or .json)")]
    NotTranscriptName(String),
    #[error("failed to list the kept copies")]
    List(#[source] io::Error),
    /// The kept copies' folder, or a folder or file in it, is a link ctxhooks did not make (it
    /// makes none there): never followed, whatever it leads to.
    #[error(
        "`{}` is a symbolic link; ctxhooks never follows a link in its state folder (move it \
         away)",
        .0.display()
    )]
    Link(PathBuf),
    /// Something other than a folder where a session's kept copies go: what they were is not
    /// known, which is not the same as none kept.
    #[error("`{}` is not a folder: the kept copies cannot be listed (move it away)", .0.display())]
    NotAFolder(PathBuf),
    #[error("failed to read a kept copy's index")]
    ReadIndex(#[source] io::Error),
    #[error("`{}` does not start with a generation line", .0.display())]
    NoHeader(PathBuf),
    #[error("generation {generation} of `{name}` exists already; it is never written again")]
    GenerationExists { name: KeptName, generation: u32 },
    #[error("failed to start a kept copy's generation")]
    StartGeneration(#[source] FileError),
    #[error("failed to open a kept copy")]
    Open(#[source] FileError),
    #[error("failed to open a kept copy's index")]
    OpenIndex(#[source] FileError),
    /// The `.gz` file is shorter than its index says.
    #[error("`{}` holds {found} bytes but its index records {recorded}", .path.display())]
    Shorter {
        path: PathBuf,
        found: u64,
        recorded: u64,
    },
    #[error("failed to append to a kept copy")]
    Append(#[source] io::Error),
    #[error("failed to append to a kept copy's index")]
    AppendIndex(#[source] io::Error),
    #[error("generation {generation} of `{name}` keeps {kept} bytes, not {length}")]
    PastGeneration {
        name: KeptName,
        generation: u32,
        kept: u64,
        length: u64,
    },
    #[error("failed to read the kept copy of `{name}`")]
    Read { name: KeptName, source: io::Error },
    #[error("the kept copy of `{name}` gave {gave} bytes, not {length}")]
    WrongLength {
        name: KeptName,
        gave: u64,
        length: u64,
    },
    #[error("the kept copy of `{0}` does not have the recorded SHA-256")]
    WrongSha256(KeptName),
    /// The transcript a generation is compared with (`kept_check.rs`).
    #[error("failed to read the transcript")]
    ReadTranscript(#[source] io::Error),
    #[error("failed to remove a stale damage mark")]
    RemoveDamageMark(#[source] io::Error),
    #[error("failed to mark a damaged generation of the kept copies")]
    MarkDamage(#[source] FileError),
    /// A kept file, opened as a state file, where no step is named.
    #[error(transparent)]
    File(#[from] FileError),
    /// Anything else the file system said where no step is named.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// An index line that could not be serialized.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl KeptError {
    /// The file system's error a variant that shows it as its own holds (a transparent one
    /// hides it from the chain of causes): what [`super::io_kind::is_io_kind`] reads.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            Self::Io(source) => Some(source),
            Self::File(file) => file.io_error(),
            _ => None,
        }
    }
}

/// The kept copies' folder inside a session's folder.
pub const KEPT_DIR: &str = "kept";

/// The name of the main transcript's kept copy (sub-agents keep theirs under `subagents/`).
pub const MAIN_NAME: &str = "transcript.jsonl";

/// The version of the kept copies' format (the index lines and the file names).
pub const KEPT_SCHEMA: u32 = 1;

/// The most transcript bytes one gzip member holds: a long backlog is kept in several members,
/// each recorded as soon as it is written, so that a run stopped part way keeps what it did.
pub const CHUNK_BYTES: usize = 8 * 1024 * 1024;

/// The compression level: 6, zlib's default (a measured third of a transcript's size or less
/// at the size of one hook run's bytes; see BENCHMARKS.md).
pub const LEVEL: u32 = 6;

/// Why a generation was started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GenerationReason {
    /// The transcript was kept for the first time.
    First,
    /// The transcript became shorter than what the previous generation kept.
    Shrank,
    /// Bytes the previous generation kept changed in the transcript.
    Rewritten,
    /// The previous generation's files are shorter than its index says, or cannot be read.
    PreviousDamaged,
}

/// The first line of a generation's index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerationHeader {
    /// [`KEPT_SCHEMA`].
    pub schema: u32,
    /// The generation's number, from 1.
    pub generation: u32,
    /// The transcript's path when the generation started.
    pub source: String,
    /// The main transcript or a sub-agent's.
    pub role: FileRole,
    /// When the generation started (RFC 3339 UTC, microseconds).
    pub started_at: String,
    /// Why it started.
    pub reason: GenerationReason,
}

/// One gzip member of a generation: which transcript bytes it holds and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkRecord {
    /// The transcript offset of its first byte.
    pub start: u64,
    /// How many transcript bytes it holds.
    pub length: u64,
    /// Where the member starts in the `.gz` file.
    pub gz_start: u64,
    /// The member's compressed length.
    pub gz_length: u64,
    /// SHA-256 of the bytes it holds.
    pub sha256: String,
    /// SHA-256 of the transcript's bytes from 0 to its end (everything kept so far).
    pub total_sha256: String,
    /// The running SHA-256's state at its end (see `store/running_hash.rs`).
    pub hash_state: String,
    /// SHA-256 of the up to 4 KiB of transcript before its end: a later run compares the
    /// transcript's bytes there before appending.
    pub tail_fingerprint: String,
    /// CRC-32 of the transcript's bytes at [`SAMPLES`] fixed places before its end (see
    /// [`samples_crc32`]), compared by a later run too. Absent in members written before
    /// 2026-12-02.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples_crc32: Option<u32>,
    /// The transcript file it was read from (device and inode): a later run that finds
    /// another file at the path compares every kept byte before it appends. Absent in members
    /// written before 2026-12-02.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<FileIdentity>,
    /// When it was written (RFC 3339 UTC, milliseconds).
    pub time: String,
}

impl ChunkRecord {
    /// The transcript offset just after its last byte: how much the generation keeps (an
    /// index that records more than a `u64` holds is damaged; the sum then stops at its most).
    pub fn end(&self) -> u64 {
        self.start.saturating_add(self.length)
    }

    /// Where the member ends in the `.gz` file (saturating, as [`Self::end`]).
    pub fn gz_end(&self) -> u64 {
        self.gz_start.saturating_add(self.gz_length)
    }
}

/// Which file a transcript was: its device and inode numbers (on Windows its volume's serial
/// number and its file index: `platform/identity.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct FileIdentity {
    pub device: u64,
    /// Its inode number on that device.
    pub inode: u64,
}

impl FileIdentity {
    /// The identity of an open file.
    pub fn of(file: &fs_err::File) -> io::Result<Self> {
        let facts = crate::platform::identity::of_file(file.file())?;
        Ok(Self {
            device: facts.device,
            inode: facts.inode,
        })
    }
}

/// How many places [`samples_crc32`] reads.
pub const SAMPLES: u64 = 8;

/// How many bytes it reads at each (4 KiB).
pub const SAMPLE_BYTES: u64 = 4096;

/// CRC-32 (gzip's) of the bytes of `file` at [`SAMPLES`] fixed places before `end`: at offset
/// `end × i / 8` for `i` from 0 to 7, up to [`SAMPLE_BYTES`] each (fewer where `end` comes
/// first), one after the other. The places depend on `end` only, so a later run reads the same
/// bytes: a change there, or anywhere in the first 4 KiB, is seen at the cost of 32 KiB read and
/// summed, however long the transcript. A CRC, not a SHA-256: it tells an accidental rewrite at
/// a twentieth of the cost, and nothing here guards against a forger (whoever can write the
/// transcript can write the kept copies too).
pub fn samples_crc32(file: &fs_err::File, end: u64) -> Result<u32, KeptError> {
    let mut crc = flate2::Crc::new();
    let mut window = [0u8; 4096];
    for place in 0..SAMPLES {
        let start =
            u64::try_from(u128::from(end) * u128::from(place) / u128::from(SAMPLES)).unwrap_or(0);
        let length = usize::try_from((end - start).min(SAMPLE_BYTES)).unwrap_or(0);
        crate::platform::positioned::read_exact_at(file.file(), &mut window[..length], start)
            .map_err(KeptError::ReadSamples)?;
        crc.update(&window[..length]);
    }
    Ok(crc.sum())
}

/// One line of a generation's index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "snake_case")]
pub enum IndexRecord {
    /// The first line.
    Generation(GenerationHeader),
    /// Every later line, one per gzip member.
    Chunk(ChunkRecord),
}

/// A relative path as a kept name is written: its parts joined by `/` on every platform (names
/// are recorded in snapshots' metadata and indexes, and read back anywhere).
pub fn slash_separated(relative: &Path) -> String {
    let parts: Vec<_> = relative.iter().map(|part| part.to_string_lossy()).collect();
    parts.join("/")
}

/// The name of a kept transcript inside `kept/`: `transcript.jsonl`, or a sub-agent's
/// `subagents/…` path as its snapshot names it. Only plain components: it never leaves `kept/`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeptName(String);

impl KeptName {
    /// The main transcript's.
    pub fn main() -> Self {
        Self(MAIN_NAME.to_owned())
    }

    /// Checks `name`: relative, plain components only, ending in `.jsonl` or `.json`.
    pub fn parse(name: &str) -> Result<Self, KeptError> {
        let path = Path::new(name);
        let plain = !name.is_empty()
            && path
                .components()
                .all(|component| matches!(component, Component::Normal(_)));
        if !plain {
            return Err(KeptError::NotPlainName(name.to_owned()));
        }
        let extension = path.extension().and_then(|extension| extension.to_str());
        if !matches!(extension, Some("jsonl" | "json")) {
            return Err(KeptError::NotTranscriptName(name.to_owned()));
        }
        Ok(Self(name.to_owned()))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Returns true if and only if this is the main transcript's.
    pub fn is_main(&self) -> bool {
        self.0 == MAIN_NAME
    }

    /// The role of the transcript it names.
    pub fn role(&self) -> FileRole {
        if self.is_main() {
            FileRole::Transcript
        } else {
            FileRole::Subagent
        }
    }

    /// Generation `generation`'s gzip file, in the kept folder `kept`.
    pub fn data_path(&self, kept: &Path, generation: u32) -> PathBuf {
        kept.join(format!("{}.{generation}.gz", self.0))
    }

    /// Generation `generation`'s index, in the kept folder `kept`.
    pub fn index_path(&self, kept: &Path, generation: u32) -> PathBuf {
        kept.join(format!("{}.{generation}.index.jsonl", self.0))
    }

    /// The mark a check leaves beside generation `generation` when it found it damaged: the
    /// next hook run starts a new generation instead of appending to it.
    pub fn damage_mark_path(&self, kept: &Path, generation: u32) -> PathBuf {
        kept.join(format!("{}.{generation}.damaged.json", self.0))
    }
}

impl std::fmt::Display for KeptName {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.0)
    }
}

/// `name` without the end of a generation's file (its gzip file's `.gz`, its index's
/// `.index.jsonl`), if it has one.
fn generation_stem(name: &str) -> Option<&str> {
    [".gz", ".index.jsonl"]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
}

/// Every generation of `name` in `kept` that has a file there (its index, its gzip file or
/// both), in ascending order: the folder is listed, so a generation missing from the middle
/// hides none after it. Empty when there is none (or no folder yet).
pub fn generation_numbers(kept: &Path, name: &KeptName) -> Result<Vec<u32>, KeptError> {
    // The folders listed are never reached through a link: `kept` and those of `name`.
    refuse_link(kept)?;
    let mut folder = kept.to_path_buf();
    for part in Path::new(name.as_str())
        .parent()
        .into_iter()
        .flat_map(Path::components)
    {
        folder.push(part);
        refuse_link(&folder)?;
    }
    let mut numbers: Vec<u32> = files::numbered_siblings(&kept.join(name.as_str()))
        .map_err(KeptError::List)?
        .iter()
        // `<N>.gz` or `<N>.index.jsonl`.
        .filter_map(|rest| generation_stem(rest).and_then(files::parse_number))
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    Ok(numbers)
}

/// The newest generation of `name` in `kept` (0 when there is none): the highest number that
/// has a file, whatever is missing below it.
pub fn latest_generation(kept: &Path, name: &KeptName) -> Result<u32, KeptError> {
    Ok(generation_numbers(kept, name)?.last().copied().unwrap_or(0))
}

/// [`KeptError::Link`] when `path` is a link; nothing there is no error.
fn refuse_link(path: &Path) -> Result<(), KeptError> {
    match files::present(fs_err::symlink_metadata(path)).map_err(KeptError::List)? {
        Some(metadata) if crate::platform::open::is_link(&metadata) => {
            Err(KeptError::Link(path.to_owned()))
        }
        _ => Ok(()),
    }
}

/// Every kept transcript in `kept`, with its newest generation's number, sorted by name (the
/// main transcript first). A link, `kept` itself or anything in it, is never followed: it is
/// [`KeptError::Link`], for the caller to report.
pub fn list_kept(kept: &Path) -> Result<Vec<(KeptName, u32)>, KeptError> {
    list_kept_into(kept, &mut None)
}

/// What [`list_kept_looked`] gives: the listing, and what each folder it listed was just before
/// it was listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookedListing {
    /// What [`list_kept`] gives.
    pub names: Vec<(KeptName, u32)>,
    /// `kept` itself (the path `""`; `None` when nothing is there), then every folder below it
    /// that was listed (its path from `kept`, `/`-separated), each as a look at it, never
    /// following a link, taken before it was listed: a folder that still looks the same later
    /// had no entry created, removed or renamed in it since (that changes its times), so its
    /// listing then is this one, as far as its times tell (a folder changed again within their
    /// grain is the caller's to rule on). `None` when a folder could not be looked at (the
    /// listing stands, but nothing tells when it changes).
    pub folders: Option<Vec<(String, Option<FileFacts>)>>,
}

/// [`list_kept`], with the look at each folder listed (for a reader that remembers a listing
/// while its folders look the same: `ctxhooks search`). Fails as [`list_kept`] does, with the
/// same errors.
pub fn list_kept_looked(kept: &Path) -> Result<LookedListing, KeptError> {
    let mut folders = files::present(identity::of_path(kept))
        .ok()
        .map(|own| vec![(String::new(), own)]);
    let names = list_kept_into(kept, &mut folders)?;
    Ok(LookedListing { names, folders })
}

/// [`list_kept`], adding to `looks` (when there are) each folder below `kept` it lists, or
/// making them `None` when one cannot be looked at.
fn list_kept_into(
    kept: &Path,
    looks: &mut Option<Vec<(String, Option<FileFacts>)>>,
) -> Result<Vec<(KeptName, u32)>, KeptError> {
    let mut found = Vec::new();
    refuse_link(kept)?;
    if kept.is_dir() {
        collect_generations(kept, Path::new(""), &mut found, looks)?;
    } else if kept.exists() {
        return Err(KeptError::NotAFolder(kept.to_owned()));
    }
    // The newest generation first within a name: the one of each name kept.
    found.sort_by(|left: &(KeptName, u32), right| {
        (!left.0.is_main(), &left.0, right.1).cmp(&(!right.0.is_main(), &right.0, left.1))
    });
    found.dedup_by(|later, earlier| later.0 == earlier.0);
    Ok(found)
}

fn collect_generations(
    dir: &Path,
    relative: &Path,
    found: &mut Vec<(KeptName, u32)>,
    looks: &mut Option<Vec<(String, Option<FileFacts>)>>,
) -> Result<(), KeptError> {
    for entry in fs_err::read_dir(dir).map_err(KeptError::List)? {
        let entry = entry?;
        let inner = relative.join(entry.file_name());
        let link = crate::platform::open::is_link(&entry.metadata()?);
        // The name as a kept name is written: `/` between its parts on every platform (a
        // sub-agent's is `subagents/…` as `keep` names it, never `subagents\…`).
        let named = slash_separated(&inner);
        if !link && entry.file_type()?.is_dir() {
            if let Some(folders) = looks {
                // Looked at before it is listed: a change in between is in the listing, and
                // makes the next look differ from this one.
                match identity::of_entry(&entry) {
                    Ok(look) => folders.push((named, Some(look))),
                    Err(_) => *looks = None,
                }
            }
            collect_generations(&entry.path(), &inner, found, looks)?;
        } else if let Some((name, digits)) = inner
            .to_str()
            .and(Some(named.as_str()))
            .and_then(generation_stem)
            .and_then(|stem| stem.rsplit_once('.'))
            && let (Ok(name), Some(generation)) =
                (KeptName::parse(name), files::parse_number(digits))
        {
            // A link named as a generation's file is listed: its check, which opens it without
            // following it, says what it is, generation by generation.
            found.push((name, generation));
        } else if link {
            // Any other link (a folder of sub-agents, anything) is neither followed nor passed
            // over in silence: ctxhooks makes none there.
            return Err(KeptError::Link(entry.path()));
        }
    }
    Ok(())
}

/// Opens a kept file for reading: never through a symbolic link, never waiting on a FIFO,
/// only a regular file ([`files::open_unlinked`]).
pub fn open_no_follow(path: &Path) -> Result<fs_err::File, FileError> {
    files::open_unlinked_existing(path, Access::Read)
}

/// The longest index line read (a chunk line is about 600 bytes, a header holds a path); a
/// longer one counts as unreadable and is not buffered.
const MAX_INDEX_LINE: u64 = 64 * 1024;

/// A generation's index, read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenerationIndex {
    /// Its first line.
    pub header: GenerationHeader,
    /// Its members, in order.
    pub chunks: Vec<ChunkRecord>,
    /// Whole lines that could not be read (damage: a writer appends whole lines only; a last
    /// line without its newline is what a writer stopped in the middle of its append left,
    /// which the next writer cuts off: not damage, and not counted).
    pub unreadable_lines: usize,
}

impl GenerationIndex {
    /// Reads the index at `path` (never through a link, never waiting on a FIFO).
    pub fn read(path: &Path) -> Result<Self, KeptError> {
        Self::read_from(open_no_follow(path)?, path)
    }

    /// Reads an index from its open file, up to the length it had when opened and line by
    /// line (a line longer than 64 KiB counts as unreadable and is never held whole).
    pub fn read_from(file: fs_err::File, path: &Path) -> Result<Self, KeptError> {
        let size = file.metadata()?.len();
        let mut reader = BufReader::new(file.take(size));
        let mut line = Vec::new();
        let header = read_header_from(&mut reader, &mut line, path)?;
        let mut index = Self {
            header,
            chunks: Vec::new(),
            unreadable_lines: 0,
        };
        while let Some(end) =
            read_bounded_line(&mut reader, &mut line).map_err(KeptError::ReadIndex)?
        {
            match end {
                LineEnd::Whole if line.is_empty() => {}
                LineEnd::Whole => match serde_json::from_slice::<IndexRecord>(&line) {
                    Ok(IndexRecord::Chunk(chunk)) => index.chunks.push(chunk),
                    _ => index.unreadable_lines += 1,
                },
                LineEnd::Overlong => index.unreadable_lines += 1,
                LineEnd::Unfinished => {}
            }
        }
        Ok(index)
    }

    /// How many transcript bytes the generation keeps.
    pub fn length(&self) -> u64 {
        self.chunks.last().map_or(0, ChunkRecord::end)
    }

    /// The SHA-256 of the bytes it keeps.
    pub fn sha256(&self) -> String {
        self.chunks.last().map_or_else(
            || files::sha256_hex(b""),
            |chunk| chunk.total_sha256.clone(),
        )
    }

    /// How many bytes its `.gz` file holds, as far as the index records.
    pub fn gz_length(&self) -> u64 {
        self.chunks.last().map_or(0, ChunkRecord::gz_end)
    }

    /// The chunk that ends exactly at `length`, if one does.
    pub fn chunk_ending_at(&self, length: u64) -> Option<&ChunkRecord> {
        self.chunks.iter().find(|chunk| chunk.end() == length)
    }
}

/// How a line read by [`read_bounded_line`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineEnd {
    /// With its newline.
    Whole,
    /// At the end of the file, without a newline.
    Unfinished,
    /// With its newline, past [`MAX_INDEX_LINE`] bytes: not kept.
    Overlong,
}

/// Reads one line into `line` (without its newline), keeping at most [`MAX_INDEX_LINE`] bytes
/// of it (a longer one is read through, [`MAX_INDEX_LINE`] bytes at a time); `None` at the end
/// of the input.
fn read_bounded_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
) -> std::io::Result<Option<LineEnd>> {
    let mut overlong = false;
    loop {
        line.clear();
        let mut bounded = (&mut *reader).take(MAX_INDEX_LINE + 1);
        if bounded.read_until(b'\n', line)? == 0 {
            return Ok(overlong.then_some(LineEnd::Unfinished));
        }
        if line.pop_if(|byte| *byte == b'\n').is_some() {
            return Ok(Some(if overlong {
                LineEnd::Overlong
            } else {
                LineEnd::Whole
            }));
        }
        if line.len() as u64 <= MAX_INDEX_LINE {
            return Ok(Some(LineEnd::Unfinished));
        }
        overlong = true;
    }
}

/// A generation's header alone, read from its index's first line that is not blank (a reader
/// that needs only where the generation came from reads no member's line).
pub fn read_header(index_path: &Path) -> Result<GenerationHeader, KeptError> {
    let mut reader = BufReader::with_capacity(4096, open_no_follow(index_path)?);
    read_header_from(&mut reader, &mut Vec::new(), index_path)
}

/// The header an index's first line that is not blank holds, read through `line`.
fn read_header_from(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    index_path: &Path,
) -> Result<GenerationHeader, KeptError> {
    while let Some(LineEnd::Whole) =
        read_bounded_line(reader, line).map_err(KeptError::ReadIndex)?
    {
        if !line.is_empty() {
            if let Ok(IndexRecord::Generation(header)) = serde_json::from_slice(line) {
                return Ok(header);
            }
            break;
        }
    }
    Err(KeptError::NoHeader(index_path.to_owned()))
}

/// What a hook needs to carry a generation on: its header and its last member, read from the
/// index's first line and its last lines only (an index grows by a line per run; reading all of
/// it would cost every run more than the one before).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenerationTail {
    /// The first line.
    pub header: GenerationHeader,
    /// The last member, if any.
    pub last: Option<ChunkRecord>,
    /// The index's length in bytes up to the end of its last complete line.
    pub index_length: u64,
}

/// How far back from the end of an index its last line is looked for.
const TAIL_WINDOW: u64 = 64 * 1024;

/// Reads a generation's header and last member.
pub fn read_tail(index_path: &Path) -> Result<GenerationTail, KeptError> {
    let mut file = open_no_follow(index_path)?;
    let size = file.metadata()?.len();
    let mut head = vec![0u8; usize::try_from(size.min(TAIL_WINDOW)).unwrap_or(0)];
    file.read_exact(&mut head).map_err(KeptError::ReadIndex)?;
    // The first line that is not blank, as every reader of an index finds the header.
    let header = read_header_from(&mut &head[..], &mut Vec::new(), index_path)?;
    let start = size.saturating_sub(TAIL_WINDOW);
    let tail = if start == 0 {
        head
    } else {
        let mut tail = vec![0u8; usize::try_from(size - start).unwrap_or(0)];
        crate::platform::positioned::read_exact_at(file.file(), &mut tail, start)
            .map_err(KeptError::ReadIndex)?;
        tail
    };
    // Only complete lines count: a run stopped mid-line leaves a fragment, cut by the next one.
    let complete = memchr::memrchr(b'\n', &tail).map_or(0, |end| end + 1);
    let index_length = start + complete as u64;
    // The last line that is a member; none when the header comes first.
    let last = tail[..complete]
        .split(|byte| *byte == b'\n')
        .rev()
        .find_map(|line| serde_json::from_slice::<IndexRecord>(line).ok())
        .and_then(|record| match record {
            IndexRecord::Chunk(chunk) => Some(chunk),
            IndexRecord::Generation(_) => None,
        });
    Ok(GenerationTail {
        header,
        last,
        index_length,
    })
}

/// Starts generation `header.generation` of `name`: its index, holding the header line.
/// Refuses to write over an existing index (generations are never written again). The index
/// appears whole or not at all ([`files::write_atomic`]), so a writer killed at any moment (or a
/// full disk) never leaves an index without its header. The caller holds the kept copies' lock,
/// which makes the check for an existing index and the rename one step among writers, and lets
/// it remove what a killed writer left of its temporary sibling.
pub fn start_generation(
    kept: &Path,
    name: &KeptName,
    header: &GenerationHeader,
) -> Result<(), KeptError> {
    let index = name.index_path(kept, header.generation);
    let folder = index.parent().unwrap_or(kept);
    files::create_private_dir_all(folder)?;
    remove_unfinished_starts(&index);
    if fs_err::symlink_metadata(&index).is_ok() {
        return Err(KeptError::GenerationExists {
            name: name.clone(),
            generation: header.generation,
        });
    }
    let mut line = serde_json::to_vec(&IndexRecord::Generation(header.clone()))?;
    line.push(b'\n');
    // A header that cannot be written whole (a full disk) leaves nothing behind.
    files::write_atomic(&index, &line, files::PRIVATE_FILE_MODE).map_err(KeptError::StartGeneration)
}

/// Removes the temporary siblings of `index` that a writer killed while starting a generation
/// left behind (see [`files::temp_sibling`] for their names).
fn remove_unfinished_starts(index: &Path) {
    let name = index.file_name().unwrap_or_default().to_string_lossy();
    let hidden = index.with_file_name(format!(".{name}"));
    for rest in files::numbered_siblings(&hidden).unwrap_or_default() {
        if Path::new(&rest).extension().is_some_and(|end| end == "tmp") {
            let _ = fs_err::remove_file(files::suffixed(&hidden, &format!(".{rest}")));
        }
    }
}

/// From this many bytes on, a member is compressed at [`BACKLOG_LEVEL`]: a backlog (the first
/// keep of a long transcript, a new generation) is compressed several times faster, a little
/// less well; a turn's bytes stay at [`LEVEL`].
pub const BACKLOG_BYTES: usize = 1024 * 1024;

/// The compression level of a backlog's members: 1, zlib's fastest.
pub const BACKLOG_LEVEL: u32 = 1;

/// Compresses `bytes` into one gzip member ([`LEVEL`], or [`BACKLOG_LEVEL`] from
/// [`BACKLOG_BYTES`] on).
pub fn compress_member(bytes: &[u8]) -> io::Result<Vec<u8>> {
    let level = if bytes.len() >= BACKLOG_BYTES {
        BACKLOG_LEVEL
    } else {
        LEVEL
    };
    let mut encoder = GzEncoder::new(
        Vec::with_capacity(bytes.len() / 3 + 64),
        Compression::new(level),
    );
    encoder.write_all(bytes)?;
    encoder.finish()
}

/// Appends one member to a generation: the compressed bytes at the end of the `.gz` file
/// (first cut back to `gz_length`, where the index says it ends: a run stopped between its
/// two writes leaves a member no index line records, which would otherwise be read twice),
/// then its index line (the index first cut back to `index_length` the same way). The member
/// is flushed to disk before the line that records it is written. Returns the index line's
/// length.
pub fn append_member(
    kept: &Path,
    name: &KeptName,
    generation: u32,
    lengths: (u64, u64),
    member: &[u8],
    chunk: &ChunkRecord,
) -> Result<u64, KeptError> {
    let (gz_length, index_length) = lengths;
    let data_path = name.data_path(kept, generation);
    let mut data =
        files::open_unlinked_existing(&data_path, Access::Create).map_err(KeptError::Open)?;
    let found = data.metadata()?.len();
    if found < gz_length {
        return Err(KeptError::Shorter {
            path: data_path,
            found,
            recorded: gz_length,
        });
    }
    if found == 0 {
        private::set_mode(&data, files::PRIVATE_FILE_MODE)?;
    }
    if found > gz_length {
        data.set_len(gz_length)?;
    }
    data.seek(SeekFrom::Start(gz_length))?;
    let written = data.write_all(member).and_then(|()| data.sync_data());
    if let Err(error) = written {
        let _ = data.set_len(gz_length);
        return Err(KeptError::Append(error));
    }
    drop(data);
    let index_path = name.index_path(kept, generation);
    let mut index =
        files::open_unlinked_existing(&index_path, Access::Update).map_err(KeptError::OpenIndex)?;
    if index.metadata()?.len() > index_length {
        index.set_len(index_length)?;
    }
    index.seek(SeekFrom::Start(index_length))?;
    let mut line = serde_json::to_vec(&IndexRecord::Chunk(chunk.clone()))?;
    line.push(b'\n');
    if let Err(error) = index.write_all(&line) {
        let _ = index.set_len(index_length);
        return Err(KeptError::AppendIndex(error));
    }
    Ok(line.len() as u64)
}

/// Checks, without writing a byte, that the next member can be appended to a generation: its
/// `.gz` file and its index open for writing. A read-only disk, a folder the user cannot write
/// or files that are not the user's fail here as they would at the append, with the same words.
pub fn check_appendable(kept: &Path, name: &KeptName, generation: u32) -> Result<(), KeptError> {
    files::open_unlinked_existing(&name.data_path(kept, generation), Access::Update)
        .map_err(KeptError::Open)?;
    files::open_unlinked_existing(&name.index_path(kept, generation), Access::Update)
        .map_err(KeptError::OpenIndex)?;
    Ok(())
}

/// A reader of the transcript bytes a generation keeps, from its start up to `length`, read
/// through its gzip members (and nothing past the last member its index records).
pub fn open_generation(
    kept: &Path,
    name: &KeptName,
    index: &GenerationIndex,
    length: u64,
) -> Result<impl Read + use<>, KeptError> {
    if length > index.length() {
        return Err(KeptError::PastGeneration {
            name: name.clone(),
            generation: index.header.generation,
            kept: index.length(),
            length,
        });
    }
    let data = open_no_follow(&name.data_path(kept, index.header.generation))?;
    Ok(MultiGzDecoder::new(std::io::BufReader::new(data.take(index.gz_length()))).take(length))
}

/// Copies the first `length` bytes a generation keeps into `writer`, hashing them, and fails
/// unless they have `sha256`.
pub fn copy_generation_checked(
    kept: &Path,
    name: &KeptName,
    index: &GenerationIndex,
    length: u64,
    sha256: &str,
    writer: &mut impl Write,
) -> Result<(), KeptError> {
    let mut reader = open_generation(kept, name, index, length)?;
    let mut hash = super::running_hash::RunningHash::new();
    let mut buffer = vec![0u8; 256 * 1024];
    loop {
        let read = reader.read(&mut buffer).map_err(|source| KeptError::Read {
            name: name.clone(),
            source,
        })?;
        if read == 0 {
            break;
        }
        hash.update(&buffer[..read]);
        writer.write_all(&buffer[..read])?;
    }
    if hash.length() != length {
        return Err(KeptError::WrongLength {
            name: name.clone(),
            gave: hash.length(),
            length,
        });
    }
    if hash.hex_digest() != sha256 {
        return Err(KeptError::WrongSha256(name.clone()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_that_leaves_the_folder_or_is_no_transcript_is_refused_by_its_variant() {
        assert!(matches!(
            KeptName::parse("../transcript.jsonl"),
            Err(KeptError::NotPlainName(_))
        ));
        assert!(matches!(
            KeptName::parse("subagents/agent-1.txt"),
            Err(KeptError::NotTranscriptName(_))
        ));
    }

    #[test]
    fn an_index_without_its_generation_line_and_a_missing_copy_fail_with_their_step() {
        let folder = crate::test_support::TempFolder::new("kept-errors");
        let name = KeptName::main();
        fs_err::write(
            name.index_path(folder.path(), 1),
            b"{\"record\":\"chunk\"}\n",
        )
        .unwrap();
        let error = read_header(&name.index_path(folder.path(), 1)).unwrap_err();
        assert!(matches!(error, KeptError::NoHeader(_)), "{error:?}");
        // No `.gz` file: the check fails at the copy, and the file system's `NotFound` stays
        // readable through the chain, as a bare one does through a transparent variant.
        let error = check_appendable(folder.path(), &name, 2).unwrap_err();
        assert!(matches!(error, KeptError::Open(_)), "{error:?}");
        assert!(matches!(
            &error,
            KeptError::Open(file) if file.io_error().map(io::Error::kind) == Some(io::ErrorKind::NotFound)
        ));
    }
}
