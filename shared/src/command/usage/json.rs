//! A report as JSON for programs: the model's facts, with each drop's evidence and each
//! warning's message rendered in words (the layout `docs/usage.md` documents).

use serde_json::{Value, json};

use super::report::SessionReport;
use super::text::{drop_evidence_text, request_label, warning_text};

/// The report as the JSON value `ctxhooks report --json` prints.
pub fn report_json(report: &SessionReport) -> Value {
    let mut value = serde_json::to_value(report).unwrap_or(Value::Null);
    if let Some(drops) = value.get_mut("drops").and_then(Value::as_array_mut) {
        for (drop, model) in drops.iter_mut().zip(&report.drops) {
            drop["evidence"] = drop_evidence_text(&model.evidence).into();
        }
    }
    let label = request_label(report);
    if let Some(warnings) = value.get_mut("warnings").and_then(Value::as_array_mut) {
        for (warning, model) in warnings.iter_mut().zip(&report.warnings) {
            *warning = json!({
                "kind": model.kind(),
                "message": warning_text(model, label),
            });
        }
    }
    value
}
