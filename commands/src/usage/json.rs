//! A report as JSON for programs: the model's facts, with each drop's evidence and each
//! warning's message also rendered in words, and every request and compaction numbered from 1
//! as in the text (the layout `docs/usage.md` documents, schema 2).

use serde::{Serialize, Serializer};

use super::text::{drop_evidence_text, report_text, request_label, trigger_text, warning_text};
use crate::facts::compactions::Compaction;
use crate::facts::drops::{Basis, Confidence, ContextDrop, DropClass, DropEvidence, DropFacts};
use crate::facts::estimates::{Floor, GrowingRequest, LatestContext, TriggerEstimate};
use crate::facts::log::SkippedLogLines;
use crate::facts::report::{AppliedThresholds, Peak, SessionReport};
use crate::facts::snapshot_check::SnapshotCheck;
use crate::facts::tally::Tally;
use crate::output::{Emit, Schema};
use crate::time::Time;
use ctxhooks_shared::store::usage_record::{BoundaryRow, SkippedLinesRow};
use ctxhooks_shared::usage::threshold::Window;

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
#[derive(Serialize)]
struct DropJson<'a> {
    request_before: usize,
    request_after: usize,
    time: &'a Option<Time>,
    context_before: u64,
    context_after: u64,
    class: &'a DropClass,
    basis: &'a Basis,
    confidence: &'a Option<Confidence>,
    explains_fall: bool,
    evidence: String,
    facts: &'a DropFacts,
    boundary: &'a Option<BoundaryRow>,
    evidence_detail: &'a DropEvidence,
}

/// The estimates, the trigger's derivation also in words.
#[derive(Serialize)]
struct EstimatesJson<'a> {
    trigger: TriggerJson<'a>,
    cap: &'a Window,
    trigger_ratio: Option<f64>,
    floors: &'a [Floor],
    floor: Option<u64>,
    headroom: Option<i64>,
    latest_context: &'a Option<LatestContext>,
    room_left: Option<i64>,
    largest_requests: &'a [GrowingRequest],
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
        let estimates = &report.estimates;
        Self {
            session_id: &report.session_id,
            transcripts: &report.transcripts,
            tally: &report.tally,
            peak: &report.peak,
            contexts: &report.contexts,
            drops: report.drops.iter().map(DropJson::of).collect(),
            compactions: &report.compactions,
            snapshots: &report.snapshots,
            estimates: EstimatesJson {
                trigger: TriggerJson {
                    estimate: &estimates.trigger,
                    text: trigger_text(&estimates.trigger),
                },
                cap: &estimates.cap,
                trigger_ratio: estimates.trigger_ratio,
                floors: &estimates.floors,
                floor: estimates.floor,
                headroom: estimates.headroom,
                latest_context: &estimates.latest_context,
                room_left: estimates.room_left,
                largest_requests: &estimates.largest_requests,
            },
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

impl<'a> DropJson<'a> {
    fn of(drop: &'a ContextDrop) -> Self {
        Self {
            request_before: drop.request_before,
            request_after: drop.request_after,
            time: &drop.time,
            context_before: drop.context_before,
            context_after: drop.context_after,
            class: &drop.class,
            basis: &drop.basis,
            confidence: &drop.confidence,
            explains_fall: drop.explains_fall,
            evidence: drop_evidence_text(&drop.evidence, drop.fall()),
            facts: &drop.facts,
            boundary: &drop.boundary,
            evidence_detail: &drop.evidence,
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
