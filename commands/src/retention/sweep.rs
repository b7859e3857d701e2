//! What Claude Code's sweep does to one session's transcript. The sweep deletes a main
//! transcript whose file was last modified more than the retention's days ago (its modification
//! time, not the conversation's own times), and since 2.1.110 the session's `<id>/` folder
//! beside it, sub-agents and all. Observed with the pinned 2.1.332: it runs in an interactive
//! session, 5 s after the first prompt once the person has been idle for a minute (else every 10
//! minutes until then), at most once a day (`~/.claude/.last-cleanup`); `claude -p` never runs
//! it. So a transcript past its date is deleted at the next such sweep, not at that instant.

use std::path::Path;

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use serde::Serialize;

use crate::time::Time;

/// The horizon of "due": a transcript the sweep deletes within this many days (`sessions`
/// marks it, `doctor` counts it).
pub const DUE_WITHIN_DAYS: u64 = 7;

/// Where a session's transcript stands with Claude Code's cleanup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum CleanupState {
    /// Claude Code has the transcript, and its sweep deletes it no sooner than
    /// [`DUE_WITHIN_DAYS`] from now (or never, while the sweep is paused).
    Live,
    /// Claude Code has the transcript, and its sweep deletes it within [`DUE_WITHIN_DAYS`]
    /// (at its next run, when the date is past) unless the session is continued first.
    Due,
    /// The transcript is gone from where Claude Code keeps it: what ctxhooks keeps is the only
    /// copy.
    Deleted,
    /// No transcript path is known, or it cannot be looked at.
    Unknown,
}

/// One session's transcript and Claude Code's cleanup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CleanupStatus {
    pub state: CleanupState,
    /// The transcript's last modification, which the sweep compares (to the second).
    pub modified: Option<Time>,
    /// From when the sweep deletes it: its last modification plus the retention (absent for a
    /// transcript gone or unknown, or while the sweep is paused).
    pub deleted_from: Option<Time>,
    /// Whole days until then, rounded up; 0 once it is past (the next sweep deletes it).
    pub days_left: Option<u64>,
}

impl CleanupStatus {
    /// The state of the transcript at `transcript` (when known) for a retention of
    /// `retention_days` (absent while the sweep is paused), at `now`.
    pub fn of(transcript: Option<&Path>, retention_days: Option<u64>, now: DateTime<Utc>) -> Self {
        let unknown = Self {
            state: CleanupState::Unknown,
            modified: None,
            deleted_from: None,
            days_left: None,
        };
        let Some(transcript) = transcript else {
            return unknown;
        };
        let metadata = match fs_err::symlink_metadata(transcript) {
            Ok(metadata) if metadata.is_file() => metadata,
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => return unknown,
            // Gone, or something else in its place.
            _ => {
                return Self {
                    state: CleanupState::Deleted,
                    ..unknown
                };
            }
        };
        let Some(modified) = metadata.modified().ok().map(DateTime::<Utc>::from) else {
            return unknown;
        };
        Self::present(modified, retention_days, now)
    }

    /// The state of a transcript that is there, last modified at `modified`.
    pub fn present(
        modified: DateTime<Utc>,
        retention_days: Option<u64>,
        now: DateTime<Utc>,
    ) -> Self {
        let deadline = retention_days
            .and_then(|days| i64::try_from(days).ok())
            .and_then(Duration::try_days)
            .and_then(|period| modified.checked_add_signed(period));
        let days_left = deadline.map(|deadline| {
            let left = (deadline - now).num_seconds().max(0);
            u64::try_from(left).unwrap_or(0).div_ceil(86_400)
        });
        Self {
            state: if days_left.is_some_and(|days| days <= DUE_WITHIN_DAYS) {
                CleanupState::Due
            } else {
                CleanupState::Live
            },
            modified: Some(Time::at(modified, SecondsFormat::Secs)),
            deleted_from: deadline.map(|deadline| Time::at(deadline, SecondsFormat::Secs)),
            days_left,
        }
    }

    /// The state in a few characters, for a table: `live`, `due in 3d`, `due now`, `deleted`,
    /// `-`.
    pub fn short(&self) -> String {
        match (self.state, self.days_left) {
            (CleanupState::Due, Some(0)) => "due now".to_owned(),
            (CleanupState::Due, Some(days)) => format!("due in {days}d"),
            (CleanupState::Unknown, _) => "-".to_owned(),
            (state, _) => <&str>::from(state).to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().to_utc()
    }

    #[test]
    fn the_deadline_is_the_last_modification_plus_the_retention() {
        let now = at("2026-12-02T12:00:00Z");
        let live = CleanupStatus::present(at("2026-11-20T12:00:00Z"), Some(30), now);
        assert_eq!(live.state, CleanupState::Live);
        assert_eq!(live.days_left, Some(18));
        assert_eq!(
            live.deleted_from.as_ref().map(Time::text),
            Some("2026-12-20T12:00:00Z")
        );
        let due = CleanupStatus::present(at("2026-11-04T11:00:00Z"), Some(30), now);
        assert_eq!((due.state, due.days_left), (CleanupState::Due, Some(2)));
        assert_eq!(due.short(), "due in 2d");
        let past = CleanupStatus::present(at("2026-09-01T00:00:00Z"), Some(30), now);
        assert_eq!(
            (past.state, past.short().as_str()),
            (CleanupState::Due, "due now")
        );
        // Exactly seven days left is due; a second more is not.
        let edge = CleanupStatus::present(at("2026-11-09T12:00:00Z"), Some(30), now);
        assert_eq!((edge.state, edge.days_left), (CleanupState::Due, Some(7)));
        let paused = CleanupStatus::present(at("2020-01-01T00:00:00Z"), None, now);
        assert_eq!(
            (paused.state, paused.deleted_from),
            (CleanupState::Live, None)
        );
        let forever = CleanupStatus::present(at("2020-01-01T00:00:00Z"), Some(u64::MAX), now);
        assert_eq!(forever.state, CleanupState::Live);
    }

    #[test]
    fn a_missing_transcript_is_deleted_and_an_unnamed_one_unknown() {
        let temp = ctxhooks_shared::test_support::TempFolder::new("sweep");
        let now = Utc::now();
        let gone = CleanupStatus::of(Some(&temp.path().join("gone.jsonl")), Some(30), now);
        assert_eq!(
            (gone.state, gone.short().as_str()),
            (CleanupState::Deleted, "deleted")
        );
        assert_eq!(CleanupStatus::of(None, Some(30), now).short(), "-");
        let there = temp.path().join("there.jsonl");
        fs_err::write(&there, "{}\n").unwrap();
        let live = CleanupStatus::of(Some(&there), Some(30), now);
        assert_eq!((live.state, live.days_left), (CleanupState::Live, Some(30)));
    }
}
