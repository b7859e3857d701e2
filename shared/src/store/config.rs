//! `<state>/config.json`: the limits a person sets on ctxhooks' own storage. Without the file,
//! or without a limit in it, nothing ctxhooks keeps is ever deleted automatically; with one, the
//! Stop hook applies it once a day ([`prune_as_configured`], with `store/storage.rs`'s selection
//! and deletion, as `archives prune --kept` would, every deletion recorded in `pruned.jsonl`).
//!
//! ```json
//! {"storage": {"kept_older_than_days": 365, "max_size": "20 GB"},
//!  "prices": {"claude-opus-5-5": {"input": 4, "output": 20, "cache_read": 0.2,
//!                                 "cache_write_5m": 5, "cache_write_1h": 8}}}
//! ```

use std::time::{Duration, SystemTime};

use serde::Deserialize;

use crate::store::files;
use crate::store::session_id::SessionId;
use crate::store::state_dir::StateDir;
use crate::store::storage::{
    Limits, PruneRecord, Scope, StorageError, delete, measure_state, parse_size, record_prune,
    select,
};

/// The whole file; a key it does not know is an error (a misspelt limit must not pass silently).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The limits on ctxhooks' own storage.
    #[serde(default)]
    pub storage: StorageConfig,
    /// Prices per model that replace or add to the commands' built-in price table, kept as
    /// written: the hooks never price anything, and the commands check each entry
    /// (`docs/usage.md`, "Cost in dollars").
    #[serde(default)]
    pub prices: Option<serde_json::Map<String, serde_json::Value>>,
}

/// The storage limits.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageConfig {
    /// Delete the kept copies of sessions last active more than this many days ago (at least
    /// 1).
    pub kept_older_than_days: Option<u32>,
    /// Keep the state folder within this size (`20 GB`, `500 MiB`): the oldest sessions' kept
    /// copies are deleted first.
    pub max_size: Option<String>,
}

impl Config {
    /// Reads `<state>/config.json`; `None` when it does not exist.
    pub fn load(state: &StateDir) -> Result<Option<Self>, StorageError> {
        let path = state.config_file();
        let read = files::read_state_file_within(&path, files::SMALL_STATE_FILE_LIMIT);
        let bytes = match read {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(None),
            Err(source) => return Err(StorageError::ReadConfig { path, source }),
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|source| StorageError::InvalidConfig { path, source })
    }

    /// The storage limits it sets (none: nothing is ever deleted automatically).
    pub fn limits(&self) -> Result<Limits, StorageError> {
        let older_than_days = self.storage.kept_older_than_days;
        if older_than_days == Some(0) {
            return Err(StorageError::NoDays);
        }
        let max_bytes = self
            .storage
            .max_size
            .as_deref()
            .map(parse_size)
            .transpose()
            .map_err(|error| StorageError::MaxSize(Box::new(error)))?;
        if max_bytes == Some(0) {
            return Err(StorageError::NoSize);
        }
        Ok(Limits {
            older_than_days,
            max_bytes,
        })
    }
}

/// How often the Stop hook applies the configured limits.
pub const CONFIGURED_PRUNE_EVERY: Duration = Duration::from_secs(24 * 3600);

/// Applies the limits `<state>/config.json` sets, at most once a [`CONFIGURED_PRUNE_EVERY`]
/// (the Stop hook, after its work): one `lstat` when there is no configuration; a lock (one hook
/// at a time, never waited for) and two `lstat`s when it was applied within the day. Deletes the
/// selected sessions' copies (never `current`'s, never a session active within the day), oldest
/// first, until `deadline` (the rest waits for the next day), and records each in
/// `pruned.jsonl`. Returns what it deleted.
pub fn prune_as_configured(
    state: &StateDir,
    current: &SessionId,
    deadline: std::time::Instant,
) -> Result<Vec<PruneRecord>, StorageError> {
    if fs_err::symlink_metadata(state.config_file()).is_err() {
        return Ok(Vec::new());
    }
    // One prune at a time: a Stop hook of another session that finds it held leaves it.
    let lock = files::open_lock_file(&state.prune_lock())?;
    if files::lock_within(lock.file(), Duration::ZERO).is_err() {
        return Ok(Vec::new());
    }
    let stamp = state.prune_stamp();
    let fresh = fs_err::symlink_metadata(&stamp)
        .and_then(|metadata| metadata.modified())
        .is_ok_and(|applied| {
            SystemTime::now()
                .duration_since(applied)
                .is_ok_and(|age| age < CONFIGURED_PRUNE_EVERY)
        });
    if fresh {
        return Ok(Vec::new());
    }
    // Stamped first: a configuration that cannot be read is said once a day, not every turn.
    files::write_atomic(&stamp, b"", files::PRIVATE_FILE_MODE)?;
    let Some(config) = Config::load(state)? else {
        return Ok(Vec::new());
    };
    let limits = config.limits()?;
    if limits == Limits::default() {
        return Ok(Vec::new());
    }
    let storage = measure_state(state)?;
    let selection = select(&storage, limits, SystemTime::now(), Some(current));
    let mut done = Vec::new();
    for (index, reason) in selection.selected {
        if std::time::Instant::now() >= deadline {
            break;
        }
        let measured = &storage.sessions[index];
        let bytes = delete(state, &measured.session, Scope::Copies)?;
        if bytes == 0 {
            // Gone meanwhile (`archives prune` at the same time): nothing was deleted here.
            continue;
        }
        let record = PruneRecord::now(measured, Scope::Copies, reason, bytes, "config");
        record_prune(state, &record)?;
        done.push(record);
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempFolder;

    #[test]
    fn no_file_sets_no_limit_and_a_misspelt_key_is_an_error() {
        let temp = TempFolder::new("config");
        let state = StateDir::at(temp.join("state"));
        assert_eq!(Config::load(&state).unwrap(), None);
        state.ensure().unwrap();
        fs_err::write(
            state.config_file(),
            r#"{"storage": {"kept_older_than_days": 365, "max_size": "20 GB"}}"#,
        )
        .unwrap();
        let limits = Config::load(&state).unwrap().unwrap().limits().unwrap();
        assert_eq!(
            limits,
            Limits {
                older_than_days: Some(365),
                max_bytes: Some(20_000_000_000)
            }
        );
        fs_err::write(state.config_file(), r#"{"storage": {"max_sise": "1 GB"}}"#).unwrap();
        assert!(Config::load(&state).is_err());
        fs_err::write(
            state.config_file(),
            r#"{"storage": {"kept_older_than_days": 0}}"#,
        )
        .unwrap();
        assert!(Config::load(&state).unwrap().unwrap().limits().is_err());
    }

    #[test]
    fn a_bad_limit_is_its_own_variant_in_the_words_it_had() {
        let temp = TempFolder::new("config-words");
        let state = StateDir::at(temp.join("state"));
        state.ensure().unwrap();
        let limits_of = |text: &str| {
            fs_err::write(state.config_file(), text).unwrap();
            Config::load(&state).and_then(|config| config.unwrap().limits())
        };
        let error = limits_of(r#"{"storage": {"max_size": "12 parsecs"}}"#).unwrap_err();
        assert!(matches!(&error, StorageError::MaxSize(inner)
            if matches!(**inner, StorageError::NotAUnit { .. })));
        assert_eq!(
            crate::causes::Causes(&error).to_string(),
            "`storage.max_size` is not a size: `parsecs` in `12 parsecs` is not a unit of size \
             (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)"
        );
        let error = limits_of(r#"{"storage": {"kept_older_than_days": 0}}"#).unwrap_err();
        assert!(matches!(error, StorageError::NoDays));
        for zero in ["0", "0 GB", "0.0001 B"] {
            let error = limits_of(&format!(r#"{{"storage": {{"max_size": "{zero}"}}}}"#));
            assert!(
                matches!(error, Err(StorageError::NoSize)),
                "{zero}: {error:?}"
            );
        }
        assert_eq!(
            StorageError::NoSize.to_string(),
            "`storage.max_size` must be more than 0 bytes"
        );
        let error = limits_of("{").unwrap_err();
        assert!(matches!(error, StorageError::InvalidConfig { .. }));
        let path = state.config_file();
        let expected = format!("`{}` is not a valid ctxhooks configuration", path.display());
        assert_eq!(error.to_string(), expected);
    }
}
