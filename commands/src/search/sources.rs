//! What the search index reads: every generation of every kept copy (main transcripts and
//! sub-agents'), the newest one carried on by the live transcript past its kept end, every
//! transcript in Claude Code's projects folders that ctxhooks does not keep, and the full copies
//! older snapshots hold (schema 1; pruning one takes its rows away). Found cheaply (folder
//! listings, the newest generations' headers, `snapshot.json`), never by reading a transcript;
//! each with a signature of its files (their inodes, sizes and modification times), so that a
//! source whose files did not change since it was indexed costs a look at them and no more (a
//! kept index is read whole only when it changed).

use std::cell::OnceCell;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use anyhow::{Result, anyhow};

use crate::projects::discover::{Problem, ProblemKind, discover};
use crate::snapshots::catalog::list_snapshots;
use ctxhooks_shared::causes::Causes;
use ctxhooks_shared::keep::subagent_name;
use ctxhooks_shared::platform::identity::{self, FileFacts};
use ctxhooks_shared::store::kept::{self, GenerationIndex, KeptName, read_header};
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

/// [`stamp`] of what a look at a path gave (`None`: nothing was there).
fn stamp_facts(signature: &mut String, facts: Option<&FileFacts>) {
    match facts {
        Some(facts) => {
            let _ = write!(
                signature,
                "{}:{}:{}:{}.{};",
                facts.device,
                facts.inode,
                facts.size,
                facts.modified_ns.div_euclid(1_000_000_000),
                facts.modified_ns.rem_euclid(1_000_000_000)
            );
        }
        None => signature.push_str("-;"),
    }
}

/// The signature of a source reading `index` (a kept generation's) and `file`.
fn signature(index: Option<&Path>, file: Option<&Path>) -> String {
    let mut signature = String::new();
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
fn file_signature(facts: Option<&FileFacts>) -> String {
    let mut signature = String::from("none;");
    stamp_facts(&mut signature, facts);
    signature
}

/// Every source under `state` and the projects folders. A kept copy whose index cannot be
/// read is left out (its rows go; `archives verify` says what is wrong).
pub fn find_sources(
    state: &StateDir,
    projects: &[PathBuf],
    problems: &mut Vec<Problem>,
) -> Result<Vec<Source>> {
    let mut sources = Vec::new();
    // The live files a kept copy's newest generation reads.
    // A set by hash: `Path`'s hash agrees with its component-wise equality, as a sorted set's
    // comparisons do, at one hash a look instead of a walk of both paths' components at each
    // step of a tree (15 % of a warm search's instructions with every session kept).
    let mut carried: HashSet<PathBuf> = HashSet::new();
    for session in state.session_ids()? {
        let kept_dir = state.kept_dir(&session);
        // A kept folder that cannot be listed (a link in it, never followed) is said, and its
        // copies left out.
        let names = match kept::list_kept(&kept_dir) {
            Ok(names) => names,
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
        for (name, newest) in names {
            // The newest generation's header names the live file that carries it on (and the
            // project); an older one's file carries it no more. A newest generation whose
            // header cannot be read is left out (its rows go; `archives verify` says why).
            let live = read_header(&name.index_path(&kept_dir, newest))
                .ok()
                .map(|header| PathBuf::from(header.source));
            if let Some(live) = &live {
                carried.insert(live.clone());
            }
            for generation in 1..=newest {
                if generation == newest && live.is_none() {
                    continue;
                }
                let index = name.index_path(&kept_dir, generation);
                let file = if generation == newest {
                    live.clone()
                } else {
                    None
                };
                sources.push(Source {
                    session: session.to_string(),
                    name: name.as_str().to_owned(),
                    generation,
                    project_slug: live.as_deref().and_then(|live| slug_of(live, &session)),
                    signature: signature(Some(&index), file.as_deref()),
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
    }
    let found = discover(projects);
    problems.extend(found.problems);
    // The names the transcripts ctxhooks does not keep take, by session: a session's id in two
    // project folders (resumed from another folder, or a project moved) is two transcripts.
    let mut taken: HashSet<(String, String)> = HashSet::new();
    for files in found.sessions {
        let Ok(session) = SessionId::parse(&files.session_id) else {
            continue;
        };
        let main = files.main.clone().unwrap_or_else(|| {
            files
                .projects_folder
                .join(&files.project)
                .join(format!("{session}.jsonl"))
        });
        for (path, facts) in files.transcripts().zip(&files.facts) {
            if carried.contains(path) {
                continue;
            }
            let name = if Some(path) == files.main.as_ref() {
                KeptName::main()
            } else {
                match subagent_name(&main, &session, path) {
                    Ok(name) => name,
                    Err(_) => continue,
                }
            };
            // The first folder's under its own name; another's under its folder's name too, so
            // that each is a source of its own (one key for both would read each in turn at
            // every search, and keep only the last).
            let mut unique = name.as_str().to_owned();
            if !taken.insert((session.to_string(), unique.clone())) {
                unique = format!("{}/{}", files.project, name.as_str());
                if !taken.insert((session.to_string(), unique.clone())) {
                    continue;
                }
            }
            sources.push(Source {
                session: session.to_string(),
                subagent: !name.is_main(),
                name: unique,
                generation: 0,
                project_slug: Some(files.project.clone()),
                kept: None,
                // The look discovery took at the file, not a second one.
                signature: file_signature(facts.as_ref()),
                file: Some(path.clone()),
                snapshot: None,
            });
        }
    }
    sources.extend(snapshot_copies(state));
    Ok(sources)
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
                session: session.to_string(),
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
}
