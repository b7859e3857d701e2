//! Where a session's main transcript is now, given the path ctxhooks recorded it at and the
//! paths its usage log read it at: one rule for every view of a session (`sessions` and the
//! commands built on its catalog, and the storage measure behind pruning, the Stop hook's
//! limits and `doctor`), so that no two views disagree on whether a transcript is still there.
//!
//! A transcript is where it was recorded while a regular file is there. Claude Code moves a
//! session's transcript when the session is relocated to another folder (to that folder's
//! project), and the next hook reads it at its new path, so the usage log's source records
//! name every path the main transcript was read at: of those that are a regular file, the one
//! the log came to latest is where it is now. Nowhere of these: Claude Code deleted it (its
//! cleanup), and the last path known is the recorded one. A sub-agent's transcript is never
//! the session's, wherever the log read it.

use std::path::{Path, PathBuf};

use crate::store::rotation;
use crate::store::session_id::SessionId;
use crate::store::state_dir::StateDir;
use crate::store::usage_record::UsageRecord;

/// Where a session's main transcript is now ([`locate`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// Where it is; where it was recorded when it is nowhere now.
    pub path: PathBuf,
    /// A regular file is at `path`: Claude Code still has the transcript.
    pub present: bool,
}

/// The paths a session's usage log read its main transcript at (its source records; a
/// sub-agent's transcript left out), each once, in the order they were first read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoggedPaths(Vec<PathBuf>);

impl LoggedPaths {
    /// The main transcript's paths among the `transcripts` the log's source records name, in
    /// log order.
    pub fn of<P: Into<PathBuf>>(
        session: &SessionId,
        transcripts: impl IntoIterator<Item = P>,
    ) -> Self {
        let mut paths: Vec<PathBuf> = Vec::new();
        for path in transcripts.into_iter().map(Into::into) {
            if is_main_transcript(&path, session) && !paths.contains(&path) {
                paths.push(path);
            }
        }
        Self(paths)
    }

    /// The paths `session`'s usage log (its rotated parts included) read its main transcript
    /// at; none when the log cannot be read. For a reader that has not parsed the log: only the
    /// source records are parsed.
    pub fn read(state: &StateDir, session: &SessionId) -> Self {
        let Ok(Some(bytes)) = rotation::read_log(&state.usage_log(session)) else {
            return Self::default();
        };
        let sources = bytes
            .split(|byte| *byte == b'\n')
            // Only source records name a path once each; a cheap look before the parse.
            .filter(|line| memchr::memmem::find(line, br#""kind":"source""#).is_some())
            .filter_map(|line| match serde_json::from_slice(line) {
                Ok(UsageRecord::Source(source)) => Some(source.transcript),
                _ => None,
            });
        Self::of(session, sources)
    }

    /// Where the log first read the main transcript.
    pub fn first(&self) -> Option<&Path> {
        self.0.first().map(PathBuf::as_path)
    }
}

/// Where the main transcript `recorded` at is now: there while a regular file is; else, of the
/// `logged` paths that are one, the one the log came to latest (it moved); else nowhere,
/// `recorded` the last path known. `logged` is asked for only when `recorded` is not there (a
/// reader that has not read the usage log reads it only then). Each caller says where it
/// starts from, the path it recorded: the rule after that is this one.
pub fn locate(recorded: &Path, logged: impl FnOnce() -> LoggedPaths) -> Located {
    if is_regular_file(recorded) {
        return Located {
            path: recorded.to_owned(),
            present: true,
        };
    }
    let LoggedPaths(paths) = logged();
    match paths.into_iter().rev().find(|path| is_regular_file(path)) {
        Some(moved) => Located {
            path: moved,
            present: true,
        },
        None => Located {
            path: recorded.to_owned(),
            present: false,
        },
    }
}

/// Returns true if and only if `path` is a regular file (not through a link).
pub fn is_regular_file(path: &Path) -> bool {
    fs_err::symlink_metadata(path).is_ok_and(|metadata| metadata.is_file())
}

/// Whether `path` is the main transcript of `session` (`<session id>.jsonl`), not a
/// sub-agent's.
pub fn is_main_transcript(path: &Path, session: &SessionId) -> bool {
    path.file_name()
        .is_some_and(|name| name.to_string_lossy() == format!("{session}.jsonl"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempFolder;

    const SESSION: &str = "0123abcd-0000-4000-8000-000000000000";

    fn session() -> SessionId {
        SessionId::parse(SESSION).unwrap()
    }

    /// `<folder>/<file>` under the temp folder, written when `present`.
    fn path(temp: &TempFolder, folder: &str, file: &str, present: bool) -> PathBuf {
        let path = temp.join(folder).join(file);
        if present {
            fs_err::create_dir_all(path.parent().unwrap()).unwrap();
            fs_err::write(&path, b"{}\n").unwrap();
        }
        path
    }

    fn main_file() -> String {
        format!("{SESSION}.jsonl")
    }

    #[test]
    fn a_transcript_still_where_it_was_recorded_is_there() {
        let temp = TempFolder::new("whereabouts-recorded");
        let recorded = path(&temp, "old-project", &main_file(), true);
        // Also at a path the log read it at later: where it was recorded wins, and the log is
        // not even asked for.
        let moved = path(&temp, "new-project", &main_file(), true);
        let located = locate(&recorded, || {
            panic!("the log asked for: {}", moved.display())
        });
        assert_eq!(
            located,
            Located {
                path: recorded,
                present: true
            }
        );
    }

    #[test]
    fn a_transcript_moved_is_found_at_the_path_the_log_read_it_at() {
        let temp = TempFolder::new("whereabouts-moved");
        let recorded = path(&temp, "old-project", &main_file(), false);
        let moved = path(&temp, "new-project", &main_file(), true);
        let logged = LoggedPaths::of(&session(), [&recorded, &moved]);
        let located = locate(&recorded, || logged);
        assert_eq!(
            located,
            Located {
                path: moved,
                present: true
            }
        );
    }

    #[test]
    fn a_transcript_nowhere_is_gone_and_keeps_its_recorded_path() {
        let temp = TempFolder::new("whereabouts-gone");
        let recorded = path(&temp, "old-project", &main_file(), false);
        let moved = path(&temp, "new-project", &main_file(), false);
        let located = locate(&recorded, || {
            LoggedPaths::of(&session(), [&recorded, &moved])
        });
        assert_eq!(
            located,
            Located {
                path: recorded.clone(),
                present: false
            }
        );
        // Not even a log.
        let located = locate(&recorded, LoggedPaths::default);
        assert_eq!(
            located,
            Located {
                path: recorded,
                present: false
            }
        );
    }

    #[test]
    fn a_sub_agents_transcript_is_never_the_sessions() {
        let temp = TempFolder::new("whereabouts-agent");
        let recorded = path(&temp, "project", &main_file(), false);
        let flat = path(&temp, "project", "agent-a1.jsonl", true);
        let nested = path(
            &temp,
            &format!("project/{SESSION}/subagents"),
            "agent-a2.jsonl",
            true,
        );
        let logged = LoggedPaths::of(&session(), [&flat, &recorded, &nested]);
        assert_eq!(logged.first(), Some(recorded.as_path()));
        let located = locate(&recorded, || logged);
        assert_eq!(
            located,
            Located {
                path: recorded,
                present: false
            }
        );
        // Nor where a log that read only sub-agents first read the session.
        assert_eq!(LoggedPaths::of(&session(), [&flat, &nested]).first(), None);
    }

    #[test]
    fn the_path_read_latest_is_preferred() {
        let temp = TempFolder::new("whereabouts-latest");
        let recorded = path(&temp, "first", &main_file(), false);
        // Both there (a copy left behind): the later one is where the session went on.
        let earlier = path(&temp, "second", &main_file(), true);
        let later = path(&temp, "third", &main_file(), true);
        let logged = LoggedPaths::of(&session(), [&recorded, &earlier, &later]);
        assert_eq!(logged.first(), Some(recorded.as_path()));
        let located = locate(&recorded, || logged);
        assert_eq!(
            located,
            Located {
                path: later,
                present: true
            }
        );
    }

    #[test]
    fn the_paths_are_read_from_the_log_s_source_records() {
        let temp = TempFolder::new("whereabouts-log");
        let state = StateDir::at(temp.join("state"));
        let id = session();
        state.ensure_session_dir(&id).unwrap();
        let recorded = path(&temp, "old-project", &main_file(), false);
        let moved = path(&temp, "new-project", &main_file(), true);
        let agent = path(&temp, "new-project", "agent-a1.jsonl", true);
        let source = |transcript: &Path| {
            format!(
                "{{\"kind\":\"source\",\"transcript\":{},\"cwd\":\"/p\",\"version\":null}}\n",
                serde_json::to_string(&transcript.to_string_lossy()).unwrap()
            )
        };
        let log = [
            source(&recorded),
            "not json\n".to_owned(),
            source(&moved),
            source(&agent),
        ]
        .concat();
        fs_err::write(state.usage_log(&id), log).unwrap();
        assert_eq!(
            LoggedPaths::read(&state, &id),
            LoggedPaths(vec![recorded.clone(), moved.clone()])
        );
        let located = locate(&recorded, || LoggedPaths::read(&state, &id));
        assert_eq!(
            located,
            Located {
                path: moved,
                present: true
            }
        );
    }
}
