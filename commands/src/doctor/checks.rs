//! `ctxhooks doctor`'s checks: the state folder, the binaries, each scope's settings file,
//! Claude Code's transcript retention, recent hook errors and the snapshot count, as findings.

use std::path::{Path, PathBuf};

use anyhow::Result;
use std::time::SystemTime;

use chrono::Utc;
use serde::Serialize;
use serde_json::Value;

use super::activity::{Activity, hooks_at_work};
use super::findings::{Finding, Severity};
use super::plugins::{PluginCheck, plugins_with_ctxhooks};
use super::storage::{StorageCheck, check_storage};
use crate::install::claude_version::{InstalledClaude, installed_claude, refused_events};
use crate::install::handlers::{OwnedHandler, is_ctxhooks_command, planned_handlers};
use crate::install::merge::{contains_handler, handlers};
use crate::install::ownership::InstallsFile;
use crate::links::resolve_links;
use crate::retention::settings::{Retention, SettingsSource};
use crate::retention::sweep::{CleanupState, DUE_WITHIN_DAYS};
use crate::sessions::catalog::list_sessions;
use crate::settings::document::{parse_settings, read_settings_bytes};
use crate::settings::scope::SettingsScope;
use crate::snapshots::catalog::scan_archive;
use ctxhooks_shared::causes::Causes;
use ctxhooks_shared::hook::table::HOOK_BINARIES;
use ctxhooks_shared::platform::program::{binary_file_name, names_a_program};
use ctxhooks_shared::store::error_log::{self, ErrorRecord};
use ctxhooks_shared::store::files;
use ctxhooks_shared::store::state_dir::{StateDir, claude_config_dir};
use ctxhooks_shared::store::storage::measure_state;

/// How many of the newest `errors.log` lines the report shows.
pub const RECENT_ERRORS: usize = 10;

/// Warns, loudly, about every runtime interrupt mark that no interrupt record follows in its
/// transcript: either the interrupt has not reached the transcript yet, or the SDK changed its
/// wording or fields and `ledger-input` can no longer relabel its interrupts.
pub fn provenance_findings(state: &StateDir) -> Result<Vec<Finding>> {
    let mut findings = Vec::new();
    for (session, unmatched) in crate::provenance::load::unmatched_marks_in_all_sessions(state)? {
        let marks = unmatched.into_iter();
        findings.extend(marks.map(|mark| Finding::RuntimeMarkWithoutInterrupt {
            session: session.to_string(),
            time_ms: mark.mark.time_ms,
            reason: mark.mark.reason,
            why: mark.reason.to_string(),
        }));
    }
    for session in state.session_ids()? {
        let sidecar = crate::provenance::sidecar::read_sidecar(&state.sidecar(&session))?;
        let problems = sidecar.mark_problems.iter();
        findings.extend(problems.map(|problem| Finding::RuntimeMarkUnreadable {
            session: session.to_string(),
            line: problem.line,
            problem: problem.problem.to_string(),
        }));
    }
    Ok(findings)
}

/// The state folder's condition.
#[derive(Debug, Clone, Serialize)]
pub struct StateDirCheck {
    pub path: PathBuf,
    pub exists: bool,
    /// Its permission bits in octal, such as `0700`, if it exists.
    pub mode: Option<String>,
}

/// One hook binary beside `ctxhooks`.
#[derive(Debug, Clone, Serialize)]
pub struct BinaryCheck {
    pub name: String,
    /// Where it should be.
    pub path: Option<PathBuf>,
    /// Whether it is there.
    pub present: bool,
}

/// A ctxhooks handler found in a settings file.
#[derive(Debug, Clone, Serialize)]
pub struct RegisteredHook {
    /// The event it is registered under.
    pub event: String,
    /// Its `command`.
    pub command: String,
    pub binary_exists: bool,
    /// Whether it is exactly what `ctxhooks install` would register now.
    pub current: bool,
}

/// One scope's settings file.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SettingsCheck {
    pub scope: SettingsScope,
    pub path: PathBuf,
    pub exists: bool,
    /// Why it cannot be used, if it cannot (not JSON, wrong shape, unreadable).
    pub problem: Option<String>,
    /// The ctxhooks handlers in it.
    pub hooks: Vec<RegisteredHook>,
    /// `cleanupPeriodDays` as set in this file, if it is.
    pub cleanup_period_days: Option<Value>,
    /// Whether this file sets `disableAllHooks: true`.
    pub disable_all_hooks: bool,
    /// The plugins this file enables (`enabledPlugins` set to `true`).
    pub enabled_plugins: Vec<String>,
    /// The status line's command, when this file sets a command status line.
    pub status_line: Option<String>,
}

/// Claude Code's cleanup and the sessions ctxhooks holds.
#[derive(Debug, Clone, Serialize)]
pub struct CleanupCheck {
    /// The retention Claude Code applies, as its settings files say (read in the current
    /// folder).
    pub retention: Retention,
    /// Sessions whose transcript is gone from Claude Code's folder and that ctxhooks keeps:
    /// `ctxhooks archives restore --deleted` writes them back.
    pub deleted_kept: usize,
    /// Sessions whose transcript Claude Code's sweep deletes within [`DUE_WITHIN_DAYS`] days.
    pub due_within_7_days: usize,
}

/// Everything `doctor` found.
#[derive(Debug, Clone, Serialize)]
pub struct DoctorReport {
    pub state_dir: StateDirCheck,
    /// The `claude` on `PATH` and its version, when there is one.
    pub claude: Option<InstalledClaude>,
    /// The folder holding the running `ctxhooks`.
    pub binaries_dir: Option<PathBuf>,
    /// The hook binaries beside it.
    pub binaries: Vec<BinaryCheck>,
    /// The user, project and local settings files.
    pub settings: Vec<SettingsCheck>,
    /// The installed plugins that register ctxhooks hooks.
    pub plugins: Vec<PluginCheck>,
    /// The hooks at work: when each last left a trace and how it went; the sessions logged,
    /// kept and snapshotted.
    pub activity: Activity,
    pub errors_log: PathBuf,
    /// Its newest lines, oldest first.
    pub recent_errors: Vec<ErrorRecord>,
    /// How many transcript snapshots the archive holds (`None` if they could not be listed).
    pub snapshot_count: Option<usize>,
    /// Claude Code's cleanup, and where the sessions stand with it (`None` if the sessions could
    /// not be listed).
    pub cleanup: Option<CleanupCheck>,
    /// ctxhooks' own storage: the state folder's size, its growth, the configured limits
    /// (`None` if the state folder could not be measured).
    pub storage: Option<StorageCheck>,
    /// The findings, most serious first.
    pub findings: Vec<Finding>,
}

impl DoctorReport {
    /// Whether something is broken (any `Error` finding).
    pub fn is_broken(&self) -> bool {
        self.findings
            .iter()
            .any(|finding| finding.severity() == Severity::Error)
    }
}

/// Runs every check. `binaries_dir`: the folder holding the running `ctxhooks` (where the hook
/// binaries should be), if known; `project_dir`: the project folder for the project and local
/// scopes (the current folder).
pub fn doctor_report(
    state: &StateDir,
    binaries_dir: Option<&Path>,
    project_dir: &Path,
) -> DoctorReport {
    let mut findings = Vec::new();
    let state_dir = check_state_dir(state, &mut findings);
    let binaries = check_binaries(binaries_dir, &mut findings);
    let planned = binaries_dir.map(planned_handlers).unwrap_or_default();
    let settings: Vec<SettingsCheck> = SettingsScope::ALL
        .iter()
        .filter_map(|scope| check_settings(*scope, project_dir, &planned, &mut findings))
        .collect();
    let enabled: Vec<String> = settings
        .iter()
        .flat_map(|check| check.enabled_plugins.iter().cloned())
        .collect();
    let config = claude_config_dir().ok();
    let plugins = config.map(|config| plugins_with_ctxhooks(&config, &enabled));
    let unreadable = |error| Finding::PluginsUnreadable { error };
    let plugins = plugins.and_then(|read| found(&mut findings, read, unreadable));
    let plugins = plugins.unwrap_or_default();
    check_plugins(&plugins, &settings, &mut findings);
    check_installed(&settings, &plugins, &mut findings);
    let installs = InstallsFile::load(state);
    check_recorded_entries(installs.as_ref().ok(), &mut findings);
    let claude = installed_claude();
    if let Some(claude) = &claude {
        check_events_known(claude, &settings, &mut findings);
    }
    let retention = Retention::read(project_dir);
    check_retention(&retention, &mut findings);
    let cleanup = check_sessions_cleanup(state, retention, &mut findings);
    let failed = check_failed("sessions and Claude Code's cleanup");
    let cleanup = found(&mut findings, cleanup, failed);
    check_hooks_disabled(&settings, &mut findings);
    let path = state.installs_file();
    found(&mut findings, installs, |error| {
        Finding::OwnershipRecordUnreadable { error, path }
    });
    let errors_log = state.errors_log();
    let path = errors_log.clone();
    let all_errors = error_log::read_all(&errors_log);
    let all_errors = found(&mut findings, all_errors, |error| {
        Finding::ErrorsLogUnreadable { path, error }
    })
    .unwrap_or_default();
    let recent_errors = all_errors[all_errors.len().saturating_sub(RECENT_ERRORS)..].to_vec();
    if !recent_errors.is_empty() {
        findings.push(Finding::RecentHookErrors {
            shown: recent_errors.len(),
            path: errors_log.clone(),
        });
    }
    let catalog = scan_archive(state, None);
    let activity = hooks_at_work(state, catalog.as_ref().ok(), &all_errors);
    let unlistable = |error| Finding::SnapshotsUnlistable { error };
    let catalog = found(&mut findings, catalog, unlistable);
    if let Some(catalog) = &catalog {
        if let Some(example) = catalog.broken.first() {
            findings.push(Finding::SnapshotsDamaged {
                count: catalog.broken.len(),
                example: example.path.clone(),
            });
        }
        if !catalog.unfinished.is_empty() {
            findings.push(Finding::SnapshotsUnfinished {
                count: catalog.unfinished.len(),
            });
        }
    }
    let failed = check_failed("the state folder's size");
    let measured = found(&mut findings, measure_state(state), failed);
    let storage =
        measured.map(|measured| check_storage(state, &measured, SystemTime::now(), &mut findings));
    let failed = check_failed("runtime interrupt marks");
    let marks = found(&mut findings, provenance_findings(state), failed);
    findings.extend(marks.into_iter().flatten());
    findings.sort_by_key(|finding| std::cmp::Reverse(finding.severity()));
    DoctorReport {
        state_dir,
        claude,
        binaries_dir: binaries_dir.map(Path::to_path_buf),
        binaries,
        settings,
        plugins,
        activity,
        errors_log,
        recent_errors,
        snapshot_count: catalog.map(|catalog| catalog.entries.len()),
        cleanup,
        storage,
        findings,
    }
}

/// The value of `result`, or none and the finding `finding` makes of its error (in words,
/// with its causes).
fn found<T, E: Into<anyhow::Error>>(
    findings: &mut Vec<Finding>,
    result: Result<T, E>,
    finding: impl FnOnce(String) -> Finding,
) -> Option<T> {
    result
        .map_err(|error| findings.push(finding(format!("{:#}", error.into()))))
        .ok()
}

/// The finding that the check named `check` could not run, for [`found`].
fn check_failed(check: &'static str) -> impl FnOnce(String) -> Finding {
    move |error| Finding::CheckFailed { check, error }
}

/// How many sessions Claude Code deleted that ctxhooks holds, and how many it deletes within
/// [`DUE_WITHIN_DAYS`] days, as `ctxhooks sessions` marks them.
fn check_sessions_cleanup(
    state: &StateDir,
    retention: Retention,
    findings: &mut Vec<Finding>,
) -> Result<CleanupCheck> {
    let sessions = list_sessions(state, retention.days, Utc::now())?;
    let deleted_kept = sessions
        .iter()
        .filter(|session| session.cleanup.state == CleanupState::Deleted && session.is_kept())
        .count();
    let due_within_7_days = sessions
        .iter()
        .filter(|session| session.cleanup.state == CleanupState::Due)
        .count();
    if deleted_kept > 0 {
        findings.push(Finding::SessionsDeletedKept {
            count: deleted_kept,
        });
    }
    if due_within_7_days > 0 {
        findings.push(Finding::SessionsDueForDeletion {
            count: due_within_7_days,
            days: DUE_WITHIN_DAYS,
        });
    }
    Ok(CleanupCheck {
        retention,
        deleted_kept,
        due_within_7_days,
    })
}

fn check_state_dir(state: &StateDir, findings: &mut Vec<Finding>) -> StateDirCheck {
    let path = state.root().to_path_buf();
    let metadata = fs_err::metadata(&path).ok();
    let mode = metadata
        .as_ref()
        .and_then(|_| ctxhooks_shared::platform::private::mode_of(&path).ok());
    match (&metadata, mode) {
        (None, _) => findings.push(Finding::StateDirAbsent { path: path.clone() }),
        (Some(metadata), _) if !metadata.is_dir() => {
            findings.push(Finding::StateDirNotAFolder { path: path.clone() });
        }
        (Some(_), Some(mode)) if mode != files::PRIVATE_DIR_MODE => {
            findings.push(Finding::StateDirNotPrivate {
                path: path.clone(),
                mode,
            });
        }
        _ => {}
    }
    StateDirCheck {
        exists: metadata.is_some(),
        mode: mode.map(|mode| format!("{mode:04o}")),
        path,
    }
}

fn check_binaries(dir: Option<&Path>, findings: &mut Vec<Finding>) -> Vec<BinaryCheck> {
    HOOK_BINARIES
        .iter()
        .map(|binary| {
            let path = dir.map(|dir| dir.join(binary_file_name(binary.name)));
            let found = path.as_deref().is_some_and(Path::is_file);
            if !found {
                findings.push(Finding::BinaryMissing {
                    name: binary.name,
                    dir: dir.map(Path::to_path_buf),
                });
            }
            BinaryCheck {
                name: binary.name.to_owned(),
                path,
                present: found,
            }
        })
        .collect()
}

fn check_settings(
    scope: SettingsScope,
    project_dir: &Path,
    planned: &[OwnedHandler],
    findings: &mut Vec<Finding>,
) -> Option<SettingsCheck> {
    let path = found(findings, scope.settings_path(project_dir), |error| {
        Finding::SettingsPathUnknown { scope, error }
    })?;
    let path = resolve_links(&path).unwrap_or(path);
    let mut check = SettingsCheck {
        scope,
        path: path.clone(),
        ..SettingsCheck::default()
    };
    let bytes = match read_settings_bytes(&path) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Some(check),
        Err(error) => {
            let error = Causes(&error).to_string();
            check.exists = path.exists();
            check.problem = Some(error.clone());
            findings.push(Finding::SettingsUnreadable { scope, error });
            return Some(check);
        }
    };
    check.exists = true;
    let value = match parse_settings(&path, &bytes) {
        Ok(value) => value,
        Err(error) => {
            let error = format!("{error:#}");
            check.problem = Some(error.clone());
            findings.push(Finding::SettingsInvalid { scope, error });
            return Some(check);
        }
    };
    check.cleanup_period_days = value.get("cleanupPeriodDays").cloned();
    check.disable_all_hooks = value.get("disableAllHooks") == Some(&Value::Bool(true));
    check.enabled_plugins = value
        .get("enabledPlugins")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(_, enabled)| **enabled == Value::Bool(true))
        .map(|(id, _)| id.clone())
        .collect();
    check.status_line = value
        .pointer("/statusLine/command")
        .and_then(Value::as_str)
        .map(ToOwned::to_owned);
    for (event, handler) in handlers(&value).filter(|(_, handler)| is_ctxhooks_command(handler)) {
        let command = handler.get("command").and_then(Value::as_str);
        let command = command.unwrap_or_default();
        let hook = RegisteredHook {
            event: event.clone(),
            command: command.to_owned(),
            binary_exists: names_a_program(Path::new(command)),
            current: planned.iter().any(|owned| owned.is(event, handler)),
        };
        let (event, command) = (hook.event.clone(), hook.command.clone());
        if !hook.binary_exists {
            findings.push(Finding::HookBinaryMissing {
                scope,
                event,
                command,
            });
        } else if !hook.current {
            findings.push(Finding::HookNotCurrent {
                scope,
                event,
                command,
            });
        }
        check.hooks.push(hook);
    }
    Some(check)
}

fn check_installed(
    settings: &[SettingsCheck],
    plugins: &[PluginCheck],
    findings: &mut Vec<Finding>,
) {
    if settings.iter().all(|check| check.hooks.is_empty())
        && !plugins.iter().any(|plugin| plugin.enabled)
    {
        findings.push(Finding::NotInstalled);
    }
}

/// An enabled plugin's hook whose program is missing is broken; the same events registered by
/// an enabled plugin and a settings file run twice.
fn check_plugins(plugins: &[PluginCheck], settings: &[SettingsCheck], findings: &mut Vec<Finding>) {
    for plugin in plugins.iter().filter(|plugin| plugin.enabled) {
        for hook in plugin.hooks.iter().filter(|hook| !hook.binary_exists) {
            findings.push(Finding::PluginHookBinaryMissing {
                plugin: plugin.id.clone(),
                event: hook.event.clone(),
                command: hook.command.clone(),
                program: hook.program.clone(),
            });
        }
        let events = distinct(plugin.hooks.iter().map(|hook| &hook.event).filter(|event| {
            settings
                .iter()
                .any(|check| check.hooks.iter().any(|other| other.event == **event))
        }));
        if !events.is_empty() {
            findings.push(Finding::HooksRegisteredTwice {
                plugin: plugin.id.clone(),
                settings: settings
                    .iter()
                    .filter(|check| check.hooks.iter().any(|hook| events.contains(&hook.event)))
                    .map(|check| check.path.clone())
                    .collect(),
                events,
            });
        }
    }
}

/// Every settings file the ownership record (`installs`, when it could be read) says we
/// installed into must still hold what we added: entries that are gone no longer run (Claude
/// Code's own settings writer has dropped `hooks` keys).
fn check_recorded_entries(installs: Option<&InstallsFile>, findings: &mut Vec<Finding>) {
    let recorded = installs
        .into_iter()
        .flat_map(|installs| &installs.settings_files);
    for (path, record) in recorded {
        let path = Path::new(path);
        let read = read_settings_bytes(path);
        // Not usable: reported as such when it is one of the scopes'.
        let Ok(value) = read
            .map_err(anyhow::Error::from)
            .and_then(|bytes| bytes.map(|bytes| parse_settings(path, &bytes)).transpose())
        else {
            continue;
        };
        // A file that is gone holds nothing (null).
        let file_gone = value.is_none();
        let value = value.unwrap_or_default();
        let gone = record
            .handlers
            .iter()
            .filter(|owned| !contains_handler(&value, owned));
        let events = distinct(gone.map(|owned| &owned.event));
        let status_line = record
            .status_line
            .as_ref()
            .is_some_and(|ours| value.get("statusLine") != Some(ours));
        if !events.is_empty() || status_line {
            findings.push(Finding::HooksRemovedFromSettings {
                path: path.to_path_buf(),
                events,
                status_line,
                file_gone,
            });
        }
    }
}

/// Warns about each settings file that registers ctxhooks for an event `claude` would refuse
/// the file over.
fn check_events_known(
    claude: &InstalledClaude,
    settings: &[SettingsCheck],
    findings: &mut Vec<Finding>,
) {
    let refused = refused_events(claude.version);
    for check in settings {
        let events = distinct(
            check
                .hooks
                .iter()
                .map(|hook| &hook.event)
                .filter(|event| refused.iter().any(|refused| refused.name() == **event)),
        );
        if !events.is_empty() {
            findings.push(Finding::HookEventUnknownToClaude {
                path: check.path.clone(),
                events,
                version: claude.version.to_string(),
                claude: claude.path.clone(),
            });
        }
    }
}

/// Claude Code's retention as its one reader tells it: the value that holds and where, the
/// default, or why its sweep deletes nothing.
fn check_retention(retention: &Retention, findings: &mut Vec<Finding>) {
    match (&retention.paused, &retention.set_in, retention.days) {
        (Some(paused), _, _) => findings.push(Finding::CleanupSweepPaused(paused.clone())),
        (None, Some(set_in), Some(days)) => findings.push(Finding::CleanupPeriodSet {
            days,
            path: set_in.path.clone(),
        }),
        _ => findings.extend(
            retention
                .files
                .iter()
                .find(|read| read.source == SettingsSource::User)
                .map(|user| Finding::CleanupPeriodUnset {
                    path: user.path.clone(),
                }),
        ),
    }
}

/// The events named, each once where it repeats in a row (the order the handlers come in).
fn distinct<'a>(events: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut events: Vec<String> = events.cloned().collect();
    events.dedup();
    events
}

fn check_hooks_disabled(settings: &[SettingsCheck], findings: &mut Vec<Finding>) {
    let disabled = settings.iter().filter(|check| check.disable_all_hooks);
    findings.extend(disabled.map(|check| Finding::HooksDisabled {
        path: check.path.clone(),
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retention::settings::SettingsRead;
    use ctxhooks_shared::test_support::TempFolder;

    fn codes(findings: &[Finding]) -> Vec<&'static str> {
        findings.iter().map(Finding::code).collect()
    }

    #[test]
    fn the_state_folder_must_be_a_private_folder() {
        let temp = TempFolder::new("state");
        let mut findings = Vec::new();
        let absent = check_state_dir(&StateDir::at(temp.path().join("absent")), &mut findings);
        assert!(!absent.exists);
        let file = temp.path().join("file");
        fs_err::write(&file, "").unwrap();
        check_state_dir(&StateDir::at(file), &mut findings);
        let open = temp.path().join("open");
        fs_err::create_dir(&open).unwrap();
        // Made without ctxhooks: 0755 on Unix, its folder's access list on Windows (0777 there).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            fs_err::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let open_mode = if cfg!(unix) { 0o755 } else { 0o777 };
        let check = check_state_dir(&StateDir::at(open.clone()), &mut findings);
        assert_eq!(check.mode, Some(format!("{open_mode:04o}")));
        assert_eq!(
            codes(&findings),
            [
                "state_dir_absent",
                "state_dir_not_a_folder",
                "state_dir_not_private"
            ]
        );
        assert_eq!(
            findings[2],
            Finding::StateDirNotPrivate {
                path: open,
                mode: open_mode
            }
        );
        assert_eq!(findings[1].severity(), Severity::Error);
    }

    #[test]
    fn missing_binaries_are_named() {
        let temp = TempFolder::new("binaries");
        fs_err::write(
            temp.path().join(binary_file_name(HOOK_BINARIES[0].name)),
            "",
        )
        .unwrap();
        let mut findings = Vec::new();
        let checks = check_binaries(Some(temp.path()), &mut findings);
        assert_eq!(checks.len(), HOOK_BINARIES.len());
        assert!(checks[0].present);
        assert!(checks[1..].iter().all(|check| !check.present));
        assert_eq!(findings.len(), HOOK_BINARIES.len() - 1);
        assert!(matches!(
            &findings[0],
            Finding::BinaryMissing { name, dir: Some(dir) }
                if *name == HOOK_BINARIES[1].name && *dir == temp.path()
        ));
    }

    #[test]
    fn a_settings_file_is_read_for_hooks_retention_and_disabled_hooks() {
        let temp = TempFolder::new("settings");
        let project = temp.path().join("project");
        let bin = temp.path().join("bin");
        fs_err::create_dir_all(project.join(".claude")).unwrap();
        fs_err::create_dir_all(&bin).unwrap();
        for binary in HOOK_BINARIES {
            fs_err::write(bin.join(binary_file_name(binary.name)), "").unwrap();
        }
        let planned = planned_handlers(&bin);
        let current = &planned[0];
        let stale = serde_json::json!({"type": "command", "command": bin.join(binary_file_name(HOOK_BINARIES[0].name)), "timeout": 5});
        let gone = serde_json::json!({"type": "command", "command": temp.path().join("gone").join(HOOK_BINARIES[1].name)});
        let settings = serde_json::json!({
            "cleanupPeriodDays": 90,
            "disableAllHooks": true,
            "hooks": {
                current.event.clone(): [{"hooks": [current.handler.clone()]}],
                "Stop": [{"hooks": [stale, gone, {"type": "command", "command": "/usr/bin/other-tool"}]}],
            }
        });
        fs_err::write(
            project.join(".claude/settings.json"),
            serde_json::to_vec(&settings).unwrap(),
        )
        .unwrap();
        let mut findings = Vec::new();
        let check =
            check_settings(SettingsScope::Project, &project, &planned, &mut findings).unwrap();
        assert!(check.exists);
        assert_eq!(check.cleanup_period_days, Some(serde_json::json!(90)));
        assert!(check.disable_all_hooks);
        let states: Vec<(bool, bool)> = check
            .hooks
            .iter()
            .map(|hook| (hook.binary_exists, hook.current))
            .collect();
        assert_eq!(states, [(true, true), (true, false), (false, false)]);
        assert_eq!(
            codes(&findings),
            ["hook_not_current", "hook_binary_missing"]
        );
        let settings = [check];
        check_installed(&settings, &[], &mut findings);
        check_hooks_disabled(&settings, &mut findings);
        assert_eq!(codes(&findings)[2..], ["hooks_disabled"]);
    }

    #[test]
    fn the_retention_finding_says_what_holds_the_default_or_why_nothing_is_deleted() {
        let read = |source, value: Option<serde_json::Value>| SettingsRead {
            source,
            path: PathBuf::from(format!("/{source:?}.json").to_lowercase()),
            value,
            problem: None,
        };
        let finding = |files| {
            let mut findings = Vec::new();
            check_retention(&Retention::of(files), &mut findings);
            findings
        };
        assert_eq!(
            finding(vec![
                read(SettingsSource::User, Some(serde_json::json!(365))),
                read(SettingsSource::Project, Some(serde_json::json!(90))),
            ]),
            [Finding::CleanupPeriodSet {
                days: 90,
                path: PathBuf::from("/project.json")
            }]
        );
        assert_eq!(
            finding(vec![read(SettingsSource::User, None)]),
            [Finding::CleanupPeriodUnset {
                path: PathBuf::from("/user.json")
            }]
        );
        assert_eq!(
            codes(&finding(vec![read(
                SettingsSource::Local,
                Some(serde_json::json!(0))
            )])),
            ["cleanup_sweep_paused"]
        );
    }

    #[test]
    fn a_settings_file_that_is_not_json_is_broken_and_no_file_is_nothing() {
        let temp = TempFolder::new("invalid");
        let project = temp.path().join("project");
        fs_err::create_dir_all(project.join(".claude")).unwrap();
        let mut findings = Vec::new();
        let absent = check_settings(SettingsScope::Local, &project, &[], &mut findings).unwrap();
        assert!(!absent.exists && findings.is_empty());
        fs_err::write(project.join(".claude/settings.json"), "{not json").unwrap();
        let check = check_settings(SettingsScope::Project, &project, &[], &mut findings).unwrap();
        assert!(check.problem.is_some());
        assert_eq!(codes(&findings), ["settings_invalid"]);
        assert_eq!(findings[0].severity(), Severity::Error);
        let settings = [absent, check];
        check_installed(&settings, &[], &mut findings);
        assert_eq!(codes(&findings)[1], "not_installed");
    }

    #[test]
    fn a_broken_report_is_one_with_an_error_finding() {
        let report = |findings| DoctorReport {
            state_dir: StateDirCheck {
                path: PathBuf::new(),
                exists: true,
                mode: None,
            },
            claude: None,
            binaries_dir: None,
            binaries: Vec::new(),
            settings: Vec::new(),
            plugins: Vec::new(),
            activity: Activity {
                hooks: Vec::new(),
                sessions_logged: 0,
                sessions_kept: 0,
                sessions_with_snapshots: 0,
            },
            errors_log: PathBuf::new(),
            recent_errors: Vec::new(),
            snapshot_count: None,
            cleanup: None,
            storage: None,
            findings,
        };
        assert!(!report(vec![Finding::NotInstalled]).is_broken());
        assert!(
            report(vec![Finding::StateDirNotAFolder {
                path: PathBuf::new()
            }])
            .is_broken()
        );
    }
}
