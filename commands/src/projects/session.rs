//! One session's transcripts read into one usage log: its main transcript first, then its
//! sub-agents', each through the cache; what cannot be read is a problem, and the rest still
//! counts.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::cache::{Cache, read_through};
use super::discover::{Problem, ProblemKind, SessionFiles};
use crate::facts::log::SessionLog;
use crate::facts::summary::SessionSummary;
use crate::time::Time;
use ctxhooks_shared::store::usage_record::UsageRecord;

/// One session's transcripts, read.
#[derive(Debug, Clone, Default)]
pub struct LoadedSession {
    /// The usage log the transcripts give (main transcript first).
    pub log: SessionLog,
    /// The transcripts that held Claude Code records, with their request counts.
    pub transcripts: Vec<TranscriptSummary>,
    /// What could not be read.
    pub problems: Vec<Problem>,
    /// Lines the ingest was not fed because their kind changes nothing.
    pub passed_lines: u64,
    /// Transcripts the cache served.
    pub cached: usize,
    /// The main transcript of the session's latest part, when it has one.
    pub main: Option<String>,
}

/// One transcript of a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TranscriptSummary {
    pub path: String,
    /// True for a sub-agent's own transcript.
    pub sub_agent: bool,
    pub requests: usize,
}

impl LoadedSession {
    /// What the session is: where it ran by the source of the main transcript of its latest
    /// part (where the session went on; else by the first source's).
    pub fn summary(&self, session_id: &str) -> SessionSummary {
        let log = &self.log;
        let main_source = (self.main.as_deref()).and_then(|main| log.source_of(main));
        SessionSummary::of(session_id, log, main_source.or(log.sources.first()))
    }
}

/// Reads every transcript of a session whose id is in several project folders (`parts`, one
/// per folder: Claude Code writes a session resumed from another folder under that folder's
/// project, with the same id) into one log, as the hooks' usage log holds it: the parts in the
/// order their requests began, each request once however many transcripts hold it (a part
/// may open with a copy of the conversation before it). Also returns the index in `parts` of
/// the latest part, where the session went on.
pub fn load_parts(parts: &[&SessionFiles], cache: Option<&Cache>) -> (LoadedSession, usize) {
    let mut loaded = LoadedSession::default();
    // Each part's index, when its requests began and ended, and its records.
    let mut read: Vec<Part> = Vec::new();
    for (index, files) in parts.iter().enumerate() {
        let records = read_part(files, cache, &mut loaded);
        let times: Vec<DateTime<Utc>> = records
            .iter()
            .filter_map(|record| match record {
                UsageRecord::Request(row) => Time::of(row.time.as_deref())?.instant(),
                _ => None,
            })
            .collect();
        let (began, ended) = (times.iter().min().copied(), times.iter().max().copied());
        read.push(Part {
            index,
            began,
            ended,
            records,
        });
    }
    // By when each began, one with no timed request last; found order among equals.
    read.sort_by_key(|part| (part.began.is_none(), part.began));
    // The one whose requests went on the latest (a part that copied the conversation before
    // it began as early as that one).
    let latest = (read.iter().enumerate())
        .max_by_key(|(at, part)| (part.ended, *at))
        .map_or(0, |(_, part)| part.index);
    loaded.main = parts
        .get(latest)
        .and_then(|files| files.main.as_ref())
        .map(|main| main.display().to_string());
    loaded.log = SessionLog::from_records(read.into_iter().flat_map(|part| part.records));
    (loaded, latest)
}

/// One project folder's transcripts of a session, read.
struct Part {
    /// Its index among the parts given.
    index: usize,
    /// Its first and last request's times.
    began: Option<DateTime<Utc>>,
    ended: Option<DateTime<Utc>>,
    records: Vec<UsageRecord>,
}

/// Reads one project folder's transcripts of a session into `loaded`'s counts, returning
/// their records (the main transcript's first).
fn read_part(
    files: &SessionFiles,
    cache: Option<&Cache>,
    loaded: &mut LoadedSession,
) -> Vec<UsageRecord> {
    let mut records: Vec<UsageRecord> = Vec::new();
    for path in files.transcripts() {
        // What is wrong with the transcript, when something is; else it is read and counted.
        let kind = match read_through(cache, path) {
            Ok((read, cached)) => {
                loaded.cached += usize::from(cached);
                loaded.passed_lines += read.passed_lines;
                if !read.is_foreign() {
                    let requests = read
                        .records
                        .iter()
                        .filter(|record| matches!(record, UsageRecord::Request(_)))
                        .count();
                    loaded.transcripts.push(TranscriptSummary {
                        path: path.display().to_string(),
                        sub_agent: Some(path) != files.main.as_ref(),
                        requests,
                    });
                    records.extend(read.records);
                    continue;
                }
                ProblemKind::NotATranscript {
                    unreadable_lines: read.unreadable_lines(),
                }
            }
            Err(error) => ProblemKind::Unreadable {
                error: format!("{error:#}"),
            },
        };
        let path = path.clone();
        loaded.problems.push(Problem { path, kind });
    }
    records
}
