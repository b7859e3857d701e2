//! A report as JSON for programs: the model's facts, with each drop's evidence and each
//! warning's message also rendered in words, and every request and compaction numbered from 1
//! as in the text (the layout `docs/usage.md` documents, schema 2).

use serde::{Serialize, Serializer};
use serde_json::{Value, json};

use super::text::{drop_evidence_text, report_text, request_label, trigger_text, warning_text};
use crate::facts::report::SessionReport;
use crate::output::{Emit, Schema};

/// A report as `ctxhooks report` prints it: in words, or in JSON the model's serialisation with
/// the words added where a program wants them (each drop's `evidence` in words, its structure
/// in `evidence_detail`; the trigger's `text`; each warning's `kind` and `message`).
pub struct PrintedReport<'a>(pub &'a SessionReport);

impl Serialize for PrintedReport<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let report = self.0;
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
        value.serialize(serializer)
    }
}

/// 2: request numbers count from 1, drops are falls only, classes rest on evidence, T says how
/// it was derived (see `docs/usage.md`).
impl Schema for PrintedReport<'_> {
    /// 3: `cost`.
    const SCHEMA: u32 = 3;
}

impl Emit for PrintedReport<'_> {
    fn text(&self) -> String {
        report_text(self.0)
    }
}
