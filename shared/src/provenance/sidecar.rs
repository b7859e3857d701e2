//! The provenance sidecar `<state>/sessions/<id>/provenance.jsonl`: one JSON line per tool hook
//! event and per runtime interrupt mark (schema in `docs/provenance.md`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::session_id::SessionId;
use crate::state::StateDir;

/// The sidecar's file name inside the session folder.
pub const SIDECAR_FILE_NAME: &str = "provenance.jsonl";

/// Where one session's sidecar lives: `<state>/sessions/<id>/provenance.jsonl`.
pub fn sidecar_path(state: &StateDir, session: &SessionId) -> PathBuf {
    state.session_dir(session).join(SIDECAR_FILE_NAME)
}

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
pub struct ToolEvent {
    /// started, completed or failed.
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
pub enum SidecarLine {
    /// A tool hook event.
    ToolEvent(ToolEvent),
    /// A runtime interrupt mark.
    RuntimeInterruptMark(RuntimeMark),
}

/// Everything one sidecar holds, in file order.
#[derive(Debug, Clone, Default)]
pub struct Sidecar {
    /// The tool hook events.
    pub events: Vec<ToolEvent>,
    /// The runtime marks.
    pub marks: Vec<RuntimeMark>,
    /// Lines that could not be read (1-based line number and the reason); kept, never fatal.
    pub unreadable: Vec<(usize, String)>,
}

impl Sidecar {
    /// The events of one tool call, in file order.
    pub fn events_for<'a>(&'a self, tool_use_id: &'a str) -> impl Iterator<Item = &'a ToolEvent> {
        self.events
            .iter()
            .filter(move |event| event.tool_use_id.as_deref() == Some(tool_use_id))
    }

    /// The transcript path the most recent hook event recorded.
    pub fn transcript_path(&self) -> Option<&str> {
        self.events
            .iter()
            .rev()
            .find_map(|event| event.transcript_path.as_deref())
            .filter(|path| !path.is_empty())
    }
}

/// Appends a runtime mark to a session's sidecar (creating the session folder) and returns the
/// sidecar's path.
pub fn append_mark(state: &StateDir, session: &SessionId, mark: &RuntimeMark) -> Result<PathBuf> {
    let dir = state.ensure_session_dir(session)?;
    let path = dir.join(SIDECAR_FILE_NAME);
    crate::files::append_json_line(&path, &SidecarLine::RuntimeInterruptMark(mark.clone()))
        .context("failed to append the mark to the provenance sidecar")?;
    Ok(path)
}

/// Reads a sidecar; a missing file is an empty sidecar.
pub fn read_sidecar(path: &Path) -> Result<Sidecar> {
    let mut sidecar = Sidecar::default();
    if !path.exists() {
        return Ok(sidecar);
    }
    let text = fs_err::read(path).context("failed to read the provenance sidecar")?;
    for (index, line) in text.split(|byte| *byte == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<SidecarLine>(line) {
            Ok(SidecarLine::ToolEvent(event)) => sidecar.events.push(event),
            Ok(SidecarLine::RuntimeInterruptMark(mark)) => sidecar.marks.push(mark),
            Err(error) => sidecar.unreadable.push((index + 1, error.to_string())),
        }
    }
    Ok(sidecar)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_kinds_and_keeps_going_past_a_bad_line() {
        let dir = std::env::temp_dir().join(format!("ctxhooks-sidecar-{}", std::process::id()));
        crate::files::create_private_dir_all(&dir).unwrap();
        let path = dir.join(SIDECAR_FILE_NAME);
        fs_err::write(
            &path,
            concat!(
                r#"{"kind":"tool_event","event":"started","time_ms":5,"tool_use_id":"toolu_1","tool_name":"Bash","transcript_path":"/t.jsonl"}"#,
                "\n{not json\n",
                r#"{"kind":"runtime_interrupt_mark","time_ms":7,"reason":"backstop","gauge_pct":78.5,"pid":42}"#,
                "\n"
            ),
        )
        .unwrap();
        let sidecar = read_sidecar(&path).unwrap();
        assert_eq!(sidecar.events.len(), 1);
        assert_eq!(sidecar.events[0].event, ToolEventKind::Started);
        assert_eq!(sidecar.marks[0].gauge_pct, Some(78.5));
        assert_eq!(sidecar.unreadable.len(), 1);
        assert_eq!(sidecar.unreadable[0].0, 2);
        assert_eq!(sidecar.transcript_path(), Some("/t.jsonl"));
    }
}
