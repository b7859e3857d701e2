//! The search index's database (`<state>/search/index.sqlite`): created 0600 in a 0700 folder,
//! never opened through a link or a FIFO, nor while one is where `SQLite` opens a file beside it
//! (`-journal`, `-wal`, `-shm`), checked for its schema at every open, and rebuilt
//! from nothing when it is damaged, of another schema, or not a database at all: it holds
//! nothing that cannot be read again from the transcripts, so it is never trusted over them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension as _};

use ctxhooks_shared::platform::{open, private};
use ctxhooks_shared::store::files::{self, Access, FileError, PRIVATE_FILE_MODE};
use ctxhooks_shared::store::state_dir::StateDir;

/// The layout's version; a database of another (or none) is rebuilt.
pub const SCHEMA: i64 = 4;

/// How long a search waits for another one that is writing the index.
const BUSY_WAIT: Duration = Duration::from_secs(30);

/// How much of the index `SQLite` reads through a memory map (`PRAGMA mmap_size`; beyond it, by
/// `pread` as before). A warm query reads pages scattered over the index: mapped, they are the
/// page cache's own, where each read would be a system call, a copy and a fresh page of the
/// process's heap (0.91 to 0.97 of a warm query's time, BENCHMARKS.md). `SQLite` still writes
/// through its file handle and its locks, so another search rebuilding or updating the index is
/// no different. What it gives up: an I/O error on a mapped page (a failing disk) stops the
/// process with `SIGBUS` instead of an error message; the index is derived from the
/// transcripts, and the next search after a removal rebuilds it.
const MAP_BYTES: u64 = 1 << 30;

/// The tables. `sources`: one row per byte stream indexed, a kept generation (with the live
/// transcript past its end when it continues it) or a transcript ctxhooks does not keep
/// (`generation` 0), with how far it is indexed and the signature its files had then. `messages`: one row per transcript line that
/// says something, where it is, who said it and when (`at`, milliseconds since the Unix
/// epoch, null when the line's `timestamp` is no time), and whether it is words a person or the
/// model wrote (`said`: a prompt or an answer's text, ranked before a tool's call or output and
/// a compaction's summary in the same tier); its `id` is the text's rowid in `body`, an
/// FTS5 table that keeps no copy of the text (`content=''`; `contentless_delete` lets a row
/// go when its source changes; [`BODY_TABLE`]).
const CREATE: &str = "
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sources(
    id INTEGER PRIMARY KEY,
    session TEXT NOT NULL,
    name TEXT NOT NULL,
    generation INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    subagent INTEGER NOT NULL,
    snapshot TEXT,
    project TEXT,
    kept_length INTEGER NOT NULL,
    indexed_to INTEGER NOT NULL,
    file_path TEXT,
    file_device INTEGER,
    file_inode INTEGER,
    file_fingerprint TEXT,
    signature TEXT,
    UNIQUE(session, name, generation)
);
CREATE TABLE IF NOT EXISTS messages(
    id INTEGER PRIMARY KEY,
    source INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    length INTEGER NOT NULL,
    role INTEGER NOT NULL,
    at INTEGER,
    line_hash INTEGER NOT NULL,
    said INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_source ON messages(source, offset);
";

/// The FTS5 table `body`, as `CREATE VIRTUAL TABLE … USING` takes it (a query is checked
/// against a table of the same kind: `query.rs`).
pub const BODY_TABLE: &str = "fts5(text, content='', contentless_delete=1)";

/// The index, open.
#[derive(Debug)]
pub struct Database {
    pub connection: Connection,
    /// The index's file.
    pub path: PathBuf,
    /// Why it was rebuilt at this open, when it was.
    pub rebuilt: Option<String>,
}

/// Opens the index of `state`, creating or rebuilding it as needed.
pub fn open(state: &StateDir) -> Result<Database> {
    let path = state.search_index();
    if let Some(folder) = path.parent() {
        state.ensure_real_dir(folder)?;
    }
    match open_checked(&path)? {
        Ok(connection) => Ok(Database {
            connection,
            path,
            rebuilt: None,
        }),
        Err(reason) => rebuild(&path, reason),
    }
}

/// Removes the index at `path` and creates it empty, saying why.
pub fn rebuild(path: &Path, reason: String) -> Result<Database> {
    remove(path)?;
    match open_checked(path)? {
        Ok(connection) => Ok(Database {
            connection,
            path: path.to_path_buf(),
            rebuilt: Some(reason),
        }),
        Err(again) => bail!(
            "the search index `{}` could not be created: {again}",
            path.display()
        ),
    }
}

/// Removes the index of `state`, what `SQLite` left beside it and the kept listings searches
/// remember (`ctxhooks uninstall`: all derived from the transcripts and the kept copies, and
/// the next search makes them again); returns the bytes removed, or `None` when there was
/// none. With `dry_run`, removes nothing and says how much it would. A folder where the
/// listings' file would be is left alone (a search leaves it so too).
pub fn remove_index(state: &StateDir, dry_run: bool) -> Result<Option<u64>> {
    let path = state.search_index();
    let listing = state.search_kept_listing();
    let files: Vec<(PathBuf, u64)> = companions(&path)
        .chain(std::iter::once(listing.clone()))
        .filter_map(|file| {
            let metadata = fs_err::symlink_metadata(&file).ok()?;
            (!metadata.is_dir()).then_some((file, metadata.len()))
        })
        .collect();
    if files.is_empty() {
        return Ok(None);
    }
    if !dry_run {
        remove(&path)?;
        if files.iter().any(|(file, _)| *file == listing) {
            files::present(fs_err::remove_file(&listing))
                .context("failed to remove the search's kept listings")?;
        }
    }
    Ok(Some(files.iter().map(|(_, size)| size).sum()))
}

/// What `SQLite` may open beside the database: the rollback journal, and a write-ahead log and
/// its shared memory when they are there (it opens them to check them, also when the database
/// itself is not in WAL mode).
const SIDE_FILES: [&str; 3] = ["-journal", "-wal", "-shm"];

/// The database and the files `SQLite` may keep beside it.
fn companions(path: &Path) -> impl Iterator<Item = PathBuf> {
    std::iter::once(path.to_path_buf()).chain(side_files(path))
}

/// The files `SQLite` may open beside the database at `path`.
fn side_files(path: &Path) -> impl Iterator<Item = PathBuf> {
    SIDE_FILES.into_iter().map(|suffix| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    })
}

/// Refuses a link, a FIFO, a folder or a device where `SQLite` may open a file beside the
/// database at `path`, looking at each without opening it: `SQLite` does not look at what they
/// are, and its check for a hot journal opens `-journal` for reading, which waits forever on a
/// FIFO. What is refused is left in place, as at the database's own path; a missing or regular
/// file passes.
fn check_side_files(path: &Path) -> Result<(), FileError> {
    for file in side_files(path) {
        let Some(metadata) = files::present(fs_err::symlink_metadata(&file))? else {
            continue;
        };
        if open::is_link(&metadata) {
            return Err(FileError::SymbolicLink(file));
        }
        if !metadata.is_file() {
            return Err(FileError::NotRegular(file));
        }
    }
    Ok(())
}

/// Removes the database and what `SQLite` left beside it (a link is removed, never followed).
fn remove(path: &Path) -> Result<()> {
    for file in companions(path) {
        match fs_err::remove_file(&file) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(error).context("failed to remove the search index"),
        }
    }
    Ok(())
}

/// Opens the database at `path`: `Ok(Err(reason))` when what is there must be rebuilt, an
/// error when it must not be touched (a link, a FIFO, a folder, there or at a side file).
fn open_checked(path: &Path) -> Result<std::result::Result<Connection, String>> {
    check_side_files(path)
        .with_context(|| format!("failed to open the search index `{}`", path.display()))?;
    // Created 0600 whatever the umask, refused when it is a link or not a regular file.
    let file = files::open_unlinked_existing(path, Access::Create)
        .with_context(|| format!("failed to open the search index `{}`", path.display()))?;
    private::set_mode(&file, PRIVATE_FILE_MODE)?;
    let fresh = file.metadata()?.len() == 0;
    drop(file);
    let connection = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .with_context(|| format!("failed to open the search index `{}`", path.display()))?;
    connection.busy_timeout(BUSY_WAIT)?;
    // Sorting and the snippets' scratch table stay in memory: no transcript text in a
    // temporary file. The rollback journal (`index.sqlite-journal`, beside it, of its mode) is
    // SQLite's default: a write-ahead log was tried and made the benches no faster (no figure was
    // kept), and each search is a process of its own, whose last close would check it in anyway.
    // The index is read through a memory map ([`MAP_BYTES`]) rather than copied page by page
    // into SQLite's cache.
    if let Err(error) = connection.execute_batch(&format!(
        "PRAGMA temp_store = MEMORY; PRAGMA cache_size = -65536; PRAGMA mmap_size = {MAP_BYTES};"
    )) {
        let error = anyhow::Error::from(error);
        if is_damage(&error) {
            return Ok(Err(describe_damage(&error)));
        }
        return Err(error);
    }
    if !fresh {
        match schema_of(&connection) {
            Ok(Some(SCHEMA)) => return Ok(Ok(connection)),
            Ok(Some(other)) => return Ok(Err(format!("it has schema {other}, not {SCHEMA}"))),
            Ok(None) => return Ok(Err("it has no schema".to_owned())),
            Err(error) if is_damage(&error) => return Ok(Err(describe_damage(&error))),
            // No `meta` table yet: a database another search is creating right now (its
            // tables come in one transaction), created below if it is still missing.
            Err(_) => {}
        }
    }
    match create(&connection) {
        Ok(()) => Ok(Ok(connection)),
        Err(error) if is_damage(&error) => Ok(Err(describe_damage(&error))),
        Err(error) => Err(error),
    }
}

fn schema_of(connection: &Connection) -> Result<Option<i64>> {
    Ok(connection
        .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |row| {
            row.get(0)
        })
        .optional()?)
}

fn create(connection: &Connection) -> Result<()> {
    connection.execute_batch(&format!(
        "BEGIN IMMEDIATE; {CREATE} CREATE VIRTUAL TABLE IF NOT EXISTS body USING {BODY_TABLE}; \
         INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', {SCHEMA}); COMMIT;"
    ))?;
    // Another search may have created it first with another schema (an older ctxhooks).
    match schema_of(connection)? {
        Some(SCHEMA) => Ok(()),
        other => bail!("the search index has schema {other:?}, not {SCHEMA}"),
    }
}

/// Returns true if and only if `error` says the database file is damaged or not a database.
pub fn is_damage(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<rusqlite::Error>()
            .and_then(rusqlite::Error::sqlite_error_code)
            .is_some_and(|code| {
                matches!(code, ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
            })
    })
}

fn describe_damage(error: &anyhow::Error) -> String {
    let text = format!("{error:#}");
    if text.is_empty() {
        "it is damaged".to_owned()
    } else {
        format!("it is damaged ({text})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::os::unix::fs::FileTypeExt as _;

    use ctxhooks_shared::test_support::TempFolder;

    #[test]
    fn creates_a_private_database_and_rebuilds_one_that_is_not_a_database() {
        let temp = TempFolder::new("search-db");
        let state = StateDir::at(temp.path().join("state"));
        let database = open(&state).unwrap();
        assert!(database.rebuilt.is_none());
        assert_eq!(private::mode_of(&database.path).unwrap(), 0o600);
        assert_eq!(
            private::mode_of(database.path.parent().unwrap()).unwrap(),
            0o700
        );
        let path = database.path.clone();
        drop(database);
        fs_err::write(&path, vec![b'x'; 10_000]).unwrap();
        let again = open(&state).unwrap();
        assert!(again.rebuilt.is_some(), "{again:?}");
        assert_eq!(schema_of(&again.connection).unwrap(), Some(SCHEMA));
    }

    /// `open(state)` on a thread of its own, given `wait` to end: a hang fails the test instead
    /// of holding the suite (the thread is left behind, blocked).
    #[cfg(unix)]
    fn open_within(state: &StateDir, wait: Duration) -> Result<Database> {
        let (sender, receiver) = std::sync::mpsc::channel();
        let state = state.clone();
        std::thread::spawn(move || {
            // The receiver gone (the wait ran out): nothing to tell.
            let _ = sender.send(open(&state));
        });
        receiver
            .recv_timeout(wait)
            .expect("opening the index waited on something")
    }

    // Unix only: no FIFO lives in a Windows file system, and Wine 8 makes no links.
    #[cfg(unix)]
    #[test]
    fn refuses_a_fifo_a_link_or_a_folder_where_sqlite_opens_a_side_file() {
        let temp = TempFolder::new("search-db-side");
        let state = StateDir::at(temp.path().join("state"));
        let path = open(&state).unwrap().path;
        // A generous bound: only a hang (the hot-journal check opening a FIFO) reaches it.
        let wait = Duration::from_secs(60);
        for suffix in SIDE_FILES {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            let side = PathBuf::from(name);
            let made = std::process::Command::new("mkfifo")
                .arg(&side)
                .status()
                .unwrap();
            assert!(made.success());
            let error = format!("{:#}", open_within(&state, wait).unwrap_err());
            assert!(error.contains("not a regular file"), "{suffix}: {error}");
            assert!(
                error.contains(&*side.to_string_lossy()),
                "{suffix}: {error}"
            );
            // Left where it is, as the database's own place is.
            assert!(
                fs_err::symlink_metadata(&side)
                    .unwrap()
                    .file_type()
                    .is_fifo()
            );
            fs_err::remove_file(&side).unwrap();

            std::os::unix::fs::symlink(temp.path().join("elsewhere"), &side).unwrap();
            let error = format!("{:#}", open_within(&state, wait).unwrap_err());
            assert!(error.contains("symbolic link"), "{suffix}: {error}");
            fs_err::remove_file(&side).unwrap();

            fs_err::create_dir(&side).unwrap();
            let error = format!("{:#}", open_within(&state, wait).unwrap_err());
            assert!(error.contains("not a regular file"), "{suffix}: {error}");
            fs_err::remove_dir(&side).unwrap();
        }
        // A regular file there is SQLite's own (a journal left by a search that was killed).
        let mut journal = path.as_os_str().to_owned();
        journal.push("-journal");
        fs_err::write(PathBuf::from(journal), b"").unwrap();
        let again = open_within(&state, wait).unwrap();
        assert_eq!(schema_of(&again.connection).unwrap(), Some(SCHEMA));
    }

    // Unix only: Wine 8 makes no links.
    #[cfg(unix)]
    #[test]
    fn refuses_a_link_in_the_index_place() {
        let temp = TempFolder::new("search-db-link");
        let state = StateDir::at(temp.path().join("state"));
        let path = state.search_index();
        state.ensure_real_dir(path.parent().unwrap()).unwrap();
        let elsewhere = temp.path().join("elsewhere");
        fs_err::write(&elsewhere, b"").unwrap();
        std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
        let error = open(&state).unwrap_err();
        assert!(format!("{error:#}").contains("symbolic link"), "{error:#}");
        assert_eq!(fs_err::read(&elsewhere).unwrap(), b"");
    }
}
