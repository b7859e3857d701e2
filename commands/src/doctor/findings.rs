//! What `doctor` can find, as facts with a severity and a stable code; `text.rs` puts each in
//! words with what to do.

use std::path::PathBuf;

use serde::Serialize;

use crate::install::scope::SettingsScope;
use crate::retention::settings::Paused;

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
#[derive(Debug, Clone, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Finding {
    /// The state folder does not exist yet.
    StateDirAbsent { path: PathBuf },
    /// The state "folder" is something else.
    StateDirNotAFolder { path: PathBuf },
    /// The state folder is readable by others.
    StateDirNotPrivate {
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// A hook binary is not beside `ctxhooks`.
    BinaryMissing {
        name: &'static str,
        /// Where it was looked for.
        dir: Option<PathBuf>,
    },
    /// A scope's settings file cannot be located.
    SettingsPathUnknown { scope: SettingsScope, error: String },
    /// A scope's settings file cannot be read.
    SettingsUnreadable { scope: SettingsScope, error: String },
    /// A scope's settings file is not usable (not JSON, wrong shape).
    SettingsInvalid { scope: SettingsScope, error: String },
    /// A registered ctxhooks handler runs a program that does not exist.
    HookBinaryMissing {
        /// The scope of the settings file.
        scope: SettingsScope,
        /// The event it is registered under.
        event: String,
        /// Its `command`.
        command: String,
    },
    /// A registered ctxhooks handler differs from what this ctxhooks installs.
    HookNotCurrent {
        /// The scope of the settings file.
        scope: SettingsScope,
        /// The event it is registered under.
        event: String,
        /// Its `command`.
        command: String,
    },
    /// No settings file and no enabled plugin registers the hooks.
    NotInstalled,
    /// Entries `ctxhooks install` added to a settings file (its ownership record says which) are
    /// no longer there: something rewrote the file, and those hooks no longer run.
    HooksRemovedFromSettings {
        path: PathBuf,
        /// The events whose recorded handler is gone.
        events: Vec<String>,
        /// The recorded status line is gone too.
        status_line: bool,
        /// The file itself is gone.
        file_gone: bool,
    },
    /// An enabled plugin registers a ctxhooks hook whose program does not exist.
    PluginHookBinaryMissing {
        /// The plugin, `<name>@<marketplace>`.
        plugin: String,
        event: String,
        /// The command as written in the plugin.
        command: String,
        /// The program it names, expanded.
        program: Option<PathBuf>,
    },
    /// The same ctxhooks hooks are registered by an enabled plugin and by settings files: Claude
    /// Code runs both (it dedups within settings files only).
    HooksRegisteredTwice {
        plugin: String,
        /// The events registered both ways.
        events: Vec<String>,
        /// The settings files that register them too.
        settings: Vec<PathBuf>,
    },
    /// Claude Code's record of installed plugins cannot be read.
    PluginsUnreadable { error: String },
    /// `cleanupPeriodDays` is set, and this value holds.
    CleanupPeriodSet {
        days: u64,
        /// The settings file that sets it.
        path: PathBuf,
    },
    /// `cleanupPeriodDays` is not set: Claude Code deletes transcripts after 30 days.
    CleanupPeriodUnset {
        /// The user settings file, where to set it.
        path: PathBuf,
    },
    /// Claude Code's sweep deletes nothing: a value it refuses, or a settings file it cannot
    /// read.
    CleanupSweepPaused(Paused),
    /// Sessions whose transcript is gone from Claude Code's folder, kept only by ctxhooks.
    SessionsDeletedKept { count: usize },
    /// Sessions whose transcript Claude Code's sweep deletes within `days` days (ctxhooks keeps
    /// them all the same).
    SessionsDueForDeletion { count: usize, days: u64 },
    /// `<state>/config.json` cannot be used: no limit applies until it is fixed.
    StorageConfigUnusable { path: PathBuf, error: String },
    /// The latest day of deletions removed kept copies that were the only copy left.
    PrunedOnlyCopies {
        /// `YYYY-MM-DD`.
        day: String,
        count: usize,
        /// `command` or `config`.
        by: String,
    },
    /// A settings file registers ctxhooks for an event the `claude` on `PATH` does not know: that
    /// version (before 2.1.101) skips the whole file, every hook in it.
    HookEventUnknownToClaude {
        path: PathBuf,
        /// The events it does not know.
        events: Vec<String>,
        version: String,
        /// The `claude` program.
        claude: PathBuf,
    },
    /// `disableAllHooks` is true.
    HooksDisabled {
        /// The settings file that sets it.
        path: PathBuf,
    },
    /// The ownership record cannot be read.
    OwnershipRecordUnreadable { error: String, path: PathBuf },
    /// The error log cannot be read.
    ErrorsLogUnreadable { path: PathBuf, error: String },
    /// The hooks logged errors.
    RecentHookErrors {
        /// How many are shown.
        shown: usize,
        path: PathBuf,
    },
    /// Archive folders that are not readable snapshots.
    SnapshotsDamaged {
        count: usize,
        /// The first one.
        example: PathBuf,
    },
    /// Snapshots never finished (a `PreCompact` hook was stopped).
    SnapshotsUnfinished { count: usize },
    /// The archive cannot be listed.
    SnapshotsUnlistable { error: String },
    /// A runtime interrupt mark with no interrupt record after it.
    RuntimeMarkWithoutInterrupt {
        session: String,
        /// The mark's time, milliseconds since the Unix epoch.
        time_ms: u64,
        /// The mark's reason.
        reason: String,
        /// Why it matched nothing.
        why: String,
    },
    /// A runtime interrupt mark line that cannot be read.
    RuntimeMarkUnreadable {
        session: String,
        /// The 1-based sidecar line.
        line: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// A check could not run at all.
    CheckFailed {
        /// The check's name.
        check: &'static str,
        error: String,
    },
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
