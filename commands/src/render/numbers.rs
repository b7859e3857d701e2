//! Numbers for people: counts with thousands separators, and tokens in short, rounded one of
//! two ways by what the reader must not be misled about.

use indicatif::HumanCount;

/// `1234567` as `1,234,567`.
pub fn thousands(value: u64) -> String {
    HumanCount(value).to_string()
}

/// `1,234`, or `missing` (`-`, `unknown`) for a count nobody knows.
pub fn thousands_or(value: Option<u64>, missing: &str) -> String {
    value.map_or_else(|| missing.to_owned(), thousands)
}

/// `-1,234` or `1,234`.
pub fn signed_thousands(value: i64) -> String {
    let sign = if value < 0 { "-" } else { "" };
    format!("{sign}{}", thousands(value.unsigned_abs()))
}

/// Tokens in short, rounded to the nearest (a half up): `950`, `168k`, `1.2M`. For a chart's
/// grid line, which stands for a round value.
#[expect(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "a grid line's tokens, not negative, far below 2^52, rounded for people"
)]
pub fn short_tokens_rounded(value: f64) -> String {
    if value >= 1_000_000.0 {
        format!("{:.1}M", value / 1_000_000.0)
    } else if value >= 1_000.0 {
        format!("{}k", (value / 1_000.0).round() as u64)
    } else {
        format!("{}", value.round() as u64)
    }
}

/// Tokens in short, rounded down: `950`, `24k`, `142k`, `1.2M` (`999,600` is `999k`, never
/// `1M`). For a gauge, which must never show more room than there is; the Stop hook's warning
/// writes its tokens with it too.
pub use ctxhooks_shared::gauge::short_tokens as short_tokens_floored;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_digits_by_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(155_250), "155,250");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }

    #[test]
    fn short_tokens_round_to_the_nearest_or_down() {
        assert_eq!(short_tokens_rounded(950.0), "950");
        assert_eq!(short_tokens_rounded(167_500.0), "168k");
        assert_eq!(short_tokens_floored(167_500), "167k");
        assert_eq!(short_tokens_floored(999_600), "999k");
        assert_eq!(short_tokens_rounded(1_250_000.0), "1.2M");
        assert_eq!(short_tokens_floored(1_250_000), "1.2M");
    }
}
