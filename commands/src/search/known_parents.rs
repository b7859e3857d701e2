//! The parent sessions of the 2.0.x flat sub-agent files (`<project>/agent-<id>.jsonl`, beside
//! the main transcripts) as the index knows them: for each such file it read, its path, its
//! signature then and the session its rows are under. Discovery reads a flat file's first lines
//! to find its parent (`projects/discover.rs`); a search asks here first, and a file whose look
//! now (the one its folder's listing took) gives the signature its row holds is under that
//! row's session, unread.
//!
//! This trusts the look exactly as far as the index already does. A source whose files give
//! the signature its row holds (device, inode, size, modification time to the nanosecond) is
//! not opened: its rows stand as they were read (`update.rs`), and the session is one more fact
//! of that reading, taken from the file's lines when the look was taken. A file replaced by
//! another (another inode, even of the same size and time), appended to or rewritten at another
//! time gives another signature, and its first lines are read again. The one change a look
//! does not show, a rewrite of the same length on the same inode within the grain of the
//! modification time (git's racy case), leaves every row of any file as it was read; here it
//! leaves the session those rows are under with them: the search answers from the file's last
//! reading, whole, as it does for every other file then. A file its reader may no longer open,
//! its look the same (a permission taken away changes no signature), keeps its rows and its
//! session alike.
//!
//! Only a session the file's lines gave is believed: none of a file whose path names
//! `subagents` (a 2.1.x sub-agent's file there is under its session folder's name, not its
//! lines': found flat only when the projects folder given is a session's folder itself), and
//! discovery takes none that is the file's own name (what it falls back to when the lines name
//! no session or cannot be read: they may name one now that the file can be read, its look
//! unchanged).

use std::cell::OnceCell;
use std::path::Path;

use rusqlite::Connection;
use rustc_hash::FxHashMap;

use super::sources::file_signature;
use ctxhooks_shared::platform::identity::FileFacts;

/// What the index knows of the flat sub-agent files it read, read from it at the first file
/// asked about (a search of projects with no flat file, all of Claude Code's since 2.1, asks
/// nothing).
#[derive(Debug)]
pub struct KnownParents<'connection> {
    connection: &'connection Connection,
    /// Each file's path (as the index wrote it: the path discovery gave, found again by the same
    /// bytes), with its signature and session when it was last indexed.
    files: OnceCell<FxHashMap<String, Indexed>>,
}

/// A file's signature when it was last indexed, and the session its rows are under.
#[derive(Debug)]
struct Indexed {
    signature: String,
    session: String,
}

/// The rows of transcripts ctxhooks does not keep that were read from a sub-agent's file.
const SUBAGENT_FILES: &str = "SELECT file_path, signature, session FROM sources \
     WHERE generation = 0 AND subagent = 1 AND snapshot IS NULL AND signature IS NOT NULL \
     AND file_path IS NOT NULL";

impl<'connection> KnownParents<'connection> {
    /// What the index on `connection` knows.
    pub fn of(connection: &'connection Connection) -> Self {
        Self {
            connection,
            files: OnceCell::new(),
        }
    }

    /// The parent session of the flat sub-agent file at `path`, when the look `facts` its
    /// folder's listing took gives the signature its row holds (see the module's
    /// documentation); `None` to read its first lines.
    pub fn parent(&self, path: &Path, facts: &FileFacts) -> Option<String> {
        let files = self
            .files
            .get_or_init(|| read(self.connection).unwrap_or_default());
        let indexed = files.get(path.to_str()?)?;
        (indexed.signature == file_signature(Some(facts))).then(|| indexed.session.clone())
    }
}

/// The sub-agent files' rows of the index on `connection`, by path, but those whose path names
/// `subagents`. An index that cannot be read knows none (every flat file's first lines are then
/// read, as without an index; the update that follows meets any damage and rebuilds it).
fn read(connection: &Connection) -> rusqlite::Result<FxHashMap<String, Indexed>> {
    let mut files = FxHashMap::default();
    let subagents = memchr::memmem::Finder::new(b"subagents");
    let mut statement = connection.prepare(SUBAGENT_FILES)?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        let path = row.get_ref(0)?.as_str()?;
        if subagents.find(path.as_bytes()).is_none() {
            let indexed = Indexed {
                signature: row.get(1)?,
                session: row.get(2)?,
            };
            files.insert(path.to_owned(), indexed);
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::database;
    use crate::search::engine::{Request, search};
    use crate::search::find::Filters;
    use crate::search::progress::Progress;
    use ctxhooks_shared::platform::identity;
    use ctxhooks_shared::store::state_dir::StateDir;
    use ctxhooks_shared::test_support::{TempFolder, set_modified};
    use std::path::PathBuf;
    use std::time::{Duration, SystemTime};

    const PARENT: &str = "0f0e0d0c-0000-4000-8000-0000000000aa";
    const OTHER: &str = "0f0e0d0c-0000-4000-8000-0000000000bb";

    /// A projects folder with one 2.0.x flat sub-agent file whose lines name `PARENT`, in a
    /// project folder named `project`, and a state folder whose index has read it.
    struct World {
        _temp: TempFolder,
        state: StateDir,
        projects: PathBuf,
        agent: PathBuf,
    }

    impl World {
        fn new(name: &str, project: &str) -> Self {
            let temp = TempFolder::new(name);
            let state = StateDir::at(temp.join("state"));
            let projects = temp.join("projects");
            let folder = projects.join(project);
            fs_err::create_dir_all(&folder).unwrap();
            let agent = folder.join("agent-a1.jsonl");
            fs_err::write(&agent, line(PARENT)).unwrap();
            let world = Self {
                _temp: temp,
                state,
                projects,
                agent,
            };
            assert_eq!(world.sessions_found(), [PARENT]);
            world
        }

        /// Searches for the sub-agent's word, as `ctxhooks search` does (the index brought up
        /// to date first): each result's session.
        fn sessions_found(&self) -> Vec<String> {
            let request = Request {
                query: "kumquat".to_owned(),
                filters: Filters::default(),
                limit: 10,
                projects: vec![self.projects.clone()],
            };
            let outcome = search(&self.state, &request, &Progress::silent()).unwrap();
            assert!(outcome.problems.is_empty(), "{:?}", outcome.problems);
            outcome
                .results
                .into_iter()
                .map(|found| found.session)
                .collect()
        }

        /// What the index knows of the sub-agent's file as it looks now.
        fn known(&self) -> Option<String> {
            let database = database::open(&self.state).unwrap();
            let facts = identity::of_path(&self.agent).unwrap();
            KnownParents::of(&database.connection).parent(&self.agent, &facts)
        }

        /// Puts the sub-agent file's row under `session`, its signature kept.
        fn index_under(&self, session: &str) {
            let database = database::open(&self.state).unwrap();
            let changed = database
                .connection
                .execute(
                    "UPDATE sources SET session = ?1 WHERE file_path = ?2",
                    rusqlite::params![session, self.agent.to_str().unwrap()],
                )
                .unwrap();
            assert_eq!(changed, 1);
        }
    }

    /// A sub-agent's line naming `session`, the word searched for in it.
    fn line(session: &str) -> String {
        format!(
            "{{\"type\":\"user\",\"isSidechain\":true,\"sessionId\":\"{session}\",\"uuid\":\"u1\",\
             \"timestamp\":\"2026-11-01T10:00:00.000Z\",\"message\":{{\"role\":\"user\",\
             \"content\":\"a kumquat\"}}}}\n"
        )
    }

    /// While the file looks as the index last read it, its session is the one its row is
    /// under, and the search takes it from there (the row moved to another session by hand
    /// shows, which no reading of the file would give); once its look changes, its lines are
    /// read again.
    #[test]
    fn a_flat_files_parent_is_its_rows_while_it_looks_the_same() {
        let world = World::new("known-parents", "-w-app");
        assert_eq!(world.known().as_deref(), Some(PARENT));
        world.index_under(OTHER);
        assert_eq!(world.known().as_deref(), Some(OTHER));
        assert_eq!(world.sessions_found(), [OTHER]);

        // Its modification time changed (its bytes the same): read again.
        let look = identity::of_path(&world.agent).unwrap();
        set_modified(&world.agent, SystemTime::now() - Duration::from_secs(3600));
        assert_ne!(identity::of_path(&world.agent).unwrap(), look);
        assert_eq!(world.known(), None);
        assert_eq!(world.sessions_found(), [PARENT]);
        assert_eq!(world.known().as_deref(), Some(PARENT));
    }

    /// Another file put in its place with the same bytes and modification time is another
    /// inode: another signature, its lines read.
    #[test]
    fn a_file_replaced_by_one_of_the_same_size_and_time_is_read_again() {
        let world = World::new("known-parents-replaced", "-w-app");
        world.index_under(OTHER);
        let look = identity::of_path(&world.agent).unwrap();
        let beside = world.agent.with_file_name("agent-a1.new");
        fs_err::write(&beside, line(PARENT)).unwrap();
        let modified =
            SystemTime::UNIX_EPOCH + Duration::from_nanos(u64::try_from(look.modified_ns).unwrap());
        set_modified(&beside, modified);
        fs_err::rename(&beside, &world.agent).unwrap();
        let now = identity::of_path(&world.agent).unwrap();
        assert_eq!((now.size, now.modified_ns), (look.size, look.modified_ns));
        assert_ne!(now.inode, look.inode);
        assert_eq!(world.known(), None);
        assert_eq!(world.sessions_found(), [PARENT]);
    }

    /// A file whose path names `subagents` may be a 2.1.x sub-agent's, under its folder's
    /// session: its lines are read.
    #[test]
    fn a_file_whose_path_names_subagents_is_read() {
        let world = World::new("known-parents-subagents", "-w-subagents");
        world.index_under(OTHER);
        assert_eq!(world.known(), None);
        assert_eq!(world.sessions_found(), [PARENT]);
    }
}
