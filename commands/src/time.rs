//! A time as Claude Code or a hook wrote it (RFC 3339), read once, where a model is built: the
//! text, written back exactly as it was (JSON, ids), and the instant, when the text is a time,
//! for every comparison and every rendering after that (`render/time.rs` words it); and a
//! file's time written as such a text.

use std::time::SystemTime;

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

/// Whole seconds from `before` to `after`, when both are times and in order.
pub fn seconds_between(before: Option<&Time>, after: Option<&Time>) -> Option<u64> {
    let milliseconds = (after?.instant? - before?.instant?).num_milliseconds();
    u64::try_from(milliseconds).ok().map(|ms| ms / 1_000)
}

/// A file's time (its modification, say) to the second, written as RFC 3339 in UTC.
pub fn second_of(time: SystemTime) -> Time {
    Time::at(DateTime::<Utc>::from(time), SecondsFormat::Secs)
}
