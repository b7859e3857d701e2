//! What the search index reads: every generation of every kept copy (main transcripts and
//! sub-agents'), the newest one carried on by the live transcript past its kept end, every
//! transcript in Claude Code's projects folders that ctxhooks does not keep, and the full copies
//! older snapshots hold (schema 1; pruning one takes its rows away). Found cheaply (folder
//! listings, the newest generations' headers, both remembered from the last search while their
//! folders and indexes look the same: `kept_listing.rs`; `snapshot.json`), never by reading a
//! transcript;
//! each with a signature of its files (their inodes, sizes and modification times), so that a
//! source whose files did not change since it was indexed costs a look at them and no more (a
//! kept index is read whole only when it changed).

use std::cell::OnceCell;
use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Result, anyhow};
use rustc_hash::FxHashSet;

use super::kept_listing::KeptListings;
use crate::projects::discover::{
    KnownParent, Problem, ProblemKind, SessionFiles, discover_knowing,
};
use crate::snapshots::catalog::list_snapshots;
use ctxhooks_shared::causes::Causes;
use ctxhooks_shared::keep::{session_folder, subagent_name_below};
use ctxhooks_shared::platform::identity::{self, FileFacts};
use ctxhooks_shared::store::kept::{GenerationIndex, KeptName};
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::snapshot_metadata::FileRole;
use ctxhooks_shared::store::state_dir::StateDir;

/// One byte stream to index: the bytes a kept generation keeps, then those of `file` past them
/// when `file` still continues them; or, for generation 0, `file` alone.
#[allow(
    missing_docs,
    reason = "plain data: the type's documentation says what its fields are"
)]
#[derive(Debug, Clone)]
pub struct Source {
    pub session: String,
    /// The kept name (`transcript.jsonl`, `subagents/agent-….jsonl`); for a transcript ctxhooks
    /// does not keep whose session's id is in an earlier project folder too, the project
    /// folder's name, `/`, and that name.
    pub name: String,
    /// The kept generation, from 1; 0 for a transcript ctxhooks does not keep.
    pub generation: u32,
    /// The project's folder slug when no line names its `cwd`.
    pub project_slug: Option<String>,
    pub kept: Option<KeptSource>,
    /// The live transcript (only for a kept copy's newest generation, or generation 0), or a
    /// schema 1 snapshot's copy.
    pub file: Option<PathBuf>,
    /// Whether it is a sub-agent's transcript (its every line is a sidechain record).
    pub subagent: bool,
    /// The schema 1 snapshot whose copy it is.
    pub snapshot: Option<String>,
    /// Its files as they are now: the same as when it was last indexed means nothing to read.
    pub signature: String,
}

/// A kept generation as found: where its index is, read whole only when it is needed.
#[derive(Debug, Clone)]
pub struct KeptSource {
    dir: PathBuf,
    name: KeptName,
    generation: u32,
    part: OnceCell<std::result::Result<KeptPart, String>>,
}

impl KeptSource {
    /// The generation with its index, read at the first call.
    pub fn part(&self) -> Result<&KeptPart> {
        self.part
            .get_or_init(|| {
                let path = self.name.index_path(&self.dir, self.generation);
                GenerationIndex::read(&path)
                    .map(|index| KeptPart {
                        dir: self.dir.clone(),
                        name: self.name.clone(),
                        index,
                    })
                    .map_err(|error| format!("{error:#}"))
            })
            .as_ref()
            .map_err(|error| anyhow!("{error}"))
    }
}

/// A kept generation: its folder, name and index as read now.
#[allow(
    missing_docs,
    reason = "plain data: the type's documentation says what its fields are"
)]
#[derive(Debug, Clone)]
pub struct KeptPart {
    pub dir: PathBuf,
    pub name: KeptName,
    pub index: GenerationIndex,
}

impl KeptPart {
    /// What identifies the generation's bytes: its start time (a session's folder removed and
    /// kept anew starts generation 1 again).
    pub fn started_at(&self) -> &str {
        &self.index.header.started_at
    }

    /// How many bytes it keeps.
    pub fn length(&self) -> u64 {
        self.index.length()
    }
}

/// `path`'s device, inode, size and modification time (to the nanosecond), or `-` when nothing
/// is there; a link is looked at, never followed.
fn stamp(signature: &mut String, path: &Path) {
    stamp_facts(signature, identity::of_path(path).ok().as_ref());
}

/// [`stamp`] of what a look at a path gave (`None`: nothing was there): `device:inode:size:
/// seconds.nanoseconds;`, the seconds rounded down (before 1970, negative). Its numbers are
/// written by `itoa`, as `Display` writes them: a search stamps every transcript it finds, and
/// `write!`'s formatting machinery, five numbers a stamp, was 3.6 % of a warm search's
/// instructions (BENCHMARKS.md).
fn stamp_facts(signature: &mut String, facts: Option<&FileFacts>) {
    const NANOS: i128 = 1_000_000_000;
    match facts {
        Some(facts) => {
            let mut digits = itoa::Buffer::new();
            for number in [facts.device, facts.inode, facts.size] {
                signature.push_str(digits.format(number));
                signature.push(':');
            }
            signature.push_str(digits.format(facts.modified_ns.div_euclid(NANOS)));
            signature.push('.');
            signature.push_str(digits.format(facts.modified_ns.rem_euclid(NANOS)));
            signature.push(';');
        }
        None => signature.push_str("-;"),
    }
}

/// Room for one stamp as file systems give it (a device, an inode, a size and a time to the
/// nanosecond: 72 bytes hold 20 digits for the inode and 10 for the rest), made at once: written
/// into a text that grows as it goes, a signature was reallocated three times. A longer stamp
/// grows it as before.
const STAMP_BYTES: usize = 72;

/// The signature of a source reading `index` (a kept generation's) and `file`.
fn signature(index: Option<&Path>, file: Option<&Path>) -> String {
    let mut signature = String::with_capacity(2 * STAMP_BYTES);
    for path in [index, file] {
        match path {
            Some(path) => stamp(&mut signature, path),
            None => signature.push_str("none;"),
        }
    }
    signature
}

/// The signature of a source reading only a file, from what a look at it gave: the same as
/// [`signature`]`(None, Some(path))` by that look.
pub(super) fn file_signature(facts: Option<&FileFacts>) -> String {
    let mut signature = String::with_capacity("none;".len() + STAMP_BYTES);
    signature.push_str("none;");
    stamp_facts(&mut signature, facts);
    signature
}

/// The kept copies' sources, found before the index is opened (a state folder whose sessions
/// cannot be listed fails the search first, with nothing created), and the live files they
/// carry on, which the rest leaves to them ([`KeptFound::with_the_rest`]).
#[derive(Debug)]
pub struct KeptFound {
    sources: Vec<Source>,
    /// A set by hash: `Path`'s hash agrees with its component-wise equality, as a sorted set's
    /// comparisons do, at one hash a look instead of a walk of both paths' components at each
    /// step of a tree (15 % of a warm search's instructions with every session kept).
    carried: HashSet<PathBuf>,
}

/// Every kept copy's source under `state`. A kept copy whose index cannot be read is left out
/// (its rows go; `archives verify` says what is wrong).
pub fn find_kept_sources(state: &StateDir, problems: &mut Vec<Problem>) -> Result<KeptFound> {
    find_kept_sources_at(state, problems, SystemTime::now())
}

/// [`find_kept_sources`] at `now`, the moment its looks begin: a kept folder that changed within
/// [`super::kept_listing::SETTLED_NS`] before it is not remembered (the tests give another moment).
fn find_kept_sources_at(
    state: &StateDir,
    problems: &mut Vec<Problem>,
    now: SystemTime,
) -> Result<KeptFound> {
    let mut sources = Vec::new();
    // The live files a kept copy's newest generation reads.
    let mut carried: HashSet<PathBuf> = HashSet::new();
    let sessions = state.session_ids()?;
    // What each kept folder gave the last search, while it looks the same.
    let mut listings = KeptListings::read(state, sessions.len(), now);
    for session in sessions {
        let kept_dir = state.kept_dir(&session);
        // A kept folder that cannot be listed (a link in it, never followed) is said, and its
        // copies left out.
        let mut listing = match listings.listing(&session, &kept_dir) {
            Ok(listing) => listing,
            Err(error) => {
                problems.push(Problem {
                    path: kept_dir,
                    kind: ProblemKind::Unreadable {
                        error: Causes(&error).to_string(),
                    },
                });
                continue;
            }
        };
        // Taken out while the headers are looked up, given back to be remembered.
        let names = std::mem::take(&mut listing.names);
        for (position, (name, newest)) in names.iter().enumerate() {
            let newest = *newest;
            // The newest generation's header names the live file that carries it on (and the
            // project); an older one's file carries it no more. A newest generation whose
            // header cannot be read is left out (its rows go; `archives verify` says why). The
            // look at its index serves the signature too.
            let newest_index = name.index_path(&kept_dir, newest);
            let newest_look = identity::of_path(&newest_index).ok();
            let live = listings.source(&mut listing, position, &newest_index, newest_look.as_ref());
            if let Some(live) = &live {
                carried.insert(live.clone());
            }
            for generation in 1..=newest {
                if generation == newest && live.is_none() {
                    continue;
                }
                let file = if generation == newest {
                    live.clone()
                } else {
                    None
                };
                let signature = match &file {
                    // The newest generation (the only one a live file carries on): the look
                    // taken at its index for its header stamps the index too.
                    Some(file) => {
                        let mut signature = String::with_capacity(2 * STAMP_BYTES);
                        stamp_facts(&mut signature, newest_look.as_ref());
                        stamp(&mut signature, file);
                        signature
                    }
                    None => signature(Some(&name.index_path(&kept_dir, generation)), None),
                };
                sources.push(Source {
                    session: session.as_str().to_owned(),
                    name: name.as_str().to_owned(),
                    generation,
                    project_slug: live.as_deref().and_then(|live| slug_of(live, &session)),
                    signature,
                    file,
                    subagent: !name.is_main(),
                    snapshot: None,
                    kept: Some(KeptSource {
                        dir: kept_dir.clone(),
                        name: name.clone(),
                        generation,
                        part: OnceCell::new(),
                    }),
                });
            }
        }
        listing.names = names;
        listings.found(&session, listing);
    }
    listings.write(state);
    Ok(KeptFound { sources, carried })
}

impl KeptFound {
    /// Every source: these, the transcripts in the projects folders that ctxhooks does not keep
    /// (a flat sub-agent file's parent session as `known` says, when it does:
    /// [`discover_knowing`]), and the full copies of older snapshots.
    pub fn with_the_rest(
        self,
        state: &StateDir,
        projects: &[PathBuf],
        problems: &mut Vec<Problem>,
        known: KnownParent<'_>,
    ) -> Vec<Source> {
        let Self {
            mut sources,
            carried,
        } = self;
        let mut found = discover_knowing(projects, known);
        problems.extend(std::mem::take(&mut found.problems));
        // Room for every transcript found at once: grown one by one, the list is copied as often.
        sources.reserve(found.sessions.iter().map(|files| files.facts.len()).sum());
        // The names the transcripts ctxhooks does not keep take, by session: a session's id in two
        // project folders (resumed from another folder, or a project moved) is two transcripts.
        // Keyed by the session's id as discovery found it (the session's own text), borrowed.
        let mut taken: FxHashSet<(&str, String)> = FxHashSet::default();
        // Each session's files are taken apart: its paths are moved into its sources, not copied.
        for SessionFiles {
            projects_folder,
            project,
            session_id,
            main,
            agents,
            facts,
            ..
        } in &mut found.sessions
        {
            let session_id: &str = session_id;
            let Ok(session) = SessionId::parse(session_id) else {
                continue;
            };
            // Where its sub-agents' transcripts are kept below, made once for all of them, and
            // only when it has any (most sessions have none: 5,000 paths made for nothing over
            // 5,000 one-file sessions, BENCHMARKS.md).
            let below = (!agents.is_empty()).then(|| match main {
                Some(main) => session_folder(main, &session),
                None => session_folder(
                    &projects_folder
                        .join(&*project)
                        .join(format!("{session}.jsonl")),
                    &session,
                ),
            });
            let has_main = main.is_some();
            let transcripts = main.take().into_iter().chain(std::mem::take(agents));
            for (position, (path, facts)) in transcripts.zip(facts.iter()).enumerate() {
                if carried.contains(&path) {
                    continue;
                }
                // The main transcript comes first, when there is one.
                let name = if position == 0 && has_main {
                    KeptName::main()
                } else {
                    // A sub-agent's: `below` is made whenever there is one.
                    let Some(below) = below.as_deref() else {
                        continue;
                    };
                    match subagent_name_below(below, &path) {
                        Ok(name) => name,
                        Err(_) => continue,
                    }
                };
                // The first folder's under its own name; another's under its folder's name too, so
                // that each is a source of its own (one key for both would read each in turn at
                // every search, and keep only the last).
                let mut unique = name.as_str().to_owned();
                if !taken.insert((session_id, unique.clone())) {
                    unique = format!("{project}/{}", name.as_str());
                    if !taken.insert((session_id, unique.clone())) {
                        continue;
                    }
                }
                sources.push(Source {
                    session: session.as_str().to_owned(),
                    subagent: !name.is_main(),
                    name: unique,
                    generation: 0,
                    project_slug: Some(project.clone()),
                    kept: None,
                    // The look discovery took at the file, not a second one.
                    signature: file_signature(facts.as_ref()),
                    file: Some(path),
                    snapshot: None,
                });
            }
        }
        sources.extend(snapshot_copies(state));
        sources
    }
}

/// The full copies of schema 1 snapshots (ctxhooks before the kept copies), each under the
/// name `archive/<snapshot>/<path>`.
fn snapshot_copies(state: &StateDir) -> Vec<Source> {
    let mut sources = Vec::new();
    for entry in list_snapshots(state, None).unwrap_or_default() {
        let Ok(session) = SessionId::parse(&entry.metadata.session_id) else {
            continue;
        };
        for file in entry
            .metadata
            .files
            .iter()
            .filter(|file| file.kept.is_none())
        {
            let inside = Path::new(&file.path)
                .components()
                .all(|component| matches!(component, Component::Normal(_)));
            if !inside {
                continue;
            }
            let copy = entry.path.join(&file.path);
            sources.push(Source {
                session: session.as_str().to_owned(),
                name: format!("archive/{}/{}", entry.metadata.name, file.path),
                generation: 0,
                project_slug: slug_of(Path::new(&file.source), &session),
                kept: None,
                signature: signature(None, Some(&copy)),
                file: Some(copy),
                subagent: file.role == FileRole::Subagent,
                snapshot: Some(entry.metadata.name.clone()),
            });
        }
    }
    sources
}

/// The project folder's name of a transcript at `<projects>/<slug>/<session>.jsonl` (or a
/// sub-agent's below `<slug>/<session>/`).
fn slug_of(path: &Path, session: &SessionId) -> Option<String> {
    path.ancestors()
        .skip(1)
        .find(|folder| {
            folder
                .file_name()
                .is_some_and(|name| name != session.as_str() && name != "subagents")
        })
        .and_then(Path::file_name)
        .map(|name| name.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxhooks_shared::store::kept as store_kept;
    use ctxhooks_shared::store::kept::{GenerationHeader, GenerationReason, start_generation};
    use ctxhooks_shared::test_support::{TempFolder, set_modified};
    use serde_json::Value;
    use std::io::Write as _;
    use std::time::Duration;

    const SESSION: &str = "5e551011-0000-4000-8000-00000000c0de";

    /// Every source, as a search finds them at `now`, no flat sub-agent's parent known.
    fn find_sources_at(
        state: &StateDir,
        projects: &[PathBuf],
        problems: &mut Vec<Problem>,
        now: SystemTime,
    ) -> Result<Vec<Source>> {
        Ok(find_kept_sources_at(state, problems, now)?.with_the_rest(
            state,
            projects,
            problems,
            &|_, _| None,
        ))
    }

    /// A state folder with one kept session.
    struct Scratch {
        _temp: TempFolder,
        state: StateDir,
        session: SessionId,
        kept: PathBuf,
    }

    impl Scratch {
        fn new(name: &str) -> Self {
            let temp = TempFolder::new(name);
            let state = StateDir::at(temp.join("state"));
            let session = SessionId::parse(SESSION).unwrap();
            let kept = state.kept_dir(&session);
            Self {
                _temp: temp,
                state,
                session,
                kept,
            }
        }

        /// Starts generation `generation` of `name`, carried on by `source`.
        fn start(&self, name: &str, generation: u32, source: &str) {
            let name = KeptName::parse(name).unwrap();
            let header = GenerationHeader {
                schema: store_kept::KEPT_SCHEMA,
                generation,
                source: source.to_owned(),
                role: name.role(),
                started_at: format!("2026-12-0{generation}T00:00:00.000000Z"),
                reason: GenerationReason::First,
            };
            start_generation(&self.kept, &name, &header).unwrap();
        }

        /// Starts generation 1 of the main transcript and of one sub-agent's, both folders' last
        /// change set an hour back.
        fn start_main_and_agent(&self) {
            self.start("transcript.jsonl", 1, "/p/-w-app/main.jsonl");
            self.start(
                "subagents/agent-a.jsonl",
                1,
                "/p/-w-app/s/subagents/agent-a.jsonl",
            );
            self.age_folders();
        }

        /// Sets the kept folder's (and its sub-agents') modification time an hour back: a later
        /// change shows in it whatever the clock's grain.
        fn age_folders(&self) {
            let hour_ago = SystemTime::now() - Duration::from_secs(3600);
            for folder in [self.kept.clone(), self.kept.join("subagents")] {
                if folder.is_dir() {
                    set_modified(&folder, hour_ago);
                }
            }
        }

        /// The sources, as of a moment an hour ahead: every look counts as settled.
        fn sources(&self) -> (Vec<Source>, Vec<Problem>) {
            let mut problems = Vec::new();
            let later = SystemTime::now() + Duration::from_secs(3600);
            let sources = find_sources_at(&self.state, &[], &mut problems, later).unwrap();
            (sources, problems)
        }

        /// Each source's name, generation and live file.
        fn found(&self) -> Vec<(String, u32, Option<PathBuf>)> {
            let (sources, problems) = self.sources();
            assert!(problems.is_empty(), "{problems:?}");
            sources
                .into_iter()
                .map(|source| (source.name, source.generation, source.file))
                .collect()
        }

        /// The remembered listings as JSON (`null` when there is no file).
        fn remembered(&self) -> Value {
            fs_err::read(self.state.search_kept_listing())
                .map_or(Value::Null, |bytes| serde_json::from_slice(&bytes).unwrap())
        }
    }

    fn entry(name: &str, generation: u32, file: Option<&str>) -> (String, u32, Option<PathBuf>) {
        (name.to_owned(), generation, file.map(PathBuf::from))
    }

    /// With the listing remembered, a new generation (a new file in the kept folder) and a new
    /// sub-agent's copy (a new file in `subagents/`, the kept folder itself unchanged) are found
    /// by the next search: each changes the times of the folder it is in. A listing remembered
    /// by the kept folder's look alone would miss the sub-agent, one remembered without looks
    /// both.
    #[test]
    fn a_new_generation_or_sub_agent_is_found_while_the_listing_is_remembered() {
        let kept = Scratch::new("search-kept-listing-new");
        kept.start_main_and_agent();
        assert_eq!(
            kept.found(),
            [
                entry("transcript.jsonl", 1, Some("/p/-w-app/main.jsonl")),
                entry(
                    "subagents/agent-a.jsonl",
                    1,
                    Some("/p/-w-app/s/subagents/agent-a.jsonl")
                ),
            ]
        );
        let remembered = kept.remembered();
        assert_eq!(
            remembered["sessions"][SESSION]["names"][0][0], "transcript.jsonl",
            "{remembered:#}"
        );

        kept.start("transcript.jsonl", 2, "/p/-w-app/main.jsonl");
        assert_eq!(
            kept.found(),
            [
                entry("transcript.jsonl", 1, None),
                entry("transcript.jsonl", 2, Some("/p/-w-app/main.jsonl")),
                entry(
                    "subagents/agent-a.jsonl",
                    1,
                    Some("/p/-w-app/s/subagents/agent-a.jsonl")
                ),
            ]
        );

        kept.age_folders();
        assert_eq!(kept.found().len(), 3);
        kept.start(
            "subagents/agent-b.jsonl",
            1,
            "/p/-w-app/s/subagents/agent-b.jsonl",
        );
        assert_eq!(
            kept.found(),
            [
                entry("transcript.jsonl", 1, None),
                entry("transcript.jsonl", 2, Some("/p/-w-app/main.jsonl")),
                entry(
                    "subagents/agent-a.jsonl",
                    1,
                    Some("/p/-w-app/s/subagents/agent-a.jsonl")
                ),
                entry(
                    "subagents/agent-b.jsonl",
                    1,
                    Some("/p/-w-app/s/subagents/agent-b.jsonl")
                ),
            ]
        );
        assert_eq!(
            kept.remembered()["sessions"][SESSION]["names"]
                .as_array()
                .unwrap()
                .len(),
            3
        );
    }

    /// What is remembered is what a search uses while the folders and the index look the same
    /// (a remembered live file edited into the file shows), and what it stops using when they
    /// change: an index rewritten in place (the same file, another header) is read again.
    #[test]
    fn a_remembered_header_is_used_while_its_index_looks_the_same() {
        let kept = Scratch::new("search-kept-listing-used");
        kept.start("transcript.jsonl", 1, "/p/-w-app/main.jsonl");
        kept.age_folders();
        kept.found();
        let mut remembered = kept.remembered();
        remembered["sessions"][SESSION]["names"][0][2][1] = "/p/-w-app/edited.jsonl".into();
        fs_err::write(
            kept.state.search_kept_listing(),
            serde_json::to_vec(&remembered).unwrap(),
        )
        .unwrap();
        assert_eq!(
            kept.found(),
            [entry("transcript.jsonl", 1, Some("/p/-w-app/edited.jsonl"))]
        );

        // Rewritten in place (its folder unchanged): another size, so another look.
        let index = KeptName::main().index_path(&kept.kept, 1);
        let line = fs_err::read_to_string(&index)
            .unwrap()
            .replace("/p/-w-app/main.jsonl", "/p/-w-app/moved/main.jsonl");
        fs_err::OpenOptions::new()
            .write(true)
            .open(&index)
            .unwrap()
            .write_all(line.as_bytes())
            .unwrap();
        assert_eq!(
            kept.found(),
            [entry(
                "transcript.jsonl",
                1,
                Some("/p/-w-app/moved/main.jsonl")
            )]
        );
    }

    /// A file of another version, of another layout of the kept copies, past its bound or not
    /// JSON is not believed (a live file edited into it does not show) and is written again.
    #[test]
    fn a_listing_file_of_another_version_or_past_its_bound_is_not_believed() {
        let kept = Scratch::new("search-kept-listing-foreign");
        kept.start("transcript.jsonl", 1, "/p/-w-app/main.jsonl");
        kept.age_folders();
        let truth = kept.found();
        let mut edited = kept.remembered();
        edited["sessions"][SESSION]["names"][0][2][1] = "/p/-w-app/edited.jsonl".into();
        let path = kept.state.search_kept_listing();
        let mut foreign = edited.clone();
        foreign["schema"] = 2.into();
        let mut other_kept = edited.clone();
        other_kept["kept_schema"] = 99.into();
        let mut oversized = serde_json::to_vec(&edited).unwrap();
        oversized.resize(1024 * 1024, b' ');
        for bytes in [
            serde_json::to_vec(&foreign).unwrap(),
            serde_json::to_vec(&other_kept).unwrap(),
            oversized,
            b"{\"schema\":1,".to_vec(),
        ] {
            fs_err::write(&path, &bytes).unwrap();
            assert_eq!(kept.found(), truth);
            let rewritten = kept.remembered();
            assert_eq!(rewritten["schema"], 1);
            assert_eq!(
                rewritten["sessions"][SESSION]["names"][0][2][1],
                "/p/-w-app/main.jsonl"
            );
        }
        // The edit, believed when it is of this version and within the bound: the cases above
        // were refused for what they are, not for the edit.
        fs_err::write(&path, serde_json::to_vec(&edited).unwrap()).unwrap();
        assert_eq!(
            kept.found(),
            [entry("transcript.jsonl", 1, Some("/p/-w-app/edited.jsonl"))]
        );
    }

    /// A kept folder whose look changed is listed again and its problem said as it was without
    /// the remembered listing (a link planted in it changes its times).
    #[cfg(unix)]
    #[test]
    fn a_link_planted_in_a_remembered_folder_is_said() {
        let kept = Scratch::new("search-kept-listing-link");
        kept.start_main_and_agent();
        assert_eq!(kept.found().len(), 2);
        assert!(kept.remembered()["sessions"][SESSION].is_object());
        std::os::unix::fs::symlink("/tmp", kept.kept.join("subagents/elsewhere")).unwrap();
        let (sources, problems) = kept.sources();
        assert!(sources.is_empty());
        let expected = store_kept::list_kept(&kept.kept).unwrap_err();
        assert_eq!(
            problems,
            [Problem {
                path: kept.kept.clone(),
                kind: ProblemKind::Unreadable {
                    error: Causes(&expected).to_string()
                },
            }]
        );
        assert!(kept.remembered()["sessions"][SESSION].is_null());

        fs_err::remove_file(kept.kept.join("subagents/elsewhere")).unwrap();
        kept.age_folders();
        assert_eq!(kept.found().len(), 2);
        assert!(kept.remembered()["sessions"][SESSION].is_object());
    }

    /// A session no longer in the state folder is dropped from the file.
    #[test]
    fn a_session_gone_is_dropped_from_the_remembered_listings() {
        let kept = Scratch::new("search-kept-listing-gone");
        kept.start("transcript.jsonl", 1, "/p/-w-app/main.jsonl");
        kept.age_folders();
        assert_eq!(kept.found().len(), 1);
        assert!(kept.remembered()["sessions"][SESSION].is_object());
        fs_err::remove_dir_all(kept.state.session_dir(&kept.session)).unwrap();
        assert_eq!(kept.found(), []);
        assert_eq!(kept.remembered()["sessions"], serde_json::json!({}));
    }

    /// A folder changed within 2 s before the look began is listed, not remembered (the moment
    /// given is the folder's own last change plus 1 s, then plus 3 s: no clock is read).
    #[test]
    fn a_folder_changed_just_before_the_look_is_not_remembered() {
        let kept = Scratch::new("search-kept-listing-racy");
        kept.start("transcript.jsonl", 1, "/p/-w-app/main.jsonl");
        let facts = identity::of_path(&kept.kept).unwrap();
        let last = facts.modified_ns.max(facts.changed_ns);
        let at = |offset: i128| {
            let since = u64::try_from(last + offset).unwrap();
            SystemTime::UNIX_EPOCH + Duration::from_nanos(since)
        };
        let index = identity::of_path(&KeptName::main().index_path(&kept.kept, 1)).unwrap();
        let index_last = index.modified_ns.max(index.changed_ns).max(last);
        let mut problems = Vec::new();
        find_sources_at(&kept.state, &[], &mut problems, at(1_000_000_000)).unwrap();
        assert_eq!(kept.remembered(), Value::Null, "nothing to remember yet");
        find_sources_at(
            &kept.state,
            &[],
            &mut problems,
            at(index_last - last + 3_000_000_000),
        )
        .unwrap();
        assert!(kept.remembered()["sessions"][SESSION].is_object());
        assert!(problems.is_empty());
    }

    #[test]
    fn a_carried_path_is_found_however_its_separators_are_written() {
        // A hook's payload names the live file as Claude Code wrote it; discovery joins it from
        // the folder it listed: the same file, compared component by component.
        let mut carried: HashSet<PathBuf> = HashSet::new();
        carried.insert(PathBuf::from("/home/me/.claude/projects//-w-app/./s.jsonl"));
        assert!(carried.contains(Path::new("/home/me/.claude/projects/-w-app/s.jsonl")));
        assert!(!carried.contains(Path::new("/home/me/.claude/projects/-w-app/t.jsonl")));
    }

    #[test]
    fn the_look_discovery_took_signs_a_file_as_a_look_of_its_own_does() {
        let temp = ctxhooks_shared::test_support::TempFolder::new("search-signature");
        let path = temp.join("transcript.jsonl");
        fs_err::write(&path, "{}\n").unwrap();
        let facts = identity::of_path(&path).ok();
        assert_eq!(file_signature(facts.as_ref()), signature(None, Some(&path)));
        let missing = temp.join("gone.jsonl");
        assert_eq!(
            file_signature(identity::of_path(&missing).ok().as_ref()),
            signature(None, Some(&missing))
        );
    }

    #[test]
    fn a_stamp_reads_as_the_numbers_formatted_did() {
        let edges = [0, 1, 9, 10, 99, 1_000_000_000, u64::MAX - 1, u64::MAX];
        let times = [
            0,
            1,
            -1,
            999_999_999,
            1_000_000_000,
            -1_000_000_000,
            -1_000_000_001,
            1_765_000_000_123_456_789,
            -1_765_000_000_123_456_789,
            i128::from(u64::MAX) * 1_000_000_000 + 7,
            i128::MAX,
            i128::MIN,
        ];
        for (at, modified_ns) in times.into_iter().enumerate() {
            for number in edges {
                let facts = FileFacts {
                    size: number,
                    modified_ns,
                    changed_ns: 0,
                    device: edges[at % edges.len()],
                    inode: number / 3,
                };
                let mut stamp = String::new();
                stamp_facts(&mut stamp, Some(&facts));
                let formatted = format!(
                    "{}:{}:{}:{}.{};",
                    facts.device,
                    facts.inode,
                    facts.size,
                    modified_ns.div_euclid(1_000_000_000),
                    modified_ns.rem_euclid(1_000_000_000)
                );
                assert_eq!(stamp, formatted);
            }
        }
    }
}
