//! The JSON report of `ctxhooks provenance --json`: the model's facts, with every piece of
//! evidence, reason and warning as the sentence `text.rs` words it.

use serde::Serialize;

use super::records::ResultKind;
use super::verdict::{CallReport, ProvenanceReport, ToolState, Verdict};
use ctxhooks_shared::store::sidecar::RuntimeMark;

/// The JSON report of `ctxhooks provenance --json`: the model with its evidence, reasons and
/// warnings as the sentences above.
#[derive(Debug, Serialize)]
pub struct JsonReport<'a> {
    session: Option<&'a str>,
    transcript: String,
    calls: Vec<JsonCall<'a>>,
    unmatched_marks: Vec<JsonUnmatchedMark<'a>>,
    warnings: Vec<String>,
}

impl<'a> JsonReport<'a> {
    /// The JSON form of `report`.
    pub fn new(session: Option<&'a str>, transcript: String, report: &'a ProvenanceReport) -> Self {
        Self {
            session,
            transcript,
            calls: report.calls.iter().map(JsonCall::new).collect(),
            unmatched_marks: report
                .unmatched_marks
                .iter()
                .map(|unmatched| JsonUnmatchedMark {
                    mark: &unmatched.mark,
                    reason: unmatched.reason.to_string(),
                })
                .collect(),
            warnings: report.warnings.iter().map(ToString::to_string).collect(),
        }
    }
}

#[derive(Debug, Serialize)]
struct JsonCall<'a> {
    tool_use_id: &'a str,
    tool_name: Option<&'a str>,
    summary: Option<&'a str>,
    verdict: Verdict,
    state: ToolState,
    result_kind: Option<JsonResultKind>,
    verdict_evidence: Vec<String>,
    state_evidence: Vec<String>,
    mark: Option<&'a RuntimeMark>,
    relabelled_in_ledger: bool,
    line: usize,
}

impl<'a> JsonCall<'a> {
    fn new(call: &'a CallReport) -> Self {
        Self {
            tool_use_id: &call.tool_use_id,
            tool_name: call.tool_name.as_deref(),
            summary: call.summary.as_deref(),
            verdict: call.verdict,
            state: call.state,
            result_kind: call.result_kind.as_ref().map(JsonResultKind::new),
            verdict_evidence: call
                .verdict_evidence
                .iter()
                .map(ToString::to_string)
                .collect(),
            state_evidence: call
                .state_evidence
                .iter()
                .map(ToString::to_string)
                .collect(),
            mark: call.mark.as_ref(),
            relabelled_in_ledger: call.relabelled_in_ledger,
            line: call.line,
        }
    }
}

/// [`ResultKind`] as JSON: its kind and flags, and the clue of an unrecognised interruption in
/// words.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum JsonResultKind {
    Rejected {
        before_run: bool,
        stopped_while_running: bool,
        plain_user_rejected: bool,
    },
    RejectedWithFeedback,
    Interrupted {
        while_running: bool,
    },
    BatchCancelled,
    PermissionDenied {
        denial_kind: Option<String>,
        decision_source: Option<String>,
        reason_code: Option<String>,
        needs_approval: bool,
    },
    UnrecognisedInterruption {
        evidence: String,
    },
    Normal,
}

impl JsonResultKind {
    fn new(kind: &ResultKind) -> Self {
        match kind {
            ResultKind::Rejected {
                before_run,
                stopped_while_running,
                plain_user_rejected,
            } => Self::Rejected {
                before_run: *before_run,
                stopped_while_running: *stopped_while_running,
                plain_user_rejected: *plain_user_rejected,
            },
            ResultKind::RejectedWithFeedback => Self::RejectedWithFeedback,
            ResultKind::Interrupted { while_running } => Self::Interrupted {
                while_running: *while_running,
            },
            ResultKind::BatchCancelled => Self::BatchCancelled,
            ResultKind::PermissionDenied(refusal) => Self::PermissionDenied {
                denial_kind: refusal.denial_kind.clone(),
                decision_source: refusal.decision_source.clone(),
                reason_code: refusal.reason_code.clone(),
                needs_approval: refusal.needs_approval,
            },
            ResultKind::UnrecognisedInterruption { evidence } => Self::UnrecognisedInterruption {
                evidence: evidence.to_string(),
            },
            ResultKind::Normal => Self::Normal,
        }
    }
}

#[derive(Debug, Serialize)]
struct JsonUnmatchedMark<'a> {
    mark: &'a RuntimeMark,
    reason: String,
}
