//! Bringing a transcript's kept copy up to date (`<state>/sessions/<id>/kept/`, the format in
//! `store/kept.rs`): the hooks append what the transcript gained since the last run, a gzip
//! member per run, at a cost that grows with the new bytes only. When the transcript shrank or
//! its earlier bytes changed, the copy kept so far stays as it is (a finished generation) and
//! a new generation follows the transcript from its start: nothing kept is ever overwritten.

use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use chrono::{SecondsFormat, Utc};

use crate::hook::ingest::Origin;
use crate::hook::runner::HookContext;
use crate::hook::subagents::find_subagent_files;
use crate::store::files;
use crate::store::kept::{
    self, CHUNK_BYTES, ChunkRecord, GenerationHeader, GenerationReason, KEPT_SCHEMA, KeptName,
};
use crate::store::running_hash::RunningHash;
use crate::store::session_id::SessionId;
use crate::store::state_dir::StateDir;
use crate::transcript::file::TranscriptFile;
use crate::transcript::lines::{FINGERPRINT_BYTES, fingerprint_before};

/// How the bytes already kept are compared with the transcript before more are appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// The up to 4 KiB before the kept copy's end (Stop, `SubagentStop`, `PostCompact`,
    /// `SessionEnd`: their cost stays that of the new bytes).
    Tail,
    /// Every byte kept, by its SHA-256 (`PreCompact`, before a snapshot is recorded, and a
    /// restore before it replaces a transcript).
    Whole,
}

/// What bringing one kept copy up to date did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeepOutcome {
    /// The generation that now follows the transcript.
    pub generation: u32,
    /// How many transcript bytes it keeps.
    pub length: u64,
    /// Their SHA-256.
    pub sha256: String,
    /// Set when this run started the generation, with why.
    pub started: Option<GenerationReason>,
    /// False when the deadline passed before every byte was kept (the next run goes on).
    pub complete: bool,
}

/// How long a keep waits for another writer of the same session's kept copies.
const LOCK_WAIT: Duration = Duration::from_secs(5);

/// Brings the kept copy `name` of the open `transcript` up to date, under the session's kept
/// lock. Stops between members once `deadline` has passed.
pub fn keep_transcript(
    state: &StateDir,
    session: &SessionId,
    name: &KeptName,
    transcript: &mut TranscriptFile,
    check: Check,
    deadline: Option<Instant>,
) -> Result<KeepOutcome> {
    let kept = state.kept_dir(session);
    state.ensure_real_dir(&kept)?;
    let data_folder = name.data_path(&kept, 1);
    if let Some(parent) = data_folder.parent() {
        state.ensure_real_dir(parent)?;
    }
    let lock = files::open_lock_file(&state.kept_lock(session))
        .context("failed to open the kept copies' lock")?;
    let wait = deadline.map_or(LOCK_WAIT, |deadline| {
        LOCK_WAIT.min(deadline.saturating_duration_since(Instant::now()))
    });
    files::lock_within(lock.file(), wait)
        .context("the kept copies are busy: another ctxhooks process holds their lock")?;
    let outcome = keep_locked(&kept, name, transcript, check, deadline);
    let _ = lock.file().unlock();
    outcome
}

/// Where a generation is carried on from.
struct Position {
    generation: u32,
    /// Transcript bytes kept.
    length: u64,
    /// The `.gz` file's recorded length.
    gz_length: u64,
    /// The index's length up to its last complete line.
    index_length: u64,
    hash: RunningHash,
}

fn keep_locked(
    kept: &Path,
    name: &KeptName,
    transcript: &mut TranscriptFile,
    check: Check,
    deadline: Option<Instant>,
) -> Result<KeepOutcome> {
    // The size now, not at open: another hook may have kept bytes written since this one
    // opened the file, and they are no reason to start a generation.
    let size = transcript
        .file_mut()
        .metadata()
        .context("failed to read the transcript's size")?
        .len();
    let latest = kept::latest_generation(kept, name);
    let carried = if latest == 0 {
        Err(GenerationReason::First)
    } else {
        carry_on(kept, name, latest, transcript, size, check)?
    };
    let (mut position, started) = match carried {
        Ok(position) => (position, None),
        Err(reason) => {
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
            let position = Position {
                generation: header.generation,
                length: 0,
                gz_length: 0,
                index_length,
                hash: RunningHash::new(),
            };
            (position, Some(reason))
        }
    };
    let mut complete = true;
    while position.length < size {
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            complete = false;
            break;
        }
        append_chunk(kept, name, transcript, &mut position, size)?;
    }
    Ok(KeepOutcome {
        generation: position.generation,
        length: position.length,
        sha256: position.hash.hex_digest(),
        started,
        complete,
    })
}

/// The place to carry generation `generation` on from, or why a new one must start.
fn carry_on(
    kept: &Path,
    name: &KeptName,
    generation: u32,
    transcript: &mut TranscriptFile,
    size: u64,
    check: Check,
) -> Result<Result<Position, GenerationReason>> {
    let Ok(tail) = kept::read_tail(&name.index_path(kept, generation)) else {
        return Ok(Err(GenerationReason::PreviousDamaged));
    };
    let Some(last) = tail.last else {
        // Started, never appended to: carried on from nothing.
        return Ok(Ok(Position {
            generation,
            length: 0,
            gz_length: 0,
            index_length: tail.index_length,
            hash: RunningHash::new(),
        }));
    };
    let data_length = fs_err::symlink_metadata(name.data_path(kept, generation))
        .map_or(0, |metadata| metadata.len());
    let Ok(hash) = RunningHash::restore(&last.hash_state, last.end()) else {
        return Ok(Err(GenerationReason::PreviousDamaged));
    };
    if data_length < last.gz_end() {
        return Ok(Err(GenerationReason::PreviousDamaged));
    }
    if size < last.end() {
        return Ok(Err(GenerationReason::Shrank));
    }
    let file = transcript.file_mut();
    let same = match check {
        Check::Tail => fingerprint_before(file, last.end())? == last.tail_fingerprint,
        Check::Whole => hash_prefix(file, last.end())? == last.total_sha256,
    };
    if !same {
        return Ok(Err(GenerationReason::Rewritten));
    }
    Ok(Ok(Position {
        generation,
        length: last.end(),
        gz_length: last.gz_end(),
        index_length: tail.index_length,
        hash,
    }))
}

/// SHA-256 of the first `length` bytes of `file`.
fn hash_prefix(file: &mut fs_err::File, length: u64) -> Result<String> {
    file.seek(SeekFrom::Start(0))?;
    let digested =
        files::digest_reader(&mut file.take(length)).context("failed to read the transcript")?;
    Ok(digested.sha256)
}

/// Keeps the next chunk of the transcript (at most [`CHUNK_BYTES`]) as one member.
fn append_chunk(
    kept: &Path,
    name: &KeptName,
    transcript: &mut TranscriptFile,
    position: &mut Position,
    size: u64,
) -> Result<()> {
    let length = usize::try_from(size - position.length)
        .unwrap_or(usize::MAX)
        .min(CHUNK_BYTES);
    let file = transcript.file_mut();
    file.seek(SeekFrom::Start(position.length))?;
    let mut bytes = vec![0u8; length];
    file.read_exact(&mut bytes)
        .context("failed to read the transcript's new bytes")?;
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
        time: Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
    };
    let line_length = serde_json::to_vec(&kept::IndexRecord::Chunk(chunk.clone()))?.len() + 1;
    kept::append_member(
        kept,
        name,
        position.generation,
        (position.gz_length, position.index_length),
        &member,
        &chunk,
    )?;
    position.length = end;
    position.gz_length = chunk.gz_end();
    position.index_length += line_length as u64;
    position.hash = hash;
    Ok(())
}

/// The name a sub-agent's transcript is kept under, as its snapshot names it: its path below
/// `<transcript folder>/<session>/` (2.1.x: `subagents/…`), or `subagents/<file name>` for a
/// 2.0.x flat `agent-*.jsonl` beside the transcript (or anywhere else).
pub fn subagent_name(transcript: &Path, session: &SessionId, agent: &Path) -> Result<KeptName> {
    let folder = match transcript.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let nested = folder.join(session.as_str());
    let relative: PathBuf = match agent.strip_prefix(&nested) {
        Ok(inner) if inner.starts_with("subagents") => inner.to_path_buf(),
        _ => Path::new("subagents").join(agent.file_name().unwrap_or_default()),
    };
    KeptName::parse(&relative.to_string_lossy())
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
) -> Result<Option<KeepOutcome>> {
    let Some(mut transcript) = TranscriptFile::open_if_present(path)? else {
        return Ok(None);
    };
    transcript.check_is_transcript()?;
    keep_transcript(state, session, name, &mut transcript, check, deadline).map(Some)
}

/// Keeps every sub-agent transcript of `session` found beside `transcript` (both layouts, as a
/// snapshot finds them), each a best effort: the problems are returned, one per file.
pub fn keep_subagents(
    state: &StateDir,
    session: &SessionId,
    transcript: &Path,
    check: Check,
    deadline: Option<Instant>,
) -> Vec<anyhow::Error> {
    let (found, skipped) = find_subagent_files(transcript, session);
    let mut problems: Vec<anyhow::Error> = skipped
        .into_iter()
        .map(|file| {
            anyhow::anyhow!(
                "a sub-agent transcript could not be kept: `{}`: {}",
                file.source,
                file.error
            )
        })
        .collect();
    for file in found {
        let kept = KeptName::parse(&file.relative.to_string_lossy())
            .and_then(|name| keep_path(state, session, &name, &file.source, check, deadline));
        if let Err(error) = kept {
            problems.push(error.context(format!(
                "failed to keep the sub-agent transcript `{}`",
                file.source.display()
            )));
        }
    }
    problems
}

/// How long the Stop hook may spend keeping (its budget is 50 s; the usage ingest comes after).
const STOP_KEEP_TIME: Duration = Duration::from_secs(30);

/// Keeps the open `transcript` for a hook run (the Stop hook's, `SubagentStop`'s): a problem
/// is noted for the error log and never stops the hook's other work.
pub fn keep_in_hook(
    context: &HookContext,
    session: &SessionId,
    name: Result<KeptName>,
    transcript: &mut TranscriptFile,
) {
    let deadline = Some(Instant::now() + STOP_KEEP_TIME);
    let kept = name.and_then(|name| {
        keep_transcript(
            &context.state,
            session,
            &name,
            transcript,
            Check::Tail,
            deadline,
        )
    });
    if let Err(error) = kept {
        context.note(error.context(format!(
            "failed to keep the transcript `{}`",
            transcript.path().display()
        )));
    }
}

/// The name a session's transcript at `path` is kept under: `transcript.jsonl`, unless its
/// file name says it is a sub-agent's (`agent-<id>.jsonl`).
pub fn main_name(session: &SessionId, path: &Path) -> Result<KeptName> {
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
    use crate::test_support::TempFolder;

    fn kept_bytes(state: &StateDir, session: &SessionId, generation: u32) -> Vec<u8> {
        let kept = state.kept_dir(session);
        let name = KeptName::main();
        let index = GenerationIndex::read(&name.index_path(&kept, generation)).unwrap();
        assert!(
            kept::verify_generation(&kept, &name, &index)
                .unwrap()
                .is_empty()
        );
        let mut bytes = Vec::new();
        kept::open_generation(&kept, &name, &index, index.length())
            .unwrap()
            .read_to_end(&mut bytes)
            .unwrap();
        bytes
    }

    fn keep(state: &StateDir, session: &SessionId, path: &Path, check: Check) -> KeepOutcome {
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
        assert_eq!(first.started, Some(GenerationReason::First));
        assert_eq!((first.generation, first.length), (1, 8));
        // Nothing new: nothing written.
        let again = keep(&state, &session, &path, Check::Tail);
        assert_eq!((again.started, again.length), (None, 8));
        // Appended: carried on.
        fs_err::write(&path, "{\"a\":1}\n{\"b\":2}\n").unwrap();
        let grown = keep(&state, &session, &path, Check::Whole);
        assert_eq!(
            (grown.generation, grown.length, grown.started),
            (1, 16, None)
        );
        assert_eq!(grown.sha256, files::sha256_hex(b"{\"a\":1}\n{\"b\":2}\n"));
        assert_eq!(kept_bytes(&state, &session, 1), b"{\"a\":1}\n{\"b\":2}\n");
        // Rewritten: generation 1 stays whole, generation 2 follows.
        fs_err::write(&path, "{\"c\":3}\n{\"d\":4}\n{\"e\":5}\n").unwrap();
        let rewritten = keep(&state, &session, &path, Check::Tail);
        assert_eq!(rewritten.started, Some(GenerationReason::Rewritten));
        assert_eq!(rewritten.generation, 2);
        assert_eq!(kept_bytes(&state, &session, 1), b"{\"a\":1}\n{\"b\":2}\n");
        assert_eq!(
            kept_bytes(&state, &session, 2),
            b"{\"c\":3}\n{\"d\":4}\n{\"e\":5}\n"
        );
        // Shrunk: generation 3.
        fs_err::write(&path, "{\"c\":3}\n").unwrap();
        let shrunk = keep(&state, &session, &path, Check::Tail);
        assert_eq!(
            (shrunk.generation, shrunk.started),
            (3, Some(GenerationReason::Shrank))
        );
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
        assert!(!kept::is_empty_start(&kept, &name, 1));
        // What one killed at that moment by a ctxhooks before 2026-12-01 left: an empty index.
        fs_err::write(name.index_path(&kept, 2), "").unwrap();
        assert!(kept::is_empty_start(&kept, &name, 2));
        fs_err::write(&path, "{\"b\":2}\n").unwrap();
        let rewritten = keep(&state, &session, &path, Check::Tail);
        assert_eq!(
            (rewritten.generation, rewritten.started),
            (3, Some(GenerationReason::PreviousDamaged))
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
        std::os::unix::fs::symlink(&elsewhere, state.kept_dir(&session)).unwrap();
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
        assert!(format!("{error:#}").contains("symbolic link"), "{error:#}");
        assert_eq!(fs_err::read_dir(&elsewhere).unwrap().count(), 0);
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
