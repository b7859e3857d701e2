//! `<state>/config.json`: the limits a person sets on ctxhooks' own storage. Without the file,
//! or without a limit in it, nothing ctxhooks keeps is ever deleted automatically; with one, the
//! Stop hook applies it once a day (`store/storage.rs`, as `archives prune --kept` would, every
//! deletion recorded in `pruned.jsonl`).
//!
//! ```json
//! {"storage": {"kept_older_than_days": 365, "max_size": "20 GB"}}
//! ```

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::store::files;
use crate::store::state_dir::StateDir;
use crate::store::storage::{Limits, parse_size};

/// The whole file; a key it does not know is an error (a misspelt limit must not pass silently).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The limits on ctxhooks' own storage.
    #[serde(default)]
    pub storage: StorageConfig,
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
    pub fn load(state: &StateDir) -> Result<Option<Self>> {
        let path = state.config_file();
        let Some(bytes) = files::read_state_file_within(&path, files::SMALL_STATE_FILE_LIMIT)
            .with_context(|| format!("failed to read `{}`", path.display()))?
        else {
            return Ok(None);
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .with_context(|| format!("`{}` is not a valid ctxhooks configuration", path.display()))
    }

    /// The storage limits it sets (none: nothing is ever deleted automatically).
    pub fn limits(&self) -> Result<Limits> {
        let older_than_days = self.storage.kept_older_than_days;
        if older_than_days == Some(0) {
            bail!("`storage.kept_older_than_days` must be at least 1");
        }
        let max_bytes = self
            .storage
            .max_size
            .as_deref()
            .map(parse_size)
            .transpose()
            .context("`storage.max_size` is not a size")?;
        Ok(Limits {
            older_than_days,
            max_bytes,
        })
    }
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
}
