//! A report as JSON for programs: the model's facts, with each drop's evidence and each
//! warning's message also rendered in words, and every request and compaction numbered from 1
//! as in the text (the layout `docs/usage.md` documents, schema 2).

use serde_json::{Value, json};

use super::text::{drop_evidence_text, request_label, trigger_text, warning_text};
use crate::facts::report::SessionReport;

/// The report as the JSON value `ctxhooks report --json` prints.
pub fn report_json(report: &SessionReport) -> Value {
    let mut value = serde_json::to_value(report).unwrap_or(Value::Null);
    if let Some(drops) = value.get_mut("drops").and_then(Value::as_array_mut) {
        for (drop, model) in drops.iter_mut().zip(&report.drops) {
            drop["evidence_detail"] = drop["evidence"].take();
            drop["evidence"] = drop_evidence_text(&model.evidence, model.fall()).into();
        }
    }
    if let Some(trigger) = value.pointer_mut("/estimates/trigger") {
        trigger["text"] = trigger_text(&report.estimates.trigger).into();
    }
    let label = request_label(report);
    let warnings = report.warnings.iter().map(
        |warning| json!({"kind": <&str>::from(warning), "message": warning_text(warning, label)}),
    );
    value["warnings"] = warnings.collect();
    value
}
