//! Doctor's report in words: the text for people, and the JSON for programs with each finding's
//! message.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::activity::HookOutcome;
use super::checks::{DoctorReport, SUGGESTED_CLEANUP_PERIOD_DAYS};
use super::findings::{Finding, Severity};
use super::storage::{GROWTH_DAYS, StorageCheck};
use crate::retention::settings::Paused;
use crate::retention::sweep::DUE_WITHIN_DAYS;
use crate::retention::text::retention_text;
use crate::sessions::text::human_bytes;
use crate::time::{Time, readable};

/// The report as the JSON value `ctxhooks doctor --json` prints: every field of the report, and
/// `findings` as `{severity, code, message}` objects, most serious first.
pub fn report_json(report: &DoctorReport) -> Value {
    let mut value = serde_json::to_value(report).unwrap_or(Value::Null);
    let findings: Vec<Value> = report
        .findings
        .iter()
        .map(|finding| {
            json!({
                "severity": finding.severity(),
                "code": finding.code(),
                "message": finding_message(finding),
            })
        })
        .collect();
    if let Some(object) = value.as_object_mut() {
        object.insert("findings".to_owned(), Value::Array(findings));
    }
    value
}

/// A finding in words, with what to do.
pub fn finding_message(finding: &Finding) -> String {
    match finding {
        Finding::StateDirAbsent { path } => format!(
            "the state folder `{}` does not exist yet; the first hook run creates it",
            path.display()
        ),
        Finding::StateDirNotAFolder { path } => format!(
            "`{}` is not a folder; the hooks cannot write there",
            path.display()
        ),
        Finding::StateDirNotPrivate { path, mode } => format!(
            "the state folder `{}` has mode {mode:04o}; archives may hold secrets: `chmod 700 {}`",
            path.display(),
            path.display()
        ),
        Finding::BinaryMissing { name, dir } => format!(
            "`{name}` is not beside `ctxhooks`{}; its events cannot be installed",
            dir.as_ref()
                .map(|dir| format!(" in `{}`", dir.display()))
                .unwrap_or_default()
        ),
        Finding::SettingsPathUnknown { scope, error } => {
            format!("cannot locate the {} settings file: {error}", scope.name())
        }
        Finding::SettingsUnreadable { scope, error } => {
            format!("cannot read the {} settings: {error}", scope.name())
        }
        Finding::SettingsInvalid { scope, error } => {
            format!("the {} settings file is not usable: {error}", scope.name())
        }
        Finding::HookBinaryMissing {
            scope,
            event,
            command,
        } => format!(
            "the {} settings run `{command}` on {event}, which does not exist; run `ctxhooks \
             install --scope {}` again",
            scope.name(),
            scope.name()
        ),
        Finding::HookNotCurrent {
            scope,
            event,
            command,
        } => format!(
            "the {} settings' {event} handler differs from what this ctxhooks installs \
             ({command}); run `ctxhooks install --scope {}` to update it",
            scope.name(),
            scope.name()
        ),
        Finding::NotInstalled => "no settings file and no enabled plugin registers the \
                                  ctxhooks hooks; run `ctxhooks install` (or install the plugin: \
                                  /plugin install ctxhooks@ctxhooks)"
            .to_owned(),
        Finding::HooksRemovedFromSettings {
            path,
            events,
            status_line,
            file_gone,
        } => {
            let mut gone = Vec::new();
            if !events.is_empty() {
                gone.push(format!("the hooks for {}", events.join(", ")));
            }
            if *status_line {
                gone.push("the status line".to_owned());
            }
            let what = if *file_gone {
                format!("`{}` is gone", path.display())
            } else {
                format!(
                    "{} that ctxhooks installed in `{}` are gone (something rewrote the file; \
                     Claude Code's own settings writer has dropped `hooks` keys)",
                    gone.join(" and "),
                    path.display()
                )
            };
            format!(
                "{what}: they no longer run. Put them back with `ctxhooks install --settings \
                 {}{}`",
                path.display(),
                if *status_line { " --statusline" } else { "" }
            )
        }
        Finding::PluginHookBinaryMissing {
            plugin,
            event,
            command,
            program,
        } => format!(
            "the plugin {plugin} runs `{command}` on {event}, and {} does not exist: install the \
             binaries with `install/setup.sh --plugin`, or set CTXHOOKS_BIN_DIR in Claude Code's \
             environment to the folder that holds them",
            program.as_ref().map_or_else(
                || "its program".to_owned(),
                |program| format!("`{}`", program.display())
            )
        ),
        Finding::HooksRegisteredTwice {
            plugin,
            events,
            settings,
        } => format!(
            "the hooks for {} are registered twice, by the plugin {plugin} and in {}: Claude Code \
             runs both (tool events are recorded twice, each compaction snapshotted twice). Keep \
             one: `ctxhooks uninstall` for the settings file, or `claude plugin uninstall \
             {plugin}`",
            events.join(", "),
            settings
                .iter()
                .map(|path| format!("`{}`", path.display()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Finding::PluginsUnreadable { error } => {
            format!("cannot read Claude Code's list of installed plugins: {error}")
        }
        Finding::CleanupPeriodSet { days, path } => format!(
            "Claude Code keeps transcripts for {days} days (`cleanupPeriodDays` in `{}`)",
            path.display()
        ),
        Finding::CleanupPeriodUnset { path } => format!(
            "`cleanupPeriodDays` is not set in `{}`: Claude Code deletes transcripts older than 30 \
             days by default; add `\"cleanupPeriodDays\": {SUGGESTED_CLEANUP_PERIOD_DAYS}` to keep \
             them longer",
            path.display()
        ),
        Finding::StorageConfigUnusable { path, error } => format!(
            "`{}` cannot be used ({error}); no storage limit applies until it is fixed",
            path.display()
        ),
        Finding::PrunedOnlyCopies { day, count, by } => format!(
            "on {day}, {} deleted {count} session(s)' kept copies that were the only copy left \
             (Claude Code had deleted their transcripts); `pruned.jsonl` in the state folder \
             names them",
            if by == "config" {
                "the configured storage limit"
            } else {
                "`ctxhooks archives prune`"
            }
        ),
        Finding::SessionsDeletedKept { count } => format!(
            "{count} session(s) whose transcript Claude Code deleted are kept only by ctxhooks: \
             `ctxhooks sessions` lists them, `ctxhooks archives restore --deleted` writes them back \
             for `claude --resume`"
        ),
        Finding::SessionsDueForDeletion { count, days } => format!(
            "Claude Code deletes the transcript of {count} session(s) within {days} days (ctxhooks \
             keeps them all the same; `ctxhooks sessions` marks them `due`)"
        ),
        Finding::CleanupSweepPaused(Paused::InvalidValue { path, value }) => format!(
            "Claude Code deletes no transcripts while `cleanupPeriodDays` is {value} in `{}`: it \
             refuses any value but a whole number of at least 1, and skips its cleanup until the \
             value is fixed",
            path.display()
        ),
        Finding::CleanupSweepPaused(Paused::UnreadableSettings { path, problem }) => format!(
            "Claude Code deletes no transcripts while `{}` cannot be read ({problem}): it may set \
             a `cleanupPeriodDays` Claude Code cannot see, so it skips its cleanup",
            path.display()
        ),
        Finding::HookEventUnknownToClaude {
            path,
            events,
            version,
            claude,
        } => format!(
            "`{}` registers ctxhooks for {}, which Claude Code {version} (`{}`) does not know: \
             before 2.1.101 it skips the whole file, every hook in it. Update Claude Code, or run \
             `ctxhooks install` again, which leaves those events out",
            path.display(),
            events.join(", "),
            claude.display()
        ),
        Finding::HooksDisabled { path } => format!(
            "`disableAllHooks` is true in `{}`: Claude Code runs no hook, ctxhooks included",
            path.display()
        ),
        Finding::OwnershipRecordUnreadable { error, path } => format!(
            "{error}; `ctxhooks install`/`uninstall` refuse to run until `{}` is fixed",
            path.display()
        ),
        Finding::ErrorsLogUnreadable { path, error } => {
            format!("failed to read `{}`: {error}", path.display())
        }
        Finding::RecentHookErrors { shown, path } => format!(
            "the hooks logged errors; the newest {shown} are shown; read them all with `less {}`",
            path.display()
        ),
        Finding::SnapshotsDamaged { count, example } => format!(
            "{count} archive folder(s) are not readable snapshots, e.g. `{}`; run `ctxhooks \
             archives verify`",
            example.display()
        ),
        Finding::SnapshotsUnfinished { count } => format!(
            "{count} snapshot(s) were never finished (a PreCompact hook was stopped); `ctxhooks \
             archives prune` (or the next snapshot of the session) removes them once they are four minutes old"
        ),
        Finding::SnapshotsUnlistable { error } => {
            format!("failed to list the transcript snapshots: {error}")
        }
        Finding::RuntimeMarkWithoutInterrupt {
            session,
            time_ms,
            reason,
            why,
        } => format!(
            "session {session}: the runtime mark of {} ({reason}) has no interrupt record after \
             it: {why}. Check `ctxhooks provenance --session={session}`",
            i64::try_from(*time_ms)
                .ok()
                .and_then(DateTime::<Utc>::from_timestamp_millis)
                .map_or_else(|| format!("{time_ms} ms"), readable)
        ),
        Finding::RuntimeMarkUnreadable {
            session,
            line,
            problem,
        } => format!(
            "session {session}: sidecar line {line} cannot be read as a runtime interrupt mark: \
             {problem}. Fix the runtime that writes it (see docs/provenance.md) and check \
             `ctxhooks provenance --session={session}`"
        ),
        Finding::CheckFailed { check, error } => format!("the `{check}` check failed: {error}"),
    }
}

/// A time for people with how long ago it was: `2026-12-01 06:38:26 UTC (5 min ago)`.
pub fn relative_time(time: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let seconds = (now - time).num_seconds();
    let ago = match seconds {
        ..0 => "in the future".to_owned(),
        0..60 => "just now".to_owned(),
        60..3_600 => format!("{} min ago", seconds / 60),
        3_600..86_400 => format!("{} h ago", seconds / 3_600),
        _ => format!("{} days ago", seconds / 86_400),
    };
    format!("{} ({ago})", readable(time))
}

/// The report as text.
pub fn report_text(report: &DoctorReport) -> String {
    let mut text = String::new();
    let state = &report.state_dir;
    let _ = writeln!(
        text,
        "state folder   {}  ({})",
        state.path.display(),
        state.mode.as_ref().map_or_else(
            || "not created yet".to_owned(),
            |mode| format!("mode {mode}")
        )
    );
    let _ = writeln!(
        text,
        "binaries       {}",
        report
            .binaries_dir
            .as_ref()
            .map_or_else(|| "(unknown)".to_owned(), |dir| dir.display().to_string())
    );
    for binary in &report.binaries {
        let mark = if binary.present { "ok     " } else { "MISSING" };
        let _ = writeln!(text, "  {mark}  {}", binary.name);
    }
    let _ = writeln!(
        text,
        "claude         {}",
        report.claude.as_ref().map_or_else(
            || "(none on PATH: events are registered for the current Claude Code)".to_owned(),
            |claude| format!("{} ({})", claude.version, claude.path.display())
        )
    );
    let _ = writeln!(text, "settings");
    for check in &report.settings {
        let status = match (&check.problem, check.exists) {
            (Some(_), _) => "NOT USABLE".to_owned(),
            (None, false) => "absent".to_owned(),
            (None, true) => format!("{} ctxhooks handler(s)", check.hooks.len()),
        };
        let _ = writeln!(
            text,
            "  {:<8} {}  ({status})",
            check.scope.name(),
            check.path.display()
        );
        for hook in &check.hooks {
            let mark = match (hook.binary_exists, hook.current) {
                (false, _) => "MISSING",
                (true, false) => "stale  ",
                (true, true) => "ok     ",
            };
            let _ = writeln!(text, "    {mark}  {:<19} {}", hook.event, hook.command);
        }
        if let Some(command) = &check.status_line {
            let _ = writeln!(text, "    status line          {command}");
        }
    }
    if !report.plugins.is_empty() {
        let _ = writeln!(text, "plugins");
    }
    for plugin in &report.plugins {
        let _ = writeln!(
            text,
            "  {}  ({}{}, {})",
            plugin.id,
            if plugin.enabled {
                "enabled"
            } else {
                "disabled"
            },
            plugin
                .scope
                .as_ref()
                .map(|scope| format!(", {scope} scope"))
                .unwrap_or_default(),
            plugin.install_path.display()
        );
        for hook in &plugin.hooks {
            let mark = if hook.binary_exists {
                "ok     "
            } else {
                "MISSING"
            };
            let _ = writeln!(text, "    {mark}  {:<19} {}", hook.event, hook.command);
        }
    }
    let activity = &report.activity;
    let now = Utc::now();
    let _ = writeln!(
        text,
        "hooks at work  {} session(s) logged, {} kept, {} with snapshots",
        activity.sessions_logged, activity.sessions_kept, activity.sessions_with_snapshots
    );
    for hook in &activity.hooks {
        let wrote = hook
            .last_trace
            .as_ref()
            .and_then(Time::instant)
            .map_or_else(
                || format!("nothing written yet ({})", hook.trace),
                |time| format!("wrote {} {}", hook.trace, relative_time(time, now)),
            );
        let outcome = match hook.outcome {
            HookOutcome::Ok => "ok   ",
            HookOutcome::Error => "ERROR",
            HookOutcome::NoTrace => "-    ",
        };
        let _ = writeln!(text, "  {:<20} {outcome}  {wrote}", hook.hook);
        if let Some(error) = hook.last_error.as_ref() {
            let time = Time::parse(&error.time)
                .instant()
                .map_or_else(|| "?".to_owned(), |time| relative_time(time, now));
            let _ = writeln!(
                text,
                "  {:<20}        {} error(s) logged, the last {time}: {}",
                "",
                hook.errors,
                error.error.join(": ")
            );
        }
    }
    if let Some(cleanup) = &report.cleanup {
        let _ = writeln!(
            text,
            "cleanup        {}; {} session(s) it deleted kept here, {} due within {DUE_WITHIN_DAYS} \
             days",
            retention_text(&cleanup.retention),
            cleanup.deleted_kept,
            cleanup.due_within_7_days
        );
    }
    if let Some(storage) = &report.storage {
        storage_text(&mut text, storage);
    }
    let _ = writeln!(
        text,
        "snapshots      {}",
        report
            .snapshot_count
            .map_or_else(|| "(could not list)".to_owned(), |count| count.to_string())
    );
    if report.recent_errors.is_empty() {
        let _ = writeln!(
            text,
            "hook errors    none in {}",
            report.errors_log.display()
        );
    } else {
        let _ = writeln!(
            text,
            "hook errors    newest {} of {} (read all: less {})",
            report.recent_errors.len(),
            report.errors_log.display(),
            report.errors_log.display()
        );
        for record in &report.recent_errors {
            let mut where_ = record.hook.clone();
            if let Some(event) = &record.event {
                let _ = write!(where_, " {event}");
            }
            if let Some(session) = &record.session_id {
                let _ = write!(where_, " session {session}");
            }
            let time = Time::parse(&record.time).instant().map_or_else(
                || {
                    if record.time.is_empty() {
                        "?".to_owned()
                    } else {
                        record.time.clone()
                    }
                },
                readable,
            );
            let where_ = where_.trim();
            let separator = if where_.is_empty() { "" } else { ": " };
            let _ = writeln!(
                text,
                "  {time}  {where_}{separator}{}",
                record.error.join(": ")
            );
        }
    }
    if !report.findings.is_empty() {
        text.push('\n');
    }
    for finding in &report.findings {
        let label = match finding.severity() {
            Severity::Error => "error  ",
            Severity::Warning => "warning",
            Severity::Info => "info   ",
        };
        let _ = writeln!(text, "{label}  {}", finding_message(finding));
    }
    let count = |severity| {
        report
            .findings
            .iter()
            .filter(|finding| finding.severity() == severity)
            .count()
    };
    let _ = writeln!(
        text,
        "\n{}: {} error(s), {} warning(s)",
        if report.is_broken() { "BROKEN" } else { "ok" },
        count(Severity::Error),
        count(Severity::Warning)
    );
    text
}

/// The state folder's size, growth and limits, in words.
fn storage_text(text: &mut String, storage: &StorageCheck) {
    let _ = writeln!(
        text,
        "storage        {} in the state folder (kept copies and snapshots {}, logs {}); +{} in \
         the last {GROWTH_DAYS} days",
        human_bytes(storage.bytes),
        human_bytes(storage.copy_bytes),
        human_bytes(storage.log_bytes),
        human_bytes(storage.grown_bytes),
    );
    let limits = match &storage.limits {
        None => "none: nothing is deleted automatically (`ctxhooks archives prune --kept \
                 --older-than DAYS` lists what it would delete)"
            .to_owned(),
        Some(limits) => {
            let mut parts = Vec::new();
            if let Some(days) = limits.older_than_days {
                parts.push(format!("kept copies of sessions idle over {days} days"));
            }
            if let Some(max) = limits.max_bytes {
                parts.push(format!("the state folder within {}", human_bytes(max)));
            }
            if parts.is_empty() {
                "none set in config.json: nothing is deleted automatically".to_owned()
            } else {
                format!(
                    "{} (config.json; the Stop hook applies them daily)",
                    parts.join(", ")
                )
            }
        }
    };
    let _ = writeln!(text, "               limits: {limits}");
    if let Some(day) = &storage.last_prune_day {
        let _ = writeln!(
            text,
            "               last deletion {}: {} session(s), {}{} (by {})",
            day.day,
            day.sessions,
            human_bytes(day.bytes),
            if day.only_copies > 0 {
                format!(", {} of them the only copy left", day.only_copies)
            } else {
                String::new()
            },
            day.by
        );
    }
}
