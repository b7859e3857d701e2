//! Bringing the index up to date before a search: for each source, only the bytes added since
//! the last search are read (a kept generation's index says how much it keeps; a live file is
//! recognised by its device, inode and the SHA-256 of the 4 KiB before where the index stopped).
//! A source that is gone, a generation started anew, or a live file rewritten loses its rows
//! (all of them, or those read from the file), and what is there now is read again; the rows
//! that no longer stand go before any is added (FTS5 pays a segment and a merge for each
//! deletion below a row it just wrote).
//!
//! Every change happens inside a write transaction (`BEGIN IMMEDIATE`) that first reads how far
//! the source is indexed, so two searches at once never index the same bytes twice: the second
//! waits for the first (`SQLite`'s lock, with a busy timeout) and finds nothing left to do.

use std::collections::{HashMap, HashSet};
use std::io::Read;

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension as _, params};
use rustc_hash::FxHashMap;

use super::prepare::{PreparedMessage, prepare_lines};
use super::progress::Progress;
use super::reading::{file_range, kept_range, open_file};
use super::sources::{KeptPart, KeptSource, Source};
use ctxhooks_shared::keep::still_continues;
use ctxhooks_shared::platform::identity;
use ctxhooks_shared::transcript::file::TranscriptFile;
use ctxhooks_shared::transcript::lines::fingerprint_before;

/// How many transcript bytes one write transaction reads at most before it commits (the
/// commit's cost is paid rarely; a search waiting for this one waits no more than this).
const BATCH_BYTES: u64 = 64 * 1024 * 1024;

/// What one update did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Updated {
    /// Transcript bytes read.
    pub bytes: u64,
    /// Messages added.
    pub messages: u64,
    /// Sources whose rows were all removed (gone, or started anew).
    pub dropped: u64,
}

/// How far a source is indexed, as its row says.
#[derive(Debug, Clone, Default)]
struct SourceRow {
    id: i64,
    started_at: String,
    /// Rows below this offset (a line boundary) were read from the kept copy; the rest from
    /// the file.
    kept_boundary: u64,
    indexed_to: u64,
    project: Option<String>,
    file_path: Option<String>,
    file_device: Option<u64>,
    file_inode: Option<u64>,
    file_fingerprint: Option<String>,
    signature: Option<String>,
}

/// Brings the index on `connection` up to date with `sources`.
pub fn update(connection: &Connection, sources: &[Source], progress: &Progress) -> Result<Updated> {
    let mut updated = Updated::default();
    // The usual search: nothing changed since the last one, seen without taking the write lock.
    if unchanged(connection, sources)? {
        return Ok(updated);
    }
    let mut transaction = Batch::begin(connection)?;
    // Read inside the write transaction: what it says holds until the first commit, and after
    // it a row can only have come closer to what the files hold now.
    let known = all_indexed(connection)?;
    let present: HashSet<(&str, &str, u32)> = sources
        .iter()
        .map(|source| {
            (
                source.session.as_str(),
                source.name.as_str(),
                source.generation,
            )
        })
        .collect();
    // The sizes are looked at only when a bar may be drawn.
    if progress.may_draw() {
        let total: u64 = sources
            .iter()
            .map(|source| estimate(source, known.get(&key(source))))
            .sum();
        progress.start(total);
    }
    // The rows that no longer stand go before anything is added, their words in the order of
    // their ids. FTS5 writes the words it holds in memory to disk as a segment of their own
    // whenever a row below the last it wrote is deleted, and merges the new segment into the
    // older ones at once, checking each of their rows against every deletion: rows dropped
    // between one source's new rows and the next (as they were) cost a segment and a merge per
    // source, and an update that found every source replaced by a copy of itself took 8 times
    // a fresh build and left an index 1.6 times its size (BENCHMARKS.md). The update below
    // looks at each source again, and drops what no longer stands then (a file replaced in
    // between).
    let mut stale = Vec::new();
    for ((session, name, generation), indexed) in &known {
        if !present.contains(&(session.as_str(), name.as_str(), *generation)) {
            stale.extend(take_source(connection, indexed.id)?);
            updated.dropped += 1;
        }
    }
    // A source whose files are as they were when it was last indexed has nothing to read and
    // nothing to ask; the others, each with its row when it has one, and whether its rows were
    // dropped here (the update below reads it as changed, as it does one whose rows it drops
    // itself).
    let mut changed: Vec<(&Source, Option<&SourceRow>, bool)> = sources
        .iter()
        .map(|source| (source, known.get(&key(source)), false))
        .filter(|(source, indexed, _)| {
            indexed.is_none_or(|indexed| indexed.signature.as_ref() != Some(&source.signature))
        })
        .collect();
    for (source, indexed, dropped) in &mut changed {
        if let Some(indexed) = indexed
            && let Some((why, started_at)) = looks_stale(source, indexed)?
        {
            let (_, ids) = forget(connection, indexed, why, started_at)?;
            stale.extend(ids);
            if why == Stale::All {
                updated.dropped += 1;
            }
            *dropped = true;
        }
    }
    drop_words(connection, stale)?;
    for (source, _, was_dropped) in changed {
        let done = index_source(connection, source, was_dropped, &mut updated, progress)?;
        updated.bytes += done;
        transaction.read += done;
        if transaction.read >= BATCH_BYTES {
            transaction.commit()?;
            transaction = Batch::begin(connection)?;
        }
    }
    transaction.commit()?;
    progress.finish();
    Ok(updated)
}

/// A write transaction, rolled back when dropped uncommitted.
struct Batch<'connection> {
    connection: &'connection Connection,
    read: u64,
    open: bool,
}

impl<'connection> Batch<'connection> {
    fn begin(connection: &'connection Connection) -> Result<Self> {
        connection
            .execute_batch("BEGIN IMMEDIATE")
            .context("failed to start writing the search index")?;
        Ok(Self {
            connection,
            read: 0,
            open: true,
        })
    }

    fn commit(mut self) -> Result<()> {
        self.open = false;
        self.connection
            .execute_batch("COMMIT")
            .context("failed to write the search index")
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.connection.execute_batch("ROLLBACK");
        }
    }
}

type Key = (String, String, u32);

fn key(source: &Source) -> Key {
    (
        source.session.clone(),
        source.name.clone(),
        source.generation,
    )
}

/// Whether the index holds every one of `sources`, each with the signature its files have now,
/// and nothing else: then there is nothing to read and nothing to drop. Read without a write
/// transaction (a search beside it can only bring a row closer to the files; when anything
/// differs the update reads the rows again inside its own). Run at every search: the keys are
/// hashed by `FxHash`, as the other maps of a search's own names are.
fn unchanged(connection: &Connection, sources: &[Source]) -> Result<bool> {
    let now: FxHashMap<(&str, &str, u32), &str> = sources
        .iter()
        .map(|source| {
            (
                (
                    source.session.as_str(),
                    source.name.as_str(),
                    source.generation,
                ),
                source.signature.as_str(),
            )
        })
        .collect();
    let mut statement =
        connection.prepare("SELECT session, name, generation, signature FROM sources")?;
    let mut rows = statement.query([])?;
    let mut seen = 0;
    while let Some(row) = rows.next()? {
        let key = (
            row.get_ref(0)?.as_str()?,
            row.get_ref(1)?.as_str()?,
            row.get::<_, u32>(2)?,
        );
        let signature = row.get_ref(3)?.as_str_or_null()?;
        if now.get(&key).copied() != signature {
            return Ok(false);
        }
        seen += 1;
    }
    // The rows are unique by key: as many as the sources means each source has its row.
    Ok(seen == now.len())
}

fn all_indexed(connection: &Connection) -> Result<HashMap<Key, SourceRow>> {
    let mut statement = connection.prepare(
        "SELECT session, name, generation, id, started_at, kept_length, indexed_to, project, \
         file_path, file_device, file_inode, file_fingerprint, signature FROM sources",
    )?;
    let rows = statement.query_map([], |row| {
        Ok(((row.get(0)?, row.get(1)?, row.get(2)?), indexed_of(row, 3)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn indexed_of(row: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<SourceRow> {
    Ok(SourceRow {
        id: row.get(first)?,
        started_at: row.get(first + 1)?,
        kept_boundary: row.get(first + 2)?,
        indexed_to: row.get(first + 3)?,
        project: row.get(first + 4)?,
        file_path: row.get(first + 5)?,
        file_device: row.get(first + 6)?,
        file_inode: row.get(first + 7)?,
        file_fingerprint: row.get(first + 8)?,
        signature: row.get(first + 9)?,
    })
}

fn indexed(connection: &Connection, source: &Source) -> Result<Option<SourceRow>> {
    Ok(connection
        .prepare_cached(
            "SELECT id, started_at, kept_length, indexed_to, project, file_path, file_device, \
             file_inode, file_fingerprint, signature FROM sources \
             WHERE session = ?1 AND name = ?2 AND generation = ?3",
        )?
        .query_row(
            params![source.session, source.name, source.generation],
            |row| indexed_of(row, 0),
        )
        .optional()?)
}

/// About how many bytes `source` has to read, for the progress bar (a look at sizes, and at a
/// kept index that changed, which the update reads anyway).
fn estimate(source: &Source, indexed: Option<&SourceRow>) -> u64 {
    if indexed.is_some_and(|indexed| indexed.signature.as_ref() == Some(&source.signature)) {
        return 0;
    }
    let from = indexed.map_or(0, |indexed| indexed.indexed_to);
    let kept = source
        .kept
        .as_ref()
        .and_then(|kept| kept.part().ok())
        .map_or(0, KeptPart::length);
    let end = source
        .file
        .as_ref()
        .and_then(|path| fs_err::symlink_metadata(path).ok())
        .map_or(0, |metadata| metadata.len())
        .max(kept);
    end.saturating_sub(from)
}

fn drop_source(connection: &Connection, id: i64) -> Result<()> {
    let ids = take_source(connection, id)?;
    drop_words(connection, ids)
}

/// Removes source `id` and its messages, and returns their ids: their words are
/// [`drop_words`]'s to remove.
fn take_source(connection: &Connection, id: i64) -> Result<Vec<i64>> {
    let ids = take_rows_from(connection, id, 0)?;
    connection.execute("DELETE FROM sources WHERE id = ?1", [id])?;
    Ok(ids)
}

/// Removes the messages of source `id` at or past `offset`, and returns their ids: their words
/// are [`drop_words`]'s to remove.
fn take_rows_from(connection: &Connection, id: i64, offset: u64) -> Result<Vec<i64>> {
    let ids = connection
        .prepare_cached("SELECT id FROM messages WHERE source = ?1 AND offset >= ?2")?
        .query_map(params![id, offset], |row| row.get(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    connection
        .prepare_cached("DELETE FROM messages WHERE source = ?1 AND offset >= ?2")?
        .execute(params![id, offset])?;
    Ok(ids)
}

/// Removes the words of the messages `ids` from the FTS5 table, lowest id first and one row per
/// statement: FTS5 writes what it holds in memory to disk whenever a row below the last it wrote
/// is deleted, and at every savepoint, which a statement that may delete many rows opens.
fn drop_words(connection: &Connection, mut ids: Vec<i64>) -> Result<()> {
    // Nothing to remove (as in most updates): the statement is not even prepared (preparing
    // one on the FTS5 table connects to it and reads its configuration).
    if ids.is_empty() {
        return Ok(());
    }
    ids.sort_unstable();
    let mut delete = connection.prepare_cached("DELETE FROM body WHERE rowid = ?1")?;
    for id in ids {
        delete.execute([id])?;
    }
    Ok(())
}

/// Where the rows of `state`, a source's row, stop standing: [`Stale::All`] for a generation
/// started anew or fewer bytes kept than were read from it; [`Stale::FromFile`] for rows read
/// from a file that is no longer the one they were read from (`same_file` says whether it
/// is); `None` when every row stands.
fn stale(
    state: &SourceRow,
    kept: Option<&KeptPart>,
    same_file: impl FnOnce(&SourceRow) -> Result<bool>,
) -> Result<Option<Stale>> {
    let started_at = kept.map_or("", KeptPart::started_at);
    if state.started_at != started_at || kept.map_or(0, KeptPart::length) < state.kept_boundary {
        return Ok(Some(Stale::All));
    }
    if state.indexed_to > state.kept_boundary && !same_file(state)? {
        return Ok(Some(Stale::FromFile));
    }
    Ok(None)
}

/// Which of a source's rows no longer stand ([`stale`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stale {
    /// All of them: the source is read again from its start.
    All,
    /// Those read from its file, past its kept boundary.
    FromFile,
}

/// Which rows of `state`, `source`'s row, surely no longer stand ([`stale`]), with the start
/// time of its kept generation: its file is taken for the one they were read from when a look
/// at it finds the same device and inode, at least as long (the update that reads the source
/// reads the 4 KiB before where they stop to be sure: a look costs a system call, reading them
/// a hash of 4 KiB); `None` when they all stand so far as a look tells, or its kept part cannot
/// be read (the update drops the source).
fn looks_stale<'source>(
    source: &'source Source,
    state: &SourceRow,
) -> Result<Option<(Stale, &'source str)>> {
    let Ok(kept) = source.kept.as_ref().map(KeptSource::part).transpose() else {
        return Ok(None);
    };
    let looks_the_same = |state: &SourceRow| {
        let facts = source
            .file
            .as_ref()
            .and_then(|path| identity::of_path(path).ok());
        Ok(facts.is_some_and(|facts| {
            Some(facts.device) == state.file_device
                && Some(facts.inode) == state.file_inode
                && facts.size >= state.indexed_to
        }))
    };
    let started_at = kept.map_or("", KeptPart::started_at);
    Ok(stale(state, kept, looks_the_same)?.map(|why| (why, started_at)))
}

/// Removes `state`'s rows that no longer stand (`why`) and writes its row as it is without them
/// (for [`Stale::All`], a source not read yet whose kept generation started at `started_at`);
/// returns that row and the removed messages' ids, whose words are [`drop_words`]'s to remove.
/// Written at once, the row holds at every commit, whatever a later look at the files finds.
fn forget(
    connection: &Connection,
    state: &SourceRow,
    why: Stale,
    started_at: &str,
) -> Result<(SourceRow, Vec<i64>)> {
    match why {
        Stale::All => {
            let ids = take_rows_from(connection, state.id, 0)?;
            connection
                .prepare_cached(
                    "UPDATE sources SET started_at = ?2, project = NULL, kept_length = 0, \
                     indexed_to = 0, file_path = NULL, file_device = NULL, file_inode = NULL, \
                     file_fingerprint = NULL WHERE id = ?1",
                )?
                .execute(params![state.id, started_at])?;
            let settled = SourceRow {
                id: state.id,
                started_at: started_at.to_owned(),
                ..SourceRow::default()
            };
            Ok((settled, ids))
        }
        Stale::FromFile => {
            let ids = take_rows_from(connection, state.id, state.kept_boundary)?;
            connection
                .prepare_cached("UPDATE sources SET indexed_to = kept_length WHERE id = ?1")?
                .execute([state.id])?;
            let settled = SourceRow {
                indexed_to: state.kept_boundary,
                ..state.clone()
            };
            Ok((settled, ids))
        }
    }
}

/// Reads what `source` gained since it was last indexed; returns the bytes read.
fn index_source(
    connection: &Connection,
    source: &Source,
    was_dropped: bool,
    updated: &mut Updated,
    progress: &Progress,
) -> Result<u64> {
    let known = indexed(connection, source)?;
    // Its files as they were when it was last indexed: nothing to read.
    if known
        .as_ref()
        .is_some_and(|known| known.signature.as_ref() == Some(&source.signature))
    {
        return Ok(0);
    }
    let Ok(kept) = source.kept.as_ref().map(KeptSource::part).transpose() else {
        // A kept index that cannot be read: its rows go (`archives verify` says why).
        if let Some(known) = known {
            drop_source(connection, known.id)?;
            updated.dropped += 1;
        }
        return Ok(0);
    };
    let kept_length = kept.map_or(0, KeptPart::length);
    let started_at = kept.map_or("", KeptPart::started_at);
    let mut changed = known.is_none() || was_dropped;
    let mut state = if let Some(state) = known {
        state
    } else {
        connection
            .prepare_cached(
                "INSERT INTO sources(session, name, generation, started_at, subagent, snapshot, \
                     kept_length, indexed_to) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, 0)",
            )?
            .execute(params![
                source.session,
                source.name,
                source.generation,
                started_at,
                source.subagent,
                source.snapshot
            ])?;
        SourceRow {
            id: connection.last_insert_rowid(),
            started_at: started_at.to_owned(),
            ..SourceRow::default()
        }
    };
    // A file that cannot be opened (a link, a FIFO put in its place) is read as absent.
    let mut file = source
        .file
        .as_ref()
        .and_then(|path| open_file(path).ok().flatten());
    let same_file = |state: &SourceRow| match file.as_mut() {
        Some(file) => still_the_file(file, state),
        None => Ok(false),
    };
    // Another generation under the same number (the session's folder was removed and kept
    // anew), or fewer bytes kept than were read from it: start over. Rows read from the file
    // stand only if it is still the file they were read from.
    if let Some(why) = stale(&state, kept, same_file)? {
        let (settled, ids) = forget(connection, &state, why, started_at)?;
        drop_words(connection, ids)?;
        if why == Stale::All {
            updated.dropped += 1;
        }
        state = settled;
        changed = true;
    }
    // The file carries the kept bytes on only if it still holds them.
    let continues = match (file.as_mut(), kept) {
        (Some(_), None) => true,
        (Some(file), Some(kept)) => match kept.index.chunks.last() {
            None => true,
            Some(last) => file.size() >= last.end() && still_continues(file.file_mut(), last)?,
        },
        (None, _) => false,
    };
    let from = state.indexed_to;
    let mut fingerprint_file = None;
    let reader: Box<dyn Read + Send> = match (kept, file) {
        (Some(kept), file) if from < kept_length => {
            let kept_bytes = kept_range(kept, from, kept_length)?;
            match file.filter(|_| continues) {
                Some(mut file) => {
                    fingerprint_file = Some(identify(&mut file)?);
                    let size = file.size();
                    Box::new(kept_bytes.chain(file_range(file, kept_length, size - kept_length)?))
                }
                None => kept_bytes,
            }
        }
        (_, Some(mut file)) if continues && file.size() > from => {
            fingerprint_file = Some(identify(&mut file)?);
            let size = file.size();
            file_range(file, from, size - from)?
        }
        _ => {
            // Nothing new to read: the row stands as it is, with its files' new signature.
            if !changed && (from > kept_length || from == state.kept_boundary) {
                remember(connection, state.id, &source.signature)?;
                return Ok(0);
            }
            Box::new(std::io::empty())
        }
    };
    // The last line end known within the kept bytes.
    let mut boundary = if from <= kept_length {
        from
    } else {
        state.kept_boundary
    };
    let mut insert = Inserter::new(connection, state.id)?;
    let mut project = state.project.clone();
    let want_cwd = project.is_none();
    let read = prepare_lines(reader, from, source.subagent, want_cwd, |line| {
        let end = line.offset + line.length + 1;
        progress.advance(line.length + 1);
        if end <= kept_length {
            boundary = end;
        }
        if project.is_none() {
            project = line.cwd;
        }
        match &line.message {
            Some(message) => insert.message(line.offset, line.length, message),
            None => Ok(()),
        }
    });
    let read = read.with_context(|| {
        format!(
            "failed to read session {}'s `{}` for the search index",
            source.session, source.name
        )
    })?;
    updated.messages += insert.added;
    let indexed_to = read.offset;
    let kept_boundary = if indexed_to <= kept_length {
        indexed_to
    } else {
        boundary
    };
    // Only the start of a line that is still being written: the row stands as it is.
    if !changed && indexed_to == from && kept_boundary == state.kept_boundary {
        remember(connection, state.id, &source.signature)?;
        return Ok(0);
    }
    let (file_path, file_device, file_inode, file_fingerprint) = match fingerprint_file {
        Some((mut handle, device, inode)) if indexed_to > kept_boundary => (
            source
                .file
                .as_ref()
                .map(|path| path.to_string_lossy().into_owned()),
            Some(device),
            Some(inode),
            Some(fingerprint_before(&mut handle, indexed_to)?),
        ),
        _ if indexed_to > kept_boundary => (
            state.file_path,
            state.file_device,
            state.file_inode,
            state.file_fingerprint,
        ),
        _ => (None, None, None, None),
    };
    connection
        .prepare_cached(
            "UPDATE sources SET started_at = ?2, project = ?3, kept_length = ?4, indexed_to = ?5, \
             file_path = ?6, file_device = ?7, file_inode = ?8, file_fingerprint = ?9, \
             signature = ?10 WHERE id = ?1",
        )?
        .execute(params![
            state.id,
            state.started_at,
            project.or_else(|| source.project_slug.clone()),
            kept_boundary,
            indexed_to,
            file_path,
            file_device,
            file_inode,
            file_fingerprint,
            source.signature
        ])?;
    Ok(indexed_to - from)
}

/// Records that source `id`'s files, as `signature` says they are, hold nothing more to read
/// (the signature was taken before they were read: a file that grew since differs from it).
fn remember(connection: &Connection, id: i64, signature: &str) -> Result<()> {
    connection
        .prepare_cached("UPDATE sources SET signature = ?2 WHERE id = ?1")?
        .execute(params![id, signature])?;
    Ok(())
}

/// A second handle on the open file (for the fingerprint once it is read), its device and
/// inode.
fn identify(file: &mut TranscriptFile) -> Result<(fs_err::File, u64, u64)> {
    let handle = file.file_mut().try_clone()?;
    let facts = identity::of_file(handle.file())?;
    Ok((handle, facts.device, facts.inode))
}

/// Whether `file` is the file the source's rows past its kept boundary were read from: the
/// same device and inode, at least as long, with the same 4 KiB before where they stop.
fn still_the_file(file: &mut TranscriptFile, state: &SourceRow) -> Result<bool> {
    let facts = identity::of_file(file.file_mut().file())?;
    if Some(facts.device) != state.file_device
        || Some(facts.inode) != state.file_inode
        || file.size() < state.indexed_to
    {
        return Ok(false);
    }
    let fingerprint = fingerprint_before(file.file_mut(), state.indexed_to)?;
    Ok(state.file_fingerprint.as_deref() == Some(fingerprint.as_str()))
}

/// Adds one source's messages.
struct Inserter<'connection> {
    message: rusqlite::CachedStatement<'connection>,
    body: rusqlite::CachedStatement<'connection>,
    connection: &'connection Connection,
    source: i64,
    added: u64,
}

impl<'connection> Inserter<'connection> {
    fn new(connection: &'connection Connection, source: i64) -> Result<Self> {
        Ok(Self {
            message: connection.prepare_cached(
                "INSERT INTO messages(source, offset, length, role, at, line_hash, said) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?,
            body: connection.prepare_cached("INSERT INTO body(rowid, text) VALUES (?1, ?2)")?,
            connection,
            source,
            added: 0,
        })
    }

    fn message(&mut self, offset: u64, length: u64, message: &PreparedMessage) -> Result<()> {
        self.message.execute(params![
            self.source,
            offset,
            length,
            message.role.code(),
            message.at,
            message.hash,
            message.said
        ])?;
        let id = self.connection.last_insert_rowid();
        self.body.execute(params![id, message.text])?;
        self.added += 1;
        Ok(())
    }
}
