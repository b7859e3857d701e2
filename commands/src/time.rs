//! A time as Claude Code or a hook wrote it (RFC 3339), read once, where a model is built: the
//! text, written back exactly as it was (JSON, ids), and the instant, when the text is a time,
//! for every comparison and every rendering after that.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

/// Ordered by its text, as the strings it replaces were; serialized as its text alone.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Time {
    text: String,
    #[serde(skip)]
    instant: Option<DateTime<Utc>>,
}

impl Time {
    /// `text` read as an RFC 3339 time (any offset, held in UTC); a text that is none is kept,
    /// with no instant.
    pub fn parse(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            instant: DateTime::parse_from_rfc3339(text)
                .ok()
                .map(|time| time.with_timezone(&Utc)),
        }
    }

    /// [`Time::parse`] of a field that may be absent.
    pub fn of(text: Option<&str>) -> Option<Self> {
        text.map(Self::parse)
    }

    /// `instant` written as RFC 3339 in UTC (`Z`) to `format`'s precision, and read back: the
    /// instant is the one the text says.
    pub fn at(instant: DateTime<Utc>, format: SecondsFormat) -> Self {
        Self::parse(&instant.to_rfc3339_opts(format, true))
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn instant(&self) -> Option<DateTime<Utc>> {
        self.instant
    }
}

/// An instant as a person reads it: `2026-12-01 06:38:26 UTC`.
pub fn readable(instant: DateTime<Utc>) -> String {
    instant.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// A time as a person reads it: `2026-01-07 12:36:14 UTC` (any offset converted); the text as
/// written when it is no RFC 3339 time; `time unknown` when there is none.
pub fn readable_time(time: Option<&Time>) -> String {
    time.map_or_else(
        || "time unknown".to_owned(),
        |time| time.instant.map_or_else(|| time.text.clone(), readable),
    )
}

/// Whole seconds from `before` to `after`, when both are times and in order.
pub fn seconds_between(before: Option<&Time>, after: Option<&Time>) -> Option<u64> {
    let milliseconds = (after?.instant? - before?.instant?).num_milliseconds();
    u64::try_from(milliseconds).ok().map(|ms| ms / 1_000)
}
