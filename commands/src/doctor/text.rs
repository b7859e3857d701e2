//! Doctor's report in words: the text for people, and the JSON for programs with each finding's
//! message.

use std::fmt::Write as _;

use chrono::Utc;

use super::activity::HookOutcome;
use super::checks::DoctorReport;
use super::findings::Severity;
use super::storage::{GROWTH_DAYS, StorageCheck};
use crate::render::bytes::human_bytes;
use crate::render::time::{readable, readable_with_age};
use crate::retention::sweep::DUE_WITHIN_DAYS;
use crate::retention::text::retention_text;
use crate::time::Time;

/// The report as text.
pub fn report_text(report: &DoctorReport) -> String {
    let mut text = String::new();
    let state = &report.state_dir;
    let mode = state.mode.as_ref().map(|mode| format!("mode {mode}"));
    let mode = mode.unwrap_or_else(|| "not created yet".to_owned());
    let _ = writeln!(text, "state folder   {}  ({mode})", state.path.display());
    let binaries = report.binaries_dir.as_deref().map(std::path::Path::display);
    let binaries = binaries.map_or_else(|| "(unknown)".to_owned(), |dir| dir.to_string());
    let _ = writeln!(text, "binaries       {binaries}");
    for binary in &report.binaries {
        let _ = writeln!(text, "  {}  {}", ok_or_missing(binary.present), binary.name);
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
            check.scope,
            check.path.display()
        );
        for hook in &check.hooks {
            let mark = match (hook.binary_exists, hook.current) {
                (true, false) => "stale  ",
                (present, _) => ok_or_missing(present),
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
        let enabled = if plugin.enabled {
            "enabled"
        } else {
            "disabled"
        };
        let scope = plugin
            .scope
            .as_ref()
            .map(|scope| format!(", {scope} scope"));
        let (id, folder) = (&plugin.id, plugin.install_path.display());
        let _ = writeln!(
            text,
            "  {id}  ({enabled}{}, {folder})",
            scope.unwrap_or_default()
        );
        for hook in &plugin.hooks {
            let mark = ok_or_missing(hook.binary_exists);
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
        let wrote = match hook.last_trace.as_ref().and_then(Time::instant) {
            Some(time) => format!("wrote {} {}", hook.trace, readable_with_age(time, now)),
            None => format!("nothing written yet ({})", hook.trace),
        };
        let outcome = match hook.outcome {
            HookOutcome::Ok => "ok   ",
            HookOutcome::Error => "ERROR",
            HookOutcome::NoTrace => "-    ",
        };
        let _ = writeln!(text, "  {:<20} {outcome}  {wrote}", hook.hook);
        if let Some(error) = hook.last_error.as_ref() {
            let time = Time::parse(&error.time)
                .instant()
                .map_or_else(|| "?".to_owned(), |time| readable_with_age(time, now));
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
    let snapshots = report.snapshot_count.map(|count| count.to_string());
    let snapshots = snapshots.unwrap_or_else(|| "(could not list)".to_owned());
    let _ = writeln!(text, "snapshots      {snapshots}");
    let (errors, log) = (report.recent_errors.len(), report.errors_log.display());
    if errors == 0 {
        let _ = writeln!(text, "hook errors    none in {log}");
    } else {
        let _ = writeln!(
            text,
            "hook errors    newest {errors} of {log} (read all: less {log})"
        );
        for record in &report.recent_errors {
            let event = record.event.as_ref().map(|event| format!(" {event}"));
            let session = record
                .session_id
                .as_ref()
                .map(|id| format!(" session {id}"));
            let where_ =
                record.hook.clone() + &event.unwrap_or_default() + &session.unwrap_or_default();
            let time = match Time::parse(&record.time).instant() {
                Some(time) => readable(time),
                None if record.time.is_empty() => "?".to_owned(),
                None => record.time.clone(),
            };
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
        let label: &str = finding.severity().into();
        let _ = writeln!(text, "{label:<7}  {finding}");
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

/// A mark for something that should be there: `ok` or `MISSING`, in one column's width.
fn ok_or_missing(present: bool) -> &'static str {
    if present { "ok     " } else { "MISSING" }
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
