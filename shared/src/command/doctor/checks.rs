//! `ctxhooks doctor`'s checks: the state folder, the binaries, each scope's settings file,
//! Claude Code's transcript retention, recent hook errors and the snapshot count, as findings.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;
use serde_json::Value;

use crate::command::archives::catalog::scan_archive;
use crate::command::install::document::parse_settings;
use crate::command::install::handlers::{binaries_in, is_ctxhooks_command, planned_handlers};
use crate::command::install::ownership::{InstallsFile, installs_path};
use crate::command::install::scope::{SettingsScope, resolve_settings_path};
use crate::hook::table::HOOK_BINARIES;
use crate::store::error_log::{self, ErrorRecord};
use crate::store::files;
use crate::store::state_dir::StateDir;

/// How many of the newest `errors.log` lines the report shows.
pub const RECENT_ERRORS: usize = 10;

/// The `cleanupPeriodDays` value `doctor` suggests when it is unset (Claude Code's default, 30
/// days, deletes transcripts older than that).
pub const SUGGESTED_CLEANUP_PERIOD_DAYS: u64 = 365;

/// How serious a finding is. Any `Error` makes `ctxhooks doctor` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth knowing, nothing to do.
    Info,
    /// Works, but something should be done (data may be lost, hooks may be missing).
    Warning,
    /// Broken: a hook cannot run or a file cannot be read.
    Error,
}

/// One thing `doctor` wants the user to know.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// How serious it is.
    pub severity: Severity,
    /// A stable short name for programs, such as `cleanup_period_unset`.
    pub code: String,
    /// The finding in words, with what to do.
    pub message: String,
}

impl Finding {
    /// A finding.
    pub fn new(severity: Severity, code: &str, message: impl Into<String>) -> Self {
        Self {
            severity,
            code: code.to_owned(),
            message: message.into(),
        }
    }
}

/// A check that other modules contribute to `doctor`: it looks at the state folder and returns
/// its findings. An error is turned into an `Error` finding naming the check.
pub type ExtraCheck = fn(&StateDir) -> Result<Vec<Finding>>;

/// The extension point: checks from other modules, run after the built-in ones, each with a
/// name.
pub const EXTRA_CHECKS: &[(&str, ExtraCheck)] = &[(
    "runtime interrupt marks",
    runtime_marks_without_interrupt_records,
)];

/// Warns, loudly, about every runtime interrupt mark that no interrupt record follows in its
/// transcript: either the interrupt has not reached the transcript yet, or the SDK changed its
/// wording or fields and `ledger-input` can no longer relabel its interrupts.
fn runtime_marks_without_interrupt_records(state: &StateDir) -> Result<Vec<Finding>> {
    let mut findings = Vec::new();
    for (session, unmatched) in
        crate::command::provenance::marks::unmatched_marks_in_all_sessions(state)?
    {
        for mark in unmatched {
            findings.push(Finding::new(
                Severity::Warning,
                "runtime_mark_without_interrupt",
                format!(
                    "session {session}: the runtime mark at {} ms ({}) has no interrupt record \
                     after it: {}. Check `ctxhooks provenance --session={session}`",
                    mark.mark.time_ms, mark.mark.reason, mark.reason
                ),
            ));
        }
    }
    for session in state.session_ids()? {
        let sidecar = crate::command::provenance::sidecar::read_sidecar(&state.sidecar(&session))?;
        for problem in &sidecar.mark_problems {
            findings.push(Finding::new(
                Severity::Warning,
                "runtime_mark_unreadable",
                format!(
                    "session {session}: sidecar line {} is a runtime interrupt mark that is not \
                     valid JSON: {}. Fix the runtime that writes it (see docs/provenance.md) and \
                     check `ctxhooks provenance --session={session}`",
                    problem.line, problem.problem
                ),
            ));
        }
    }
    Ok(findings)
}

/// What `doctor` looks at.
#[derive(Debug, Clone)]
pub struct DoctorInput {
    /// The state folder.
    pub state: StateDir,
    /// The folder holding the running `ctxhooks` (where the hook binaries should be), if known.
    pub binaries_dir: Option<PathBuf>,
    /// The project folder for the project and local scopes (the current folder).
    pub project_dir: PathBuf,
}

/// The state folder's condition.
#[derive(Debug, Clone, Serialize)]
pub struct StateDirCheck {
    /// The folder.
    pub path: PathBuf,
    /// Whether it exists.
    pub exists: bool,
    /// Its permission bits in octal, such as `0700`, if it exists.
    pub mode: Option<String>,
}

/// One hook binary beside `ctxhooks`.
#[derive(Debug, Clone, Serialize)]
pub struct BinaryCheck {
    /// Its file name.
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
    /// Whether that program exists.
    pub binary_exists: bool,
    /// Whether it is exactly what `ctxhooks install` would register now.
    pub current: bool,
}

/// One scope's settings file.
#[derive(Debug, Clone, Serialize)]
pub struct SettingsCheck {
    /// The scope.
    pub scope: SettingsScope,
    /// The file.
    pub path: PathBuf,
    /// Whether it exists.
    pub exists: bool,
    /// Why it cannot be used, if it cannot (not JSON, wrong shape, unreadable).
    pub problem: Option<String>,
    /// The ctxhooks handlers in it.
    pub hooks: Vec<RegisteredHook>,
    /// `cleanupPeriodDays` as set in this file, if it is.
    pub cleanup_period_days: Option<Value>,
    /// Whether this file sets `disableAllHooks: true`.
    pub disable_all_hooks: bool,
}

/// Everything `doctor` found.
#[derive(Debug, Clone, Serialize)]
pub struct DoctorReport {
    /// The state folder.
    pub state_dir: StateDirCheck,
    /// The folder holding the running `ctxhooks`.
    pub binaries_dir: Option<PathBuf>,
    /// The hook binaries beside it.
    pub binaries: Vec<BinaryCheck>,
    /// The user, project and local settings files.
    pub settings: Vec<SettingsCheck>,
    /// The error log.
    pub errors_log: PathBuf,
    /// Its newest lines, oldest first.
    pub recent_errors: Vec<ErrorRecord>,
    /// How many transcript snapshots the archive holds (`None` if they could not be listed).
    pub snapshot_count: Option<usize>,
    /// The findings, most serious first.
    pub findings: Vec<Finding>,
}

impl DoctorReport {
    /// Whether something is broken (any `Error` finding).
    pub fn is_broken(&self) -> bool {
        self.findings
            .iter()
            .any(|finding| finding.severity == Severity::Error)
    }
}

/// Runs every check.
pub fn doctor_report(input: &DoctorInput) -> DoctorReport {
    let mut findings = Vec::new();
    let state_dir = check_state_dir(&input.state, &mut findings);
    let binaries = check_binaries(input.binaries_dir.as_deref(), &mut findings);
    let planned = input
        .binaries_dir
        .as_deref()
        .map(planned_handlers)
        .unwrap_or_default();
    let settings: Vec<SettingsCheck> = SettingsScope::ALL
        .iter()
        .filter_map(|scope| check_settings(*scope, &input.project_dir, &planned, &mut findings))
        .collect();
    check_installed(&settings, &mut findings);
    check_retention(&settings, &mut findings);
    check_hooks_disabled(&settings, &mut findings);
    if let Err(error) = InstallsFile::load(&input.state) {
        findings.push(Finding::new(
            Severity::Error,
            "ownership_record_unreadable",
            format!(
                "{error:#}; `ctxhooks install`/`uninstall` refuse to run until `{}` is fixed",
                installs_path(&input.state).display()
            ),
        ));
    }
    let errors_log = input.state.errors_log();
    let recent_errors = match error_log::read_recent(&errors_log, RECENT_ERRORS) {
        Ok(records) => records,
        Err(error) => {
            findings.push(Finding::new(
                Severity::Warning,
                "errors_log_unreadable",
                format!("failed to read `{}`: {error:#}", errors_log.display()),
            ));
            Vec::new()
        }
    };
    if !recent_errors.is_empty() {
        findings.push(Finding::new(
            Severity::Warning,
            "recent_hook_errors",
            format!(
                "the hooks logged errors; the newest {} are shown; read them all with `less {}`",
                recent_errors.len(),
                errors_log.display()
            ),
        ));
    }
    let snapshot_count = match scan_archive(&input.state, None) {
        Ok(catalog) => {
            if !catalog.broken.is_empty() {
                findings.push(Finding::new(
                    Severity::Warning,
                    "snapshots_damaged",
                    format!(
                        "{} archive folder(s) are not readable snapshots, e.g. `{}`; run `ctxhooks archives verify`",
                        catalog.broken.len(),
                        catalog.broken[0].path.display()
                    ),
                ));
            }
            if !catalog.unfinished.is_empty() {
                findings.push(Finding::new(
                    Severity::Info,
                    "snapshots_unfinished",
                    format!(
                        "{} snapshot(s) were never finished (a PreCompact hook was stopped); \
                         `ctxhooks archives prune` removes them once they are an hour old",
                        catalog.unfinished.len()
                    ),
                ));
            }
            Some(catalog.entries.len())
        }
        Err(error) => {
            findings.push(Finding::new(
                Severity::Warning,
                "snapshots_unlistable",
                format!("failed to list the transcript snapshots: {error:#}"),
            ));
            None
        }
    };
    for (name, check) in EXTRA_CHECKS {
        match check(&input.state) {
            Ok(extra) => findings.extend(extra),
            Err(error) => findings.push(Finding::new(
                Severity::Error,
                "check_failed",
                format!("the `{name}` check failed: {error:#}"),
            )),
        }
    }
    findings.sort_by_key(|finding| std::cmp::Reverse(finding.severity));
    DoctorReport {
        state_dir,
        binaries_dir: input.binaries_dir.clone(),
        binaries,
        settings,
        errors_log,
        recent_errors,
        snapshot_count,
        findings,
    }
}

fn check_state_dir(state: &StateDir, findings: &mut Vec<Finding>) -> StateDirCheck {
    let path = state.root().to_path_buf();
    let metadata = fs_err::metadata(&path).ok();
    let mode = metadata
        .as_ref()
        .map(|metadata| metadata.permissions().mode() & 0o7777);
    match (&metadata, mode) {
        (None, _) => findings.push(Finding::new(
            Severity::Info,
            "state_dir_absent",
            format!(
                "the state folder `{}` does not exist yet; the first hook run creates it",
                path.display()
            ),
        )),
        (Some(metadata), _) if !metadata.is_dir() => findings.push(Finding::new(
            Severity::Error,
            "state_dir_not_a_folder",
            format!("`{}` is not a folder; the hooks cannot write there", path.display()),
        )),
        (Some(_), Some(mode)) if mode != files::PRIVATE_DIR_MODE => findings.push(Finding::new(
            Severity::Warning,
            "state_dir_not_private",
            format!(
                "the state folder `{}` has mode {mode:04o}; archives may hold secrets: `chmod 700 {}`",
                path.display(),
                path.display()
            ),
        )),
        _ => {}
    }
    StateDirCheck {
        exists: metadata.is_some(),
        mode: mode.map(|mode| format!("{mode:04o}")),
        path,
    }
}

fn check_binaries(dir: Option<&Path>, findings: &mut Vec<Finding>) -> Vec<BinaryCheck> {
    let present = dir.map(binaries_in).unwrap_or_default();
    HOOK_BINARIES
        .iter()
        .map(|binary| {
            let path = dir.map(|dir| dir.join(binary.name));
            let found = present.iter().any(|(found, _)| found.name == binary.name);
            if !found {
                findings.push(Finding::new(
                    Severity::Warning,
                    "binary_missing",
                    format!(
                        "`{}` is not beside `ctxhooks`{}; its events cannot be installed",
                        binary.name,
                        dir.map(|dir| format!(" in `{}`", dir.display()))
                            .unwrap_or_default()
                    ),
                ));
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
    planned: &[crate::command::install::handlers::OwnedHandler],
    findings: &mut Vec<Finding>,
) -> Option<SettingsCheck> {
    let path = match scope.settings_path(project_dir) {
        Ok(path) => resolve_settings_path(&path).unwrap_or(path),
        Err(error) => {
            findings.push(Finding::new(
                Severity::Warning,
                "settings_path_unknown",
                format!(
                    "cannot locate the {} settings file: {error:#}",
                    scope.name()
                ),
            ));
            return None;
        }
    };
    let mut check = SettingsCheck {
        scope,
        path: path.clone(),
        exists: false,
        problem: None,
        hooks: Vec::new(),
        cleanup_period_days: None,
        disable_all_hooks: false,
    };
    let bytes = match fs_err::read(&path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Some(check),
        Err(error) => {
            check.exists = path.exists();
            check.problem = Some(format!("{error:#}"));
            findings.push(Finding::new(
                Severity::Error,
                "settings_unreadable",
                format!("cannot read the {} settings: {error:#}", scope.name()),
            ));
            return Some(check);
        }
    };
    check.exists = true;
    let value = match parse_settings(&path, &bytes) {
        Ok(value) => value,
        Err(error) => {
            check.problem = Some(format!("{error:#}"));
            findings.push(Finding::new(
                Severity::Error,
                "settings_invalid",
                format!(
                    "the {} settings file is not usable: {error:#}",
                    scope.name()
                ),
            ));
            return Some(check);
        }
    };
    check.cleanup_period_days = value.get("cleanupPeriodDays").cloned();
    check.disable_all_hooks = value.get("disableAllHooks") == Some(&Value::Bool(true));
    for (event, groups) in value
        .get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        for handler in groups
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|group| group.get("hooks").and_then(Value::as_array))
            .flatten()
            .filter(|handler| is_ctxhooks_command(handler))
        {
            let command = handler
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let binary_exists = Path::new(&command).is_file();
            let current = planned
                .iter()
                .any(|owned| &owned.event == event && &owned.handler == handler);
            if !binary_exists {
                findings.push(Finding::new(
                    Severity::Error,
                    "hook_binary_missing",
                    format!(
                        "the {} settings run `{command}` on {event}, which does not exist; \
                         run `ctxhooks install --scope {}` again",
                        scope.name(),
                        scope.name()
                    ),
                ));
            } else if !current {
                findings.push(Finding::new(
                    Severity::Warning,
                    "hook_not_current",
                    format!(
                        "the {} settings' {event} handler differs from what this ctxhooks \
                         installs ({command}); run `ctxhooks install --scope {}` to update it",
                        scope.name(),
                        scope.name()
                    ),
                ));
            }
            check.hooks.push(RegisteredHook {
                event: event.clone(),
                command,
                binary_exists,
                current,
            });
        }
    }
    Some(check)
}

fn check_installed(settings: &[SettingsCheck], findings: &mut Vec<Finding>) {
    if settings.iter().all(|check| check.hooks.is_empty()) {
        findings.push(Finding::new(
            Severity::Warning,
            "not_installed",
            "no settings file registers the ctxhooks hooks; run `ctxhooks install`",
        ));
    }
}

fn check_retention(settings: &[SettingsCheck], findings: &mut Vec<Finding>) {
    if let Some(set) = settings
        .iter()
        .find(|check| check.cleanup_period_days.is_some())
    {
        let days = set.cleanup_period_days.as_ref().map(ToString::to_string);
        findings.push(Finding::new(
            Severity::Info,
            "cleanup_period_set",
            format!(
                "Claude Code keeps transcripts for {} days (`cleanupPeriodDays` in `{}`)",
                days.unwrap_or_default(),
                set.path.display()
            ),
        ));
        return;
    }
    let Some(user) = settings
        .iter()
        .find(|check| check.scope == SettingsScope::User && check.problem.is_none())
    else {
        return;
    };
    findings.push(Finding::new(
        Severity::Warning,
        "cleanup_period_unset",
        format!(
            "`cleanupPeriodDays` is not set in `{}`: Claude Code deletes transcripts older than 30 \
             days by default; add `\"cleanupPeriodDays\": {SUGGESTED_CLEANUP_PERIOD_DAYS}` to keep \
             them longer",
            user.path.display()
        ),
    ));
}

fn check_hooks_disabled(settings: &[SettingsCheck], findings: &mut Vec<Finding>) {
    for check in settings.iter().filter(|check| check.disable_all_hooks) {
        findings.push(Finding::new(
            Severity::Warning,
            "hooks_disabled",
            format!(
                "`disableAllHooks` is true in `{}`: Claude Code runs no hook, ctxhooks included",
                check.path.display()
            ),
        ));
    }
}
