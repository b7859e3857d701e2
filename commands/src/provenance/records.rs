//! Recognising interrupt, rejection and denial records in a transcript: structured fields
//! first (`toolDenialKind`, `toolDenialBeforeRun`, `rowSource`), then every known wording, always
//! as a whole text block or a whole `tool_result` prefix, never as a substring anywhere.

use serde::Serialize;

use super::sidecar::{HookEvent, Sidecar};
use crate::render::sentence::sentence;
use ctxhooks_shared::store::sidecar::ToolEventKind;
use ctxhooks_shared::transcript::content::{Block, Content, ToolResult};
use ctxhooks_shared::transcript::record::{Record, is_interrupt_marker_text};

pub use ctxhooks_shared::transcript::record::REJECTION_PREFIX;

/// The phrase that introduces what the person typed with a rejection (1.0.x through 2.1.332).
pub const FEEDBACK_PHRASE: &str = "the user said:";

/// The addendum 2.1.332 puts in a rejection written for a call stopped while running.
pub const RUNNING_CORRECTION: &str = "Correction to the text above:";

/// The `tool_result` the CLI writes for the other calls of a parallel batch when one is rejected.
pub const BATCH_CANCELLED_PREFIX: &str = "The user doesn't want to take this action right now.";

/// A synthetic `tool_result` some versions write for a call that never got a result.
pub const INTERRUPTED_BY_USER: &str = "Interrupted by user";

/// The start of the error a session without a permission handler gets.
pub const PERMISSION_NOT_GRANTED_PREFIX: &str = "Claude requested permissions to ";

/// How the first sentence of the refusal `claude -p` writes for a call that would need a
/// person's approval ends (2.1.332: `touch in '<path>' needs approval. The path is ...`).
pub const NEEDS_APPROVAL_SENTENCE_END: &str = " needs approval.";

/// The longest first sentence read as a "needs approval" refusal (it names a command and a path).
pub const NEEDS_APPROVAL_MAX_BYTES: usize = 4_096;

/// `permissionDecision.decision` of a refused call.
pub const DECISION_REJECT: &str = "reject";

/// `permissionDecision.source` when the CLI's own configuration decided: a deny rule, a
/// permission mode, or print mode's refusal of a call that would need a person's approval.
pub const DECISION_SOURCE_CONFIG: &str = "config";

/// What the transcript says about a permission refusal, for the evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PermissionRefusal {
    /// `toolDenialKind`, when there was one.
    pub denial_kind: Option<String>,
    /// `permissionDecision.source` of a `reject` decision, when there was one.
    pub decision_source: Option<String>,
    /// `permissionDecision.reasonCode`.
    pub reason_code: Option<String>,
    /// The result's text says the call needs approval (print mode's refusal).
    pub needs_approval: bool,
}

/// What one `tool_result` says about how its call ended, and how that reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ResultKind {
    /// The rejection prose (or `toolDenialKind: "user-rejected"`) with no feedback: a person at
    /// a permission prompt, or an `interrupt()`, or a `canUseTool` deny with `interrupt: true`.
    #[error(
        "tool_result is the rejection text{}{}{}",
        when(*.before_run, " with toolDenialBeforeRun: true"),
        when(*.plain_user_rejected, " with toolDenialKind \"user-rejected\""),
        when(*.stopped_while_running, " with the \"stopped while running\" correction")
    )]
    Rejected {
        /// `toolDenialBeforeRun: true`: refused before the tool ran.
        before_run: bool,
        /// The 2.1.332 "Correction to the text above" addendum: stopped while running.
        stopped_while_running: bool,
        /// `toolDenialKind: "user-rejected"` on the plain rejection text: no "stopped while
        /// running" correction, and (as every rejection here) no configuration's decision. The
        /// CLIs that write `toolDenialKind` write a call stopped while running otherwise (the
        /// correction in 2.1.332, `toolDenialKind: "interrupted"` in 2.1.270): this one was
        /// refused at the permission step, even where no `toolDenialBeforeRun` says so (2.1.2xx).
        plain_user_rejected: bool,
    },
    /// The rejection prose followed by what the person typed: only a person does this.
    #[error("tool_result is the rejection with feedback")]
    RejectedWithFeedback,
    /// `[Request interrupted by user for tool use]` / `Interrupted by user` as the result, or
    /// `toolDenialKind` `interrupted` / `cancelled`.
    #[error(
        "tool_result says the call was interrupted{}",
        when(
            *.while_running,
            " (toolDenialKind \"interrupted\": cut off while running)"
        )
    )]
    Interrupted {
        /// `toolDenialKind: "interrupted"` (2.1.270's form for a call cut off in flight): the
        /// SDK says the call was running.
        while_running: bool,
    },
    /// The other calls of a parallel batch when one was rejected.
    #[error("tool_result cancels this call because another call of its batch was rejected")]
    BatchCancelled,
    /// Refused by the CLI's configuration (a deny rule, a permission mode, print mode's "needs
    /// approval"), a `canUseTool` deny, a classifier, or no permission handler.
    #[error("{0}")]
    PermissionDenied(PermissionRefusal),
    /// An error result the wording tables do not know, but that looks like an interruption: an
    /// unknown `toolDenialKind`, or the sidecar saw the call start and never finish.
    #[error("unrecognised interruption: {evidence}")]
    UnrecognisedInterruption {
        #[serde(serialize_with = "sentence")]
        evidence: InterruptionClue,
    },
    /// A normal result (success or an ordinary tool error).
    #[error("a normal result")]
    Normal,
}

/// `text` when `flag` holds, else nothing (a clause of a sentence).
pub(super) fn when(flag: bool, text: &'static str) -> &'static str {
    if flag { text } else { "" }
}

/// What made an unrecognised result look like an interruption.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InterruptionClue {
    #[error("unknown toolDenialKind `{0}`")]
    UnknownDenialKind(String),
    #[error(
        "an error result for a call the PreToolUse hook saw start and no \
         PostToolUse/PostToolUseFailure saw finish"
    )]
    StartedNeverFinished,
}

impl ResultKind {
    /// Whether this is interrupt content for the trailing-record walk: something a runtime's
    /// `interrupt()` (or a person's stop) writes, as opposed to a decision that lets the turn go on.
    pub fn is_interrupt_content(&self) -> bool {
        matches!(
            self,
            Self::Rejected { .. }
                | Self::Interrupted { .. }
                | Self::BatchCancelled
                | Self::UnrecognisedInterruption { .. }
        )
    }
}

/// Classifies one `tool_result` of the user `record`; `sidecar` adds the structured "started,
/// never finished" evidence when the hook was installed.
pub fn classify_tool_result(
    record: &Record,
    result: &ToolResult,
    sidecar: Option<&Sidecar>,
) -> ResultKind {
    let is_error = result.is_error.is_true();
    let before_run = record.tool_denial_before_run.is_true();
    let text = result.text();
    let text = text.trim_start();
    let rejection = text.starts_with(REJECTION_PREFIX);
    let denial_kind = record.tool_denial_kind.text();
    let decision = record
        .permission_decision
        .get()
        .filter(|decision| decision.decision.text() == Some(DECISION_REJECT));
    let needs_approval = is_error && !before_run && is_needs_approval_text(text);
    let refusal = || PermissionRefusal {
        denial_kind: denial_kind.map(ToOwned::to_owned),
        decision_source: decision.and_then(|decision| decision.source.owned()),
        reason_code: decision.and_then(|decision| decision.reason_code.owned()),
        needs_approval,
    };
    // Structured fields first: a refusal the CLI's configuration decided is never a person's,
    // whatever `toolDenialKind` says (print mode writes "user-rejected" for its refusals too).
    if decision.is_some_and(|decision| decision.source.text() == Some(DECISION_SOURCE_CONFIG)) {
        return ResultKind::PermissionDenied(refusal());
    }
    if let Some(kind) = denial_kind {
        return match kind {
            // A refusal that says the call needs approval, written with no person and no
            // interrupt (no `toolDenialBeforeRun`), is the CLI's, not a person's.
            "user-rejected" if needs_approval && !rejection => {
                ResultKind::PermissionDenied(refusal())
            }
            "user-rejected" => rejection_kind(text, before_run, true),
            // 2.1.270's form for a call cut off in flight, and a call cancelled before it ran.
            "interrupted" | "cancelled" => ResultKind::Interrupted {
                while_running: kind == "interrupted",
            },
            "permission-rule" => ResultKind::PermissionDenied(refusal()),
            other if other.contains("classifier") || other.contains("auto") => {
                ResultKind::PermissionDenied(refusal())
            }
            other => ResultKind::UnrecognisedInterruption {
                evidence: InterruptionClue::UnknownDenialKind(other.to_owned()),
            },
        };
    }
    if is_error {
        if rejection {
            return rejection_kind(text, before_run, false);
        }
        if text.starts_with(BATCH_CANCELLED_PREFIX) {
            return ResultKind::BatchCancelled;
        }
        if is_interrupt_marker_text(text) || text.trim() == INTERRUPTED_BY_USER {
            return ResultKind::Interrupted {
                while_running: false,
            };
        }
        if needs_approval
            || (text.starts_with(PERMISSION_NOT_GRANTED_PREFIX)
                && text.contains("but you haven't granted it yet"))
        {
            return ResultKind::PermissionDenied(refusal());
        }
        if let (Some(sidecar), Some(id)) = (sidecar, result.tool_use_id.text()) {
            // Started, and no event of it but starts: it never finished.
            let started = |event: &HookEvent| event.event == ToolEventKind::Started;
            if sidecar.events_for(id).any(started) && sidecar.events_for(id).all(started) {
                return ResultKind::UnrecognisedInterruption {
                    evidence: InterruptionClue::StartedNeverFinished,
                };
            }
        }
    }
    ResultKind::Normal
}

/// Returns true if and only if the first sentence of `text` (on its first line, at most
/// [`NEEDS_APPROVAL_MAX_BYTES`] long) ends with "needs approval.": print mode's refusal of a
/// call that would need a person's approval.
fn is_needs_approval_text(text: &str) -> bool {
    let first_line = text.split('\n').next().unwrap_or_default();
    first_line
        .find(NEEDS_APPROVAL_SENTENCE_END)
        .is_some_and(|position| position > 0 && position <= NEEDS_APPROVAL_MAX_BYTES)
}

/// A rejection's kind; `user_rejected`: it carries `toolDenialKind: "user-rejected"` (plain
/// unless stopped while running).
fn rejection_kind(text: &str, before_run: bool, user_rejected: bool) -> ResultKind {
    // Feedback is recognised by its phrase, not by where the fixed second sentence ends: the
    // sentence's wording (and its parentheses) may change, the phrase has been stable.
    if text.contains(FEEDBACK_PHRASE) {
        return ResultKind::RejectedWithFeedback;
    }
    let stopped_while_running = text.contains(RUNNING_CORRECTION);
    ResultKind::Rejected {
        before_run,
        stopped_while_running,
        plain_user_rejected: user_rejected && !stopped_while_running,
    }
}

/// How one transcript record relates to interrupts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordClass {
    /// Not a `user` or `assistant` record (system, progress, snapshots...): skipped by the walk.
    NotConversation,
    /// A `user` record made only of interrupt content.
    InterruptOnly {
        /// The tool results it holds, with their kinds.
        results: Vec<(String, ResultKind)>,
        /// How many `[Request interrupted by user...]` text blocks it holds.
        markers: usize,
    },
    /// The `<synthetic>` assistant record "No response requested." the CLI writes after an
    /// interrupted turn: it extends an interrupt group, and never starts one.
    SyntheticNoResponse,
    /// A real user or assistant record; the tool results it holds (any kind) are listed.
    Conversation {
        /// The tool results it holds, with their kinds.
        results: Vec<(String, ResultKind)>,
    },
}

/// The `rowSource` of a record a person typed.
pub const ROW_SOURCE_LOCAL: &str = "local";

/// The `rowSource` of a record the harness (the CLI itself) wrote, such as the interrupt marker.
pub const ROW_SOURCE_HARNESS: &str = "harness";

/// The longest text a harness-written record may have to be taken as an interrupt marker whose
/// wording is new.
pub const NOVEL_MARKER_MAX_CHARS: usize = 160;

/// The text of a `user` record the harness wrote (`rowSource: "harness"`) that is one short
/// line of text and nothing else (not `isMeta`): a candidate interrupt marker in a wording this
/// version does not know. Whether it is one depends on what precedes it (see
/// [`super::groups`]).
pub fn harness_short_text(record: &Record) -> Option<String> {
    if record.kind() != Some("user")
        || record.row_source.text() != Some(ROW_SOURCE_HARNESS)
        || record.is_meta.is_true()
    {
        return None;
    }
    let text = match record.content()? {
        Content::Text(text) => text.to_string(),
        Content::Blocks(blocks) => blocks
            .iter()
            .map(|block| match block {
                Block::Text(text) => text.text(),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?
            .join("\n"),
    };
    let trimmed = text.trim();
    (!trimmed.is_empty()
        && !trimmed.contains('\n')
        && trimmed.chars().count() <= NOVEL_MARKER_MAX_CHARS)
        .then(|| trimmed.to_owned())
}

/// Classifies one transcript record.
pub fn classify_record(record: &Record, sidecar: Option<&Sidecar>) -> RecordClass {
    let mut results = Vec::new();
    match record.kind() {
        Some("user") => {}
        Some("assistant") if record.is_synthetic_no_response() => {
            return RecordClass::SyntheticNoResponse;
        }
        Some("assistant") => return RecordClass::Conversation { results },
        _ => return RecordClass::NotConversation,
    }
    let mut markers = 0;
    let mut other = 0;
    match record.content() {
        Some(Content::Text(text)) if is_interrupt_marker_text(text) => markers += 1,
        Some(Content::Blocks(blocks)) => {
            for block in blocks {
                match block {
                    Block::ToolResult(result) => {
                        let id = result.answered_id().to_owned();
                        results.push((id, classify_tool_result(record, result, sidecar)));
                    }
                    Block::Text(text) if text.text().is_some_and(is_interrupt_marker_text) => {
                        markers += 1;
                    }
                    _ => other += 1,
                }
            }
        }
        Some(Content::Text(_)) | None => other += 1,
    }
    if record.row_source.text() == Some(ROW_SOURCE_LOCAL) {
        // Typed by a person: never an interrupt marker, whatever it says.
        other += markers;
        markers = 0;
    } else if results.is_empty() && record.interrupted_message_id.get().is_some() {
        // The CLI's own marker names the response it cut off (2.1.2xx): an interrupt marker
        // whatever its wording.
        markers = markers.max(1);
        other = 0;
    }
    let all_interrupt = results.iter().all(|(_, kind)| kind.is_interrupt_content());
    if other == 0 && all_interrupt && (markers > 0 || !results.is_empty()) {
        RecordClass::InterruptOnly { results, markers }
    } else {
        RecordClass::Conversation { results }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// Classifies the one `tool_result` `block` of a user record with the given top-level fields.
    fn classify(fields: &Value, block: &Value) -> ResultKind {
        let mut record = fields.clone();
        record["type"] = json!("user");
        record["message"] = json!({"role": "user", "content": [block]});
        let line = record.to_string();
        let record = Record::parse(line.as_bytes()).unwrap();
        let result = record.tool_results().next().unwrap();
        classify_tool_result(&record, result, None)
    }

    fn class_of(record: &Value) -> RecordClass {
        let line = record.to_string();
        classify_record(&Record::parse(line.as_bytes()).unwrap(), None)
    }

    fn harness_text_of(record: &Value) -> Option<String> {
        let line = record.to_string();
        harness_short_text(&Record::parse(line.as_bytes()).unwrap())
    }

    #[test]
    fn structured_kind_wins_over_prose() {
        let block = json!({"type": "tool_result", "tool_use_id": "t", "is_error": true,
            "content": "Not allowed by policy"});
        assert_eq!(
            classify(&json!({"toolDenialKind": "permission-rule"}), &block),
            ResultKind::PermissionDenied(PermissionRefusal {
                denial_kind: Some("permission-rule".into()),
                decision_source: None,
                reason_code: None,
                needs_approval: false,
            })
        );
        assert_eq!(
            classify(&json!({"toolDenialKind": "something-new"}), &block),
            ResultKind::UnrecognisedInterruption {
                evidence: InterruptionClue::UnknownDenialKind("something-new".into())
            }
        );
    }

    #[test]
    fn a_refusal_by_the_clis_configuration_is_a_permission_denial_not_a_person() {
        // claude -p 2.1.332, a Bash call outside the project (research capture
        // permission-headless): the record says "user-rejected", the decision says config.
        let text = "touch in '/w/outside/created-outside.txt' needs approval. The path is outside the working directories for this session ('/w/project'). Allowing runs the command as written.";
        let block =
            json!({"type": "tool_result", "tool_use_id": "t", "is_error": true, "content": text});
        let fields = json!({"toolDenialKind": "user-rejected",
            "permissionDecision": {"decision": "reject", "source": "config", "reasonCode": "unknown"}});
        let refusal = PermissionRefusal {
            denial_kind: Some("user-rejected".into()),
            decision_source: Some("config".into()),
            reason_code: Some("unknown".into()),
            needs_approval: true,
        };
        assert_eq!(
            classify(&fields, &block),
            ResultKind::PermissionDenied(refusal.clone())
        );
        // Without the decision (a version that does not write it), the wording still tells.
        assert_eq!(
            classify(&json!({"toolDenialKind": "user-rejected"}), &block),
            ResultKind::PermissionDenied(PermissionRefusal {
                decision_source: None,
                reason_code: None,
                ..refusal.clone()
            })
        );
        assert_eq!(
            classify(&json!({}), &block),
            ResultKind::PermissionDenied(PermissionRefusal {
                denial_kind: None,
                decision_source: None,
                reason_code: None,
                needs_approval: true,
            })
        );
        // A person's "No" (toolDenialBeforeRun, no decision) stays a rejection.
        let no = json!({"type": "tool_result", "tool_use_id": "t", "is_error": true,
            "content": "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."});
        assert_eq!(
            classify(
                &json!({"toolDenialKind": "user-rejected", "toolDenialBeforeRun": true}),
                &no
            ),
            ResultKind::Rejected {
                before_run: true,
                stopped_while_running: false,
                plain_user_rejected: true,
            }
        );
        // 2.1.2xx: the same without toolDenialBeforeRun is still refused before it ran.
        assert_eq!(
            classify(&json!({"toolDenialKind": "user-rejected"}), &no),
            ResultKind::Rejected {
                before_run: false,
                stopped_while_running: false,
                plain_user_rejected: true,
            }
        );
        // A normal result that mentions approval later on is no refusal; nor is one without
        // is_error.
        let later = json!({"type": "tool_result", "tool_use_id": "t", "is_error": true,
            "content": "Exit code 1\nthe deploy needs approval. ask the owner"});
        assert_eq!(classify(&json!({}), &later), ResultKind::Normal);
        let fine = json!({"type": "tool_result", "tool_use_id": "t", "content": text});
        assert_eq!(classify(&json!({}), &fine), ResultKind::Normal);
        // An accepted decision is not a refusal.
        let accepted = json!({"permissionDecision": {"decision": "accept", "source": "config"}});
        let ok = json!({"type": "tool_result", "tool_use_id": "t", "content": "done"});
        assert_eq!(classify(&accepted, &ok), ResultKind::Normal);
    }

    #[test]
    fn rejection_with_and_without_feedback_and_correction() {
        let record = json!({});
        let plain = json!({"type": "tool_result", "tool_use_id": "t", "is_error": true,
            "content": "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."});
        assert_eq!(
            classify(&record, &plain),
            ResultKind::Rejected {
                before_run: false,
                stopped_while_running: false,
                plain_user_rejected: false,
            }
        );
        let corrected = json!({"type": "tool_result", "tool_use_id": "t", "is_error": true,
            "content": [{"type": "text", "text": "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed. Correction to the text above: this call was stopped while running, not refused before it ran."}]});
        assert_eq!(
            classify(&record, &corrected),
            ResultKind::Rejected {
                before_run: false,
                stopped_while_running: true,
                plain_user_rejected: false,
            }
        );
        // With toolDenialKind "user-rejected" (2.1.332's interrupt()): still stopped while
        // running, never a plain refusal.
        assert_eq!(
            classify(&json!({"toolDenialKind": "user-rejected"}), &corrected),
            ResultKind::Rejected {
                before_run: false,
                stopped_while_running: true,
                plain_user_rejected: false,
            }
        );
        // Not an error: a file that happens to hold the prose is a normal result.
        let quoted = json!({"type": "tool_result", "tool_use_id": "t",
            "content": "The user doesn't want to proceed with this tool use. The tool use was rejected"});
        assert_eq!(classify(&record, &quoted), ResultKind::Normal);
    }

    #[test]
    fn feedback_is_found_by_its_phrase_whatever_the_second_sentence_says() {
        // A reworded second sentence with no ")." before the feedback: still feedback.
        let block = json!({"type": "tool_result", "tool_use_id": "t", "is_error": true,
            "content": "The user doesn't want to proceed with this tool use. The tool use was rejected and nothing was written. To tell you how to proceed, the user said:\nuse the other file"});
        assert_eq!(
            classify(&json!({}), &block),
            ResultKind::RejectedWithFeedback
        );
    }

    #[test]
    fn markers_batch_cancels_and_missing_handlers_are_recognised() {
        let error = |content: Value| json!({"type": "tool_result", "tool_use_id": "t", "is_error": true, "content": content});
        assert_eq!(
            classify(
                &json!({}),
                &error(json!("[Request interrupted by user for tool use]"))
            ),
            ResultKind::Interrupted {
                while_running: false
            }
        );
        assert_eq!(
            classify(&json!({}), &error(json!(" Interrupted by user "))),
            ResultKind::Interrupted {
                while_running: false
            }
        );
        assert_eq!(
            classify(
                &json!({}),
                &error(json!(
                    "The user doesn't want to take this action right now. STOP"
                ))
            ),
            ResultKind::BatchCancelled
        );
        assert_eq!(
            classify(
                &json!({}),
                &error(json!(
                    "Claude requested permissions to use Bash, but you haven't granted it yet."
                ))
            ),
            ResultKind::PermissionDenied(PermissionRefusal {
                denial_kind: None,
                decision_source: None,
                reason_code: None,
                needs_approval: false,
            })
        );
        assert_eq!(
            classify(
                &json!({"toolDenialKind": "interrupted"}),
                &error(json!("x"))
            ),
            ResultKind::Interrupted {
                while_running: true
            }
        );
    }

    #[test]
    fn a_marker_typed_by_a_person_is_conversation() {
        let record = json!({"type": "user", "rowSource": "local", "message": {"role": "user",
            "content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}]}});
        assert!(matches!(
            class_of(&record),
            RecordClass::Conversation { .. }
        ));
        let harness = json!({"type": "user", "rowSource": "harness", "message": {"role": "user",
            "content": [{"type": "text", "text": "[Stopped]"}]}});
        assert_eq!(harness_text_of(&harness).as_deref(), Some("[Stopped]"));
        let mut meta = harness.clone();
        meta["isMeta"] = json!(true);
        assert_eq!(harness_text_of(&meta), None);
    }

    #[test]
    fn records_made_only_of_interrupt_content_are_interrupt_only() {
        let record = json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a", "is_error": true,
             "content": "[Request interrupted by user for tool use]"},
            {"type": "text", "text": "[Request interrupted by user for tool use]"}]}});
        assert_eq!(
            class_of(&record),
            RecordClass::InterruptOnly {
                results: vec![(
                    "a".into(),
                    ResultKind::Interrupted {
                        while_running: false
                    }
                )],
                markers: 1
            }
        );
        let synthetic = json!({"type": "assistant", "message": {"model": "<synthetic>",
            "content": [{"type": "text", "text": "No response requested."}]}});
        assert_eq!(class_of(&synthetic), RecordClass::SyntheticNoResponse);
        let progress = json!({"type": "progress", "data": {}});
        assert_eq!(class_of(&progress), RecordClass::NotConversation);
    }
}
