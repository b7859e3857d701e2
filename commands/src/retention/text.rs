//! Claude Code's retention in words, for `sessions` and `doctor`.

use super::settings::{Paused, Retention};

/// One sentence: how long Claude Code keeps a transcript after its last change and which file
/// says so, or why its sweep deletes nothing.
pub fn retention_text(retention: &Retention) -> String {
    match (&retention.paused, retention.days, &retention.set_in) {
        (Some(Paused::InvalidValue { path, value }), _, _) => format!(
            "Claude Code deletes no transcripts while `cleanupPeriodDays` is {value} in `{}` (a \
             value it refuses)",
            path.display()
        ),
        (Some(Paused::UnreadableSettings { path, .. }), _, _) => format!(
            "Claude Code deletes no transcripts while `{}` cannot be read",
            path.display()
        ),
        (None, Some(days), Some(set_in)) => format!(
            "Claude Code deletes a transcript {days} days after its last change \
             (`cleanupPeriodDays` in `{}`)",
            set_in.path.display()
        ),
        (None, Some(days), None) => format!(
            "Claude Code deletes a transcript {days} days after its last change (its default: \
             `cleanupPeriodDays` is set nowhere)"
        ),
        (None, None, _) => "Claude Code deletes no transcripts".to_owned(),
    }
}
