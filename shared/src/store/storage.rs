//! ctxhooks' own storage: how much each session's record takes and when it last changed, which
//! sessions a limit selects (older than some days, or the oldest until the state folder fits a
//! size), and the deletion of a session's kept copies or of its whole record. `archives prune`
//! runs it on request, and the Stop hook once a day when a limit is configured (`config.rs`
//! reads the limits and applies them with what is here); nothing is deleted otherwise. A session
//! active within the last day is never selected, and a session whose transcript Claude Code no
//! longer has is marked as the only copy left.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::store::files::{self, FileError};
use crate::store::kept::{self, KeptName};
use crate::store::session_id::SessionId;
use crate::store::state_dir::StateDir;
use crate::store::whereabouts::{LoggedPaths, is_regular_file, locate};

/// What went wrong measuring or deleting ctxhooks' own storage, or reading the limits set on it
/// (`config.json`, `config.rs`); each variant's words are the ones a person reads.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(
    missing_docs,
    reason = "each variant's message says what it is; its fields are named for what they hold"
)]
pub enum StorageError {
    #[error("failed to delete `{}`", .path.display())]
    Delete {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A size whose number is no number.
    #[error("`{text}` is not a size (such as `20 GB` or `500MiB`)")]
    NotASize {
        text: String,
        source: std::num::ParseFloatError,
    },
    /// A size whose unit is none of [`parse_size`]'s.
    #[error("`{unit}` in `{text}` is not a unit of size (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)")]
    NotAUnit { unit: String, text: String },
    /// A size negative, or past what 64 bits count.
    #[error("`{text}` is not a size ctxhooks can count")]
    Uncountable { text: String },
    #[error("failed to read `{}`", .path.display())]
    ReadConfig { path: PathBuf, source: FileError },
    /// `config.json` is not JSON, or holds a key ctxhooks does not know.
    #[error("`{}` is not a valid ctxhooks configuration", .path.display())]
    InvalidConfig {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// `storage.kept_older_than_days` is 0.
    #[error("`storage.kept_older_than_days` must be at least 1")]
    NoDays,
    #[error("`storage.max_size` is not a size")]
    MaxSize(#[source] Box<StorageError>),
    /// `storage.max_size` is 0 bytes: every idle session's copies would go, which no limit
    /// means (as `kept_older_than_days` of 0 is refused).
    #[error("`storage.max_size` must be more than 0 bytes")]
    NoSize,
    /// The state folder's files (its lock, its stamp, its sessions), where no step is named.
    #[error(transparent)]
    File(#[from] FileError),
}

/// The folders of a session's record that hold transcript bytes: its kept copies, its snapshots
/// (which point into the kept copies) and the files `restore --force` kept apart. Deleting a
/// session's copies deletes these; its logs stay.
pub const COPY_FOLDERS: [&str; 3] = ["kept", "archive", "replaced"];

/// How recently a session must have changed to be never selected by a limit: it is in use.
pub const ACTIVE_WITHIN: Duration = Duration::from_secs(24 * 3600);

/// The start of the name a session's copies or record get, in the sessions folder, while they
/// are deleted (left behind by a deletion that was stopped; the next prune removes it).
const PRUNING_PREFIX: &str = ".pruning-";

/// What one session's record takes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct SessionStorage {
    pub session: SessionId,
    /// Bytes of every file in its folder.
    pub bytes: u64,
    /// Bytes of its copies ([`COPY_FOLDERS`]).
    pub copy_bytes: u64,
    /// The newest modification of any file in its folder.
    pub last_activity: Option<SystemTime>,
    /// Where its main transcript is, if kept: where the newest generation was kept from, or
    /// where it moved since ([`locate`]); the former when Claude Code no longer has it.
    pub transcript: Option<PathBuf>,
    /// Claude Code no longer has that transcript: the kept copy is the only one left.
    pub only_copy: bool,
}

/// Sums the sizes of every file below `path` (links are counted as links, never followed),
/// and finds the newest modification; a file that vanishes meanwhile counts as nothing.
fn walk(path: &Path, bytes: &mut u64, newest: &mut Option<SystemTime>) {
    let Ok(metadata) = fs_err::symlink_metadata(path) else {
        return;
    };
    if let Ok(modified) = metadata.modified() {
        *newest = Some(newest.map_or(modified, |known| known.max(modified)));
    }
    if !metadata.is_dir() {
        *bytes += metadata.len();
        return;
    }
    for entry in files::entries(path) {
        walk(&entry.path(), bytes, newest);
    }
}

/// Bytes of every file below `path` (0 when nothing is there).
pub fn folder_bytes(path: &Path) -> u64 {
    let mut bytes = 0;
    walk(path, &mut bytes, &mut None);
    bytes
}

/// Measures one session's record.
pub fn measure_session(state: &StateDir, session: &SessionId) -> SessionStorage {
    let folder = state.session_dir(session);
    let mut bytes = 0;
    let mut copy_bytes = 0;
    let mut last_activity = None;
    for entry in files::entries(&folder) {
        let mut entry_bytes = 0;
        walk(&entry.path(), &mut entry_bytes, &mut last_activity);
        bytes += entry_bytes;
        if COPY_FOLDERS.iter().any(|name| entry.file_name() == *name) {
            copy_bytes += entry_bytes;
        }
    }
    let kept_dir = state.kept_dir(session);
    let main = KeptName::main();
    // Where the newest generation was kept from, whole or not: what is measured here (and a
    // limit deletes) is every kept copy, and whether one is the only copy left asks after the
    // file the newest one copied. No kept copy, no copy that could be the only one: nothing.
    let recorded = kept::latest_generation(&kept_dir, &main)
        .ok()
        .filter(|generation| *generation > 0)
        .and_then(|generation| kept::read_tail(&main.index_path(&kept_dir, generation)).ok())
        .map(|tail| PathBuf::from(tail.header.source));
    let located = recorded
        .as_deref()
        .map(|recorded| locate(recorded, || LoggedPaths::read(state, session)));
    // A session resumed from another folder: its first folder's transcript is kept as a
    // generation of another source, and once that file is gone the kept copy is the only one
    // of that part, whatever the newest transcript's state.
    let only_copy = located.as_ref().is_some_and(|located| !located.present)
        || other_part_gone(&kept_dir, &main);
    let transcript = located.map(|located| located.path);
    SessionStorage {
        session: session.clone(),
        bytes,
        copy_bytes,
        last_activity,
        transcript,
        only_copy,
    }
}

/// Whether a generation of the kept copy `name` kept another source than the newest one (the
/// session's transcript in another project folder: a file that does not open with the bytes
/// kept so far starts a generation of its own, so a rewritten transcript keeps its path) whose
/// file is no longer there.
fn other_part_gone(kept_dir: &Path, name: &KeptName) -> bool {
    let Ok(latest) = kept::latest_generation(kept_dir, name) else {
        return false;
    };
    let Ok(newest) = kept::read_header(&name.index_path(kept_dir, latest)) else {
        return false;
    };
    (1..latest)
        .filter_map(|generation| kept::read_header(&name.index_path(kept_dir, generation)).ok())
        .any(|header| header.source != newest.source && !is_regular_file(Path::new(&header.source)))
}

/// The state folder, measured: every session's record, and the bytes outside them (the error
/// log, the history cache, settings backups, ...).
#[derive(Debug, Clone, Default)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct StateStorage {
    pub sessions: Vec<SessionStorage>,
    pub other_bytes: u64,
}

impl StateStorage {
    /// Bytes of the whole state folder.
    pub fn total(&self) -> u64 {
        let sessions: u64 = self.sessions.iter().map(|session| session.bytes).sum();
        self.other_bytes + sessions
    }
}

/// Measures the whole state folder.
pub fn measure_state(state: &StateDir) -> Result<StateStorage, FileError> {
    let outside = files::entries(state.root()).filter(|entry| entry.file_name() != "sessions");
    // A deletion that was stopped, or anything else that is no session.
    let no_session = files::entries(&state.sessions_dir())
        .filter(|entry| SessionId::parse(&entry.file_name().to_string_lossy()).is_err());
    let other_bytes = (outside.chain(no_session))
        .map(|entry| folder_bytes(&entry.path()))
        .sum();
    let sessions = state.session_ids()?;
    let sessions = sessions
        .iter()
        .map(|session| measure_session(state, session));
    Ok(StateStorage {
        sessions: sessions.collect(),
        other_bytes,
    })
}

/// The limits a prune applies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Sessions last active more than this many days ago.
    pub older_than_days: Option<u32>,
    /// The state folder's size to fit in: the oldest sessions first.
    pub max_bytes: Option<u64>,
}

/// Why a session was selected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Last active more than the days the limit gives.
    OlderThan,
    /// Among the oldest, deleted until the state folder fits the size the limit gives.
    MaxSize,
    /// Named by the person (`--session ID --all`).
    Named,
}

/// What a limit selects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Indexes into the measured sessions, oldest first, with why.
    pub selected: Vec<(usize, Reason)>,
    /// The state folder's size once their copies are deleted.
    pub bytes_after: u64,
    /// The size limit cannot be met by what may be deleted (the rest is in use or holds no
    /// copy).
    pub size_unmet: bool,
}

/// The sessions whose copies `limits` select from `storage` at `now`, oldest first; never one
/// active within [`ACTIVE_WITHIN`], nor `exempt` (the session of the hook that prunes), nor one
/// whose copies take nothing.
pub fn select(
    storage: &StateStorage,
    limits: Limits,
    now: SystemTime,
    exempt: Option<&SessionId>,
) -> Selection {
    let mut order: Vec<usize> = (0..storage.sessions.len())
        .filter(|&index| {
            let session = &storage.sessions[index];
            session.copy_bytes > 0
                && exempt != Some(&session.session)
                && session.last_activity.is_some_and(|time| {
                    now.duration_since(time)
                        .is_ok_and(|age| age > ACTIVE_WITHIN)
                })
        })
        .collect();
    order.sort_by_key(|&index| {
        (
            storage.sessions[index].last_activity,
            storage.sessions[index].session.clone(),
        )
    });
    let mut selection = Selection {
        bytes_after: storage.total(),
        ..Selection::default()
    };
    let take = |selection: &mut Selection, index: usize, reason| {
        if selection.selected.iter().all(|(known, _)| *known != index) {
            selection.bytes_after -= storage.sessions[index].copy_bytes;
            selection.selected.push((index, reason));
        }
    };
    if let Some(days) = limits.older_than_days {
        let cutoff = Duration::from_secs(u64::from(days) * 24 * 3600);
        for &index in &order {
            let old = storage.sessions[index]
                .last_activity
                .is_some_and(|time| now.duration_since(time).is_ok_and(|age| age > cutoff));
            if old {
                take(&mut selection, index, Reason::OlderThan);
            }
        }
    }
    if let Some(max) = limits.max_bytes {
        for &index in &order {
            if selection.bytes_after <= max {
                break;
            }
            take(&mut selection, index, Reason::MaxSize);
        }
        selection.size_unmet = selection.bytes_after > max;
    }
    selection
        .selected
        .sort_by_key(|(index, _)| storage.sessions[*index].last_activity);
    selection
}

/// What a deletion removes of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Its kept copies, snapshots and the files `restore --force` kept apart; its logs stay, so
    /// its usage, history and provenance still read.
    Copies,
    /// Its whole folder.
    Record,
}

/// One deletion, as `<state>/pruned.jsonl` records it (one JSON line each).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct PruneRecord {
    /// When (RFC 3339 UTC, milliseconds).
    pub time: String,
    pub session_id: String,
    pub scope: Scope,
    pub reason: Reason,
    /// Bytes deleted.
    pub bytes: u64,
    /// Claude Code no longer had the transcript: this was the only copy.
    pub only_copy: bool,
    /// `command` (`archives prune --yes`) or `config` (the configured limit, applied by the
    /// Stop hook).
    pub by: String,
}

impl PruneRecord {
    /// The deletion of `bytes` of `session`'s `scope`, for `reason`, by `by`, now.
    pub fn now(
        session: &SessionStorage,
        scope: Scope,
        reason: Reason,
        bytes: u64,
        by: &str,
    ) -> Self {
        Self {
            time: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            session_id: session.session.to_string(),
            scope,
            reason,
            bytes,
            only_copy: session.only_copy,
            by: by.to_owned(),
        }
    }
}

/// Deletes `scope` of a session's record: each folder is first renamed out of the session's
/// folder (under the kept copies' lock when it can be had, so that no hook is writing them), then
/// removed; a removal stopped part way leaves a `.pruning-…` folder in the sessions folder,
/// which the next prune removes. A folder already gone is no error. Returns the bytes deleted.
pub fn delete(state: &StateDir, session: &SessionId, scope: Scope) -> Result<u64, StorageError> {
    remove_leftovers(state);
    let folder = state.session_dir(session);
    let targets: Vec<(PathBuf, &str)> = match scope {
        Scope::Copies => COPY_FOLDERS
            .iter()
            .map(|name| (folder.join(name), *name))
            .collect(),
        Scope::Record => vec![(folder.clone(), "record")],
    };
    // Held until the kept copies are renamed away: a hook that waited for it then writes into
    // the renamed folder, and its next run starts a new generation from the transcript.
    let lock = files::open_lock_file(&state.kept_lock(session))
        .ok()
        .filter(|lock| files::lock_within(lock.file(), Duration::from_secs(2)).is_ok());
    let mut renamed = Vec::new();
    let mut deleted = 0;
    for (target, label) in targets {
        if fs_err::symlink_metadata(&target).is_err() {
            continue;
        }
        deleted += folder_bytes(&target);
        let aside = state.sessions_dir().join(format!(
            "{PRUNING_PREFIX}{session}-{label}-{}",
            std::process::id()
        ));
        let moved = files::present(fs_err::rename(&target, &aside)).map_err(|source| {
            StorageError::Delete {
                path: target.clone(),
                source,
            }
        })?;
        if moved.is_some() {
            renamed.push(aside);
        }
    }
    drop(lock);
    files::sync_dir(&state.sessions_dir());
    for aside in renamed {
        remove_all(&aside)?;
    }
    Ok(deleted)
}

/// Removes what deletions stopped part way left in the sessions folder.
fn remove_leftovers(state: &StateDir) {
    for entry in files::entries(&state.sessions_dir()) {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with(PRUNING_PREFIX) {
            let _ = remove_all(&entry.path());
        }
    }
}

fn remove_all(path: &Path) -> Result<(), StorageError> {
    let removed = if fs_err::symlink_metadata(path).is_ok_and(|metadata| metadata.is_dir()) {
        fs_err::remove_dir_all(path)
    } else {
        fs_err::remove_file(path)
    };
    files::present(removed).map_err(|source| StorageError::Delete {
        path: path.to_owned(),
        source,
    })?;
    Ok(())
}

/// Appends `record` to `<state>/pruned.jsonl`.
pub fn record_prune(state: &StateDir, record: &PruneRecord) -> Result<(), FileError> {
    files::append_json_line(&state.prune_log(), record)
}

/// A size as a person writes it: a number of bytes, or a number with a unit (`kB`, `MB`, `GB`,
/// `TB`, powers of 1000; `KiB`, `MiB`, `GiB`, `TiB`, powers of 1024; `K`, `M`, `G`, `T` as the
/// decimal ones; `B`), a space allowed between, case ignored.
pub fn parse_size(text: &str) -> Result<u64, StorageError> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|character: char| !(character.is_ascii_digit() || character == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let number: f64 = number.parse().map_err(|source| StorageError::NotASize {
        text: text.to_owned(),
        source,
    })?;
    let factor: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        other => {
            return Err(StorageError::NotAUnit {
                unit: other.to_owned(),
                text: text.to_owned(),
            });
        }
    };
    let bytes = number * factor;
    if !bytes.is_finite() || !(0.0..1.8e19).contains(&bytes) {
        return Err(StorageError::Uncountable {
            text: text.to_owned(),
        });
    }
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "finite, non-negative and below 2^64, checked above"
    )]
    let bytes = bytes.round() as u64;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempFolder;

    fn session(number: u8, bytes: u64, days_old: u64) -> SessionStorage {
        SessionStorage {
            session: SessionId::parse(&format!("0000000{number}-0000-4000-8000-000000000000"))
                .unwrap(),
            bytes,
            copy_bytes: bytes - 10,
            last_activity: Some(
                SystemTime::UNIX_EPOCH + Duration::from_secs(100 * 86_400 - days_old * 86_400),
            ),
            transcript: None,
            only_copy: false,
        }
    }

    fn now() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(100 * 86_400)
    }

    #[test]
    fn older_than_selects_by_last_activity_and_never_a_session_in_use() {
        let storage = StateStorage {
            sessions: vec![
                session(1, 1000, 40),
                session(2, 500, 10),
                session(3, 300, 0),
            ],
            other_bytes: 100,
        };
        let selection = select(
            &storage,
            Limits {
                older_than_days: Some(30),
                max_bytes: None,
            },
            now(),
            None,
        );
        assert_eq!(selection.selected, [(0, Reason::OlderThan)]);
        assert_eq!(selection.bytes_after, 1900 - 990);
        // The oldest first until the folder fits; the session in use never.
        let selection = select(
            &storage,
            Limits {
                older_than_days: None,
                max_bytes: Some(600),
            },
            now(),
            None,
        );
        assert_eq!(
            selection.selected,
            [(0, Reason::MaxSize), (1, Reason::MaxSize)]
        );
        assert_eq!(selection.bytes_after, 1900 - 990 - 490);
        assert!(!selection.size_unmet);
        let unmet = select(
            &storage,
            Limits {
                older_than_days: None,
                max_bytes: Some(100),
            },
            now(),
            Some(&storage.sessions[1].session.clone()),
        );
        assert_eq!(unmet.selected, [(0, Reason::MaxSize)]);
        assert!(unmet.size_unmet);
    }

    #[test]
    fn sizes_are_read_as_people_write_them() {
        assert_eq!(parse_size("20 GB").unwrap(), 20_000_000_000);
        assert_eq!(parse_size("500MiB").unwrap(), 500 * 1024 * 1024);
        assert_eq!(parse_size("1.5g").unwrap(), 1_500_000_000);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        for bad in ["", "GB", "20 parsecs", "-3 GB", "1e999"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn deleting_copies_keeps_the_logs_and_a_record_goes_whole() {
        let temp = TempFolder::new("storage-delete");
        let state = StateDir::at(temp.join("state"));
        let id = SessionId::parse("0123abcd-0000-4000-8000-000000000000").unwrap();
        let folder = state.ensure_session_dir(&id).unwrap();
        for (path, bytes) in [
            ("kept/transcript.jsonl.1.gz", 300),
            ("archive/x/snapshot.json", 20),
            ("usage.jsonl", 50),
        ] {
            let path = folder.join(path);
            fs_err::create_dir_all(path.parent().unwrap()).unwrap();
            fs_err::write(path, vec![b'x'; bytes]).unwrap();
        }
        let measured = measure_session(&state, &id);
        assert_eq!((measured.bytes, measured.copy_bytes), (370, 320));
        assert_eq!(delete(&state, &id, Scope::Copies).unwrap(), 320);
        assert!(!folder.join("kept").exists() && !folder.join("archive").exists());
        assert!(folder.join("usage.jsonl").exists());
        // A deletion stopped part way leaves its folder aside; the next one removes it.
        let leftover = state
            .sessions_dir()
            .join(format!("{PRUNING_PREFIX}x-kept-1"));
        fs_err::create_dir_all(leftover.join("deep")).unwrap();
        assert_eq!(delete(&state, &id, Scope::Record).unwrap(), 50);
        assert!(!folder.exists() && !leftover.exists());
        assert!(state.session_ids().unwrap().is_empty());
    }
}
