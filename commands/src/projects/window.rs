//! The time filter of `ctxhooks history` and `ctxhooks export`: `--since` and `--until`, as a
//! day (`YYYY-MM-DD`, UTC) or an RFC 3339 time.

use anyhow::{Result, bail};
use chrono::{DateTime, NaiveDate, Utc};

use crate::time::Time;

/// The times a report covers: from `since` (inclusive) to `until` (inclusive).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeWindow {
    /// The earliest time covered.
    pub since: Option<DateTime<Utc>>,
    /// The latest time covered.
    pub until: Option<DateTime<Utc>>,
}

impl TimeWindow {
    /// The window `--since` and `--until` give. A day as `--until` covers the whole day.
    pub fn parse(since: Option<&str>, until: Option<&str>) -> Result<Self> {
        let window = Self {
            since: since.map(|text| parse_time(text, false)).transpose()?,
            until: until.map(|text| parse_time(text, true)).transpose()?,
        };
        if let (Some(since), Some(until)) = (window.since, window.until)
            && since > until
        {
            bail!("`--since` is after `--until`");
        }
        Ok(window)
    }

    /// Returns true if and only if no bound is set.
    pub fn is_open(&self) -> bool {
        self.since.is_none() && self.until.is_none()
    }

    /// Returns true if and only if `time` lies in the window (a text that is no time lies only
    /// in an open window).
    pub fn contains(&self, time: &Time) -> bool {
        self.is_open()
            || time.instant().is_some_and(|time| {
                self.since.is_none_or(|since| time >= since)
                    && self.until.is_none_or(|until| time <= until)
            })
    }

    /// The UTC date of a time in the window.
    pub fn day_of(&self, time: &Time) -> Option<NaiveDate> {
        let date = time.instant()?.date_naive();
        self.contains(time).then_some(date)
    }
}

/// `YYYY-MM-DD` (the day's start, or with `end_of_day` its last millisecond) or RFC 3339.
fn parse_time(text: &str, end_of_day: bool) -> Result<DateTime<Utc>> {
    if let Ok(time) = DateTime::parse_from_rfc3339(text) {
        return Ok(time.with_timezone(&Utc));
    }
    if let Ok(day) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        let time = if end_of_day {
            day.and_hms_milli_opt(23, 59, 59, 999)
        } else {
            day.and_hms_opt(0, 0, 0)
        };
        if let Some(time) = time {
            return Ok(time.and_utc());
        }
    }
    bail!("`{text}` is not a day (YYYY-MM-DD) or an RFC 3339 time (2026-09-01T12:00:00Z)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_covers_itself_and_times_read_in_any_offset() {
        let window = TimeWindow::parse(Some("2026-09-01"), Some("2026-09-02")).unwrap();
        let contains = |window: &TimeWindow, text| window.contains(&Time::parse(text));
        assert!(contains(&window, "2026-09-01T00:00:00.000Z"));
        assert!(contains(&window, "2026-09-02T23:59:59.000Z"));
        assert!(!contains(&window, "2026-09-03T00:00:00Z"));
        assert!(contains(&window, "2026-09-03T01:00:00+02:00"));
        assert!(!contains(&window, "yesterday"));
        assert!(contains(&TimeWindow::default(), "yesterday"));
        assert!(TimeWindow::parse(Some("2026-09-02"), Some("2026-09-01")).is_err());
        assert!(TimeWindow::parse(Some("last week"), None).is_err());
        assert_eq!(
            TimeWindow::default().day_of(&Time::parse("2026-09-01T23:30:00-01:00")),
            NaiveDate::from_ymd_opt(2026, 9, 2)
        );
    }
}
