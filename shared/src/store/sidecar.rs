//! The provenance sidecar `<state>/sessions/<id>/provenance.jsonl`: one JSON line per tool hook
//! event and per runtime interrupt mark (schema in `docs/provenance.md`). The hook and
//! `mark-interrupt` write it; `command::provenance::sidecar` reads it.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::store::files::FileError;
use crate::store::session_id::SessionId;
use crate::store::state_dir::StateDir;

/// What a tool hook saw: the tool was about to start, completed, or failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolEventKind {
    /// `PreToolUse`: the call reached Claude Code's tool pipeline (before the permission
    /// decision, so this alone does not prove the tool ran).
    Started,
    /// `PostToolUse`: the tool ran and returned.
    Completed,
    /// `PostToolUseFailure`: the tool ran and failed.
    Failed,
}

/// One tool hook event (`"kind": "tool_event"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct ToolEvent {
    pub event: ToolEventKind,
    /// The hook event as Claude Code named it (`PreToolUse`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook_event_name: Option<String>,
    /// When the hook ran, milliseconds since the Unix epoch.
    pub time_ms: u64,
    /// The tool call's id (`toolu_...`), the key that joins hook events to the transcript.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// The tool's name, such as `Bash`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// At most 80 characters naming what the call does (a Bash command's start, a file path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The payload's `duration_ms` (`PostToolUse` / `PostToolUseFailure`), when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The payload's `is_interrupt` (`PostToolUseFailure`), when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_interrupt: Option<bool>,
    /// Bash's `tool_response.interrupted`, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<bool>,
    /// The sub-agent's id when the call ran inside one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// The session transcript's path as the hook was told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<String>,
}

/// The runtime's own record, written just before it calls `interrupt()`
/// (`"kind": "runtime_interrupt_mark"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuntimeMark {
    /// When the runtime decided to interrupt, milliseconds since the Unix epoch.
    pub time_ms: u64,
    /// Why, in the runtime's words (such as `context backstop at 78%`).
    pub reason: String,
    /// Which part of the runtime (such as `compaction-backstop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The context gauge's reading in percent, when the runtime had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gauge_pct: Option<f64>,
    /// The process id of the writer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
}

/// One sidecar line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(missing_docs, reason = "each variant holds the line of its name")]
pub enum SidecarLine {
    ToolEvent(ToolEvent),
    RuntimeInterruptMark(RuntimeMark),
}

/// Why a mark was not appended to the sidecar.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SidecarError {
    /// The session's folder could not be made.
    #[error(transparent)]
    SessionFolder(FileError),
    /// The append itself failed.
    #[error("failed to append the mark to the provenance sidecar")]
    Append(#[source] FileError),
}

/// Appends a runtime mark to a session's sidecar (creating the session folder) and returns the
/// sidecar's path.
pub fn append_mark(
    state: &StateDir,
    session: &SessionId,
    mark: &RuntimeMark,
) -> Result<PathBuf, SidecarError> {
    state
        .ensure_session_dir(session)
        .map_err(SidecarError::SessionFolder)?;
    let path = state.sidecar(session);
    crate::store::files::append_json_line(&path, &SidecarLine::RuntimeInterruptMark(mark.clone()))
        .map_err(SidecarError::Append)?;
    Ok(path)
}

/// The `kind` of a mark line.
pub const MARK_KIND: &str = "runtime_interrupt_mark";
