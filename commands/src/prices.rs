//! What a model's tokens cost in dollars: the built-in price table (each price with the page it
//! was read from and the day), the entries `<state>/config.json`'s `prices` puts in its place,
//! and the price of one response's tokens. `report`, `history`, `export` (through the session
//! model's `Tally`) and the status line's `{cost}` price with it; the hooks never price anything.
//!
//! A model is found by its family, as the API names it in a transcript's `message.model`:
//! `claude-sonnet-4-5` prices `claude-sonnet-4-5` and `claude-sonnet-4-5-20250929` (a dated name:
//! eight digits), never `claude-sonnet-4-5-1` (`model_name::same_model`, which also drops a
//! `[1m]` suffix). A model the table does not name is unpriced, never guessed.

use std::collections::BTreeMap;

use serde::Deserialize;
use thiserror::Error;

use ctxhooks_shared::causes::Causes;
use ctxhooks_shared::model_name::same_model;
use ctxhooks_shared::store::config::Config;
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::store::usage_record::{CacheTtl, TokenUsage};

/// Anthropic's price list, where every built-in price below was read.
pub const PRICING_PAGE: &str = "https://platform.claude.com/docs/en/about-claude/pricing";
/// The long-context section of the same price list, as its earlier address serves it.
pub const LONG_CONTEXT_PAGE: &str = "https://docs.anthropic.com/en/docs/about-claude/pricing";
/// The day the built-in prices were read.
pub const READ_ON: &str = "2026-12-06";

/// Dollars per million tokens, in millionths of a dollar ($3 is 3,000,000; $0.30 is 300,000),
/// so that every sum is exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rates {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write_5m: u64,
    pub cache_write_1h: u64,
}

/// The rates a request pays when what it reads (input + cache read + cache write) is above
/// `above_input_tokens`: on every one of its tokens, output included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LongContext {
    pub above_input_tokens: u64,
    pub rates: Rates,
}

/// One model family's price, and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelPrice {
    /// The family as the API names it (`claude-opus-4-1`).
    pub model: String,
    pub rates: Rates,
    pub long_context: Option<LongContext>,
    /// Where the price was read (a URL), or `config.json` for a person's own.
    pub source: String,
    /// The day it was read (`YYYY-MM-DD`); `None` for a person's own.
    pub read_on: Option<String>,
}

/// An amount in millionths of a millionth of a dollar (picodollars): a price per million tokens
/// in millionths of a dollar times a count of tokens, exact. Sums saturate at about 18 million
/// dollars instead of wrapping.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cost(pub u64);

impl Cost {
    /// The sum of both (saturating).
    #[must_use]
    pub fn saturating_add(self, more: Self) -> Self {
        Self(self.0.saturating_add(more.0))
    }

    /// In dollars, to the millionth of a dollar (the JSON's `usd`).
    #[expect(
        clippy::cast_precision_loss,
        reason = "a dollar amount to the millionth: 2^53 millionths is 9 billion dollars"
    )]
    pub fn usd(self) -> f64 {
        let micros = self.0.saturating_add(500_000) / 1_000_000;
        micros as f64 / 1_000_000.0
    }
}

/// Rates from the five prices of the price list's table (each in millionths of a dollar per
/// million tokens), in the order of its columns: base input, 5m cache writes, 1h cache writes,
/// cache hits, output.
const fn rates(
    input: u64,
    five_minute_write: u64,
    one_hour_write: u64,
    hit: u64,
    output: u64,
) -> Rates {
    Rates {
        input,
        output,
        cache_read: hit,
        cache_write_5m: five_minute_write,
        cache_write_1h: one_hour_write,
    }
}

/// Opus 4.5 to 4.8 and Opus 5: $5 / $6.25 / $10 / $0.50 / $25.
const OPUS_5_DOLLARS: Rates = rates(5_000_000, 6_250_000, 10_000_000, 500_000, 25_000_000);
/// Opus 3, 4 and 4.1: $15 / $18.75 / $30 / $1.50 / $75.
const OPUS_15_DOLLARS: Rates = rates(15_000_000, 18_750_000, 30_000_000, 1_500_000, 75_000_000);
/// Sonnet 3.7, 4, 4.5 and 4.6: $3 / $3.75 / $6 / $0.30 / $15.
const SONNET_3_DOLLARS: Rates = rates(3_000_000, 3_750_000, 6_000_000, 300_000, 15_000_000);
/// Sonnet 4 and 4.5 above 200,000 input tokens (the 1,000,000-token window): $6 input and
/// $22.50 output, the list's long-context table; its cache prices are the list's multipliers
/// of that input (5m write 1.25×, 1h write 2×, hit 0.1×): $7.50, $12, $0.60.
const SONNET_LONG_CONTEXT: Option<LongContext> = Some(LongContext {
    above_input_tokens: 200_000,
    rates: rates(6_000_000, 7_500_000, 12_000_000, 600_000, 22_500_000),
});
/// Sonnet 5: $2 / $2.50 / $4 / $0.20 / $10.
const SONNET_5: Rates = rates(2_000_000, 2_500_000, 4_000_000, 200_000, 10_000_000);
/// Haiku 4.5: $1 / $1.25 / $2 / $0.10 / $5.
const HAIKU_4_5: Rates = rates(1_000_000, 1_250_000, 2_000_000, 100_000, 5_000_000);
/// Haiku 3.5: $0.80 / $1 / $1.60 / $0.08 / $4.
const HAIKU_3_5: Rates = rates(800_000, 1_000_000, 1_600_000, 80_000, 4_000_000);
/// Haiku 3: $0.25 / $0.30 / $0.50 / $0.03 / $1.25.
const HAIKU_3: Rates = rates(250_000, 300_000, 500_000, 30_000, 1_250_000);
/// Fable 5 and Mythos 5: $10 / $12.50 / $20 / $1 / $50.
const FABLE_5: Rates = rates(10_000_000, 12_500_000, 20_000_000, 1_000_000, 50_000_000);
/// Fable 5.1 and Mythos 5.1: as Fable 5 with cache hits at $0.25.
const FABLE_5_1: Rates = rates(10_000_000, 12_500_000, 20_000_000, 250_000, 50_000_000);

/// The built-in table: every model family of Anthropic's price list ([`PRICING_PAGE`], read on
/// [`READ_ON`]) with all five prices published. Opus 5.5, Sonnet 5.5 and Haiku 5.5 are left
/// out: the list read gave their input and output prices but not all their cache prices, so
/// they are unpriced until `config.json` prices them.
const BUILT_IN: [(&str, Rates, Option<LongContext>); 20] = [
    ("claude-fable-5", FABLE_5, None),
    ("claude-fable-5-1", FABLE_5_1, None),
    ("claude-mythos-5", FABLE_5, None),
    ("claude-mythos-5-1", FABLE_5_1, None),
    ("claude-opus-5", OPUS_5_DOLLARS, None),
    ("claude-opus-4-8", OPUS_5_DOLLARS, None),
    ("claude-opus-4-7", OPUS_5_DOLLARS, None),
    ("claude-opus-4-6", OPUS_5_DOLLARS, None),
    ("claude-opus-4-5", OPUS_5_DOLLARS, None),
    ("claude-opus-4-1", OPUS_15_DOLLARS, None),
    ("claude-opus-4", OPUS_15_DOLLARS, None),
    ("claude-3-opus", OPUS_15_DOLLARS, None),
    ("claude-sonnet-5", SONNET_5, None),
    ("claude-sonnet-4-6", SONNET_3_DOLLARS, None),
    ("claude-sonnet-4-5", SONNET_3_DOLLARS, SONNET_LONG_CONTEXT),
    ("claude-sonnet-4", SONNET_3_DOLLARS, SONNET_LONG_CONTEXT),
    ("claude-3-7-sonnet", SONNET_3_DOLLARS, None),
    ("claude-haiku-4-5", HAIKU_4_5, None),
    ("claude-3-5-haiku", HAIKU_3_5, None),
    ("claude-3-haiku", HAIKU_3, None),
];

/// The prices a command uses: a person's own entries (from `config.json`) before the built-in
/// ones, the first whose family matches a model pricing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prices {
    entries: Vec<ModelPrice>,
}

impl Default for Prices {
    fn default() -> Self {
        Self::built_in()
    }
}

/// Why `config.json`'s `prices` cannot be used.
#[derive(Debug, Error)]
pub enum PriceError {
    /// An entry is not an object of the five prices (and `long_context`), each a number.
    #[error("`prices.{model}` in `{}` is not a price: {source}", .path.display())]
    Entry {
        model: String,
        path: std::path::PathBuf,
        source: serde_json::Error,
    },
    /// A price is negative, not finite, or past a million dollars per million tokens.
    #[error(
        "`prices.{model}.{field}` in `{}` is {value}: a price is dollars per million tokens, \
         from 0 to 1000000",
        .path.display()
    )]
    Value {
        model: String,
        field: &'static str,
        value: f64,
        path: std::path::PathBuf,
    },
}

/// One entry of `config.json`'s `prices`, in dollars per million tokens.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PriceEntry {
    input: f64,
    output: f64,
    cache_read: f64,
    cache_write_5m: f64,
    cache_write_1h: f64,
    long_context: Option<LongContextEntry>,
}

/// An entry's long-context tier.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LongContextEntry {
    above_input_tokens: u64,
    input: f64,
    output: f64,
    cache_read: f64,
    cache_write_5m: f64,
    cache_write_1h: f64,
}

impl Prices {
    /// The built-in table alone.
    pub fn built_in() -> Self {
        let entries = BUILT_IN
            .iter()
            .map(|&(model, rates, long_context)| ModelPrice {
                model: model.to_owned(),
                rates,
                long_context,
                source: if long_context.is_some() {
                    format!("{PRICING_PAGE}; long context: {LONG_CONTEXT_PAGE}")
                } else {
                    PRICING_PAGE.to_owned()
                },
                read_on: Some(READ_ON.to_owned()),
            })
            .collect();
        Self { entries }
    }

    /// The built-in table with `<state>/config.json`'s `prices` before it (the table alone
    /// without a state folder or a file). A bad entry of `prices` is an error naming it; a file
    /// that cannot be read or is not a valid configuration as a whole (its storage limits, say)
    /// is the storage's problem, which `doctor` shows: it is said on stderr and the built-in
    /// table used, so that a command that never read the file before does not fail for it.
    pub fn load(state: Option<&StateDir>) -> Result<Self, PriceError> {
        let mut prices = Self::built_in();
        let Some(state) = state else {
            return Ok(prices);
        };
        let config = match Config::load(state) {
            Ok(Some(config)) => config,
            Ok(None) => return Ok(prices),
            Err(problem) => {
                crate::output::note(&format!(
                    "ctxhooks: {}; costs use the built-in prices",
                    Causes(&problem)
                ));
                return Ok(prices);
            }
        };
        let path = state.config_file();
        let own = config.prices.unwrap_or_default();
        prices.put_first(own_entries(&own, &path)?);
        Ok(prices)
    }

    /// `entries` before the table's (each replacing the built-in entry of its family).
    fn put_first(&mut self, entries: Vec<ModelPrice>) {
        self.entries
            .retain(|built_in| !entries.iter().any(|own| own.model == built_in.model));
        let mut all = entries;
        all.append(&mut self.entries);
        self.entries = all;
    }

    /// The price of `model`'s family, if the table has one.
    pub fn find(&self, model: &str) -> Option<&ModelPrice> {
        self.entries
            .iter()
            .find(|entry| same_model(&entry.model, model))
    }

    /// Every entry, a person's own first.
    pub fn entries(&self) -> &[ModelPrice] {
        &self.entries
    }
}

/// `config.json`'s `prices`, read and checked.
fn own_entries(
    own: &serde_json::Map<String, serde_json::Value>,
    path: &std::path::Path,
) -> Result<Vec<ModelPrice>, PriceError> {
    let mut entries = BTreeMap::new();
    for (model, value) in own {
        let entry = PriceEntry::deserialize(value).map_err(|source| PriceError::Entry {
            model: model.clone(),
            path: path.to_path_buf(),
            source,
        })?;
        let convert = |field: &'static str, value: f64| {
            micros_per_million(value).ok_or_else(|| PriceError::Value {
                model: model.clone(),
                field,
                value,
                path: path.to_path_buf(),
            })
        };
        let rates = Rates {
            input: convert("input", entry.input)?,
            output: convert("output", entry.output)?,
            cache_read: convert("cache_read", entry.cache_read)?,
            cache_write_5m: convert("cache_write_5m", entry.cache_write_5m)?,
            cache_write_1h: convert("cache_write_1h", entry.cache_write_1h)?,
        };
        let long_context = entry
            .long_context
            .map(|long| -> Result<LongContext, PriceError> {
                Ok(LongContext {
                    above_input_tokens: long.above_input_tokens,
                    rates: Rates {
                        input: convert("long_context.input", long.input)?,
                        output: convert("long_context.output", long.output)?,
                        cache_read: convert("long_context.cache_read", long.cache_read)?,
                        cache_write_5m: convert(
                            "long_context.cache_write_5m",
                            long.cache_write_5m,
                        )?,
                        cache_write_1h: convert(
                            "long_context.cache_write_1h",
                            long.cache_write_1h,
                        )?,
                    },
                })
            })
            .transpose()?;
        entries.insert(
            model.clone(),
            ModelPrice {
                model: model.clone(),
                rates,
                long_context,
                source: "config.json".to_owned(),
                read_on: None,
            },
        );
    }
    Ok(entries.into_values().collect())
}

/// Dollars per million tokens in millionths of a dollar, rounded; `None` when negative, not
/// finite or above a million dollars.
#[expect(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "checked to lie within 0..=10^12 first"
)]
fn micros_per_million(dollars: f64) -> Option<u64> {
    (dollars.is_finite() && (0.0..=1_000_000.0).contains(&dollars))
        .then(|| (dollars * 1_000_000.0).round() as u64)
}

impl ModelPrice {
    /// What one response's `tokens` cost: the long-context rates when what it read is above
    /// their threshold; of its cache writes, `one_hour` (the response's 5m/1h split, when
    /// known) at the 1-hour price and the rest at the 5-minute one; without the split, all of
    /// them at the price of `ttl` (the 5-minute one, the API's default, when it is unknown).
    pub fn cost(&self, tokens: &TokenUsage, one_hour: Option<u64>, ttl: Option<CacheTtl>) -> Cost {
        let rates = match self.long_context {
            Some(long) if tokens.input_side() > long.above_input_tokens => long.rates,
            _ => self.rates,
        };
        let writes = tokens.cache_creation_input_tokens;
        let one_hour = one_hour.map_or_else(
            || match ttl {
                Some(CacheTtl::OneHour) => writes,
                Some(CacheTtl::FiveMinutes) | None => 0,
            },
            |one_hour| one_hour.min(writes),
        );
        let parts = [
            (tokens.input_tokens, rates.input),
            (tokens.cache_read_input_tokens, rates.cache_read),
            (writes - one_hour, rates.cache_write_5m),
            (one_hour, rates.cache_write_1h),
            (tokens.output_tokens, rates.output),
        ];
        let picodollars: u128 = parts
            .iter()
            .map(|&(count, rate)| u128::from(count) * u128::from(rate))
            .sum();
        Cost(u64::try_from(picodollars).unwrap_or(u64::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(input: u64, write: u64, read: u64, output: u64) -> TokenUsage {
        TokenUsage {
            input_tokens: input,
            cache_creation_input_tokens: write,
            cache_read_input_tokens: read,
            output_tokens: output,
        }
    }

    #[test]
    fn a_dated_name_finds_its_family_and_no_neighbour() {
        let prices = Prices::built_in();
        let family = |model: &str| prices.find(model).map(|price| price.model.as_str());
        assert_eq!(
            family("claude-sonnet-4-5-20250929"),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(family("claude-sonnet-4-20250514"), Some("claude-sonnet-4"));
        assert_eq!(family("claude-opus-4-1-20250805"), Some("claude-opus-4-1"));
        assert_eq!(
            family("claude-haiku-4-5-20251001"),
            Some("claude-haiku-4-5")
        );
        assert_eq!(family("claude-sonnet-4-5[1m]"), Some("claude-sonnet-4-5"));
        assert_eq!(family("claude-opus-5"), Some("claude-opus-5"));
        // Not Opus 5's price: a model the list did not fully price stays unpriced.
        assert_eq!(family("claude-opus-5-5"), None);
        assert_eq!(family("<synthetic>"), None);
    }

    #[test]
    fn a_response_costs_the_published_prices() {
        let prices = Prices::built_in();
        // Opus 4.6, 1h cache: 54 × $5 + 17,696 × $10 + 88,231 × $0.50 + 212 × $25, per
        // million: $0.000270 + $0.176960 + $0.0441155 + $0.005300 = $0.2266455.
        let opus = prices.find("claude-opus-4-6").unwrap();
        let cost = opus.cost(
            &tokens(54, 17_696, 88_231, 212),
            None,
            Some(CacheTtl::OneHour),
        );
        assert_eq!(cost, Cost(226_645_500_000));
        assert!((cost.usd() - 0.226_646).abs() < 1e-12);
        // The same at 5m: the write at $6.25 is $0.1106, so $0.1602855.
        let cost = opus.cost(&tokens(54, 17_696, 88_231, 212), None, None);
        assert_eq!(cost, Cost(160_285_500_000));
        // The split wins over the lifetime asked for: 17,696 written to the 1h cache of a
        // request that asked for 5m are $0.17696; 1,000 of them in the 1h bucket and 16,696 in
        // the 5m one are $0.01 + $0.10435 = $0.11435.
        let split = |one_hour| opus.cost(&tokens(0, 17_696, 0, 0), Some(one_hour), None);
        assert_eq!(split(17_696), Cost(176_960_000_000));
        let asked = opus.cost(
            &tokens(0, 17_696, 0, 0),
            Some(17_696),
            Some(CacheTtl::FiveMinutes),
        );
        assert_eq!(asked, Cost(176_960_000_000));
        assert_eq!(split(1_000), Cost(114_350_000_000));
        // Haiku 4.5: 1,000,000 output tokens are $5.
        let haiku = prices.find("claude-haiku-4-5-20251001").unwrap();
        assert_eq!(
            haiku.cost(&tokens(0, 0, 0, 1_000_000), None, None),
            Cost(5_000_000_000_000)
        );
    }

    #[test]
    fn above_200k_input_sonnet_4_5_pays_the_long_context_rates_on_every_token() {
        let sonnet = Prices::built_in();
        let sonnet = sonnet.find("claude-sonnet-4-5-20250929").unwrap();
        // 200,000 read: the base rates. 10 × $3 + 199,990 × $0.30 + 1,000 × $15 per million:
        // $0.00003 + $0.059997 + $0.015 = $0.075027.
        let at = sonnet.cost(&tokens(10, 0, 199_990, 1_000), None, None);
        assert_eq!(at, Cost(75_027_000_000));
        // 200,001 read: every token at the long-context rates. 11 × $6 + 199,990 × $0.60 +
        // 1,000 × $22.50: $0.000066 + $0.119994 + $0.0225 = $0.14256.
        let above = sonnet.cost(&tokens(11, 0, 199_990, 1_000), None, None);
        assert_eq!(above, Cost(142_560_000_000));
        // A cache write above the threshold, 1h: 250,000 × $12 = $3.
        let write = sonnet.cost(&tokens(0, 250_000, 0, 0), None, Some(CacheTtl::OneHour));
        assert_eq!(write, Cost(3_000_000_000_000));
        // Sonnet 4.6 has no such tier in the list: 250,000 × $6 = $1.50.
        let prices = Prices::built_in();
        let plain = prices.find("claude-sonnet-4-6").unwrap();
        let write = plain.cost(&tokens(0, 250_000, 0, 0), None, Some(CacheTtl::OneHour));
        assert_eq!(write, Cost(1_500_000_000_000));
    }

    #[test]
    fn own_entries_replace_the_built_in_ones_and_a_bad_one_is_named() {
        let path = std::path::Path::new("config.json");
        let own: serde_json::Map<String, serde_json::Value> = serde_json::from_str(
            r#"{"claude-opus-5-5": {"input": 4, "output": 20, "cache_read": 0.2,
                 "cache_write_5m": 5, "cache_write_1h": 8},
                "claude-opus-4-6": {"input": 1, "output": 1, "cache_read": 1,
                 "cache_write_5m": 1, "cache_write_1h": 1}}"#,
        )
        .unwrap();
        let mut prices = Prices::built_in();
        prices.put_first(own_entries(&own, path).unwrap());
        let opus = prices.find("claude-opus-5-5-20260922").unwrap();
        assert_eq!(opus.rates.cache_read, 200_000);
        assert_eq!(opus.source, "config.json");
        // 1,000,000 output at $20.
        assert_eq!(
            opus.cost(&tokens(0, 0, 0, 1_000_000), None, None),
            Cost(20_000_000_000_000)
        );
        assert_eq!(
            prices.find("claude-opus-4-6").unwrap().rates.input,
            1_000_000
        );
        assert_eq!(
            prices
                .entries()
                .iter()
                .filter(|entry| entry.model == "claude-opus-4-6")
                .count(),
            1
        );

        for (bad, field) in [
            (r#"{"m": {"input": 1}}"#, None),
            (
                r#"{"m": {"input": -1, "output": 1, "cache_read": 1, "cache_write_5m": 1, "cache_write_1h": 1}}"#,
                Some("input"),
            ),
            (
                r#"{"m": {"input": 1, "output": 1, "cache_read": 1, "cache_write_5m": 1, "cache_write_1h": 1, "extra": 1}}"#,
                None,
            ),
        ] {
            let own: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(bad).unwrap();
            match own_entries(&own, path) {
                Err(PriceError::Value {
                    model, field: f, ..
                }) => {
                    assert_eq!((model.as_str(), Some(f)), ("m", field));
                }
                Err(PriceError::Entry { model, .. }) => {
                    assert_eq!((model.as_str(), field), ("m", None));
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
    }
}
