//! Checking a kept copy's generations (`store/kept.rs`): what is wrong with one, if anything,
//! found at one of two depths (its files and index only, or every member decompressed and
//! hashed); the newest generation whose bytes are truly kept, with the newer ones passed over
//! and why; and the mark a check leaves beside a damaged generation, which the next hook run
//! reads to start a new generation instead of appending to it.
//!
//! `archives verify` reports what [`check_generation`] finds; `archives restore` and `recall`
//! take what [`newest_whole`] chooses: both read one definition of a generation `restore` can
//! give back.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use chrono::{SecondsFormat, Utc};
use flate2::read::GzDecoder;
use serde::Serialize;

use super::files::{self, Access};
use super::kept::{GenerationIndex, KeptError, KeptName};
use super::running_hash::RunningHash;
use crate::causes::Causes;

/// What makes a generation one `restore` cannot give back (a member's `start` is its offset in
/// the transcript); each message is the one `archives verify` prints.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[allow(
    missing_docs,
    reason = "each variant's message says what it is; its fields are named for what they hold"
)]
pub enum GenerationProblem {
    /// A gap in the numbers, from this generation to `last`.
    #[error(
        "missing: neither its index nor its gzip file is there (through generation {last}), \
         though a later generation is"
    )]
    Missing { last: u32 },
    #[error(
        "its index is missing: its gzip file holds {gz_bytes} bytes no index describes (`zcat` \
         still reads them)"
    )]
    IndexMissing { gz_bytes: u64 },
    /// A link, a FIFO, a folder, no permission.
    #[error("its index cannot be read: {error}")]
    IndexUnreadable { error: String },
    /// Left by a ctxhooks before 2026-12-01.
    #[error("it keeps nothing: its index is empty (a start an older ctxhooks left cut short)")]
    IndexEmpty,
    #[error("its index is damaged: {error}")]
    NoHeader { error: String },
    #[error(
        "it keeps nothing: its index records no member (a start cut short, or one that ran out \
         of time before its first member)"
    )]
    KeepsNothing,
    #[error("its gzip file cannot be read: {error}")]
    DataUnreadable { error: String },
    /// In the transcript or in the gzip file.
    #[error("the member at {start} does not follow the one before it")]
    Gap { start: u64 },
    #[error("the member at {start} records offsets past what a file can hold")]
    Impossible { start: u64 },
    /// Its gzip CRC-32 or length fails, or it is cut short.
    #[error("the member at {start} cannot be read: {error}")]
    Unreadable { start: u64, error: String },
    /// `found` is at most one more than recorded: nothing past that is decompressed.
    #[error("the member at {start} holds {} bytes, not {recorded}", held(*.found, *.recorded))]
    LengthMismatch {
        start: u64,
        recorded: u64,
        found: u64,
    },
    #[error("the member at {start} has another SHA-256")]
    ChecksumMismatch { start: u64 },
    #[error("the SHA-256 of everything up to the member at {start} is not the recorded one")]
    TotalMismatch { start: u64 },
    #[error("the gzip file holds {found} bytes, its index records {recorded}")]
    Truncated { recorded: u64, found: u64 },
    #[error("{count} index line(s) cannot be read")]
    UnreadableIndexLines { count: usize },
    /// Only a check of the files and index reads the mark; one of every byte finds the damage
    /// itself.
    #[error("an earlier check found: {detail}")]
    Marked { detail: String },
}

/// What a member of `recorded` bytes that gave `found` holds, in words.
fn held(found: u64, recorded: u64) -> String {
    if found > recorded {
        format!("more than {recorded}")
    } else {
        found.to_string()
    }
}

/// The three kinds of problem, as `archives verify` reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// Nothing was kept under the generation.
    KeptNothing,
    /// The generation's files are gone.
    KeptMissing,
    /// Bytes were kept that cannot be read back as recorded.
    KeptDamaged,
}

impl GenerationProblem {
    /// Which kind of problem it is.
    pub fn kind(&self) -> ProblemKind {
        match self {
            Self::IndexEmpty | Self::KeepsNothing => ProblemKind::KeptNothing,
            Self::Missing { .. } => ProblemKind::KeptMissing,
            _ => ProblemKind::KeptDamaged,
        }
    }
}

/// How deep a check goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// The files and the index only (and a mark an earlier check left): cheap, for `recall`
    /// and `sessions`, which read the bytes anyway.
    Files,
    /// Every member decompressed (gzip checks its CRC-32 and length) and hashed: for `verify`
    /// and `restore`.
    Bytes,
}

/// What checking one generation found.
#[derive(Debug, Clone)]
pub struct CheckedGeneration {
    /// The generation (the first of a gap, for [`GenerationProblem::Missing`]).
    pub generation: u32,
    /// Its index, when it could be read.
    pub index: Option<GenerationIndex>,
    /// What is wrong; empty when `restore` can give back every byte it keeps.
    pub problems: Vec<GenerationProblem>,
}

impl CheckedGeneration {
    /// A generation whose index could not be read, for `problem`.
    fn unread(generation: u32, problem: GenerationProblem) -> Self {
        Self {
            generation,
            index: None,
            problems: vec![problem],
        }
    }

    /// Returns true if and only if `restore` can give back every byte it keeps (and it keeps
    /// some).
    pub fn is_whole(&self) -> bool {
        self.problems.is_empty() && self.index.is_some()
    }

    /// The problems, one sentence.
    pub fn describe(&self) -> String {
        let problems: Vec<String> = self.problems.iter().map(ToString::to_string).collect();
        problems.join("; ")
    }
}

/// Checks generation `generation` of `name` in `kept` at `depth`.
pub fn check_generation(
    kept: &Path,
    name: &KeptName,
    generation: u32,
    depth: Depth,
) -> CheckedGeneration {
    let index = match read_index(kept, name, generation) {
        Ok(index) => index,
        Err(problem) => return CheckedGeneration::unread(generation, problem),
    };
    let mut problems = Vec::new();
    if index.unreadable_lines > 0 {
        problems.push(GenerationProblem::UnreadableIndexLines {
            count: index.unreadable_lines,
        });
    }
    if index.chunks.is_empty() {
        problems.push(GenerationProblem::KeepsNothing);
    } else {
        let mark = name.damage_mark_path(kept, generation);
        if depth == Depth::Files && fs_err::symlink_metadata(&mark).is_ok() {
            let detail = files::read_state_file_within(&mark, files::SMALL_STATE_FILE_LIMIT)
                .ok()
                .flatten()
                .and_then(|bytes| serde_json::from_slice::<DamageMark>(&bytes).ok())
                .map_or_else(|| "damage".to_owned(), |mark| mark.problems.join("; "));
            problems.push(GenerationProblem::Marked { detail });
        }
        check_members(kept, name, &index, depth, &mut problems);
    }
    CheckedGeneration {
        generation,
        index: Some(index),
        problems,
    }
}

/// Generation `generation`'s index, read whole; the problem that ends its check when it cannot
/// be (missing, unreadable, empty, or without its generation line).
fn read_index(
    kept: &Path,
    name: &KeptName,
    generation: u32,
) -> Result<GenerationIndex, GenerationProblem> {
    let index_path = name.index_path(kept, generation);
    let opened = files::open_unlinked(&index_path, Access::Read).map_err(|error| {
        GenerationProblem::IndexUnreadable {
            error: format!("{error:#}"),
        }
    })?;
    let Some(file) = opened else {
        let data = fs_err::symlink_metadata(name.data_path(kept, generation));
        return Err(match data {
            Ok(metadata) => GenerationProblem::IndexMissing {
                gz_bytes: metadata.len(),
            },
            Err(_) => GenerationProblem::Missing { last: generation },
        });
    };
    if file.metadata().is_ok_and(|metadata| metadata.len() == 0) {
        return Err(GenerationProblem::IndexEmpty);
    }
    GenerationIndex::read_from(file, &index_path).map_err(|error| GenerationProblem::NoHeader {
        error: format!("{error:#}"),
    })
}

/// Checks the members an index records: they follow one another, in the transcript and in
/// the gzip file, from 0; the gzip file holds them; and, at [`Depth::Bytes`], each decompresses
/// to the recorded number of bytes with the recorded SHA-256, and the running SHA-256 matches
/// at every member's end. Nothing is allocated by what the index says: a member is read
/// through a fixed buffer, and no more than one byte past its recorded length is decompressed.
fn check_members(
    kept: &Path,
    name: &KeptName,
    index: &GenerationIndex,
    depth: Depth,
    problems: &mut Vec<GenerationProblem>,
) {
    let data_path = name.data_path(kept, index.header.generation);
    let opened = files::open_unlinked_existing(&data_path, Access::Read)
        .and_then(|data| Ok((data.metadata()?.len(), data)));
    let (found, mut data) = match opened {
        Ok(opened) => opened,
        Err(error) => {
            problems.push(GenerationProblem::DataUnreadable {
                error: Causes(&error).to_string(),
            });
            return;
        }
    };
    let mut expected_start = 0u64;
    let mut expected_gz_start = 0u64;
    let mut truncated = false;
    let mut running = RunningHash::new();
    // Once a member cannot be read, the running SHA-256 after it means nothing.
    let mut running_valid = true;
    for chunk in &index.chunks {
        let (Some(end), Some(gz_end)) = (
            chunk.start.checked_add(chunk.length),
            chunk.gz_start.checked_add(chunk.gz_length),
        ) else {
            problems.push(GenerationProblem::Impossible { start: chunk.start });
            running_valid = false;
            continue;
        };
        if chunk.start != expected_start || chunk.gz_start != expected_gz_start {
            problems.push(GenerationProblem::Gap { start: chunk.start });
            running_valid = false;
        }
        expected_start = end;
        expected_gz_start = gz_end;
        if gz_end > found {
            if !truncated {
                problems.push(GenerationProblem::Truncated {
                    recorded: index.gz_length(),
                    found,
                });
                truncated = true;
            }
            running_valid = false;
            continue;
        }
        if depth == Depth::Files {
            continue;
        }
        let carried = running_valid.then_some(&mut running);
        match read_member(&mut data, chunk, carried) {
            Err(error) => {
                problems.push(GenerationProblem::Unreadable {
                    start: chunk.start,
                    error: format!("{error:#}"),
                });
                running_valid = false;
            }
            Ok(member) if member.size != chunk.length => {
                problems.push(GenerationProblem::LengthMismatch {
                    start: chunk.start,
                    recorded: chunk.length,
                    found: member.size,
                });
                running_valid = false;
            }
            Ok(member) => {
                if member.sha256 != chunk.sha256 {
                    problems.push(GenerationProblem::ChecksumMismatch { start: chunk.start });
                }
                if running_valid && running.hex_digest() != chunk.total_sha256 {
                    problems.push(GenerationProblem::TotalMismatch { start: chunk.start });
                    running_valid = false;
                }
            }
        }
    }
}

/// Decompresses the gzip member `chunk` records, stopping one byte past its recorded length,
/// and hashes what it gives (onto `running` too, when given).
fn read_member(
    data: &mut fs_err::File,
    chunk: &super::kept::ChunkRecord,
    running: Option<&mut RunningHash>,
) -> std::io::Result<files::Digested> {
    data.seek(SeekFrom::Start(chunk.gz_start))?;
    let mut decoder =
        GzDecoder::new((&mut *data).take(chunk.gz_length)).take(chunk.length.saturating_add(1));
    match running {
        Some(running) => files::copy_hashed(&mut decoder, running),
        None => files::copy_hashed(&mut decoder, &mut std::io::sink()),
    }
}

/// How the bytes a generation keeps compare with a transcript's first bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Comparison {
    /// Every kept byte is the transcript's.
    Same,
    /// Some kept byte differs from the transcript's (the transcript was rewritten).
    Differs,
    /// The kept copy cannot be read back as recorded (its index, a member, its length or its
    /// SHA-256): it cannot be compared, nor carried on.
    Damaged,
    /// The deadline came before every byte was compared.
    OutOfTime,
}

/// Compares every byte generation `generation` of `name` keeps, up to the end of its last
/// member `last` (read by the caller from the index's end), with the first bytes of
/// `transcript`: each member is decompressed (gzip checks its CRC-32 and length) and compared
/// with the transcript's bytes at its place, through fixed buffers, and the SHA-256 of the
/// transcript's bytes up to the end must be the recorded one. Reads the whole index, every
/// kept byte and as many of the transcript's: for `PreCompact`, and for a run that finds
/// another file at the transcript's path (which stops at its `deadline`, between blocks).
pub fn compare_with_transcript(
    kept: &Path,
    name: &KeptName,
    generation: u32,
    last: &super::kept::ChunkRecord,
    transcript: &mut fs_err::File,
    deadline: Option<std::time::Instant>,
) -> Result<Comparison, KeptError> {
    // Its files and index first, as a check of the files finds them; its last member changed
    // while it was read is damage too.
    let checked = check_generation(kept, name, generation, Depth::Files);
    let index = match checked.index {
        Some(index) if checked.problems.is_empty() && index.chunks.last() == Some(last) => index,
        _ => return Ok(Comparison::Damaged),
    };
    let mut data = files::open_unlinked_existing(&name.data_path(kept, generation), Access::Read)?;
    let mut running = RunningHash::new();
    let mut kept_bytes = vec![0u8; 256 * 1024];
    let mut transcript_bytes = vec![0u8; 256 * 1024];
    for chunk in &index.chunks {
        data.seek(SeekFrom::Start(chunk.gz_start))?;
        transcript.seek(SeekFrom::Start(chunk.start))?;
        let mut decoder = GzDecoder::new((&mut data).take(chunk.gz_length));
        let mut left = chunk.length;
        let mut differs = false;
        while left > 0 {
            if deadline.is_some_and(|deadline| std::time::Instant::now() >= deadline) {
                return Ok(Comparison::OutOfTime);
            }
            let wanted = usize::try_from(left.min(kept_bytes.len() as u64)).unwrap_or(0);
            if decoder.read_exact(&mut kept_bytes[..wanted]).is_err() {
                return Ok(Comparison::Damaged);
            }
            transcript
                .read_exact(&mut transcript_bytes[..wanted])
                .map_err(KeptError::ReadTranscript)?;
            running.update(&transcript_bytes[..wanted]);
            if kept_bytes[..wanted] != transcript_bytes[..wanted] {
                differs = true;
                break;
            }
            left -= wanted as u64;
        }
        // The member's end: gzip checks its CRC-32 and length there, so a member whose bytes
        // differ is read to its end first, to tell damage from a rewrite.
        let mut rest = Vec::new();
        let ended = (&mut decoder)
            .take(left.saturating_add(1))
            .read_to_end(&mut rest);
        if ended.is_err() {
            return Ok(Comparison::Damaged);
        }
        if differs {
            return Ok(Comparison::Differs);
        }
        if !rest.is_empty() {
            return Ok(Comparison::Damaged);
        }
    }
    Ok(if running.hex_digest() == last.total_sha256 {
        Comparison::Same
    } else {
        Comparison::Damaged
    })
}

/// What [`newest_whole`] chose.
#[derive(Debug, Clone, Default)]
pub struct NewestWhole {
    /// The newest generation `restore` can give back whole, if any.
    pub chosen: Option<CheckedGeneration>,
    /// The newer generations passed over, newest first, each with why.
    pub passed_over: Vec<CheckedGeneration>,
}

/// The newest generation of `name` whose every kept byte can be given back (checked at
/// `depth`), and the newer ones passed over (a gap in the numbers is one entry). Nothing chosen
/// when no generation is whole, or none exists.
pub fn newest_whole(kept: &Path, name: &KeptName, depth: Depth) -> Result<NewestWhole, KeptError> {
    let mut newest = NewestWhole::default();
    // Newest first: an older one is checked only once every newer one was passed over.
    for checked in checked_in_order(kept, name, depth)?.rev() {
        if checked.is_whole() {
            newest.chosen = Some(checked);
            break;
        }
        newest.passed_over.push(checked);
    }
    Ok(newest)
}

/// Every generation of `name`, checked at `depth`, oldest first; a gap in the numbers is one
/// entry ([`GenerationProblem::Missing`]).
pub fn check_all(
    kept: &Path,
    name: &KeptName,
    depth: Depth,
) -> Result<Vec<CheckedGeneration>, KeptError> {
    Ok(checked_in_order(kept, name, depth)?.collect())
}

/// The generations of `name` from 1 to its newest, oldest first, each checked at `depth` when
/// the iterator reaches it; a gap in the numbers is one entry ([`GenerationProblem::Missing`]).
fn checked_in_order<'a>(
    kept: &'a Path,
    name: &'a KeptName,
    depth: Depth,
) -> Result<impl DoubleEndedIterator<Item = CheckedGeneration> + 'a, KeptError> {
    // `(first, Some(last))` for a gap, `(generation, None)` for one that has a file.
    let mut slots = Vec::new();
    let mut next = 1u32;
    for generation in super::kept::generation_numbers(kept, name)? {
        if generation > next {
            slots.push((next, Some(generation - 1)));
        }
        slots.push((generation, None));
        next = generation.saturating_add(1);
    }
    Ok(slots
        .into_iter()
        .map(move |(generation, gap_end)| match gap_end {
            Some(last) => {
                CheckedGeneration::unread(generation, GenerationProblem::Missing { last })
            }
            None => check_generation(kept, name, generation, depth),
        }))
}

/// The mark beside a damaged generation (`<name>.<N>.damaged.json`).
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
struct DamageMark {
    /// When the damage was found (RFC 3339 UTC, milliseconds).
    found_at: String,
    /// What was found, one sentence each.
    problems: Vec<String>,
}

/// Leaves the mark that tells the next hook run to start a new generation instead of
/// appending to `checked`, when a check of every byte found it keeping damaged bytes (and it
/// has no mark yet); removes a mark such a check no longer finds a reason for (the damage was
/// put right by hand). Nothing for a check of the files only. The caller checked that no folder
/// below the state folder is a link.
pub fn record_damage(
    kept: &Path,
    name: &KeptName,
    checked: &CheckedGeneration,
    depth: Depth,
) -> Result<(), KeptError> {
    if depth != Depth::Bytes {
        return Ok(());
    }
    let mark = name.damage_mark_path(kept, checked.generation);
    let marked = fs_err::symlink_metadata(&mark).is_ok();
    if checked.is_whole() {
        if marked {
            fs_err::remove_file(&mark).map_err(KeptError::RemoveDamageMark)?;
        }
        return Ok(());
    }
    let damaged: Vec<String> = checked
        .problems
        .iter()
        .filter(|problem| problem.kind() == ProblemKind::KeptDamaged)
        .filter(|problem| !matches!(problem, GenerationProblem::Marked { .. }))
        .map(ToString::to_string)
        .collect();
    if damaged.is_empty() || marked {
        return Ok(());
    }
    let record = DamageMark {
        found_at: Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
        problems: damaged,
    };
    files::write_atomic(
        &mark,
        &serde_json::to_vec(&record)?,
        files::PRIVATE_FILE_MODE,
    )
    .map_err(KeptError::MarkDamage)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::kept::{ChunkRecord, GenerationHeader, GenerationReason, KEPT_SCHEMA};
    use crate::store::snapshot_metadata::FileRole;
    use crate::test_support::TempFolder;

    fn header(generation: u32) -> GenerationHeader {
        GenerationHeader {
            schema: KEPT_SCHEMA,
            generation,
            source: "t.jsonl".to_owned(),
            role: FileRole::Transcript,
            started_at: "2026-12-02T00:00:00Z".to_owned(),
            reason: GenerationReason::First,
        }
    }

    /// Generation `generation` of the main transcript in `kept`, keeping `bytes` in one member.
    fn write_generation(kept: &Path, generation: u32, bytes: &[u8]) -> ChunkRecord {
        let name = KeptName::main();
        crate::store::kept::start_generation(kept, &name, &header(generation)).unwrap();
        let member = crate::store::kept::compress_member(bytes).unwrap();
        let chunk = ChunkRecord {
            start: 0,
            length: bytes.len() as u64,
            gz_start: 0,
            gz_length: member.len() as u64,
            sha256: files::sha256_hex(bytes),
            total_sha256: files::sha256_hex(bytes),
            hash_state: String::new(),
            tail_fingerprint: String::new(),
            samples_crc32: None,
            identity: None,
            time: "2026-12-02T00:00:00.000Z".to_owned(),
        };
        let index_length = fs_err::metadata(name.index_path(kept, generation))
            .unwrap()
            .len();
        crate::store::kept::append_member(
            kept,
            &name,
            generation,
            (0, index_length),
            &member,
            &chunk,
        )
        .unwrap();
        chunk
    }

    /// Replaces generation 1's only member record with `chunk`.
    fn rewrite_chunk(kept: &Path, chunk: &ChunkRecord) {
        let name = KeptName::main();
        let path = name.index_path(kept, 1);
        let text = fs_err::read_to_string(&path).unwrap();
        let first = text.lines().next().unwrap();
        let line =
            serde_json::to_string(&crate::store::kept::IndexRecord::Chunk(chunk.clone())).unwrap();
        fs_err::write(&path, format!("{first}\n{line}\n")).unwrap();
    }

    #[test]
    fn an_index_whose_numbers_are_nonsense_is_reported_not_believed() {
        let temp = TempFolder::new("kept-check-nonsense");
        let kept = temp.join("kept");
        let name = KeptName::main();
        let good = write_generation(&kept, 1, b"{\"a\":1}\n");
        assert!(check_generation(&kept, &name, 1, Depth::Bytes).is_whole());
        let cases = [
            ChunkRecord {
                gz_length: u64::MAX,
                ..good.clone()
            },
            ChunkRecord {
                gz_start: u64::MAX - 3,
                ..good.clone()
            },
            ChunkRecord {
                length: u64::MAX,
                ..good.clone()
            },
            ChunkRecord {
                start: u64::MAX - 3,
                ..good.clone()
            },
            // A length far past memory: never allocated, at most one byte past what the
            // member really holds is decompressed.
            ChunkRecord {
                length: 1 << 50,
                ..good.clone()
            },
        ];
        for chunk in cases {
            rewrite_chunk(&kept, &chunk);
            let checked = check_generation(&kept, &name, 1, Depth::Bytes);
            assert!(!checked.is_whole(), "{chunk:?}");
            assert!(
                checked
                    .problems
                    .iter()
                    .all(|problem| problem.kind() == ProblemKind::KeptDamaged),
                "{checked:?}"
            );
        }
        rewrite_chunk(&kept, &good);
        assert!(check_generation(&kept, &name, 1, Depth::Bytes).is_whole());
    }

    #[test]
    fn a_line_a_writer_was_stopped_in_is_no_damage_and_a_whole_unreadable_one_is() {
        let temp = TempFolder::new("kept-check-lines");
        let kept = temp.join("kept");
        let name = KeptName::main();
        write_generation(&kept, 1, b"{\"a\":1}\n");
        let index = name.index_path(&kept, 1);
        let mut text = fs_err::read_to_string(&index).unwrap();
        // What a writer stopped in the middle of its append leaves (the next one cuts it), or
        // what a reader sees while a writer appends.
        text.push_str("{\"record\":\"chunk\",\"sta");
        fs_err::write(&index, &text).unwrap();
        let checked = check_generation(&kept, &name, 1, Depth::Bytes);
        assert!(checked.is_whole(), "{checked:?}");
        // Ended by a newline, it is a whole line that cannot be read: damage.
        text.push('\n');
        fs_err::write(&index, &text).unwrap();
        let checked = check_generation(&kept, &name, 1, Depth::Bytes);
        assert_eq!(
            checked.problems,
            [GenerationProblem::UnreadableIndexLines { count: 1 }]
        );
        // A line longer than any index line is never held whole, and counts as unreadable.
        let mut long = text.clone();
        long.push_str(&"x".repeat(200_000));
        long.push('\n');
        fs_err::write(&index, &long).unwrap();
        let checked = check_generation(&kept, &name, 1, Depth::Files);
        assert_eq!(
            checked.problems,
            [GenerationProblem::UnreadableIndexLines { count: 2 }]
        );
    }

    #[test]
    fn a_gzip_file_that_cannot_be_opened_is_said_as_it_is() {
        let temp = TempFolder::new("kept-check-open");
        let kept = temp.join("kept");
        let name = KeptName::main();
        write_generation(&kept, 1, b"{\"a\":1}\n");
        let data = name.data_path(&kept, 1);
        let moved = temp.join("moved.gz");
        fs_err::rename(&data, &moved).unwrap();
        if crate::test_support::symlink_file(&moved, &data) {
            let checked = check_generation(&kept, &name, 1, Depth::Files);
            let said = checked.describe();
            assert!(said.contains("symbolic link"), "{said}");
            assert!(!said.contains("found 0"), "{said}");
            fs_err::remove_file(&data).unwrap();
        }
        if fs_err::symlink_metadata(&data).is_ok() {
            fs_err::remove_file(&data).unwrap();
        }
        fs_err::create_dir_all(&data).unwrap();
        let said = check_generation(&kept, &name, 1, Depth::Files).describe();
        assert!(said.contains("not a regular file"), "{said}");
    }

    #[test]
    fn the_newest_whole_generation_is_chosen_past_gaps_and_empty_ones() {
        let temp = TempFolder::new("kept-check-newest");
        let kept = temp.join("kept");
        let name = KeptName::main();
        write_generation(&kept, 1, b"{\"a\":1}\n");
        write_generation(&kept, 3, b"{\"c\":3}\n");
        // Generation 4 started and nothing kept; 5 an empty index an older build left.
        crate::store::kept::start_generation(&kept, &name, &header(4)).unwrap();
        fs_err::write(name.index_path(&kept, 5), "").unwrap();
        let newest = newest_whole(&kept, &name, Depth::Bytes).unwrap();
        assert_eq!(newest.chosen.unwrap().generation, 3);
        let passed: Vec<(u32, ProblemKind)> = newest
            .passed_over
            .iter()
            .map(|checked| (checked.generation, checked.problems[0].kind()))
            .collect();
        assert_eq!(
            passed,
            [(5, ProblemKind::KeptNothing), (4, ProblemKind::KeptNothing)]
        );
        let all = check_all(&kept, &name, Depth::Bytes).unwrap();
        let found: Vec<(u32, bool)> = all
            .iter()
            .map(|checked| (checked.generation, checked.is_whole()))
            .collect();
        assert_eq!(
            found,
            [(1, true), (2, false), (3, true), (4, false), (5, false)]
        );
        assert_eq!(all[1].problems, [GenerationProblem::Missing { last: 2 }]);
        // Generation 3 and 1 damaged: nothing is whole, everything is said.
        for generation in [1, 3] {
            let data = name.data_path(&kept, generation);
            let mut bytes = fs_err::read(&data).unwrap();
            let middle = bytes.len() / 2;
            bytes[middle] ^= 0x10;
            fs_err::write(&data, bytes).unwrap();
        }
        let newest = newest_whole(&kept, &name, Depth::Bytes).unwrap();
        assert!(newest.chosen.is_none());
        assert_eq!(newest.passed_over.len(), 5);
        // A check of the files only does not see the damage, until a mark says it.
        assert!(check_generation(&kept, &name, 3, Depth::Files).is_whole());
        let checked = check_generation(&kept, &name, 3, Depth::Bytes);
        record_damage(&kept, &name, &checked, Depth::Bytes).unwrap();
        let marked = check_generation(&kept, &name, 3, Depth::Files);
        assert!(matches!(
            marked.problems.as_slice(),
            [GenerationProblem::Marked { .. }]
        ));
        // Put right by hand: the next check of every byte takes the mark away.
        let data = name.data_path(&kept, 3);
        let mut bytes = fs_err::read(&data).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x10;
        fs_err::write(&data, bytes).unwrap();
        let checked = check_generation(&kept, &name, 3, Depth::Bytes);
        assert!(checked.is_whole());
        record_damage(&kept, &name, &checked, Depth::Bytes).unwrap();
        assert!(check_generation(&kept, &name, 3, Depth::Files).is_whole());
    }

    #[test]
    fn a_transcript_shorter_than_its_copy_and_a_mark_that_cannot_go_fail_with_their_step() {
        let temp = TempFolder::new("kept-check-errors");
        let kept = temp.join("kept");
        let name = KeptName::main();
        let last = write_generation(&kept, 1, b"{\"a\":1}\n");
        let path = temp.join("t.jsonl");
        fs_err::write(&path, b"{").unwrap();
        let mut transcript = fs_err::File::open(&path).unwrap();
        let error =
            compare_with_transcript(&kept, &name, 1, &last, &mut transcript, None).unwrap_err();
        assert!(matches!(error, KeptError::ReadTranscript(_)), "{error:?}");
        // A folder where a stale mark would be: a whole generation's check cannot remove it.
        fs_err::create_dir(name.damage_mark_path(&kept, 1)).unwrap();
        let checked = check_generation(&kept, &name, 1, Depth::Bytes);
        let error = record_damage(&kept, &name, &checked, Depth::Bytes).unwrap_err();
        assert!(matches!(error, KeptError::RemoveDamageMark(_)), "{error:?}");
    }
}
