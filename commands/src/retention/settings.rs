//! `cleanupPeriodDays` as Claude Code reads it: the user, project and local settings files, then
//! the managed ones (`managed-settings.json`, then each `managed-settings.d/*.json` in name
//! order), a later file overriding an earlier one; 30 days when none sets it. Its sweep deletes
//! nothing at all while a file sets a value it refuses (not a whole number of at least 1) or a
//! settings file cannot be read as JSON (it could hide a longer period), unless a managed file
//! sets a valid one. Observed with the pinned CLI 2.1.332: a project's or local value overrides
//! the user's, both ways, and the sweep is machine-wide (every project folder), driven by the
//! settings of the folder Claude Code starts in.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::settings::document::read_settings_bytes;
use crate::settings::scope::SettingsScope;
use ctxhooks_shared::causes::Causes;
use ctxhooks_shared::store::{env_vars, files};

/// Claude Code's default when no file sets `cleanupPeriodDays`.
pub const DEFAULT_CLEANUP_PERIOD_DAYS: u64 = 30;

/// The settings key of the days Claude Code keeps a transcript after its last change.
pub const CLEANUP_PERIOD_KEY: &str = "cleanupPeriodDays";

/// Where a settings file sits in Claude Code's order, the later overriding the earlier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SettingsSource {
    User,
    Project,
    Local,
    /// `managed-settings.json` or a file of `managed-settings.d/`, put there by an administrator.
    Managed,
}

/// One settings file as the retention reading saw it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SettingsRead {
    pub source: SettingsSource,
    pub path: PathBuf,
    /// `cleanupPeriodDays` as the file writes it (absent: the file does not set it, or does not
    /// exist).
    pub value: Option<Value>,
    /// Why the file could not be read as a JSON object, when it could not.
    pub problem: Option<String>,
}

/// Why Claude Code's sweep deletes nothing at all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Paused {
    /// A file sets a value Claude Code refuses with a validation error (`0`, negative, not a
    /// whole number, not a number): it skips its sweep until the value is fixed.
    InvalidValue { path: PathBuf, value: String },
    /// A settings file is not readable JSON: it may set a value Claude Code cannot see, so it
    /// skips its sweep.
    UnreadableSettings { path: PathBuf, problem: String },
}

/// The retention Claude Code applies, as the settings files say it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Retention {
    /// Days after a transcript's last change at which Claude Code's sweep deletes it; absent
    /// while the sweep is paused.
    pub days: Option<u64>,
    /// The file whose value holds; absent for the default (or while paused).
    pub set_in: Option<SettingsRead>,
    /// Why the sweep deletes nothing, when it does not.
    pub paused: Option<Paused>,
    /// Every file read, in Claude Code's order.
    pub files: Vec<SettingsRead>,
}

impl Retention {
    /// The retention `files` (in Claude Code's order: user, project, local, managed) give.
    pub fn of(files: Vec<SettingsRead>) -> Self {
        let valid = |read: &&SettingsRead| read.value.as_ref().and_then(valid_days).is_some();
        // A valid managed value holds whatever the other files say: Claude Code checks it
        // before anything that pauses its sweep.
        let managed = files
            .iter()
            .rev()
            .find(|read| read.source == SettingsSource::Managed && read.value.is_some())
            .filter(valid);
        let unreadable = files.iter().find_map(|read| {
            let problem = read.problem.clone()?;
            Some(Paused::UnreadableSettings {
                path: read.path.clone(),
                problem,
            })
        });
        let refused = || {
            files.iter().find_map(|read| {
                let value = read.value.as_ref().filter(|_| !valid(&read))?;
                Some(Paused::InvalidValue {
                    path: read.path.clone(),
                    value: value.to_string(),
                })
            })
        };
        let paused = managed
            .is_none()
            .then(|| unreadable.or_else(refused))
            .flatten();
        let set_in = managed
            .or_else(|| files.iter().rev().find(|read| read.value.is_some()))
            .filter(|_| paused.is_none())
            .cloned();
        let days = set_in
            .as_ref()
            .and_then(|read| read.value.as_ref())
            .and_then(valid_days);
        Self {
            days: paused
                .is_none()
                .then(|| days.unwrap_or(DEFAULT_CLEANUP_PERIOD_DAYS)),
            set_in,
            paused,
            files,
        }
    }

    /// Reads every settings file Claude Code would read when started in `project_dir`. A file
    /// whose place cannot be told (no `HOME`) is left out.
    pub fn read(project_dir: &Path) -> Self {
        let mut files = Vec::new();
        for (source, scope) in [
            (SettingsSource::User, SettingsScope::User),
            (SettingsSource::Project, SettingsScope::Project),
            (SettingsSource::Local, SettingsScope::Local),
        ] {
            if let Ok(path) = scope.settings_path(project_dir) {
                files.push(read_one(source, path));
            }
        }
        let managed = managed_settings_dir();
        files.push(read_one(
            SettingsSource::Managed,
            managed.join("managed-settings.json"),
        ));
        let mut drop_ins: Vec<PathBuf> = files::entries(&managed.join("managed-settings.d"))
            .map(|entry| entry.path())
            .filter(|path| {
                path.extension()
                    .is_some_and(|extension| extension == "json")
                    && !path
                        .file_name()
                        .is_some_and(|name| name.to_string_lossy().starts_with('.'))
            })
            .collect();
        drop_ins.sort();
        files.extend(
            drop_ins
                .into_iter()
                .map(|path| read_one(SettingsSource::Managed, path)),
        );
        Self::of(files)
    }
}

/// A value Claude Code accepts: a whole number of at least 1 (JSON has one number type, so
/// `30.0` is 30).
fn valid_days(value: &Value) -> Option<u64> {
    if let Some(days) = value.as_u64() {
        return (days >= 1).then_some(days);
    }
    let number = value.as_f64()?;
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a finite whole number of at least 1, below 2^64, is checked first"
    )]
    let days = (number.is_finite() && number.fract() == 0.0 && (1.0..1.8e19).contains(&number))
        .then_some(number as u64);
    days
}

/// The folder of Claude Code's managed settings: `CTXHOOKS_MANAGED_SETTINGS_DIR`, else where
/// Claude Code looks on this system.
pub fn managed_settings_dir() -> PathBuf {
    if let Some(dir) = env_vars::non_empty(env_vars::CTXHOOKS_MANAGED_SETTINGS_DIR) {
        return PathBuf::from(dir);
    }
    PathBuf::from(if cfg!(target_os = "macos") {
        "/Library/Application Support/ClaudeCode"
    } else {
        "/etc/claude-code"
    })
}

fn read_one(source: SettingsSource, path: PathBuf) -> SettingsRead {
    let mut read = SettingsRead {
        source,
        path,
        value: None,
        problem: None,
    };
    match read_settings_bytes(&read.path) {
        Ok(None) => {}
        Ok(Some(bytes)) if bytes.iter().all(u8::is_ascii_whitespace) => {}
        Ok(Some(bytes)) => match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(object)) => read.value = object.get(CLEANUP_PERIOD_KEY).cloned(),
            Ok(_) => read.problem = Some("the top level is not a JSON object".to_owned()),
            Err(error) => read.problem = Some(format!("not valid JSON: {error}")),
        },
        Err(error) => read.problem = Some(Causes(&error).to_string()),
    }
    read
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn file(source: SettingsSource, value: Option<Value>) -> SettingsRead {
        SettingsRead {
            source,
            path: PathBuf::from(format!("/{source:?}.json").to_lowercase()),
            value,
            problem: None,
        }
    }

    #[test]
    fn the_last_file_that_sets_it_holds_and_none_means_thirty_days() {
        let none = Retention::of(vec![
            file(SettingsSource::User, None),
            file(SettingsSource::Project, None),
        ]);
        assert_eq!((none.days, none.set_in), (Some(30), None));
        // Observed with 2.1.332: a project's value overrides the user's both ways, a local one
        // the project's.
        let shorter = Retention::of(vec![
            file(SettingsSource::User, Some(json!(36500))),
            file(SettingsSource::Project, Some(json!(7))),
        ]);
        assert_eq!(shorter.days, Some(7));
        assert_eq!(shorter.set_in.unwrap().source, SettingsSource::Project);
        let local = Retention::of(vec![
            file(SettingsSource::User, Some(json!(10))),
            file(SettingsSource::Project, Some(json!(20))),
            file(SettingsSource::Local, Some(json!(36500.0))),
        ]);
        assert_eq!(local.days, Some(36500));
        let managed = Retention::of(vec![
            file(SettingsSource::Local, Some(json!(365))),
            file(SettingsSource::Managed, Some(json!(14))),
        ]);
        assert_eq!(managed.days, Some(14));
    }

    #[test]
    fn a_refused_value_or_an_unreadable_file_pauses_the_sweep_unless_managed_sets_it() {
        for refused in [json!(0), json!(-3), json!(2.5), json!("90"), json!(null)] {
            let retention = Retention::of(vec![
                file(SettingsSource::User, Some(json!(90))),
                file(SettingsSource::Project, Some(refused.clone())),
            ]);
            assert_eq!(retention.days, None, "{refused}");
            assert!(
                matches!(&retention.paused, Some(Paused::InvalidValue { path, .. }) if path == Path::new("/project.json")),
                "{refused}: {retention:?}"
            );
        }
        let mut unreadable = file(SettingsSource::Local, None);
        unreadable.problem = Some("not valid JSON".to_owned());
        let retention = Retention::of(vec![file(SettingsSource::User, None), unreadable.clone()]);
        assert!(matches!(
            retention.paused,
            Some(Paused::UnreadableSettings { .. })
        ));
        let managed = Retention::of(vec![
            file(SettingsSource::User, Some(json!(0))),
            unreadable,
            file(SettingsSource::Managed, Some(json!(60))),
        ]);
        assert_eq!((managed.days, managed.paused), (Some(60), None));
    }

    #[test]
    fn every_scope_is_read_from_its_file() {
        let temp = ctxhooks_shared::test_support::TempFolder::new("retention");
        let project = temp.path().join("project");
        fs_err::create_dir_all(project.join(".claude")).unwrap();
        fs_err::write(
            project.join(".claude/settings.local.json"),
            r#"{"cleanupPeriodDays": 45, "other": true}"#,
        )
        .unwrap();
        fs_err::write(project.join(".claude/settings.json"), "  \n").unwrap();
        let project_read = read_one(
            SettingsSource::Project,
            project.join(".claude/settings.json"),
        );
        assert_eq!((project_read.value, project_read.problem), (None, None));
        let local = read_one(
            SettingsSource::Local,
            project.join(".claude/settings.local.json"),
        );
        assert_eq!(local.value, Some(json!(45)));
        fs_err::write(project.join("list.json"), "[1]").unwrap();
        let list = read_one(SettingsSource::Managed, project.join("list.json"));
        assert!(list.problem.is_some());
        let folder = read_one(SettingsSource::Managed, project.join(".claude"));
        assert!(folder.problem.is_some(), "{folder:?}");
    }
}
