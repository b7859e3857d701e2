//! Bringing a transcript's kept copy up to date (`<state>/sessions/<id>/kept/`, the format in
//! `store/kept.rs`): the hooks append what the transcript gained since the last run, a gzip
//! member per run, at a cost that grows with the new bytes only. When the transcript shrank or
//! its earlier bytes changed, or the copy kept so far is damaged, that copy stays as it is (a
//! finished generation) and a new generation follows the transcript from its start: nothing
//! kept is ever overwritten, and nothing is appended to damage.

pub mod catch_up;
pub mod snapshot;
pub mod subagents;

use std::io::{self, Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::{SecondsFormat, Utc};

use crate::notes::Notes;
use crate::store::files::{self, FileError};
use crate::store::kept::{
    self, CHUNK_BYTES, ChunkRecord, FileIdentity, GenerationHeader, GenerationReason, KEPT_SCHEMA,
    KeptError, KeptName,
};
use crate::store::kept_check::{self, Comparison};
use crate::store::running_hash::RunningHash;
use crate::store::session_id::SessionId;
use crate::store::state_dir::StateDir;
use crate::transcript::file::{TranscriptError, TranscriptFile};
use crate::transcript::lines::{FINGERPRINT_BYTES, fingerprint_before};
use crate::transcript::origin::Origin;

/// Why a kept copy could not be brought up to date (each variant's words are the ones a person
/// reads).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(
    missing_docs,
    reason = "each variant's message says what it is; its fields are named for what they hold"
)]
pub enum KeepError {
    #[error("failed to open the kept copies' lock")]
    OpenLock(#[source] FileError),
    /// The lock could not be taken in time ([`FileError::LockHeld`]: another writer holds it).
    #[error("the kept copies are busy: another ctxhooks process holds their lock")]
    Busy(#[source] FileError),
    #[error("failed to read the transcript's size")]
    ReadSize(#[source] io::Error),
    #[error("failed to look at a kept copy")]
    LookAtKept(#[source] io::Error),
    #[error("failed to read the transcript's new bytes")]
    ReadNewBytes(#[source] io::Error),
    /// A hook run's keep of the transcript at `path` ([`keep_in_hook`]).
    #[error("failed to keep the transcript `{}`", .path.display())]
    InHook {
        path: PathBuf,
        source: Box<KeepError>,
    },
    /// The session's folders, where no step is named.
    #[error(transparent)]
    File(#[from] FileError),
    #[error(transparent)]
    Kept(#[from] KeptError),
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    /// Anything else the file system said where no step is named.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl KeepError {
    /// Returns true if and only if another writer held the kept copies' lock for all the wait:
    /// nothing went wrong, and that writer is keeping them.
    pub fn is_lock_held(&self) -> bool {
        matches!(self, Self::Busy(FileError::LockHeld(_)))
    }

    /// The file system's error a variant that shows it as its own holds (a transparent one
    /// hides it from the chain of causes, and a boxed one from a downcast): what a caller that
    /// holds this error asks besides [`crate::store::io_kind::is_io_kind`], which reads the
    /// chain and the state folder's errors only.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            Self::Io(source) => Some(source),
            Self::File(file) => file.io_error(),
            Self::Kept(kept) => kept.io_error(),
            Self::InHook { source, .. } => source.io_error(),
            _ => None,
        }
    }
}

/// How the bytes already kept are compared with the transcript before more are appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// At a cost that does not grow with the transcript (Stop, `SubagentStop`, `PostCompact`,
    /// `SessionStart`, `SessionEnd`): the transcript must be the same file as when the last
    /// member was kept (device and inode; another file is compared as [`Check::Whole`] does),
    /// and its bytes must match in the 4 KiB before the kept end and at the eight places
    /// `kept::samples_crc32` reads (the first 4 KiB among them).
    Tail,
    /// Every byte kept (`PreCompact`, before a snapshot is recorded): each member decompressed
    /// (gzip checks its CRC-32) and compared with the transcript's bytes, and the SHA-256 of
    /// the transcript up to the kept end with the recorded one. A member that does not
    /// decompress starts a new generation, as a rewrite does.
    Whole,
}

/// How long a keep waits for another writer of the same session's kept copies.
pub const LOCK_WAIT: Duration = Duration::from_secs(5);

/// Brings the kept copy `name` of the open `transcript` up to date, under the session's kept
/// lock. Stops between members once `deadline` has passed.
pub fn keep_transcript(
    state: &StateDir,
    session: &SessionId,
    name: &KeptName,
    transcript: &mut TranscriptFile,
    check: Check,
    deadline: Option<Instant>,
) -> Result<KeptEnd, KeepError> {
    keep_transcript_waiting(
        state,
        session,
        name,
        transcript,
        (check, deadline),
        LOCK_WAIT,
    )
}

/// [`keep_transcript`], waiting at most `lock_wait` for another writer (never past the deadline).
fn keep_transcript_waiting(
    state: &StateDir,
    session: &SessionId,
    name: &KeptName,
    transcript: &mut TranscriptFile,
    (check, deadline): (Check, Option<Instant>),
    lock_wait: Duration,
) -> Result<KeptEnd, KeepError> {
    let kept = state.kept_dir(session);
    // The folder the copy's files are in: `kept/` or a sub-agent's below it, each part checked.
    state.ensure_real_dir(name.data_path(&kept, 1).parent().unwrap_or(&kept))?;
    let lock = files::open_lock_file(&state.kept_lock(session)).map_err(KeepError::OpenLock)?;
    let wait = deadline.map_or(lock_wait, |deadline| {
        lock_wait.min(deadline.saturating_duration_since(Instant::now()))
    });
    files::lock_within(lock.file(), wait).map_err(KeepError::Busy)?;
    let outcome = keep_locked(&kept, name, transcript, check, deadline);
    let _ = lock.file().unlock();
    outcome
}

/// Where a kept copy ends: where a run carries its generation on from, and what bringing it up
/// to date reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptEnd {
    /// The generation that follows the transcript (0 when none does: the transcript holds
    /// nothing yet, or the time ran out before a new generation could keep anything).
    pub generation: u32,
    /// How many transcript bytes it keeps.
    pub length: u64,
    /// The `.gz` file's recorded length.
    gz_length: u64,
    /// The index's length up to its last complete line.
    index_length: u64,
    /// The SHA-256 of the bytes it keeps, to be carried on.
    hash: RunningHash,
    /// Everything the transcript held when the run looked is kept: false only when the run's
    /// time ran out first (the next run goes on from here).
    pub caught_up: bool,
}

impl KeptEnd {
    /// The start of generation `generation`, whose index holds `index_length` bytes.
    fn start(generation: u32, index_length: u64) -> Self {
        Self {
            generation,
            length: 0,
            gz_length: 0,
            index_length,
            hash: RunningHash::new(),
            caught_up: false,
        }
    }

    /// No generation follows the transcript: nothing kept by this run, with `caught_up` saying
    /// whether there was nothing to keep (true) or no time to keep it (false).
    fn nothing(caught_up: bool) -> Self {
        Self {
            caught_up,
            ..Self::start(0, 0)
        }
    }

    /// The SHA-256 of the bytes it keeps.
    pub fn sha256(&self) -> String {
        self.hash.hex_digest()
    }
}

fn keep_locked(
    kept: &Path,
    name: &KeptName,
    transcript: &mut TranscriptFile,
    check: Check,
    deadline: Option<Instant>,
) -> Result<KeptEnd, KeepError> {
    // The size now, not at open: another hook may have kept bytes written since this one
    // opened the file, and they are no reason to start a generation.
    let size = transcript
        .file_mut()
        .metadata()
        .map_err(KeepError::ReadSize)?
        .len();
    let identity = FileIdentity::of(transcript.file_mut())?;
    let latest = kept::latest_generation(kept, name)?;
    let carried = if latest == 0 {
        Carried::Start(GenerationReason::First)
    } else {
        carry_on(
            kept,
            name,
            latest,
            transcript,
            (size, identity),
            check,
            deadline,
        )?
    };
    let (mut position, started) = match carried {
        Carried::On(position) => (position, false),
        // Every kept byte was to be compared, and the time ran out first: the next run does it.
        Carried::OutOfTime => return Ok(KeptEnd::nothing(false)),
        // Nothing to keep yet (Claude Code creates the file before it writes its first line):
        // no generation is started that would keep nothing.
        Carried::Start(_) if size == 0 => return Ok(KeptEnd::nothing(true)),
        // No time left to keep anything: the same, and the next run keeps it.
        Carried::Start(_) if deadline.is_some_and(|deadline| Instant::now() >= deadline) => {
            return Ok(KeptEnd::nothing(false));
        }
        Carried::Start(reason) => {
            let header = GenerationHeader {
                schema: KEPT_SCHEMA,
                generation: latest + 1,
                source: transcript.path().to_string_lossy().into_owned(),
                role: name.role(),
                started_at: Utc::now().to_rfc3339_opts(SecondsFormat::Micros, true),
                reason,
            };
            kept::start_generation(kept, name, &header)?;
            let index_length = fs_err::metadata(name.index_path(kept, header.generation))?.len();
            (KeptEnd::start(header.generation, index_length), true)
        }
    };
    let mut appended = Ok(());
    while appended.is_ok()
        && position.length < size
        && deadline.is_none_or(|deadline| Instant::now() < deadline)
    {
        appended = append_chunk(kept, name, transcript, &mut position, size, identity);
    }
    // A failed member or the deadline left the generation this run started keeping nothing.
    if started && position.length == 0 {
        take_back_start(kept, name, position.generation);
        appended?;
        return Ok(KeptEnd::nothing(false));
    }
    appended?;
    // Short of `size` only when the deadline came first: the next run goes on.
    position.caught_up = position.length >= size;
    Ok(position)
}

/// Removes the generation this run started when it could keep nothing under it (its first
/// member failed: a full disk; or the time ran out first), so that no generation keeping
/// nothing is left behind to be passed over: its index (the header only) and an empty gzip
/// file. Nothing kept is ever removed: the caller holds the lock, and nothing was recorded.
fn take_back_start(kept: &Path, name: &KeptName, generation: u32) {
    let _ = fs_err::remove_file(name.index_path(kept, generation));
    let data = name.data_path(kept, generation);
    if fs_err::symlink_metadata(&data)
        .is_ok_and(|metadata| metadata.is_file() && metadata.len() == 0)
    {
        let _ = fs_err::remove_file(data);
    }
}

/// What a run does with the newest generation.
enum Carried {
    /// Carries it on from there.
    On(KeptEnd),
    /// Starts a new generation, for this reason.
    Start(GenerationReason),
    /// Every kept byte was to be compared, and the deadline came first: nothing is kept now.
    OutOfTime,
}

/// The place to carry generation `generation` on from, or why a new one must start: its index
/// cannot be read, a check left its damage mark, its gzip file is shorter than recorded or not
/// a regular file, the transcript (of `size` bytes, the file `identity`) is shorter than what
/// is kept, or its bytes differ (compared as `check` says, or every byte when the transcript is
/// another file than the last run's, stopping at `deadline`).
fn carry_on(
    kept: &Path,
    name: &KeptName,
    generation: u32,
    transcript: &mut TranscriptFile,
    (size, identity): (u64, FileIdentity),
    check: Check,
    deadline: Option<Instant>,
) -> Result<Carried, KeepError> {
    let damaged = Ok(Carried::Start(GenerationReason::PreviousDamaged));
    let Ok(tail) = kept::read_tail(&name.index_path(kept, generation)) else {
        return damaged;
    };
    if tail.header.generation != generation
        || fs_err::symlink_metadata(name.damage_mark_path(kept, generation)).is_ok()
    {
        return damaged;
    }
    let data_length = match fs_err::symlink_metadata(name.data_path(kept, generation)) {
        Ok(metadata) if metadata.is_file() => metadata.len(),
        Ok(_) => return damaged,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => 0,
        Err(error) => return Err(KeepError::LookAtKept(error)),
    };
    let Some(last) = tail.last else {
        // Started, never appended to: carried on from nothing.
        return Ok(Carried::On(KeptEnd::start(generation, tail.index_length)));
    };
    let Some(hash) = RunningHash::restore(&last.hash_state, last.end()) else {
        return damaged;
    };
    if data_length < last.gz_end() {
        return damaged;
    }
    if size < last.end() {
        return Ok(Carried::Start(GenerationReason::Shrank));
    }
    let another_file = last.identity.is_some_and(|recorded| recorded != identity);
    let file = transcript.file_mut();
    let comparison = if check == Check::Whole || another_file {
        kept_check::compare_with_transcript(kept, name, generation, &last, file, deadline)?
    } else if still_continues(file, &last)? {
        Comparison::Same
    } else {
        Comparison::Differs
    };
    Ok(match comparison {
        Comparison::Same => Carried::On(KeptEnd {
            generation,
            length: last.end(),
            gz_length: last.gz_end(),
            index_length: tail.index_length,
            hash,
            caught_up: false,
        }),
        Comparison::Differs => Carried::Start(GenerationReason::Rewritten),
        Comparison::Damaged => Carried::Start(GenerationReason::PreviousDamaged),
        Comparison::OutOfTime => Carried::OutOfTime,
    })
}

/// Returns true if and only if `file` still holds, at a cost that does not grow with it, what
/// it held when `last` was kept: the same bytes in the 4 KiB before `last`'s end and at the
/// places `kept::samples_crc32` reads (members kept before 2026-12-02 record only the
/// former). Its caller made sure the file is at least that long.
pub fn still_continues(file: &mut fs_err::File, last: &ChunkRecord) -> Result<bool, KeepError> {
    if fingerprint_before(file, last.end())? != last.tail_fingerprint {
        return Ok(false);
    }
    Ok(match last.samples_crc32 {
        Some(recorded) => kept::samples_crc32(file, last.end())? == recorded,
        None => true,
    })
}

/// Keeps the next chunk of the transcript (at most [`CHUNK_BYTES`]) as one member.
fn append_chunk(
    kept: &Path,
    name: &KeptName,
    transcript: &mut TranscriptFile,
    position: &mut KeptEnd,
    size: u64,
    identity: FileIdentity,
) -> Result<(), KeepError> {
    let length = usize::try_from(size - position.length)
        .unwrap_or(usize::MAX)
        .min(CHUNK_BYTES);
    let file = transcript.file_mut();
    file.seek(SeekFrom::Start(position.length))?;
    let mut bytes = vec![0u8; length];
    file.read_exact(&mut bytes)
        .map_err(KeepError::ReadNewBytes)?;
    let end = position.length + length as u64;
    let tail_fingerprint = if length as u64 >= FINGERPRINT_BYTES {
        let from = length - usize::try_from(FINGERPRINT_BYTES).unwrap_or(length);
        files::sha256_hex(&bytes[from..])
    } else {
        fingerprint_before(file, end)?
    };
    let mut hash = position.hash.clone();
    hash.update(&bytes);
    let member = kept::compress_member(&bytes)?;
    let chunk = ChunkRecord {
        start: position.length,
        length: length as u64,
        gz_start: position.gz_length,
        gz_length: member.len() as u64,
        sha256: files::sha256_hex(&bytes),
        total_sha256: hash.hex_digest(),
        hash_state: hash.saved(),
        tail_fingerprint,
        samples_crc32: Some(kept::samples_crc32(file, end)?),
        identity: Some(identity),
        time: Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
    };
    let line_length = kept::append_member(
        kept,
        name,
        position.generation,
        (position.gz_length, position.index_length),
        &member,
        &chunk,
    )?;
    position.length = end;
    position.gz_length = chunk.gz_end();
    position.index_length += line_length;
    position.hash = hash;
    Ok(())
}

/// The name a sub-agent's transcript is kept under, as its snapshot names it: its path below
/// `<transcript folder>/<session>/` (2.1.x: `subagents/…`), or `subagents/<file name>` for a
/// 2.0.x flat `agent-*.jsonl` beside the transcript (or anywhere else).
pub fn subagent_name(
    transcript: &Path,
    session: &SessionId,
    agent: &Path,
) -> Result<KeptName, KeptError> {
    subagent_name_below(&session_folder(transcript, session), agent)
}

/// The folder a 2.1.x session keeps its sub-agents' transcripts in, `<transcript
/// folder>/<session>/`: what [`subagent_name_below`] takes, made once for all of a session's
/// sub-agents.
pub fn session_folder(transcript: &Path, session: &SessionId) -> PathBuf {
    files::folder_of(transcript).join(session.as_str())
}

/// [`subagent_name`] of `agent`, given its session's [`session_folder`].
pub fn subagent_name_below(session_folder: &Path, agent: &Path) -> Result<KeptName, KeptError> {
    let name = match agent.strip_prefix(session_folder) {
        Ok(inner) if inner.starts_with("subagents") => kept::slash_separated(inner),
        _ => kept::slash_separated(
            &Path::new("subagents").join(agent.file_name().unwrap_or_default()),
        ),
    };
    KeptName::parse(&name)
}

/// Keeps the transcript at `path` as `name`, if something is there: it is opened and checked
/// as a hook opens a transcript (no link followed, a transcript's name and first byte). `None`
/// when nothing is at `path`.
pub fn keep_path(
    state: &StateDir,
    session: &SessionId,
    name: &KeptName,
    path: &Path,
    check: Check,
    deadline: Option<Instant>,
) -> Result<Option<KeptEnd>, KeepError> {
    keep_path_waiting(state, session, name, path, (check, deadline), LOCK_WAIT)
}

/// [`keep_path`], waiting at most `lock_wait` for another writer of the session's kept copies
/// (a lock held longer is [`KeepError::Busy`], which [`KeepError::is_lock_held`] tells).
pub fn keep_path_waiting(
    state: &StateDir,
    session: &SessionId,
    name: &KeptName,
    path: &Path,
    (check, deadline): (Check, Option<Instant>),
    lock_wait: Duration,
) -> Result<Option<KeptEnd>, KeepError> {
    let Some(mut transcript) = TranscriptFile::open_if_present(path)?
        .map(TranscriptFile::checked)
        .transpose()?
    else {
        return Ok(None);
    };
    keep_transcript_waiting(
        state,
        session,
        name,
        &mut transcript,
        (check, deadline),
        lock_wait,
    )
    .map(Some)
}

/// How long the Stop hook may spend keeping (its budget is 50 s; the usage ingest comes after).
const STOP_KEEP_TIME: Duration = Duration::from_secs(30);

/// Keeps the open `transcript` for a hook run (the Stop hook's, `SubagentStop`'s): a problem
/// goes to `notes` and never stops the hook's other work.
pub fn keep_in_hook(
    state: &StateDir,
    notes: &dyn Notes,
    session: &SessionId,
    name: Result<KeptName, KeptError>,
    transcript: &mut TranscriptFile,
) {
    let deadline = Some(Instant::now() + STOP_KEEP_TIME);
    let kept = name
        .map_err(KeepError::from)
        .and_then(|name| keep_transcript(state, session, &name, transcript, Check::Tail, deadline));
    if let Err(error) = kept {
        notes.note(Box::new(KeepError::InHook {
            path: transcript.path().to_owned(),
            source: Box::new(error),
        }));
    }
}

/// The name a session's transcript at `path` is kept under: `transcript.jsonl`, unless its
/// file name says it is a sub-agent's (`agent-<id>.jsonl`).
pub fn main_name(session: &SessionId, path: &Path) -> Result<KeptName, KeptError> {
    if Origin::from_file_name(path).is_agent_file {
        subagent_name(path, session, path)
    } else {
        Ok(KeptName::main())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::kept::GenerationIndex;
    use crate::store::kept_check::Depth;
    use crate::test_support::{KeptNotes, TempFolder, causes_of};

    fn kept_bytes(state: &StateDir, session: &SessionId, generation: u32) -> Vec<u8> {
        let kept = state.kept_dir(session);
        let name = KeptName::main();
        let index = GenerationIndex::read(&name.index_path(&kept, generation)).unwrap();
        let checked = kept_check::check_generation(&kept, &name, generation, Depth::Bytes);
        assert!(checked.is_whole(), "{checked:?}");
        let mut bytes = Vec::new();
        kept::open_generation(&kept, &name, &index, index.length())
            .unwrap()
            .read_to_end(&mut bytes)
            .unwrap();
        bytes
    }

    /// Why generation `generation` of the main transcript was started, as its header says.
    fn reason(state: &StateDir, session: &SessionId, generation: u32) -> GenerationReason {
        let index = KeptName::main().index_path(&state.kept_dir(session), generation);
        kept::read_header(&index).unwrap().reason
    }

    fn keep(state: &StateDir, session: &SessionId, path: &Path, check: Check) -> KeptEnd {
        keep_path(state, session, &KeptName::main(), path, check, None)
            .unwrap()
            .unwrap()
    }

    #[test]
    fn appends_new_bytes_and_starts_a_generation_when_the_past_changes() {
        let temp = TempFolder::new("keep");
        let state = StateDir::at(temp.join("state"));
        let session = SessionId::parse("s1").unwrap();
        let path = temp.join("s1.jsonl");
        fs_err::write(&path, "{\"a\":1}\n").unwrap();
        let first = keep(&state, &session, &path, Check::Tail);
        assert_eq!((first.generation, first.length), (1, 8));
        assert_eq!(reason(&state, &session, 1), GenerationReason::First);
        // Nothing new: nothing written.
        let again = keep(&state, &session, &path, Check::Tail);
        assert_eq!((again.generation, again.length), (1, 8));
        // Appended: carried on.
        fs_err::write(&path, "{\"a\":1}\n{\"b\":2}\n").unwrap();
        let grown = keep(&state, &session, &path, Check::Whole);
        assert_eq!((grown.generation, grown.length), (1, 16));
        assert_eq!(grown.sha256(), files::sha256_hex(b"{\"a\":1}\n{\"b\":2}\n"));
        assert_eq!(kept_bytes(&state, &session, 1), b"{\"a\":1}\n{\"b\":2}\n");
        // Rewritten: generation 1 stays whole, generation 2 follows.
        fs_err::write(&path, "{\"c\":3}\n{\"d\":4}\n{\"e\":5}\n").unwrap();
        let rewritten = keep(&state, &session, &path, Check::Tail);
        assert_eq!(rewritten.generation, 2);
        assert_eq!(reason(&state, &session, 2), GenerationReason::Rewritten);
        assert_eq!(kept_bytes(&state, &session, 1), b"{\"a\":1}\n{\"b\":2}\n");
        assert_eq!(
            kept_bytes(&state, &session, 2),
            b"{\"c\":3}\n{\"d\":4}\n{\"e\":5}\n"
        );
        // Shrunk: generation 3.
        fs_err::write(&path, "{\"c\":3}\n").unwrap();
        let shrunk = keep(&state, &session, &path, Check::Tail);
        assert_eq!(shrunk.generation, 3);
        assert_eq!(reason(&state, &session, 3), GenerationReason::Shrank);
        // The whole gzip file is what plain `zcat` reads.
        let kept = state.kept_dir(&session);
        let mut whole = Vec::new();
        flate2::read::MultiGzDecoder::new(
            fs_err::File::open(KeptName::main().data_path(&kept, 1)).unwrap(),
        )
        .read_to_end(&mut whole)
        .unwrap();
        assert_eq!(whole, b"{\"a\":1}\n{\"b\":2}\n");
    }

    #[test]
    fn the_per_turn_check_sees_the_sampled_places_and_precompact_sees_every_byte() {
        let temp = TempFolder::new("keep-samples");
        let state = StateDir::at(temp.join("state"));
        let session = SessionId::parse("s5").unwrap();
        let path = temp.join("s5.jsonl");
        let line = b"{\"type\":\"user\",\"message\":{\"content\":\"abcdefghijklmnop\"}}\n";
        let original: Vec<u8> = line
            .iter()
            .copied()
            .cycle()
            .take(line.len() * 4000)
            .collect();
        let end = original.len();
        fs_err::write(&path, &original).unwrap();
        keep(&state, &session, &path, Check::Tail);
        // One byte changed in place at the fourth sampled place (offset end × 3 / 8), far before
        // the kept end: the per-turn check sees it.
        let changed_at = |bytes: &[u8], offset: usize| {
            let mut changed = bytes.to_vec();
            changed[offset] = if changed[offset] == b'x' { b'y' } else { b'x' };
            changed
        };
        let sampled = changed_at(&original, end * 3 / 8 + 10);
        fs_err::write(&path, &sampled).unwrap();
        let seen = keep(&state, &session, &path, Check::Tail);
        assert_eq!(seen.generation, 2);
        assert_eq!(reason(&state, &session, 2), GenerationReason::Rewritten);
        // Between two sampled places the per-turn check does not see it (docs/archive.md says
        // so); the every-byte check of PreCompact does.
        let between = changed_at(&sampled, end * 3 / 8 + 6000);
        fs_err::write(&path, &between).unwrap();
        let unseen = keep(&state, &session, &path, Check::Tail);
        assert_eq!(unseen.generation, 2);
        let whole = keep(&state, &session, &path, Check::Whole);
        assert_eq!(whole.generation, 3);
        assert_eq!(reason(&state, &session, 3), GenerationReason::Rewritten);
        assert_eq!(kept_bytes(&state, &session, 3), between);
    }

    #[test]
    fn another_file_at_the_path_is_compared_whole_within_the_runs_time() {
        let temp = TempFolder::new("keep-identity");
        let state = StateDir::at(temp.join("state"));
        let session = SessionId::parse("s6").unwrap();
        let path = temp.join("s6.jsonl");
        fs_err::write(&path, "{\"a\":1}\n").unwrap();
        keep(&state, &session, &path, Check::Tail);
        // Written back as another file (a restore, an editor), the same bytes and one more line.
        let beside = temp.join("s6.new");
        fs_err::write(&beside, "{\"a\":1}\n{\"b\":2}\n").unwrap();
        fs_err::rename(&beside, &path).unwrap();
        // With no time left for the comparison of every byte, nothing is kept now.
        let hurried = keep_path(
            &state,
            &session,
            &KeptName::main(),
            &path,
            Check::Tail,
            Some(Instant::now()),
        )
        .unwrap()
        .unwrap();
        assert_eq!((hurried.generation, hurried.length), (0, 0));
        assert_eq!(kept_bytes(&state, &session, 1), b"{\"a\":1}\n");
        // With time, it is compared whole, found the same, and carried on: not kept twice.
        let carried = keep(&state, &session, &path, Check::Tail);
        assert_eq!((carried.generation, carried.length), (1, 16));
        assert_eq!(kept_bytes(&state, &session, 1), b"{\"a\":1}\n{\"b\":2}\n");
    }

    #[test]
    fn a_member_no_index_line_records_is_cut_before_the_next() {
        let temp = TempFolder::new("keep-orphan");
        let state = StateDir::at(temp.join("state"));
        let session = SessionId::parse("s2").unwrap();
        let path = temp.join("s2.jsonl");
        fs_err::write(&path, "{\"a\":1}\n").unwrap();
        keep(&state, &session, &path, Check::Tail);
        // A run stopped after writing its member but before its index line.
        let data = KeptName::main().data_path(&state.kept_dir(&session), 1);
        let mut bytes = fs_err::read(&data).unwrap();
        bytes.extend_from_slice(&kept::compress_member(b"{\"lost\":0}\n").unwrap());
        fs_err::write(&data, &bytes).unwrap();
        fs_err::write(&path, "{\"a\":1}\n{\"b\":2}\n").unwrap();
        keep(&state, &session, &path, Check::Tail);
        assert_eq!(kept_bytes(&state, &session, 1), b"{\"a\":1}\n{\"b\":2}\n");
    }

    #[test]
    fn a_start_cut_short_leaves_no_index_without_its_header() {
        let temp = TempFolder::new("keep-cut-start");
        let state = StateDir::at(temp.join("state"));
        let session = SessionId::parse("s4").unwrap();
        let kept = state.kept_dir(&session);
        let name = KeptName::main();
        fs_err::create_dir_all(&kept).unwrap();
        // What a writer killed while starting generation 1 leaves now: its temporary sibling.
        let leftover = files::temp_sibling(&name.index_path(&kept, 1));
        fs_err::write(&leftover, "{\"kind\":\"gener").unwrap();
        let path = temp.join("s4.jsonl");
        fs_err::write(&path, "{\"a\":1}\n").unwrap();
        let first = keep(&state, &session, &path, Check::Tail);
        assert_eq!((first.generation, first.length), (1, 8));
        assert!(!leftover.exists(), "the leftover start is removed");
        assert_eq!(kept_bytes(&state, &session, 1), b"{\"a\":1}\n");
        // What one killed at that moment by a ctxhooks before 2026-12-01 left: an empty index.
        fs_err::write(name.index_path(&kept, 2), "").unwrap();
        let empty = kept_check::check_generation(&kept, &name, 2, kept_check::Depth::Bytes);
        assert_eq!(empty.problems, [kept_check::GenerationProblem::IndexEmpty]);
        fs_err::write(&path, "{\"b\":2}\n").unwrap();
        let rewritten = keep(&state, &session, &path, Check::Tail);
        assert_eq!(rewritten.generation, 3);
        assert_eq!(
            reason(&state, &session, 3),
            GenerationReason::PreviousDamaged
        );
        assert_eq!(kept_bytes(&state, &session, 3), b"{\"b\":2}\n");
        // A generation that exists is never started again.
        let header = GenerationHeader {
            schema: KEPT_SCHEMA,
            generation: 3,
            source: "s4.jsonl".to_owned(),
            role: name.role(),
            started_at: "2026-12-01T00:00:00Z".to_owned(),
            reason: GenerationReason::First,
        };
        assert!(kept::start_generation(&kept, &name, &header).is_err());
        assert_eq!(kept_bytes(&state, &session, 3), b"{\"b\":2}\n");
    }

    #[test]
    fn a_link_in_the_state_folder_is_not_followed() {
        let temp = TempFolder::new("keep-link");
        let state = StateDir::at(temp.join("state"));
        let session = SessionId::parse("s3").unwrap();
        let elsewhere = temp.join("elsewhere");
        fs_err::create_dir_all(&elsewhere).unwrap();
        fs_err::create_dir_all(state.session_dir(&session)).unwrap();
        if !crate::test_support::symlink_dir(&elsewhere, &state.kept_dir(&session)) {
            return;
        }
        let path = temp.join("s3.jsonl");
        fs_err::write(&path, "{}\n").unwrap();
        let error = keep_path(
            &state,
            &session,
            &KeptName::main(),
            &path,
            Check::Tail,
            None,
        )
        .unwrap_err();
        assert!(
            matches!(error, KeepError::File(FileError::LinkOutOfStateFolder(_))),
            "{error:?}"
        );
        assert_eq!(fs_err::read_dir(&elsewhere).unwrap().count(), 0);
    }

    #[test]
    fn a_lock_another_writer_holds_is_told_by_its_variant_and_said_in_the_same_words() {
        let temp = TempFolder::new("keep-busy");
        let state = StateDir::at(temp.join("state"));
        let session = SessionId::parse("s8").unwrap();
        let path = temp.join("s8.jsonl");
        fs_err::write(&path, "{}\n").unwrap();
        state.ensure_real_dir(&state.kept_dir(&session)).unwrap();
        let holder = files::open_lock_file(&state.kept_lock(&session)).unwrap();
        holder.file().lock().unwrap();
        let name = KeptName::main();
        let waiting = (Check::Tail, None);
        let error =
            keep_path_waiting(&state, &session, &name, &path, waiting, Duration::ZERO).unwrap_err();
        assert!(error.is_lock_held(), "{error:?}");
        assert_eq!(
            causes_of(&error),
            [
                "the kept copies are busy: another ctxhooks process holds their lock",
                "another process held the lock for 0 ms",
            ]
        );
    }

    #[test]
    fn a_hook_runs_keep_notes_its_problem_naming_the_transcript() {
        let temp = TempFolder::new("keep-in-hook");
        let state = StateDir::at(temp.join("state"));
        let session = SessionId::parse("s9").unwrap();
        let path = temp.join("s9.jsonl");
        fs_err::write(&path, "{}\n").unwrap();
        let mut transcript = TranscriptFile::open(&path).unwrap();
        let notes = KeptNotes::default();
        let refused = Err(KeptName::parse("../agent.jsonl").unwrap_err());
        keep_in_hook(&state, &notes, &session, refused, &mut transcript);
        assert_eq!(
            notes.causes(),
            [[
                format!("failed to keep the transcript `{}`", path.display()),
                "`../agent.jsonl` is not a kept transcript's name (a relative path of plain \
                 folders)"
                    .to_owned(),
            ]]
        );
    }

    #[test]
    fn sub_agents_are_named_as_their_snapshot_names_them() {
        let session = SessionId::parse("abc").unwrap();
        let transcript = Path::new("/p/abc.jsonl");
        let name = |agent: &str| {
            subagent_name(transcript, &session, Path::new(agent))
                .unwrap()
                .to_string()
        };
        assert_eq!(
            name("/p/abc/subagents/agent-1.jsonl"),
            "subagents/agent-1.jsonl"
        );
        assert_eq!(
            name("/p/abc/subagents/flow/agent-2.jsonl"),
            "subagents/flow/agent-2.jsonl"
        );
        assert_eq!(name("/p/agent-3.jsonl"), "subagents/agent-3.jsonl");
    }
}
