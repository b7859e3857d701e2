//! Milliseconds since the Unix epoch, the time unit of every sidecar line.

use std::time::{SystemTime, UNIX_EPOCH};

/// The current time in milliseconds since the Unix epoch (0 if the clock is before 1970).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

/// Parses an RFC 3339 transcript timestamp (`2026-02-10T21:12:02.480Z`) into milliseconds.
pub fn parse_timestamp_ms(text: &str) -> Option<u64> {
    let parsed = chrono::DateTime::parse_from_rfc3339(text).ok()?;
    u64::try_from(parsed.timestamp_millis()).ok()
}
