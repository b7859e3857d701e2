//! Times and durations for people: instants in UTC, to the second or the minute, with how long
//! ago; spans of seconds in words.

use chrono::{DateTime, Utc};

use crate::time::Time;

/// An instant as a person reads it: `2026-12-01 06:38:26 UTC`.
pub fn readable(instant: DateTime<Utc>) -> String {
    instant.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// A time as a person reads it: `2026-01-07 12:36:14 UTC` (any offset converted); the text as
/// written when it is no RFC 3339 time; `time unknown` when there is none.
pub fn readable_time(time: Option<&Time>) -> String {
    time.map_or_else(
        || "time unknown".to_owned(),
        |time| {
            time.instant()
                .map_or_else(|| time.text().to_owned(), readable)
        },
    )
}

/// A time for people with how long ago it was: `2026-12-01 06:38:26 UTC (5 min ago)`.
pub fn readable_with_age(time: DateTime<Utc>, now: DateTime<Utc>) -> String {
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

/// `YYYY-MM-DD HH:MM` in UTC, or `-`.
pub fn to_the_minute(time: Option<&Time>) -> String {
    time.and_then(Time::instant).map_or_else(
        || "-".to_owned(),
        |time| time.format("%Y-%m-%d %H:%M").to_string(),
    )
}

/// `2026-12-01T05:40:01.123Z` → `2026-12-01T05:40:01`: the text cut after its seconds, as it
/// was written (its `T` kept; its fraction and offset, `Z` for the times Claude Code and the
/// hooks write, left out).
pub fn cut_to_the_second(time: &str) -> &str {
    time.get(..19).unwrap_or(time)
}

/// Seconds in words: `45 s`, `3 min 20 s`, `12 min`, `2 h 5 min`, `3 d 4 h`.
pub fn duration(seconds: u64) -> String {
    let (minutes, hours, days) = (seconds / 60, seconds / 3_600, seconds / 86_400);
    let (whole, unit, rest, rest_unit) = match () {
        () if seconds < 60 => return format!("{seconds} s"),
        () if minutes < 10 => (minutes, "min", seconds % 60, "s"),
        () if hours == 0 => (minutes, "min", 0, ""),
        () if days == 0 => (hours, "h", minutes % 60, "min"),
        () => (days, "d", hours % 24, "h"),
    };
    match rest {
        0 => format!("{whole} {unit}"),
        rest => format!("{whole} {unit} {rest} {rest_unit}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_durations_read_as_words() {
        assert_eq!(
            readable_time(Time::of(Some("2026-01-07T12:36:14.177Z")).as_ref()),
            "2026-01-07 12:36:14 UTC"
        );
        assert_eq!(
            readable_time(Time::of(Some("2026-01-07T14:36:14+02:00")).as_ref()),
            "2026-01-07 12:36:14 UTC"
        );
        assert_eq!(
            readable_time(Time::of(Some("yesterday")).as_ref()),
            "yesterday"
        );
        assert_eq!(readable_time(None), "time unknown");
        assert_eq!(duration(45), "45 s");
        assert_eq!(duration(200), "3 min 20 s");
        assert_eq!(duration(720), "12 min");
        assert_eq!(duration(4_260), "1 h 11 min");
        assert_eq!(duration(7_200), "2 h");
        assert_eq!(duration(100_000), "1 d 3 h");
    }

    #[test]
    fn a_time_is_cut_or_formatted_to_the_second_or_minute() {
        assert_eq!(
            cut_to_the_second("2026-12-01T05:40:01.123Z"),
            "2026-12-01T05:40:01"
        );
        assert_eq!(cut_to_the_second("yesterday"), "yesterday");
        assert_eq!(
            to_the_minute(Time::of(Some("2026-12-01T07:40:01+02:00")).as_ref()),
            "2026-12-01 05:40"
        );
        assert_eq!(to_the_minute(None), "-");
    }
}
