//! A report as JSON for programs: the model's facts, with each drop's evidence and each
//! warning's message also rendered in words, and every request and compaction numbered from 1
//! as in the text (the layout `docs/usage.md` documents, schema 2).

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use super::text::{drop_evidence_text, report_text, request_label, trigger_text, warning_text};
use crate::facts::compactions::Compaction;
use crate::facts::drops::ContextDrop;
use crate::facts::estimates::{Estimates, TriggerEstimate};
use crate::facts::log::SkippedLogLines;
use crate::facts::report::{AppliedThresholds, Peak, SessionReport};
use crate::facts::snapshot_check::SnapshotCheck;
use crate::facts::tally::Tally;
use crate::output::{Emit, Schema, fields_by_name};
use ctxhooks_shared::store::usage_record::SkippedLinesRow;

/// A report as `ctxhooks report` prints it: in words, or in JSON as [`ReportJson`] lays it out.
pub struct PrintedReport<'a>(pub &'a SessionReport);

impl Serialize for PrintedReport<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ReportJson::of(self.0).serialize(serializer)
    }
}

/// The report's JSON: its fields in the model's order, borrowed, with the words a program
/// wants beside the facts (each drop's `evidence` in words and its structure in
/// `evidence_detail`; the trigger's `text`; each warning as its `kind` and `message`).
#[derive(Serialize)]
struct ReportJson<'a> {
    session_id: &'a Option<String>,
    transcripts: &'a [String],
    #[serde(flatten)]
    tally: &'a Tally,
    peak: &'a Option<Peak>,
    contexts: &'a [u64],
    drops: Vec<DropJson<'a>>,
    compactions: &'a [Compaction],
    snapshots: &'a SnapshotCheck,
    estimates: EstimatesJson<'a>,
    thresholds: &'a AppliedThresholds,
    warnings: Vec<WarningJson>,
    skipped_lines: &'a [SkippedLinesRow],
    skipped_log_lines: &'a Option<SkippedLogLines>,
}

/// A drop: the model's fields, its evidence in words where the model has its structure.
struct DropJson<'a>(&'a ContextDrop);

impl Serialize for DropJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let drop = self.0;
        let mut fields = serializer.serialize_struct("DropJson", 13)?;
        fields_by_name! { fields, drop; request_before, request_after, time }
        fields_by_name! { fields, drop; context_before, context_after }
        fields_by_name! { fields, drop; class, basis, confidence, explains_fall }
        let evidence = drop_evidence_text(&drop.evidence, drop.fall());
        fields.serialize_field("evidence", &evidence)?;
        fields_by_name! { fields, drop; facts, boundary }
        fields.serialize_field("evidence_detail", &drop.evidence)?;
        fields.end()
    }
}

/// The estimates, the trigger's derivation also in words.
struct EstimatesJson<'a>(&'a Estimates);

impl Serialize for EstimatesJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let estimates = self.0;
        let trigger = TriggerJson {
            estimate: &estimates.trigger,
            text: trigger_text(&estimates.trigger),
        };
        let mut fields = serializer.serialize_struct("EstimatesJson", 9)?;
        fields.serialize_field("trigger", &trigger)?;
        fields_by_name! { fields, estimates; cap, trigger_ratio, floors, floor, headroom }
        fields_by_name! { fields, estimates; latest_context, room_left, largest_requests }
        fields.end()
    }
}

#[derive(Serialize)]
struct TriggerJson<'a> {
    #[serde(flatten)]
    estimate: &'a TriggerEstimate,
    text: String,
}

#[derive(Serialize)]
struct WarningJson {
    kind: &'static str,
    message: String,
}

impl<'a> ReportJson<'a> {
    fn of(report: &'a SessionReport) -> Self {
        let label = request_label(report);
        Self {
            session_id: &report.session_id,
            transcripts: &report.transcripts,
            tally: &report.tally,
            peak: &report.peak,
            contexts: &report.contexts,
            drops: report.drops.iter().map(DropJson).collect(),
            compactions: &report.compactions,
            snapshots: &report.snapshots,
            estimates: EstimatesJson(&report.estimates),
            thresholds: &report.thresholds,
            warnings: (report.warnings.iter())
                .map(|warning| WarningJson {
                    kind: warning.into(),
                    message: warning_text(warning, label),
                })
                .collect(),
            skipped_lines: &report.skipped_lines,
            skipped_log_lines: &report.skipped_log_lines,
        }
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
