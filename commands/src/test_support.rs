//! What the commands' unit tests build their inputs from: usage rows with only the counts a
//! test names, and transcript times counted from one instant.

use ctxhooks_shared::store::usage_record::{TokenUsage, UsageRow};

/// 2026-01-01T00:00:00.000Z, in milliseconds since the Unix epoch.
pub const T0: u64 = 1_767_225_600_000;

/// `T0` and `offset_ms` later, as a transcript writes a time.
pub fn at(offset_ms: u64) -> String {
    chrono::DateTime::from_timestamp_millis(i64::try_from(T0 + offset_ms).unwrap())
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A main-chain request of transcript `t` that wrote `cache_write` tokens to the cache and read
/// `cache_read` from it (its context is their sum), and nothing else.
pub fn usage_row(key: &str, time: Option<String>, cache_write: u64, cache_read: u64) -> UsageRow {
    UsageRow {
        time,
        transcript: "t".into(),
        key: key.into(),
        tokens: TokenUsage {
            cache_creation_input_tokens: cache_write,
            cache_read_input_tokens: cache_read,
            ..TokenUsage::default()
        },
        context_tokens: cache_write + cache_read,
        ..UsageRow::default()
    }
}
