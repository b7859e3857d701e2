//! What `doctor` can find, as facts with a severity, a stable code and a message in words with
//! what to do (each variant's `#[error]`).

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::render::text::quoted_paths;
use crate::render::time::readable;
use crate::retention::settings::Paused;
use crate::settings::scope::SettingsScope;

/// The `cleanupPeriodDays` value `doctor` suggests when it is unset (Claude Code's default, 30
/// days, deletes transcripts older than that).
pub const SUGGESTED_CLEANUP_PERIOD_DAYS: u64 = 365;

/// How serious a finding is. Any `Error` makes `ctxhooks doctor` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Severity {
    /// Worth knowing, nothing to do.
    Info,
    /// Works, but something should be done (data may be lost, hooks may be missing).
    Warning,
    /// Broken: a hook cannot run or a file cannot be read.
    Error,
}

/// One thing `doctor` wants the user to know. Its message (`Display`) says what to do.
#[derive(Debug, Clone, PartialEq, Eq, strum::IntoStaticStr, thiserror::Error)]
#[strum(serialize_all = "snake_case")]
pub enum Finding {
    #[error(
        "the state folder `{}` does not exist yet; the first hook run creates it",
        .path.display()
    )]
    StateDirAbsent { path: PathBuf },
    #[error("`{}` is not a folder; the hooks cannot write there", .path.display())]
    StateDirNotAFolder { path: PathBuf },
    #[error(
        "the state folder `{}` has mode {mode:04o}; archives may hold secrets: `chmod 700 {}`",
        .path.display(),
        .path.display()
    )]
    StateDirNotPrivate { path: PathBuf, mode: u32 },
    /// A hook binary is not beside `ctxhooks` (looked for in `dir`, when known).
    #[error(
        "`{name}` is not beside `ctxhooks`{}; its events cannot be installed",
        .dir.as_ref().map(|dir| format!(" in `{}`", dir.display())).unwrap_or_default()
    )]
    BinaryMissing {
        name: &'static str,
        dir: Option<PathBuf>,
    },
    #[error("cannot locate the {scope} settings file: {error}")]
    SettingsPathUnknown { scope: SettingsScope, error: String },
    #[error("cannot read the {scope} settings: {error}")]
    SettingsUnreadable { scope: SettingsScope, error: String },
    /// Not JSON, or not shaped as a settings file.
    #[error("the {scope} settings file is not usable: {error}")]
    SettingsInvalid { scope: SettingsScope, error: String },
    /// A ctxhooks handler (its event and `command`) runs a program that does not exist.
    #[error(
        "the {scope} settings run `{command}` on {event}, which does not exist; run `ctxhooks \
         install --scope {scope}` again"
    )]
    HookBinaryMissing {
        scope: SettingsScope,
        event: String,
        command: String,
    },
    #[error(
        "the {scope} settings' {event} handler differs from what this ctxhooks installs \
         ({command}); run `ctxhooks install --scope {scope}` to update it"
    )]
    HookNotCurrent {
        scope: SettingsScope,
        event: String,
        command: String,
    },
    #[error(
        "no settings file and no enabled plugin registers the ctxhooks hooks; run `ctxhooks \
         install` (or install the plugin: /plugin install ctxhooks@ctxhooks)"
    )]
    NotInstalled,
    /// Entries `ctxhooks install` added to a settings file (its ownership record says which) are
    /// no longer there: something rewrote the file, and those hooks no longer run. `events`:
    /// those whose recorded handler is gone; `status_line`: the recorded status line is gone.
    #[error("{}", removed_from_settings(.path, .events, *.status_line, *.file_gone))]
    HooksRemovedFromSettings {
        path: PathBuf,
        events: Vec<String>,
        status_line: bool,
        file_gone: bool,
    },
    /// An enabled plugin (`<name>@<marketplace>`) registers a ctxhooks hook whose program does
    /// not exist (`command` as written, `program` as it expands).
    #[error(
        "the plugin {plugin} runs `{command}` on {event}, and {} does not exist: install the \
         binaries with `install/setup.sh --plugin`, or set CTXHOOKS_BIN_DIR in Claude Code's \
         environment to the folder that holds them",
        .program.as_ref().map_or_else(
            || "its program".to_owned(),
            |program| format!("`{}`", program.display())
        )
    )]
    PluginHookBinaryMissing {
        plugin: String,
        event: String,
        command: String,
        program: Option<PathBuf>,
    },
    /// The same ctxhooks hooks (`events`) are registered by an enabled plugin and by settings
    /// files: Claude Code runs both (it dedups within settings files only).
    #[error(
        "the hooks for {} are registered twice, by the plugin {plugin} and in {}: Claude Code \
         runs both (tool events are recorded twice, each compaction snapshotted twice). Keep \
         one: `ctxhooks uninstall` for the settings file, or `claude plugin uninstall \
         {plugin}`",
        .events.join(", "),
        quoted_paths(.settings.iter().map(PathBuf::as_path))
    )]
    HooksRegisteredTwice {
        plugin: String,
        events: Vec<String>,
        settings: Vec<PathBuf>,
    },
    #[error("cannot read Claude Code's list of installed plugins: {error}")]
    PluginsUnreadable { error: String },
    /// `cleanupPeriodDays` is set (in `path`), and this value holds.
    #[error(
        "Claude Code keeps transcripts for {days} days (`cleanupPeriodDays` in `{}`)",
        .path.display()
    )]
    CleanupPeriodSet { days: u64, path: PathBuf },
    /// `cleanupPeriodDays` is not set: Claude Code deletes transcripts after 30 days (`path`:
    /// the user settings file, where to set it).
    #[error(
        "`cleanupPeriodDays` is not set in `{}`: Claude Code deletes transcripts older than 30 \
         days by default; add `\"cleanupPeriodDays\": {SUGGESTED_CLEANUP_PERIOD_DAYS}` to keep \
         them longer",
        .path.display()
    )]
    CleanupPeriodUnset { path: PathBuf },
    /// Claude Code's sweep deletes nothing: a value it refuses, or a settings file it cannot
    /// read.
    #[error("{}", sweep_paused(.0))]
    CleanupSweepPaused(Paused),
    /// Sessions whose transcript is gone from Claude Code's folder, kept only by ctxhooks.
    #[error(
        "{count} session(s) whose transcript Claude Code deleted are kept only by ctxhooks: \
         `ctxhooks sessions` lists them, `ctxhooks archives restore --deleted` writes them back \
         for `claude --resume`"
    )]
    SessionsDeletedKept { count: usize },
    #[error(
        "Claude Code deletes the transcript of {count} session(s) within {days} days (ctxhooks \
         keeps them all the same; `ctxhooks sessions` marks them `due`)"
    )]
    SessionsDueForDeletion { count: usize, days: u64 },
    /// `<state>/config.json` cannot be used: no limit applies until it is fixed.
    #[error(
        "`{}` cannot be used ({error}); no storage limit applies until it is fixed",
        .path.display()
    )]
    StorageConfigUnusable { path: PathBuf, error: String },
    /// The latest day of deletions (`YYYY-MM-DD`) removed kept copies that were the only copy
    /// left (`by`: `command` or `config`).
    #[error(
        "on {day}, {} deleted {count} session(s)' kept copies that were the only copy left \
         (Claude Code had deleted their transcripts); `pruned.jsonl` in the state folder \
         names them",
        if .by == "config" { "the configured storage limit" } else { "`ctxhooks archives prune`" }
    )]
    PrunedOnlyCopies {
        day: String,
        count: usize,
        by: String,
    },
    /// A settings file registers ctxhooks for events the `claude` on `PATH` does not know: that
    /// version (before 2.1.101) skips the whole file, every hook in it.
    #[error(
        "`{}` registers ctxhooks for {}, which Claude Code {version} (`{}`) does not know: \
         before 2.1.101 it skips the whole file, every hook in it. Update Claude Code, or run \
         `ctxhooks install` again, which leaves those events out",
        .path.display(),
        .events.join(", "),
        .claude.display()
    )]
    HookEventUnknownToClaude {
        path: PathBuf,
        events: Vec<String>,
        version: String,
        claude: PathBuf,
    },
    #[error(
        "`disableAllHooks` is true in `{}`: Claude Code runs no hook, ctxhooks included",
        .path.display()
    )]
    HooksDisabled { path: PathBuf },
    #[error(
        "{error}; `ctxhooks install`/`uninstall` refuse to run until `{}` is fixed",
        .path.display()
    )]
    OwnershipRecordUnreadable { error: String, path: PathBuf },
    #[error("failed to read `{}`: {error}", .path.display())]
    ErrorsLogUnreadable { path: PathBuf, error: String },
    /// The hooks logged errors (`shown`: how many are shown).
    #[error(
        "the hooks logged errors; the newest {shown} are shown; read them all with `less {}`",
        .path.display()
    )]
    RecentHookErrors { shown: usize, path: PathBuf },
    /// Archive folders that are not readable snapshots (`example`: the first one).
    #[error(
        "{count} archive folder(s) are not readable snapshots, e.g. `{}`; run `ctxhooks \
         archives verify`",
        .example.display()
    )]
    SnapshotsDamaged { count: usize, example: PathBuf },
    /// Snapshots never finished (a `PreCompact` hook was stopped).
    #[error(
        "{count} snapshot(s) were never finished (a PreCompact hook was stopped); `ctxhooks \
         archives prune` (or the next snapshot of the session) removes them once they are four \
         minutes old"
    )]
    SnapshotsUnfinished { count: usize },
    #[error("failed to list the transcript snapshots: {error}")]
    SnapshotsUnlistable { error: String },
    /// A runtime interrupt mark (`time_ms`: milliseconds since the Unix epoch) with no
    /// interrupt record after it (`why`: why it matched nothing).
    #[error(
        "session {session}: the runtime mark of {} ({reason}) has no interrupt record after \
         it: {why}. Check `ctxhooks provenance --session={session}`",
        mark_time(*.time_ms)
    )]
    RuntimeMarkWithoutInterrupt {
        session: String,
        time_ms: u64,
        reason: String,
        why: String,
    },
    /// A runtime interrupt mark line (1-based) that cannot be read, and what is wrong with it.
    #[error(
        "session {session}: sidecar line {line} cannot be read as a runtime interrupt mark: \
         {problem}. Fix the runtime that writes it (see docs/provenance.md) and check \
         `ctxhooks provenance --session={session}`"
    )]
    RuntimeMarkUnreadable {
        session: String,
        line: usize,
        problem: String,
    },
    /// A check (named) could not run at all.
    #[error("the `{check}` check failed: {error}")]
    CheckFailed { check: &'static str, error: String },
}

/// [`Finding::HooksRemovedFromSettings`] in words.
fn removed_from_settings(path: &Path, events: &[String], status_line: bool, gone: bool) -> String {
    let hooks = (!events.is_empty()).then(|| format!("the hooks for {}", events.join(", ")));
    let line = status_line.then(|| "the status line".to_owned());
    let removed: Vec<String> = hooks.into_iter().chain(line).collect();
    let what = if gone {
        format!("`{}` is gone", path.display())
    } else {
        format!(
            "{} that ctxhooks installed in `{}` are gone (something rewrote the file; Claude \
             Code's own settings writer has dropped `hooks` keys)",
            removed.join(" and "),
            path.display()
        )
    };
    format!(
        "{what}: they no longer run. Put them back with `ctxhooks install --settings {}{}`",
        path.display(),
        if status_line { " --statusline" } else { "" }
    )
}

/// [`Finding::CleanupSweepPaused`] in words.
fn sweep_paused(paused: &Paused) -> String {
    match paused {
        Paused::InvalidValue { path, value } => format!(
            "Claude Code deletes no transcripts while `cleanupPeriodDays` is {value} in `{}`: it \
             refuses any value but a whole number of at least 1, and skips its cleanup until the \
             value is fixed",
            path.display()
        ),
        Paused::UnreadableSettings { path, problem } => format!(
            "Claude Code deletes no transcripts while `{}` cannot be read ({problem}): it may set \
             a `cleanupPeriodDays` Claude Code cannot see, so it skips its cleanup",
            path.display()
        ),
    }
}

/// A mark's time (milliseconds since the Unix epoch) for people.
fn mark_time(time_ms: u64) -> String {
    i64::try_from(time_ms)
        .ok()
        .and_then(DateTime::<Utc>::from_timestamp_millis)
        .map_or_else(|| format!("{time_ms} ms"), readable)
}

/// A finding as `doctor --json` prints it: `{severity, code, message}`.
impl Serialize for Finding {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (severity, code, message) = (self.severity(), self.code(), self.to_string());
        serde_json::json!({"severity": severity, "code": code, "message": message})
            .serialize(serializer)
    }
}

impl Finding {
    /// How serious it is.
    pub fn severity(&self) -> Severity {
        match self {
            Self::StateDirAbsent { .. }
            | Self::CleanupPeriodSet { .. }
            | Self::CleanupSweepPaused(_)
            | Self::SessionsDeletedKept { .. }
            | Self::SessionsDueForDeletion { .. }
            | Self::PrunedOnlyCopies { .. }
            | Self::SnapshotsUnfinished { .. } => Severity::Info,
            Self::StateDirNotPrivate { .. }
            | Self::BinaryMissing { .. }
            | Self::SettingsPathUnknown { .. }
            | Self::HookNotCurrent { .. }
            | Self::NotInstalled
            | Self::HooksRegisteredTwice { .. }
            | Self::PluginsUnreadable { .. }
            | Self::CleanupPeriodUnset { .. }
            | Self::HooksDisabled { .. }
            | Self::ErrorsLogUnreadable { .. }
            | Self::RecentHookErrors { .. }
            | Self::SnapshotsDamaged { .. }
            | Self::SnapshotsUnlistable { .. }
            | Self::RuntimeMarkWithoutInterrupt { .. }
            | Self::RuntimeMarkUnreadable { .. } => Severity::Warning,
            Self::StateDirNotAFolder { .. }
            | Self::SettingsUnreadable { .. }
            | Self::SettingsInvalid { .. }
            | Self::HookBinaryMissing { .. }
            | Self::HooksRemovedFromSettings { .. }
            | Self::PluginHookBinaryMissing { .. }
            | Self::OwnershipRecordUnreadable { .. }
            | Self::StorageConfigUnusable { .. }
            | Self::HookEventUnknownToClaude { .. }
            | Self::CheckFailed { .. } => Severity::Error,
        }
    }

    /// A stable short name for programs, such as `cleanup_period_unset`.
    pub fn code(&self) -> &'static str {
        self.into()
    }
}
