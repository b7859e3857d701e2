//! One session's transcripts read into one usage log: its main transcript first, then its
//! sub-agents', each through the cache; what cannot be read is a problem, and the rest still
//! counts.

use serde::Serialize;

use super::cache::{Cache, read_through};
use super::discover::{Problem, ProblemKind, SessionFiles};
use crate::facts::log::SessionLog;
use crate::facts::summary::SessionSummary;
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
    /// What the session `files` holds is: where it ran by its main transcript's source (else by
    /// the first source's).
    pub fn summary(&self, files: &SessionFiles) -> SessionSummary {
        let log = &self.log;
        let main = files.main.as_ref().map(|main| main.display().to_string());
        let main_source = main.and_then(|main| log.source_of(&main));
        SessionSummary::of(&files.session_id, log, main_source.or(log.sources.first()))
    }
}

/// Reads every transcript of a session. A transcript that cannot be read, or whose lines hold
/// no Claude Code record, is a problem; the others still count.
pub fn load_session(files: &SessionFiles, cache: Option<&Cache>) -> LoadedSession {
    let mut loaded = LoadedSession::default();
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
    loaded.log = SessionLog::from_records(records);
    loaded
}
