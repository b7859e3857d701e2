//! The hooks at work, from what they already write (no hook writes anything for doctor): when
//! each last left a trace in the state folder and what it was, the last error each logged, and
//! how many sessions were logged, kept and snapshotted.

use std::collections::BTreeSet;
use std::path::Path;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

use crate::snapshots::catalog::Catalog;
use crate::time::Time;
use ctxhooks_shared::hook::table::{HOOK_BINARIES, PRECOMPACT, SESSION, STOP, TOOLUSE};
use ctxhooks_shared::store::error_log::ErrorRecord;
use ctxhooks_shared::store::files;
use ctxhooks_shared::store::rotation;
use ctxhooks_shared::store::snapshot_metadata::COMPACT_SUMMARY_FILE_NAME;
use ctxhooks_shared::store::state_dir::StateDir;

/// How a hook's last run went, as far as its traces and the error log tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HookOutcome {
    /// Its newest trace is newer than its newest error (or it logged none).
    Ok,
    /// Its newest error is newer than its newest trace.
    Error,
    /// Nothing it writes exists yet, and it logged no error.
    NoTrace,
}

/// One hook binary at work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookActivity {
    pub hook: &'static str,
    /// What it writes that doctor looks at.
    pub trace: &'static str,
    /// When that was last written (RFC 3339, UTC).
    pub last_trace: Option<Time>,
    /// Its newest line in the error log.
    pub last_error: Option<ErrorRecord>,
    /// How many lines of the error log are its.
    pub errors: usize,
    /// How its last run went.
    pub outcome: HookOutcome,
}

/// The hooks at work, and what they left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Activity {
    /// Each hook binary, in the hook table's order.
    pub hooks: Vec<HookActivity>,
    /// Sessions with a usage log (the Stop or `PreCompact` hook logged them).
    pub sessions_logged: usize,
    /// Sessions with a kept transcript copy.
    pub sessions_kept: usize,
    /// Sessions with at least one snapshot taken before a compaction.
    pub sessions_with_snapshots: usize,
}

/// What the hooks left in `state`: file times per session, the snapshots of `catalog`, and the
/// error log's `records` (all of them, oldest first).
pub fn hooks_at_work(
    state: &StateDir,
    catalog: Option<&Catalog>,
    records: &[ErrorRecord],
) -> Activity {
    let mut stop = None;
    let mut tooluse = None;
    let mut summaries = None;
    let mut sessions_logged = 0;
    let mut sessions_kept = 0;
    let newer = |best: &mut Option<DateTime<Utc>>, path: &Path| {
        if let Ok(Some(file)) = files::open_state_file(path)
            && let Ok(modified) = file.metadata().and_then(|metadata| metadata.modified())
        {
            *best = (*best).max(Some(modified.into()));
        }
    };
    for session in state.session_ids().unwrap_or_default() {
        let usage = state.usage_log(&session);
        sessions_logged += usize::from(rotation::log_exists(&usage));
        sessions_kept += usize::from(state.kept_dir(&session).is_dir());
        newer(&mut stop, &usage);
        newer(&mut stop, &state.cursor_file(&session));
        newer(&mut stop, &state.gauge_file(&session));
        newer(&mut tooluse, &state.sidecar(&session));
        for entry in files::entries(&state.archive_dir(&session)) {
            let summary = entry.path().join(COMPACT_SUMMARY_FILE_NAME);
            newer(&mut summaries, &summary);
        }
    }
    // No catalog: no snapshots.
    let snapshots = catalog.map_or(&[][..], |catalog| catalog.entries.as_slice());
    let snapshot_time = snapshots
        .iter()
        .filter_map(|entry| entry.created.instant())
        .max();
    let sessions = snapshots.iter().map(|entry| &entry.metadata.session_id);
    let sessions_with_snapshots = sessions.collect::<BTreeSet<_>>().len();
    let traces = [
        (STOP.name, "usage.jsonl, cursor.json, gauge.json", stop),
        (
            PRECOMPACT.name,
            "snapshots, archive/*/snapshot.json",
            snapshot_time,
        ),
        (TOOLUSE.name, "provenance.jsonl", tooluse),
        (
            SESSION.name,
            "compaction summaries, archive/*/compact-summary.json",
            summaries,
        ),
    ];
    let hooks = HOOK_BINARIES
        .iter()
        .map(|binary| {
            let (trace, last) = traces
                .iter()
                .find(|(name, ..)| *name == binary.name)
                .map_or(("", None), |(_, trace, last)| (*trace, *last));
            let own = || records.iter().filter(|record| record.hook == binary.name);
            let last_error = own().next_back().cloned();
            let error_time = last_error
                .as_ref()
                .and_then(|record| Time::parse(&record.time).instant());
            let outcome = match (last, error_time, &last_error) {
                (_, Some(error), _) if last.is_none_or(|trace| error > trace) => HookOutcome::Error,
                (None, None, Some(_)) => HookOutcome::Error,
                (None, _, None) => HookOutcome::NoTrace,
                _ => HookOutcome::Ok,
            };
            HookActivity {
                hook: binary.name,
                trace,
                last_trace: last.map(|time| Time::at(time, SecondsFormat::Secs)),
                last_error,
                errors: own().count(),
                outcome,
            }
        })
        .collect();
    Activity {
        hooks,
        sessions_logged,
        sessions_kept,
        sessions_with_snapshots,
    }
}
