//! Requests and their tokens added up, with the sessions they came from: one session's, one
//! day's, one project's or everything's, by one type that adds a request and merges a tally.

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use ctxhooks_shared::store::usage_record::{ModelUsage, TokenUsage, UsageRow, add_by_model};

/// A peak at or above this share of T counts as running near the trigger.
pub const NEAR_TRIGGER_RATIO: f64 = 0.9;

/// Requests (main chain and sub-agents) and their token sums (output the largest per request),
/// and what the sessions counted in it did. Token sums saturate: a sum past `u64` stays at its
/// largest value instead of wrapping.
///
/// Written as `requests`, `main_requests`, `sidechain_requests` and `totals` (see
/// [`Tally::totals`]); the other counts are written by the views that show them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Sessions counted (1 in one session's or one session's day).
    pub sessions: usize,
    pub requests: usize,
    pub main_requests: usize,
    pub tokens: TokenUsage,
    /// The advisor's own tokens (its `advisor_message` iterations), by model: spent by another
    /// model than the session's, so not in `tokens` (ccusage lists them as that model's).
    pub advisor: Vec<ModelUsage>,
    /// The largest main-chain context.
    pub peak_context: u64,
    pub compactions: usize,
    /// Sessions with at least one compaction.
    pub sessions_with_compaction: usize,
    /// Sessions whose peak reached [`NEAR_TRIGGER_RATIO`] of their T.
    pub sessions_near_trigger: usize,
}

impl Tally {
    /// Counts one request.
    pub fn add(&mut self, row: &UsageRow) {
        self.requests += 1;
        self.tokens = self.tokens.saturating_add(row.tokens);
        add_by_model(&mut self.advisor, &row.advisor_usage);
        if !row.sidechain {
            self.main_requests += 1;
            self.peak_context = self.peak_context.max(row.context_tokens);
        }
    }

    /// Counts everything `more` counts.
    pub fn merge(&mut self, more: &Self) {
        self.sessions += more.sessions;
        self.requests += more.requests;
        self.main_requests += more.main_requests;
        self.tokens = self.tokens.saturating_add(more.tokens);
        add_by_model(&mut self.advisor, &more.advisor);
        self.peak_context = self.peak_context.max(more.peak_context);
        self.compactions += more.compactions;
        self.sessions_with_compaction += more.sessions_with_compaction;
        self.sessions_near_trigger += more.sessions_near_trigger;
    }

    pub fn sidechain_requests(&self) -> usize {
        self.requests - self.main_requests
    }

    /// The token sums as they are written: the four counts, then `advisor` when it has any.
    pub fn totals(&self) -> Totals<'_> {
        Totals {
            tokens: &self.tokens,
            advisor: &self.advisor,
        }
    }
}

/// A [`Tally`]'s token sums, as [`Tally::totals`] writes them.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Totals<'a> {
    #[serde(flatten)]
    pub tokens: &'a TokenUsage,
    #[serde(skip_serializing_if = "<[ModelUsage]>::is_empty")]
    pub advisor: &'a [ModelUsage],
}

impl Serialize for Tally {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut tally = serializer.serialize_struct("Tally", 4)?;
        tally.serialize_field("requests", &self.requests)?;
        tally.serialize_field("main_requests", &self.main_requests)?;
        tally.serialize_field("sidechain_requests", &self.sidechain_requests())?;
        tally.serialize_field("totals", &self.totals())?;
        tally.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::usage_row;

    #[test]
    fn a_tally_of_tallies_is_the_tally_of_their_requests() {
        let mut rows: Vec<UsageRow> = (1..=4_u64)
            .map(|n| usage_row(&format!("k{n}"), None, n * 1_000, n * 10_000))
            .collect();
        rows[1].sidechain = true;
        rows[2].advisor_usage = vec![ModelUsage {
            model: Some("advisor".into()),
            tokens: TokenUsage {
                output_tokens: 7,
                ..TokenUsage::default()
            },
        }];
        let tally_of = |rows: &[UsageRow]| {
            let mut tally = Tally::default();
            for row in rows {
                tally.add(row);
            }
            tally
        };
        let whole = tally_of(&rows);
        let mut first = tally_of(&rows[..2]);
        first.merge(&tally_of(&rows[2..]));
        assert_eq!(first, whole);
        assert_eq!((whole.requests, whole.sidechain_requests()), (4, 1));
        assert_eq!(whole.peak_context, rows[3].context_tokens);
        let json = serde_json::to_value(&whole).unwrap();
        assert_eq!(json["totals"]["advisor"][0]["output_tokens"], 7);
        assert_eq!(json["sidechain_requests"], 1);
    }
}
