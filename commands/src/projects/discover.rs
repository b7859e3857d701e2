//! Finding every session in one or more Claude Code projects folders
//! (`<projects>/<project slug>/…`), with the sub-agent transcripts of every layout Claude Code
//! has written: inline sidechains in the main file (1.0.x), flat `agent-<id>.jsonl` beside the
//! session (2.0.x; its lines carry the parent's `sessionId`), and
//! `<session>/subagents/**/agent-<id>.jsonl` (2.1.x, workflows included). What cannot be read is
//! a [`Problem`], and the rest is still found.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use anyhow::Result;

use ctxhooks_shared::platform::identity::{self, FileFacts};
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::transcript::file::TranscriptFile;
use ctxhooks_shared::transcript::lines::{MAX_LINE_BYTES, split_opening_lines};
use ctxhooks_shared::transcript::record::Record;

/// One session's transcripts, as found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFiles {
    /// The projects folder it was found in.
    pub projects_folder: PathBuf,
    /// The project folder's name (Claude Code's slug of the project's path).
    pub project: String,
    /// The session id (the main transcript's file name).
    pub session_id: String,
    /// The main transcript, when there is one (a session whose main file was deleted may still
    /// have sub-agent transcripts).
    pub main: Option<PathBuf>,
    /// Sub-agent transcripts, sorted.
    pub agents: Vec<PathBuf>,
    /// Their bytes together.
    pub bytes: u64,
    /// What one look at each of [`Self::transcripts`] gave, in that order (`None`: nothing
    /// could be looked at there): its size and, for the search index's freshness check, its
    /// identity and modification time, so that no one looks at a transcript twice.
    pub facts: Vec<Option<FileFacts>>,
}

impl SessionFiles {
    /// Every transcript of the session, the main one first.
    pub fn transcripts(&self) -> impl Iterator<Item = &PathBuf> {
        self.main.iter().chain(self.agents.iter())
    }
}

/// What could not be read, and where, in one sentence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {kind}", .path.display())]
pub struct Problem {
    pub path: PathBuf,
    pub kind: ProblemKind,
}

/// What is wrong with a path (`error` as the system gave it; `unreadable_lines`: lines that are
/// not JSON objects).
#[derive(Debug, Clone, PartialEq, Eq, strum::IntoStaticStr, thiserror::Error)]
#[strum(serialize_all = "snake_case")]
pub enum ProblemKind {
    #[error("nothing is there (no projects folder)")]
    Missing,
    #[error("a file, not a projects folder")]
    NotAFolder,
    /// A folder that holds no session: neither a projects folder (`<project>/<session>.jsonl`)
    /// nor one project's folder (`<session>.jsonl`).
    #[error(
        "holds no session: neither a projects folder (no <project>/<session>.jsonl under it) nor \
         one project's folder (no <session>.jsonl in it)"
    )]
    NotAProjectsFolder,
    #[error("could not be read: {error}")]
    Unreadable { error: String },
    /// A transcript file none of whose lines is a Claude Code record.
    #[error(
        "not a Claude Code transcript: no line is a record of one ({unreadable_lines} not JSON \
         objects); skipped"
    )]
    NotATranscript { unreadable_lines: u64 },
}

/// Every session under the projects folders, and the problems met.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// Sessions, largest first (so that parallel readers finish together).
    pub sessions: Vec<SessionFiles>,
    /// What could not be read.
    pub problems: Vec<Problem>,
    /// The folders given that held a session (a folder refused as missing, a file,
    /// unreadable or holding no session is not one of them).
    pub folders_read: usize,
}

/// What a caller may know of a 2.0.x flat sub-agent file's parent session without reading the
/// file: asked with its path and the look its folder's listing took at it, the session its
/// lines name, or `None` to have them read (`search` answers from its index: a file it read,
/// that looks the same). An answer that is the file's own name, which discovery takes when the
/// lines name no session or cannot be read, is not taken: they are read.
pub type KnownParent<'a> = &'a dyn Fn(&Path, &FileFacts) -> Option<String>;

/// Finds every session under `folders`: each a projects folder, or one project's folder (what
/// people type: `~/.claude/projects/-home-me-app`), read as that one project, or one session's
/// own folder in it (`-home-me-app/<session id>/`), read as that one session. A session found
/// through two of them (a projects folder and one of its projects) is listed once.
pub fn discover(folders: &[PathBuf]) -> Found {
    discover_knowing(folders, &|_, _| None)
}

/// [`discover`], a flat sub-agent file's parent session taken from `known` when it answers.
pub fn discover_knowing(folders: &[PathBuf], known: KnownParent<'_>) -> Found {
    let mut found = Found::default();
    for folder in folders {
        discover_folder(folder, known, &mut found);
    }
    // Only folders given together can find a session twice: within one folder each project's
    // folder is a name of its own in it (links are never followed), so the sessions found there
    // are each found once, and resolving their folders (a `readlink` for every component of
    // every project's path) would be a search's cost for nothing.
    if folders.len() > 1 {
        drop_found_twice(&mut found);
    }
    // The largest first; by id among equals.
    sort_moving_twice(&mut found.sessions, |a, b| {
        (b.bytes, &a.session_id).cmp(&(a.bytes, &b.session_id))
    });
    found
}

/// Sorts `items` stably by `compare`, each item moved twice: the sort orders their places, not
/// the items. A session's files are 152 bytes and a listed entry 100: sorted in place, each was
/// moved about log2(n) times, and for 5,000 sessions the copying was 5.6 M of the 81 M
/// instructions of a warm search over them (BENCHMARKS.md).
fn sort_moving_twice<T>(items: &mut Vec<T>, mut compare: impl FnMut(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| compare(&items[a], &items[b]));
    let mut places: Vec<Option<T>> = std::mem::take(items).into_iter().map(Some).collect();
    *items = order
        .into_iter()
        .map(|at| {
            places[at]
                .take()
                .expect("a sorted order names each place once")
        })
        .collect();
}

/// Keeps one of each session found through two of the folders given (a projects folder and one
/// of its projects), by its project's folder as resolved.
fn drop_found_twice(found: &mut Found) {
    let mut seen = std::collections::HashSet::new();
    // Each project's folder resolved once, not once per session: resolving walks every
    // component of the path (a `readlink` each).
    let mut resolved: std::collections::HashMap<PathBuf, PathBuf> =
        std::collections::HashMap::new();
    found.sessions.retain(|session| {
        let project = session.projects_folder.join(&session.project);
        let project = resolved
            .entry(project)
            .or_insert_with_key(|project| {
                fs_err::canonicalize(project).unwrap_or_else(|_| project.clone())
            })
            .clone();
        seen.insert((project, session.session_id.clone()))
    });
}

impl Found {
    /// The sessions found, each id once, as every command but `search` counts a session: the
    /// transcripts its id has in every project folder (Claude Code writes a session resumed from
    /// another folder under that folder's project, with the same id), one part per folder in
    /// the order found; the largest session first.
    pub fn by_session(&self) -> Vec<Vec<&SessionFiles>> {
        let mut groups: Vec<Vec<&SessionFiles>> = Vec::new();
        let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for files in &self.sessions {
            if let Some(&at) = index.get(files.session_id.as_str()) {
                groups[at].push(files);
            } else {
                index.insert(&files.session_id, groups.len());
                groups.push(vec![files]);
            }
        }
        let bytes = |group: &Vec<&SessionFiles>| group.iter().map(|files| files.bytes).sum::<u64>();
        groups.sort_by(|a, b| (bytes(b), &a[0].session_id).cmp(&(bytes(a), &b[0].session_id)));
        groups
    }

    fn problem(&mut self, path: &Path, kind: ProblemKind) {
        self.problems.push(Problem {
            path: path.to_path_buf(),
            kind,
        });
    }
}

fn discover_folder(folder: &Path, known: KnownParent<'_>, found: &mut Found) {
    let refused = match fs_err::metadata(folder) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Some(ProblemKind::Missing),
        Err(error) => Some(ProblemKind::Unreadable {
            error: error.to_string(),
        }),
        Ok(metadata) if !metadata.is_dir() => Some(ProblemKind::NotAFolder),
        Ok(_) => None,
    };
    let entries = match refused.map_or_else(|| list(folder), Err) {
        Ok(entries) => entries,
        Err(kind) => return found.problem(folder, kind),
    };
    if is_session_folder(folder, &entries) && discover_session(folder, known, found) {
        return;
    }
    // Read as a projects folder first, apart: what its subfolders hold counts only if they are
    // projects.
    let mut as_projects = Found::default();
    let mut holds_transcripts = false;
    for entry in entries {
        if entry.is_dir {
            discover_project(folder, &entry.path, known, &mut as_projects);
        } else if entry.is_jsonl() {
            holds_transcripts = true;
        }
    }
    if as_projects.sessions.is_empty() && holds_transcripts {
        // Transcripts in the folder itself: one project's folder (its subfolders are its
        // sessions' sub-agents), in the projects folder above it.
        // Its name is the project's: `.` or `..` are named by the folder they are.
        let folder = fs_err::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
        let above = folder.parent().unwrap_or(&folder);
        as_projects = Found::default();
        discover_project(above, &folder, known, &mut as_projects);
    }
    if as_projects.sessions.is_empty() {
        found.problems.extend(as_projects.problems);
        return found.problem(folder, ProblemKind::NotAProjectsFolder);
    }
    found.folders_read += 1;
    found.sessions.extend(as_projects.sessions);
    found.problems.extend(as_projects.problems);
}

/// Whether `folder` (listed as `entries`) is one session's own folder in its project's
/// (`<project>/<session id>/`, what Claude Code 2.1 keeps the session's `subagents/` in): named as
/// a session id, a `subagents` folder in it and no transcript beside that.
fn is_session_folder(folder: &Path, entries: &[Entry]) -> bool {
    let named_as_session = folder
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| SessionId::parse(name).is_ok());
    named_as_session
        && !entries.iter().any(Entry::is_jsonl)
        && entries
            .iter()
            .any(|entry| entry.is_dir && entry.name() == Some("subagents"))
}

/// Finds the session whose own folder `folder` is, as its project's folder holds it (its main
/// transcript beside the folder, its sub-agents', flat ones of 2.0.x too), under its project's
/// name; false, with nothing found, when the project's folder holds no such session.
fn discover_session(folder: &Path, known: KnownParent<'_>, found: &mut Found) -> bool {
    let folder = fs_err::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    let session = folder.file_name().and_then(std::ffi::OsStr::to_str);
    let (Some(project_dir), Some(session)) = (folder.parent(), session) else {
        return false;
    };
    let main = project_dir.join(format!("{session}.jsonl"));
    let mut in_project = Found::default();
    discover_project(
        project_dir.parent().unwrap_or(project_dir),
        project_dir,
        known,
        &mut in_project,
    );
    in_project
        .sessions
        .retain(|files| files.session_id == session);
    if in_project.sessions.is_empty() {
        return false;
    }
    // Only what is wrong with this session's files: the project's others were not asked for.
    in_project
        .problems
        .retain(|problem| problem.path.starts_with(&folder) || problem.path == main);
    found.folders_read += 1;
    found.sessions.extend(in_project.sessions);
    found.problems.extend(in_project.problems);
    true
}

/// One project folder: its main transcripts, flat agent files and session folders.
fn discover_project(
    projects_folder: &Path,
    project_dir: &Path,
    known: KnownParent<'_>,
    found: &mut Found,
) {
    let entries = match list(project_dir) {
        Ok(entries) => entries,
        Err(kind) => return found.problem(project_dir, kind),
    };
    let project = project_dir
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Each session's main transcript and sub-agents' transcripts, with the look the listing
    // took at each, by its id.
    let mut sessions: BTreeMap<String, (Option<Listed>, Vec<Listed>)> = BTreeMap::new();
    for entry in entries {
        let Some(name) = entry.name() else { continue };
        if entry.is_dir {
            let mut agents = Vec::new();
            collect_agents(&entry.path.join("subagents"), &mut agents, found);
            if !agents.is_empty() {
                let (_, known) = sessions.entry(name.to_owned()).or_default();
                known.extend(agents);
            }
        } else if entry.is_jsonl() {
            let stem = trim_jsonl(name);
            if stem.starts_with("agent-") {
                // 2.0.x: a sub-agent's transcript beside the sessions; its lines name the
                // parent, unless the caller knows it already.
                let parent = entry
                    .facts
                    .as_ref()
                    .and_then(|facts| known(&entry.path, facts))
                    .filter(|known| known != stem)
                    .or_else(|| {
                        TranscriptFile::open(&entry.path)
                            .map_err(anyhow::Error::from)
                            .and_then(|mut file| first_session_id(&mut file))
                            .ok()
                            .flatten()
                    })
                    .unwrap_or_else(|| stem.to_owned());
                let (_, agents) = sessions.entry(parent).or_default();
                agents.push(entry.listed());
            } else {
                let stem = stem.to_owned();
                sessions.entry(stem).or_default().0 = Some(entry.listed());
            }
        }
    }
    for (session_id, (main, mut agents)) in sessions {
        agents.sort_by(|a, b| a.0.cmp(&b.0));
        let facts: Vec<Option<FileFacts>> = main
            .iter()
            .chain(&agents)
            .map(|(_, facts)| *facts)
            .collect();
        let bytes = facts.iter().flatten().map(|facts| facts.size).sum();
        found.sessions.push(SessionFiles {
            projects_folder: projects_folder.to_path_buf(),
            project: project.clone(),
            session_id,
            main: main.map(|(path, _)| path),
            agents: agents.into_iter().map(|(path, _)| path).collect(),
            bytes,
            facts,
        });
    }
}

/// A transcript's path and the look its folder's listing took at it.
type Listed = (PathBuf, Option<FileFacts>);

/// Every `agent-*.jsonl` under a session's `subagents/` folder, at any depth (workflow runs
/// keep theirs in `subagents/workflows/wf_<run>/`).
fn collect_agents(dir: &Path, agents: &mut Vec<Listed>, found: &mut Found) {
    let entries = match list(dir) {
        Ok(entries) => entries,
        Err(_) if !dir.exists() => return,
        Err(kind) => return found.problem(dir, kind),
    };
    for entry in entries {
        if entry.is_dir {
            collect_agents(&entry.path, agents, found);
        } else if entry.is_jsonl() && entry.name().is_some_and(|name| name.starts_with("agent-")) {
            agents.push(entry.listed());
        }
    }
}

struct Entry {
    path: PathBuf,
    /// Its name in its folder, as listed (not taken from `path` again).
    name: OsString,
    is_dir: bool,
    /// For a transcript (not a folder, named `*.jsonl`): what a look at it gave when it was
    /// listed (`None`: nothing could be looked at). The one look discovery takes at it.
    facts: Option<FileFacts>,
}

impl Entry {
    /// Its path and the look taken at it.
    fn listed(self) -> Listed {
        (self.path, self.facts)
    }

    /// The entry's file name, when it is UTF-8.
    fn name(&self) -> Option<&str> {
        self.name.to_str()
    }

    /// Whether its name ends in `.jsonl` after something (`Path::extension`'s rule: `.jsonl`
    /// alone is a name with no extension).
    fn is_jsonl(&self) -> bool {
        let name = self.name.as_encoded_bytes();
        name.len() > ".jsonl".len() && name.ends_with(b".jsonl")
    }
}

/// `name` without every `.jsonl` at its end, as `trim_end_matches(".jsonl")` gives it, by
/// comparing the ends (the pattern's searcher, made for every transcript a search lists, cost
/// more than the comparisons).
fn trim_jsonl(mut name: &str) -> &str {
    while let Some(stem) = name.strip_suffix(".jsonl") {
        name = stem;
    }
    name
}

/// A folder's entries, sorted; symbolic links are listed as what they are (never followed).
fn list(dir: &Path) -> Result<Vec<Entry>, ProblemKind> {
    let unreadable = |error: std::io::Error| ProblemKind::Unreadable {
        error: error.to_string(),
    };
    let mut entries = Vec::new();
    for entry in fs_err::read_dir(dir).map_err(unreadable)? {
        let entry = entry.map_err(unreadable)?;
        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
        // `dir.join(name)`, as `entry.path()` makes it, with its room made at once: joined, the
        // folder's path is copied and then grown for the name (a copy and a reallocation for
        // every entry of every folder a search lists).
        let name = entry.file_name();
        let mut path = PathBuf::with_capacity(dir.as_os_str().len() + 1 + name.len());
        path.push(dir);
        path.push(&name);
        let mut listed = Entry {
            path,
            name,
            is_dir,
            facts: None,
        };
        // Looked at while the folder is open: relative to it, not by its whole path again.
        if !is_dir && listed.is_jsonl() {
            listed.facts = identity::of_entry(&entry).ok();
        }
        entries.push(listed);
    }
    // One folder's entries: by name is by path, without walking each path's components.
    sort_moving_twice(&mut entries, |a, b| a.name.cmp(&b.name));
    Ok(entries)
}

/// The `sessionId` of a transcript's first record that has one, however far down it is (a
/// sub-agent's file may open with snapshots and summaries that name none); read no further
/// (as an opening is read, 16 KiB at a time: the first line that names one is usually the
/// first; a last line still being written is no JSON yet).
pub fn first_session_id(transcript: &mut TranscriptFile) -> Result<Option<String>> {
    let mut found = None;
    // Read through the std handle: a reader of its own (`fs_err`'s) makes the buffered reader
    // clear its whole buffer before the first read, 16 KiB per sub-agent file of a search.
    split_opening_lines(transcript.file_mut().file(), MAX_LINE_BYTES, |line| {
        found = line
            .bytes
            .and_then(Record::parse)
            .and_then(|record| record.session_id.text().map(str::to_owned));
        match found {
            Some(_) => ControlFlow::Break(()),
            None => ControlFlow::Continue(()),
        }
    })?;
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transcript_is_named_as_path_extension_reads_it() {
        for name in [
            "a.jsonl",
            "..jsonl",
            "agent-x.jsonl",
            ".jsonl",
            "a.json",
            "a.JSONL",
            "jsonl",
        ] {
            let path = PathBuf::from("/projects/p").join(name);
            let entry = Entry {
                name: name.into(),
                path: path.clone(),
                is_dir: false,
                facts: None,
            };
            let by_path = path
                .extension()
                .is_some_and(|extension| extension == "jsonl");
            assert_eq!(entry.is_jsonl(), by_path, "{name}");
        }
    }

    #[test]
    fn a_transcripts_stem_is_its_name_without_every_jsonl_at_its_end() {
        for name in [
            "a.jsonl",
            "a.jsonl.jsonl",
            ".jsonl",
            "a",
            "a.json",
            "jsonl",
            "a.jsonlx",
            "",
        ] {
            assert_eq!(trim_jsonl(name), name.trim_end_matches(".jsonl"), "{name}");
        }
    }

    #[test]
    fn a_flat_agent_file_joins_the_session_its_first_session_id_names_however_far_down() {
        // A 2.0.x sub-agent's transcript beside the sessions, whose first 100 lines (snapshots,
        // summaries) carry no `sessionId`: its first line that does names the parent.
        let folder = ctxhooks_shared::test_support::TempFolder::new("discover-agent");
        let project = folder.join("-work-project");
        fs_err::create_dir_all(&project).unwrap();
        let snapshot = "{\"type\":\"file-history-snapshot\",\"messageId\":\"m\"}\n";
        let mut text = snapshot.repeat(100);
        text.push_str(
            "{\"type\":\"user\",\"sessionId\":\"parent\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
        );
        fs_err::write(project.join("agent-a1.jsonl"), text).unwrap();
        let found = discover(&[folder.path().to_path_buf()]);
        let sessions: Vec<(&str, usize)> = found
            .sessions
            .iter()
            .map(|session| (session.session_id.as_str(), session.agents.len()))
            .collect();
        assert_eq!(sessions, [("parent", 1)]);
    }

    /// One session's own folder given (`<project>/<session id>/`, its `subagents/` in it) is
    /// that session as its project's folder holds it: its main transcript beside the folder, its
    /// sub-agents, its project's name (not `subagents`), nothing of the project's other sessions.
    #[test]
    fn a_sessions_own_folder_is_read_as_that_session_of_its_project() {
        let folder = ctxhooks_shared::test_support::TempFolder::new("discover-session");
        let project = folder.join("-work-project");
        let session = "4d42f4de-2530-c35a-6d93-1827fbb73048";
        let agents = project.join(session).join("subagents");
        fs_err::create_dir_all(&agents).unwrap();
        let line = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
        fs_err::write(project.join(format!("{session}.jsonl")), line).unwrap();
        fs_err::write(agents.join("agent-a1.jsonl"), line).unwrap();
        fs_err::write(project.join("other-session.jsonl"), line).unwrap();
        let found = discover(&[project.join(session)]);
        let read: Vec<(&str, &str, bool, usize)> = found
            .sessions
            .iter()
            .map(|files| {
                let main = files.main.is_some();
                (
                    files.project.as_str(),
                    files.session_id.as_str(),
                    main,
                    files.agents.len(),
                )
            })
            .collect();
        assert_eq!(read, [("-work-project", session, true, 1)]);
        assert_eq!(found.folders_read, 1);
        assert!(found.problems.is_empty(), "{:?}", found.problems);
        // A folder named as no session, or with a transcript in it, is read as before: a
        // projects folder whose projects are its subfolders.
        let renamed = project.join("not a session");
        fs_err::rename(project.join(session), &renamed).unwrap();
        let found = discover(std::slice::from_ref(&renamed));
        let projects: Vec<&str> = found
            .sessions
            .iter()
            .map(|files| files.project.as_str())
            .collect();
        assert_eq!(projects, ["subagents"]);
    }

    /// Each session's id and count of sub-agent files.
    fn sessions_of(found: &Found) -> Vec<(String, usize)> {
        found
            .sessions
            .iter()
            .map(|session| (session.session_id.clone(), session.agents.len()))
            .collect()
    }

    /// A flat agent file's parent is the one the caller knows, asked with the file's path and
    /// the look its listing took at it; its first lines', when the caller knows none (and for
    /// `discover`, which asks no one) or answers the file's own name.
    #[test]
    fn a_flat_agent_files_parent_is_the_one_the_caller_knows_else_its_first_lines() {
        let folder = ctxhooks_shared::test_support::TempFolder::new("discover-known");
        let project = folder.join("-work-project");
        fs_err::create_dir_all(&project).unwrap();
        let agent = project.join("agent-a1.jsonl");
        fs_err::write(
            &agent,
            "{\"type\":\"user\",\"sessionId\":\"from-lines\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
        )
        .unwrap();
        let look = identity::of_path(&agent).unwrap();
        let folders = [folder.path().to_path_buf()];
        let asked = std::cell::RefCell::new(Vec::new());
        let known = |path: &Path, facts: &FileFacts| {
            asked.borrow_mut().push((path.to_path_buf(), *facts));
            Some("known".to_owned())
        };
        assert_eq!(
            sessions_of(&discover_knowing(&folders, &known)),
            [("known".to_owned(), 1)]
        );
        assert_eq!(asked.into_inner(), [(agent, look)]);
        let from_lines = [("from-lines".to_owned(), 1)];
        assert_eq!(
            sessions_of(&discover_knowing(&folders, &|_, _| None)),
            from_lines
        );
        assert_eq!(sessions_of(&discover(&folders)), from_lines);
        // An answer that is the file's own name (what discovery takes when the lines name no
        // session or cannot be read) is not taken: the lines are read.
        assert_eq!(
            sessions_of(&discover_knowing(&folders, &|_, _| Some(
                "agent-a1".to_owned()
            ))),
            from_lines
        );
    }
}
