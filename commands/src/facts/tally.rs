//! Requests and their tokens added up, with the sessions they came from: one session's, one
//! day's, one project's or everything's, by one type that adds a request and merges a tally.

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use crate::output::fields_by_name;
use crate::prices::{Cost, Prices};
use ctxhooks_shared::store::usage_record::{ModelUsage, TokenUsage, UsageRow, add_by_model};

/// A peak at or above this share of T counts as running near the trigger.
pub const NEAR_TRIGGER_RATIO: f64 = 0.9;

/// Requests (main chain and sub-agents) and their token sums (output the largest per request),
/// and what the sessions counted in it did. Token sums saturate: a sum past `u64` stays at its
/// largest value instead of wrapping.
///
/// Written as `requests`, `main_requests`, `sidechain_requests`, `totals` (see
/// [`Tally::totals`]) and `cost`; the other counts are written by the views that show them.
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
    /// What the requests cost, by model (the advisor's tokens as its own model's).
    pub cost: CostTally,
}

/// What requests cost in dollars, by model, in the order the models were first seen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CostTally {
    pub by_model: Vec<ModelCost>,
}

/// One model's part of a [`CostTally`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelCost {
    /// The model as the transcript names it (`None`: a request that named none).
    pub model: Option<String>,
    /// Responses it spent tokens in.
    pub responses: usize,
    /// `None` when the price table has no price for it: unpriced, never guessed.
    pub cost: Option<Cost>,
}

impl CostTally {
    /// Counts one response of `model` that cost `cost` (`None`: unpriced).
    pub fn add(&mut self, model: Option<&str>, cost: Option<Cost>) {
        self.count(model, 1, cost);
    }

    /// Counts everything `more` counts.
    pub fn merge(&mut self, more: &Self) {
        for sum in &more.by_model {
            self.count(sum.model.as_deref(), sum.responses, sum.cost);
        }
    }

    /// Counts `responses` responses of `model` that cost `cost` together (`None`: unpriced).
    fn count(&mut self, model: Option<&str>, responses: usize, cost: Option<Cost>) {
        // Found by its name first: no name is copied for a model already counted.
        match self
            .by_model
            .iter_mut()
            .find(|sum| sum.model.as_deref() == model)
        {
            Some(sum) => {
                sum.responses += responses;
                sum.cost = sum.cost.zip(cost).map(|(a, b)| a.saturating_add(b));
            }
            None => self.by_model.push(ModelCost {
                model: model.map(ToOwned::to_owned),
                responses,
                cost,
            }),
        }
    }

    /// The cost of every priced model's tokens.
    pub fn total(&self) -> Cost {
        self.by_model
            .iter()
            .filter_map(|model| model.cost)
            .fold(Cost::default(), Cost::saturating_add)
    }

    /// The models with no price, as named (`None`: requests that named no model).
    pub fn unpriced(&self) -> impl Iterator<Item = Option<&str>> {
        self.by_model
            .iter()
            .filter(|model| model.cost.is_none())
            .map(|model| model.model.as_deref())
    }
}

/// What one request cost: its own model's tokens and each of the advisor's models' (`None`
/// where a model is unpriced), the parts [`CostTally::add`] counts.
pub fn request_costs<'a>(
    row: &'a UsageRow,
    prices: &Prices,
) -> Vec<(Option<&'a str>, Option<Cost>)> {
    let price_of = |model: Option<&str>, tokens: &TokenUsage, one_hour: Option<u64>| {
        model
            .and_then(|model| prices.find(model))
            .map(|price| price.cost(tokens, one_hour, row.facts.cache_ttl))
    };
    let own = row.model.as_deref();
    let mut parts = vec![(own, price_of(own, &row.tokens, row.facts.cache_write_1h))];
    // The advisor's iterations give no split of their writes (none seen: they read no cache).
    for usage in &row.advisor_usage {
        let model = usage.model.as_deref();
        parts.push((model, price_of(model, &usage.tokens, None)));
    }
    parts
}

/// What one request cost in all, and whether every model in it was priced.
pub fn request_cost(row: &UsageRow, prices: &Prices) -> (Cost, bool) {
    request_costs(row, prices)
        .into_iter()
        .fold((Cost::default(), true), |(sum, all), (_, cost)| {
            (
                sum.saturating_add(cost.unwrap_or_default()),
                all && cost.is_some(),
            )
        })
}

impl Tally {
    /// Counts one request, priced by `prices`.
    pub fn add(&mut self, row: &UsageRow, prices: &Prices) {
        for (model, cost) in request_costs(row, prices) {
            self.cost.add(model, cost);
        }
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
        self.cost.merge(&more.cost);
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
        let mut tally = serializer.serialize_struct("Tally", 5)?;
        fields_by_name! { tally, self; requests, main_requests }
        tally.serialize_field("sidechain_requests", &self.sidechain_requests())?;
        tally.serialize_field("totals", &self.totals())?;
        tally.serialize_field("cost", &self.cost)?;
        tally.end()
    }
}

/// `{"usd": total, "by_model": [{"model", "responses", "usd"}], "unpriced": [model]}`: `usd` in
/// dollars to the millionth, of the priced models only; an unpriced model's `usd` is `null`.
impl Serialize for CostTally {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct PerModel<'a> {
            model: Option<&'a str>,
            responses: usize,
            usd: Option<f64>,
        }
        let mut cost = serializer.serialize_struct("CostTally", 3)?;
        cost.serialize_field("usd", &self.total().usd())?;
        let by_model: Vec<PerModel<'_>> = self
            .by_model
            .iter()
            .map(|model| PerModel {
                model: model.model.as_deref(),
                responses: model.responses,
                usd: model.cost.map(Cost::usd),
            })
            .collect();
        cost.serialize_field("by_model", &by_model)?;
        cost.serialize_field("unpriced", &self.unpriced().collect::<Vec<_>>())?;
        cost.end()
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
                tally.add(row, &Prices::built_in());
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

    #[test]
    fn the_advisor_is_priced_as_its_own_model_and_an_unknown_model_is_unpriced() {
        let prices = Prices::built_in();
        // Opus 5 (from the published list: $5 input, $0.50 cache hit, $6.25/$10 cache writes
        // 5m/1h, $25 output): 2 input, 216,786 read, 6,352 written to the 1h cache, 900 output:
        // $0.00001 + $0.108393 + $0.06352 + $0.0225 = $0.194423.
        let mut row = usage_row("a", None, 6_352, 216_786);
        row.model = Some("claude-opus-5".into());
        row.tokens.input_tokens = 2;
        row.tokens.output_tokens = 900;
        row.facts.cache_write_1h = Some(6_352);
        // Its advisor, Fable 5 ($10 input, $50 output): 207,281 input and 7,495 output:
        // $2.07281 + $0.37475 = $2.44756.
        row.advisor_usage = vec![ModelUsage {
            model: Some("claude-fable-5".into()),
            tokens: TokenUsage {
                input_tokens: 207_281,
                output_tokens: 7_495,
                ..TokenUsage::default()
            },
        }];
        // A model the table has no price for.
        let mut unknown = usage_row("b", None, 0, 1_000);
        unknown.model = Some("claude-opus-5-5".into());
        let mut tally = Tally::default();
        tally.add(&row, &prices);
        tally.add(&unknown, &prices);
        let cost = &tally.cost;
        assert_eq!(cost.by_model[0].cost, Some(Cost(194_423_000_000)));
        assert_eq!(cost.by_model[1].model.as_deref(), Some("claude-fable-5"));
        assert_eq!(cost.by_model[1].cost, Some(Cost(2_447_560_000_000)));
        assert_eq!(cost.total(), Cost(2_641_983_000_000));
        assert_eq!(
            cost.unpriced().collect::<Vec<_>>(),
            [Some("claude-opus-5-5")]
        );
        assert_eq!(request_cost(&row, &prices), (Cost(2_641_983_000_000), true));
        assert!(!request_cost(&unknown, &prices).1);
        let json = serde_json::to_value(&tally).unwrap();
        assert_eq!(json["cost"]["usd"], 2.641_983);
        assert_eq!(json["cost"]["unpriced"][0], "claude-opus-5-5");
        assert_eq!(json["cost"]["by_model"][2]["usd"], serde_json::Value::Null);
    }
}
