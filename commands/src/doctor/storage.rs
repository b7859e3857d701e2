//! `doctor`'s view of ctxhooks' own storage: the state folder's size (what of it is kept
//! copies and logs), how much it grew over the last 7 days, the limits configured in
//! `<state>/config.json`, and the last deletion `pruned.jsonl` records.
//!
//! How the growth is known, with no daemon and no sample to wait for: the files say when their
//! bytes were written. Each kept copy's index line records when its gzip member was written and
//! how long it is (the member's bytes and the line's own count); each line of a log records its
//! time (`errors.log`'s `time`, the sidecar's `time_ms`, the usage log's request `time`, which is
//! the request's own: a backlog read late counts when it happened); a log's rotated part
//! counts, compressed, when it was made within the window; a snapshot counts whole when it was
//! taken within it. What is rewritten in place rather than grown (the cursor, the gauge, the
//! history cache) is not counted. Only files changed within the window are read.

use std::path::Path;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::findings::Finding;
use crate::render::text::name_of;
use ctxhooks_shared::causes::Causes;
use ctxhooks_shared::store::config::Config;
use ctxhooks_shared::store::files;
use ctxhooks_shared::store::kept::{GenerationIndex, IndexRecord, list_kept};
use ctxhooks_shared::store::rotation;
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::store::storage::{Limits, PruneRecord, StateStorage};

/// The window of the growth `doctor` shows.
pub const GROWTH_DAYS: u64 = 7;

/// The state folder's storage.
#[derive(Debug, Clone, Serialize)]
pub struct StorageCheck {
    /// Bytes of every file in the state folder.
    pub bytes: u64,
    /// Of which the sessions' kept copies, snapshots and replaced files.
    pub copy_bytes: u64,
    /// Of which the logs and their rotated parts (usage logs, provenance sidecars, `errors.log`).
    pub log_bytes: u64,
    /// Bytes written over the last [`GROWTH_DAYS`] days, as the files record it.
    pub grown_bytes: u64,
    /// The limits `<state>/config.json` sets (absent: none; nothing is deleted automatically).
    pub limits: Option<Limits>,
    /// Why `<state>/config.json` cannot be used, when it cannot.
    pub config_problem: Option<String>,
    /// The latest deletion `pruned.jsonl` records.
    pub last_prune: Option<PruneRecord>,
    /// How many sessions' copies or records that deletion's day removed, and how many of them
    /// were the only copy left.
    pub last_prune_day: Option<PruneDay>,
}

/// The deletions of one day.
#[derive(Debug, Clone, Serialize)]
pub struct PruneDay {
    /// `YYYY-MM-DD` (UTC).
    pub day: String,
    pub sessions: usize,
    pub bytes: u64,
    pub only_copies: usize,
    /// `command` or `config`, as the latest one was.
    pub by: String,
}

/// Measures the state folder (already measured as `storage`) and reads its configuration and
/// prune log, at `now`: a configuration that cannot be used, and a day of deletions that took
/// the only copy left, are findings.
pub fn check_storage(
    state: &StateDir,
    storage: &StateStorage,
    now: SystemTime,
    findings: &mut Vec<Finding>,
) -> StorageCheck {
    let cutoff = now
        .checked_sub(Duration::from_secs(GROWTH_DAYS * 86_400))
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let (mut log_bytes, mut grown_bytes) = (0, 0);
    let sessions = storage.sessions.iter().map(|session| &session.session);
    let of_sessions =
        sessions.flat_map(|session| [state.usage_log(session), state.sidecar(session)]);
    let of_state = [state.errors_log(), state.prune_log()];
    for log in of_state.into_iter().chain(of_sessions) {
        let (bytes, grown) = log_storage(&log, cutoff);
        log_bytes += bytes;
        grown_bytes += grown;
    }
    for session in &storage.sessions {
        grown_bytes += kept_growth(&state.kept_dir(&session.session), cutoff);
        grown_bytes += snapshot_growth(&state.archive_dir(&session.session), cutoff);
    }
    let (limits, config_problem) = match Config::load(state)
        .and_then(|config| config.map(|config| config.limits()).transpose())
    {
        Ok(limits) => (limits, None),
        Err(error) => (None, Some(Causes(&error).to_string())),
    };
    let prunes: Vec<PruneRecord> = rotation::read_log(&state.prune_log())
        .ok()
        .flatten()
        .map(|bytes| {
            bytes
                .split(|byte| *byte == b'\n')
                .filter_map(|line| serde_json::from_slice(line).ok())
                .collect()
        })
        .unwrap_or_default();
    let last_prune = prunes.last().cloned();
    let last_prune_day = last_prune.as_ref().map(|last| {
        let day = last.time.get(..10).unwrap_or(&last.time).to_owned();
        let same_day: Vec<&PruneRecord> = prunes
            .iter()
            .filter(|record| record.time.starts_with(&day))
            .collect();
        PruneDay {
            sessions: same_day.len(),
            bytes: same_day.iter().map(|record| record.bytes).sum(),
            only_copies: same_day.iter().filter(|record| record.only_copy).count(),
            by: last.by.clone(),
            day,
        }
    });
    if let Some(problem) = &config_problem {
        findings.push(Finding::StorageConfigUnusable {
            path: state.config_file(),
            error: problem.clone(),
        });
    }
    if let Some(day) = last_prune_day.as_ref().filter(|day| day.only_copies > 0) {
        findings.push(Finding::PrunedOnlyCopies {
            day: day.day.clone(),
            count: day.only_copies,
            by: day.by.clone(),
        });
    }
    StorageCheck {
        bytes: storage.total(),
        copy_bytes: storage
            .sessions
            .iter()
            .map(|session| session.copy_bytes)
            .sum(),
        log_bytes,
        grown_bytes,
        limits,
        config_problem,
        last_prune,
        last_prune_day,
    }
}

/// A log's bytes (with its parts) and the bytes of it written since `cutoff`.
fn log_storage(log: &Path, cutoff: SystemTime) -> (u64, u64) {
    let mut bytes = 0;
    let mut grown = 0;
    let Some(folder) = log.parent() else {
        return (0, 0);
    };
    let name = name_of(Some(log));
    for entry in files::entries(folder) {
        let entry_name = entry.file_name().to_string_lossy().into_owned();
        let is_part = entry_name
            .strip_prefix(&format!("{name}."))
            .is_some_and(|rest| rest.trim_end_matches(".gz").parse::<u32>().is_ok());
        if entry_name != name && !is_part {
            continue;
        }
        let Ok(metadata) = entry.metadata() else {
            continue;
        };
        bytes += metadata.len();
        let recent = metadata.modified().is_ok_and(|modified| modified >= cutoff);
        if !recent {
            continue;
        }
        if is_part {
            grown += metadata.len();
        } else {
            grown += lines_since(log, cutoff);
        }
    }
    (bytes, grown)
}

/// The time a log line records: `time` (RFC 3339) or `time_ms`.
#[derive(Deserialize)]
struct Stamp {
    time: Option<String>,
    time_ms: Option<u64>,
}

impl Stamp {
    /// The time in milliseconds since the Unix epoch (0 for a time before it).
    fn millis(self) -> Option<u64> {
        self.time_ms.or_else(|| {
            let time = crate::time::Time::parse(self.time.as_deref()?).instant()?;
            Some(u64::try_from(time.timestamp_millis()).unwrap_or(0))
        })
    }
}

/// Bytes of the lines of the live log `log` whose time is `cutoff` or later.
fn lines_since(log: &Path, cutoff: SystemTime) -> u64 {
    let Ok(Some(bytes)) = files::read_state_file_within(log, u64::MAX) else {
        return 0;
    };
    let cutoff_ms = cutoff
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        });
    bytes
        .split_inclusive(|byte| *byte == b'\n')
        .filter(|line| {
            let stamp = serde_json::from_slice::<Stamp>(line).ok();
            stamp
                .and_then(Stamp::millis)
                .is_some_and(|millis| millis >= cutoff_ms)
        })
        .map(|line| line.len() as u64)
        .sum()
}

/// Bytes the kept copies in `kept_dir` gained since `cutoff`: each member written since then and
/// its index line. Only indexes changed since then are read.
fn kept_growth(kept_dir: &Path, cutoff: SystemTime) -> u64 {
    let mut grown = 0;
    for (name, newest) in list_kept(kept_dir).unwrap_or_default() {
        for generation in 1..=newest {
            let index_path = name.index_path(kept_dir, generation);
            let recent = fs_err::symlink_metadata(&index_path)
                .and_then(|metadata| metadata.modified())
                .is_ok_and(|modified| modified >= cutoff);
            if !recent {
                continue;
            }
            let Ok(index) = GenerationIndex::read(&index_path) else {
                continue;
            };
            let cutoff_time = chrono::DateTime::<chrono::Utc>::from(cutoff);
            for chunk in &index.chunks {
                let written = crate::time::Time::parse(&chunk.time)
                    .instant()
                    .is_some_and(|time| time >= cutoff_time);
                if written {
                    // The member, and its index line as the writer wrote it.
                    let line = serde_json::to_vec(&IndexRecord::Chunk(chunk.clone()))
                        .map_or(0, |line| line.len() as u64 + 1);
                    grown += chunk.gz_length + line;
                }
            }
        }
    }
    grown
}

/// Bytes of the snapshots in `archive_dir` taken since `cutoff` (a folder made since then).
fn snapshot_growth(archive_dir: &Path, cutoff: SystemTime) -> u64 {
    files::entries(archive_dir)
        .filter(|entry| {
            entry
                .metadata()
                .and_then(|metadata| metadata.modified())
                .is_ok_and(|modified| modified >= cutoff)
        })
        .map(|entry| ctxhooks_shared::store::storage::folder_bytes(&entry.path()))
        .sum()
}
