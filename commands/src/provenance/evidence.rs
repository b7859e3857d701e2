//! The facts behind every verdict, state and warning, as types: what was found and where (line
//! numbers are 1-based, as a person counts them). `text.rs` says them in English.

use std::path::PathBuf;

use serde::Serialize;

use super::json::sentence;
use super::records::ResultKind;
use super::sidecar::MarkProblemKind;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::sidecar::RuntimeMark;

/// Why a call got its verdict.
#[derive(Debug, Clone, PartialEq)]
pub enum VerdictEvidence {
    /// How the call's `tool_result` reads.
    Result(ResultKind),
    /// A permission decision refused the call; no interrupt was involved.
    PermissionDecision,
    /// Another mark that also fell just before the call's interrupt records and is spent on
    /// them (a retried `interrupt()`).
    SpentMark(RuntimeMark),
    /// A harness-written record taken as an interrupt marker although its wording is new.
    NovelMarker {
        /// Its transcript line.
        line: usize,
        text: String,
    },
    /// The runtime mark that covers the call's interrupt records.
    CoveringMark {
        mark: RuntimeMark,
        /// How long after the mark the call's result came, when its time is known.
        delay_ms: Option<i128>,
    },
    /// The transcript's wording says "user" for every interrupt, whoever issued it.
    WordingSaysUser,
    /// A person typed feedback with the rejection.
    Feedback,
    /// A mark line whose time cannot be read lies near the interrupt records: the runtime may
    /// have issued this interrupt.
    UnreadableMarkNearby {
        /// The mark's sidecar line.
        sidecar_line: usize,
    },
    /// Refused at the permission step before it ran, and no runtime mark covers it.
    RefusedBeforeRunUncovered,
    /// No runtime mark covers its interrupt records, so the transcript's "user" stands.
    Uncovered,
    /// No runtime mark covers it and its wording is not known.
    UncoveredUnknownWording,
    /// The transcript holds no `tool_result` for the call.
    NoResult,
    /// The interrupt records after a call with no result are covered by this mark.
    LaterRecordsCovered(RuntimeMark),
    /// An interrupt marker follows a call with no result, and no runtime mark covers it.
    MarkerFollowsUncovered,
}

/// Why a call got its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateEvidence {
    /// `PostToolUse` saw it complete.
    Completed { time_ms: u64 },
    /// `PostToolUseFailure` with `is_interrupt: true`: aborted while running.
    AbortedWhileRunning { time_ms: u64 },
    /// `PostToolUseFailure` saw it fail.
    Failed {
        time_ms: u64,
        /// The payload's `is_interrupt`.
        is_interrupt: Option<bool>,
    },
    /// The transcript says the call was refused before it ran.
    RefusedBeforeRun,
    /// `toolDenialKind: "user-rejected"` on the plain rejection, with no "stopped while
    /// running" correction and no runtime mark: a person refused it at the permission prompt.
    PlainUserRejected,
    /// `PreToolUse` fired, but it fires before the permission decision.
    StartedBeforeDecision { time_ms: u64 },
    /// `PreToolUse` and no `PostToolUse` / `PostToolUseFailure`.
    StartedNotFinished {
        /// When it started.
        time_ms: u64,
    },
    /// No `PreToolUse` line for the call although the hook wrote lines before and after it.
    NoStartWhileHookActive,
    /// ...but the SDK says it was stopped while running: the two disagree.
    SdkSaysRunningDisagrees,
    /// No hook line for the call; the SDK says it was stopped while running.
    NoHookLineSdkSaysRunning,
    /// No hook line for the call and nothing says whether it ran.
    NoHookLine,
}

/// Something a reader must know beside the verdicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// A transcript line after interrupt records is not a readable JSON record, so it counts as
    /// a real record and nothing after it is relabelled.
    UnreadableAfterGroup {
        /// The unreadable line.
        line: usize,
        /// The first line of the interrupt records before it.
        group_line: usize,
    },
    /// A harness-written record right after interrupt content was taken as an interrupt marker
    /// although its wording is new.
    NovelMarker {
        /// Its transcript line.
        line: usize,
        text: String,
    },
    /// A mark line whose time cannot be read.
    MarkProblem {
        /// Its sidecar line.
        line: usize,
        /// What is wrong with it.
        problem: MarkProblemKind,
    },
    /// The transcript names no `sessionId`, so it could not be checked against the session.
    NoSessionId {
        transcript: PathBuf,
        /// The session given.
        session: SessionId,
    },
    /// The transcript's records carry several `sessionId`s; only one session's sidecar was used.
    SeveralSessionIds {
        /// The ids, sorted.
        ids: Vec<String>,
        /// The session whose sidecar was used.
        session: SessionId,
    },
    /// The latest mark covers interrupt records that real records follow, so `ledger-input`
    /// relabels nothing.
    LatestMarkNotTrailing {
        /// The first line of those interrupt records.
        line: usize,
    },
    /// A sidecar line that could not be read.
    UnreadableSidecarLine {
        /// Its sidecar line.
        line: usize,
        /// The reader's message.
        error: String,
    },
    /// Transcript lines that are not JSON records.
    UnreadableTranscriptLines { count: usize },
}

/// Why a runtime mark matched no interrupt record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnmatchedReason {
    /// No interrupt record it may cover starts in its window.
    NoInterruptInWindow,
    /// No tool hook event recorded the transcript's path, so there is nothing to look in.
    NoTranscriptPath,
    /// The transcript could not be read.
    TranscriptUnreadable(String),
}

/// A runtime mark that no interrupt record in the transcript follows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnmatchedMark {
    pub mark: RuntimeMark,
    /// Why it matched nothing.
    #[serde(serialize_with = "sentence")]
    pub reason: UnmatchedReason,
}
