//! Dollars in words: an amount, a table's cell and a tally's cost lines, shared by `report`,
//! `history` and the status line's `{cost}`.

use std::fmt::Write as _;

use crate::facts::tally::CostTally;
use crate::prices::Cost;

/// Dollars for people: to the cent from a dollar on, to the hundredth of a cent below.
pub fn usd_text(cost: Cost) -> String {
    let usd = cost.usd();
    if usd >= 1.0 {
        format!("${usd:.2}")
    } else {
        format!("${usd:.4}")
    }
}

/// A table's cost cell: the priced models' cost, with `+` after it when an unpriced model's
/// tokens are not in it, `?` when no model was priced, `-` with no request.
pub fn cost_cell(cost: &CostTally) -> String {
    let priced = cost.by_model.iter().any(|model| model.cost.is_some());
    let unpriced = cost.unpriced().next().is_some();
    match (priced, unpriced) {
        (false, false) => "-".to_owned(),
        (false, true) => "?".to_owned(),
        (true, false) => usd_text(cost.total()),
        (true, true) => format!("{}+", usd_text(cost.total())),
    }
}

/// `cost: $1.2345 (model $x, advisor's model $y)` (nothing without a request), then
/// `unpriced: MODEL, ...` when a model has no price, each line starting with `indent`.
pub fn cost_lines(cost: &CostTally, indent: &str) -> String {
    let mut text = String::new();
    let priced: Vec<String> = cost
        .by_model
        .iter()
        .filter_map(|model| {
            let name = model.model.as_deref().unwrap_or("(model unnamed)");
            Some(format!("{name} {}", usd_text(model.cost?)))
        })
        .collect();
    if !priced.is_empty() {
        let _ = writeln!(
            text,
            "{indent}cost: {} ({})",
            usd_text(cost.total()),
            priced.join(", ")
        );
    }
    let unpriced: Vec<&str> = cost
        .unpriced()
        .map(|model| model.unwrap_or("(model unnamed)"))
        .collect();
    if !unpriced.is_empty() {
        let _ = writeln!(
            text,
            "{indent}unpriced: {} (no price known: their tokens are in no cost; \
             `config.json`'s `prices` can give one)",
            unpriced.join(", ")
        );
    }
    text
}
