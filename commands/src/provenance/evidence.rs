//! The facts behind every verdict, state and warning, as types, each with the sentence a person
//! reads (its `Display`, in the text and the JSON report): what was found and where (line
//! numbers are 1-based, as a person counts them).

use std::path::PathBuf;

use super::records::ResultKind;
use super::sidecar::MarkProblemKind;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::sidecar::RuntimeMark;

/// Why a call got its verdict, as a sentence.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VerdictEvidence {
    #[error("{0}")]
    Result(ResultKind),
    #[error("a permission decision refused the call; no interrupt was involved")]
    PermissionDecision,
    /// Another mark that also fell just before the call's interrupt records (a retried
    /// `interrupt()`).
    #[error(
        "the runtime mark at {} ms (reason {:?}) also fell just before these records (a retried \
         interrupt?) and is spent on them",
        .0.time_ms,
        .0.reason
    )]
    SpentMark(RuntimeMark),
    /// A harness-written record (on transcript line `line`) taken as an interrupt marker
    /// although its wording is new.
    #[error(
        "line {line}: {text:?} was taken as an interrupt marker because the harness wrote it \
         (rowSource: \"harness\") right after interrupt content; its wording is unknown to \
         ctxhooks (did the SDK change it?)"
    )]
    NovelMarker { line: usize, text: String },
    /// The runtime mark that covers the call's interrupt records; `delay_ms`: how long after
    /// the mark the call's result came, when its time is known.
    #[error(
        "runtime mark at {} ms{}: reason {:?}{}{}",
        .mark.time_ms,
        .delay_ms.map(|delay| format!(", the interrupt records came {delay} ms after it")).unwrap_or_default(),
        .mark.reason,
        .mark.source.as_ref().map(|source| format!(", source {source:?}")).unwrap_or_default(),
        .mark.gauge_pct.map(|pct| format!(", gauge {pct}%")).unwrap_or_default()
    )]
    CoveringMark {
        mark: RuntimeMark,
        delay_ms: Option<i128>,
    },
    #[error(
        "the transcript's wording says \"user\" for every interrupt; the mark says the runtime \
         issued this one"
    )]
    WordingSaysUser,
    #[error("a person typed feedback with the rejection")]
    Feedback,
    /// A mark line whose time cannot be read lies near the interrupt records.
    #[error(
        "sidecar line {sidecar_line} is a runtime_interrupt_mark line whose time cannot be read, \
         and these interrupt records could follow it: the runtime may have issued this interrupt"
    )]
    UnreadableMarkNearby { sidecar_line: usize },
    #[error(
        "refused at the permission step before it ran (a person at a permission prompt, or a \
         canUseTool deny with interrupt: true) and no runtime mark covers it"
    )]
    RefusedBeforeRunUncovered,
    #[error("no runtime mark covers these interrupt records, so the transcript's \"user\" stands")]
    Uncovered,
    #[error("no runtime mark covers it and the wording is not known")]
    UncoveredUnknownWording,
    #[error(
        "the transcript holds no tool_result for this call (an abort, or the session was still \
         running)"
    )]
    NoResult,
    /// The interrupt records after a call with no result are covered by this mark.
    #[error(
        "the interrupt records after it are covered by the runtime mark at {} ms (reason {:?})",
        .0.time_ms,
        .0.reason
    )]
    LaterRecordsCovered(RuntimeMark),
    #[error(
        "an interrupt marker follows it and no runtime mark covers it, so the transcript's \
         \"user\" stands"
    )]
    MarkerFollowsUncovered,
}

/// Why a call got its state, as a sentence (times in milliseconds since the Unix epoch;
/// `is_interrupt`: the `PostToolUseFailure` payload's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StateEvidence {
    #[error("PostToolUse at {time_ms} ms")]
    Completed { time_ms: u64 },
    #[error(
        "PostToolUseFailure at {time_ms} ms with is_interrupt: true: the call was aborted while \
         running, so it may have run in part or in full"
    )]
    AbortedWhileRunning { time_ms: u64 },
    #[error("PostToolUseFailure at {time_ms} ms (is_interrupt: {is_interrupt:?})")]
    Failed {
        time_ms: u64,
        is_interrupt: Option<bool>,
    },
    #[error("the transcript says the call was refused before it ran")]
    RefusedBeforeRun,
    /// A person refused it at the permission prompt.
    #[error(
        "toolDenialKind \"user-rejected\" on the plain rejection, with no \"stopped while \
         running\" correction and no runtime mark: refused at the permission prompt (the CLIs \
         that write toolDenialKind write a call stopped while running otherwise)"
    )]
    PlainUserRejected,
    #[error("PreToolUse at {time_ms} ms, but PreToolUse runs before the permission decision")]
    StartedBeforeDecision { time_ms: u64 },
    #[error(
        "PreToolUse at {time_ms} ms and no PostToolUse/PostToolUseFailure: it may have run in \
         part or in full"
    )]
    StartedNotFinished { time_ms: u64 },
    #[error(
        "no PreToolUse line for this call although the hook wrote lines for this session before \
         and after it"
    )]
    NoStartWhileHookActive,
    #[error(
        "but the SDK says it was stopped while running: the two disagree; check the live state"
    )]
    SdkSaysRunningDisagrees,
    #[error("no hook line for this call; the SDK says it was stopped while running")]
    NoHookLineSdkSaysRunning,
    #[error(
        "no hook line for this call; cannot tell whether it ran — check the live state (was \
         `ctxhooks-tooluse` installed and working?)"
    )]
    NoHookLine,
}

/// Something a reader must know beside the verdicts, as a sentence (lines are the transcript's
/// or the sidecar's; `ids` sorted).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Warning {
    #[error(
        "transcript line {line} after the interrupt records on line {group_line} is not a \
         readable JSON record; it is counted as a real record, so nothing after it is relabelled"
    )]
    UnreadableAfterGroup { line: usize, group_line: usize },
    #[error(
        "transcript line {line}: the harness-written record {text:?} right after interrupt \
         content was taken as an interrupt marker, but its wording is not one ctxhooks knows: \
         the SDK's wording may have changed; check this verdict"
    )]
    NovelMarker { line: usize, text: String },
    #[error(
        "sidecar line {line}: {problem}; fix the runtime that writes it (see docs/provenance.md)"
    )]
    MarkProblem {
        line: usize,
        problem: MarkProblemKind,
    },
    #[error(
        "the transcript `{}` names no sessionId; its records could not be checked against \
         session `{session}`",
        .transcript.display()
    )]
    NoSessionId {
        transcript: PathBuf,
        session: SessionId,
    },
    #[error(
        "the transcript's records carry several sessionIds ({}); only session `{session}`'s \
         sidecar was used",
        .ids.join(", ")
    )]
    SeveralSessionIds {
        ids: Vec<String>,
        session: SessionId,
    },
    /// The latest mark covers interrupt records (from `line`) that real records follow.
    #[error(
        "the latest runtime mark covers interrupt records on line {line}, but real records \
         follow them, so ledger-input relabels nothing; if the session ended with that \
         interrupt, the records after it are ones ctxhooks does not recognise (changed SDK \
         wording?)"
    )]
    LatestMarkNotTrailing { line: usize },
    #[error("sidecar line {line} is unreadable: {error}")]
    UnreadableSidecarLine { line: usize, error: String },
    #[error("{count} transcript line(s) are not JSON records (a truncated last line?)")]
    UnreadableTranscriptLines { count: usize },
}
