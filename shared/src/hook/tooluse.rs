//! The tooluse hook's work: one sidecar line per `PreToolUse`, `PostToolUse` and `PostToolUseFailure`
//! event, so that `ctxhooks provenance` knows which calls really started and finished. It runs
//! on every tool call: no transcript reading, one small append.

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use serde::de::MapAccess;

use crate::hook::context::HookContext;
use crate::hook::event::HookEvent;
use crate::hook::payload::{CommonFields as _, Payload, hook_payload};
use crate::lenient::{Field, Lenient, Milliseconds, Mismatch, Text};
use crate::notes::Notes as _;
use crate::store::clock::now_ms;
use crate::store::files;
use crate::store::sidecar::{SidecarLine, ToolEvent, ToolEventKind};
use crate::tool_input::ToolInput;

hook_payload! {
    /// The tool event payload fields the hook reads. Only `session_id` and `hook_event_name` are
    /// needed to write the line.
    pub ToolUseInput<'payload> {
        /// The tool's name, such as `Bash`.
        tool_name: Text<'payload>,
        /// The tool's input: only a short summary of it is kept.
        tool_input: Field<ToolInput<'payload>>,
        /// The tool call's id (`toolu_...`).
        tool_use_id: Text<'payload>,
        /// `PostToolUse`: the tool's output, of which only an object's `interrupted` is read.
        tool_response: Field<ToolResponse>,
        /// `PostToolUse` / `PostToolUseFailure`: how long the call ran, in milliseconds.
        duration_ms: Field<Milliseconds>,
        /// `PostToolUseFailure`: whether the failure reached Claude Code as an abort.
        is_interrupt: Field<bool>,
        /// The sub-agent's id when the call ran inside one.
        agent_id: Text<'payload>,
    }
}

/// What the hook reads of a `tool_response`: any value is valid there (an MCP tool's output
/// may be text); only an object's `interrupted` is read, and the rest is skipped unparsed.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ToolResponse {
    /// Bash's `interrupted`.
    pub interrupted: Field<bool>,
}

impl<'de> Lenient<'de> for ToolResponse {
    const EXPECTED: &'static str = "an object";

    fn from_map<A: MapAccess<'de>>(object: A) -> Result<Option<Self>, A::Error> {
        crate::lenient::struct_from_map(object)
    }

    /// An output that is one string holds no `interrupted`: a string with escapes, decoded by
    /// the parser into its own buffer, is not copied once more.
    fn from_decoded_text(_: &str) -> Option<Self> {
        None
    }
}

impl Payload for ToolUseInput<'_> {
    fn mismatches(&self) -> Vec<(&'static str, Option<Mismatch>)> {
        vec![
            ("transcript_path", self.transcript_path.mismatch()),
            ("cwd", self.cwd.mismatch()),
            ("tool_name", self.tool_name.mismatch()),
            ("tool_input", self.tool_input.mismatch()),
            ("tool_use_id", self.tool_use_id.mismatch()),
            // `tool_response` may be any value: only its `interrupted` has a type to keep.
            (
                "tool_response.interrupted",
                self.tool_response
                    .get()
                    .and_then(|response| response.interrupted.mismatch()),
            ),
            ("duration_ms", self.duration_ms.mismatch()),
            ("is_interrupt", self.is_interrupt.mismatch()),
            ("agent_id", self.agent_id.mismatch()),
        ]
    }
}

/// The longest text a sidecar line keeps for an id or a name (real ones are tens of bytes).
const MAX_ID_BYTES: usize = 256;

/// The longest transcript path a sidecar line keeps (Linux's `PATH_MAX`).
const MAX_PATH_BYTES: usize = 4096;

/// The events this hook handles, which the hook table registers it for.
pub const EVENTS: &[HookEvent] = &[
    HookEvent::PreToolUse,
    HookEvent::PostToolUse,
    HookEvent::PostToolUseFailure,
];

/// Handles one `PreToolUse`, `PostToolUse` or `PostToolUseFailure` payload.
pub fn handle(context: &HookContext) -> Result<()> {
    let input: ToolUseInput = context.payload()?;
    let mut event = tool_event(&input, now_ms())?;
    for (field, length, limit) in drop_overlong_fields(&mut event) {
        context.note(
            format!(
                "the payload's `{field}` is {length} bytes long, more than the {limit} a sidecar \
                 line keeps; it was left out of the line"
            )
            .into(),
        );
    }
    let session = input.session()?;
    context.state.ensure_session_dir(&session)?;
    files::append_json_line(
        &context.state.sidecar(&session),
        &SidecarLine::ToolEvent(event),
    )
    .context("failed to append to the provenance sidecar")
}

/// The sidecar line for a payload, stamped `time_ms`.
pub fn tool_event(input: &ToolUseInput<'_>, time_ms: u64) -> Result<ToolEvent> {
    let hook_event_name = input.hook_event_name.required("hook_event_name")?;
    let event = match hook_event_name.parse() {
        Ok(HookEvent::PreToolUse) => ToolEventKind::Started,
        Ok(HookEvent::PostToolUse) => ToolEventKind::Completed,
        Ok(HookEvent::PostToolUseFailure) => ToolEventKind::Failed,
        _ => {
            let names: Vec<&str> = EVENTS.iter().map(|event| event.name()).collect();
            bail!(
                "`ctxhooks-tooluse` handles {}, not `{}`",
                names.join(", "),
                hook_event_name.escape_debug()
            )
        }
    };
    let tool_name = input.tool_name.non_empty();
    let summary = tool_name
        .zip(input.tool_input.get())
        .and_then(|(name, tool_input)| tool_input.summary(name));
    Ok(ToolEvent {
        event,
        hook_event_name: Some(hook_event_name.to_owned()),
        time_ms,
        tool_use_id: input.tool_use_id.non_empty().map(str::to_owned),
        tool_name: tool_name.map(str::to_owned),
        summary,
        duration_ms: input.duration_ms.get().map(|duration| duration.0),
        is_interrupt: input.is_interrupt.get().copied(),
        interrupted: input
            .tool_response
            .get()
            .and_then(|response| response.interrupted.get().copied()),
        agent_id: input.agent_id.non_empty().map(str::to_owned),
        transcript_path: input.transcript_path.non_empty().map(str::to_owned),
    })
}

/// Leaves out of `event` the texts no real payload has at such a length (a hostile 15 MB
/// `tool_use_id` must not become a 15 MB sidecar line), and says which: (field, length, limit).
pub fn drop_overlong_fields(event: &mut ToolEvent) -> Vec<(&'static str, usize, usize)> {
    let mut dropped = Vec::new();
    for (field, value, limit) in [
        ("tool_use_id", &mut event.tool_use_id, MAX_ID_BYTES),
        ("tool_name", &mut event.tool_name, MAX_ID_BYTES),
        ("agent_id", &mut event.agent_id, MAX_ID_BYTES),
        (
            "transcript_path",
            &mut event.transcript_path,
            MAX_PATH_BYTES,
        ),
    ] {
        if let Some(overlong) = value.take_if(|text| text.len() > limit) {
            dropped.push((field, overlong.len(), limit));
        }
    }
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlong_ids_and_paths_are_left_out() {
        let long_id = "x".repeat(MAX_ID_BYTES + 1);
        let payload = format!(
            r#"{{"hook_event_name": "PreToolUse", "tool_use_id": "{long_id}", "agent_id": "a1",
                "transcript_path": "/{}"}}"#,
            "p".repeat(MAX_PATH_BYTES)
        );
        let mut event = tool_event(&parse(&payload), 1).unwrap();
        let dropped: Vec<&str> = drop_overlong_fields(&mut event)
            .into_iter()
            .map(|(field, _, _)| field)
            .collect();
        assert_eq!(dropped, ["tool_use_id", "transcript_path"]);
        assert_eq!(
            (
                event.tool_use_id,
                event.agent_id.as_deref(),
                event.transcript_path
            ),
            (None, Some("a1"), None)
        );
    }

    fn parse(text: &str) -> ToolUseInput<'_> {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn maps_each_event_and_keeps_only_a_summary() {
        let payload = r#"{
            "session_id": "s1", "transcript_path": "/t.jsonl", "cwd": "/p",
            "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": "cat secret-file && echo done", "description": "x"},
            "tool_use_id": "toolu_1", "duration_ms": 12.6,
            "tool_response": {"stdout": "the secret", "stderr": "", "interrupted": false}
        }"#;
        let event = tool_event(&parse(payload), 99).unwrap();
        assert_eq!(event.event, ToolEventKind::Completed);
        assert_eq!(event.duration_ms, Some(13));
        assert_eq!(event.interrupted, Some(false));
        assert_eq!(
            event.summary.as_deref(),
            Some("cat secret-file && echo done")
        );
        let line = serde_json::to_string(&SidecarLine::ToolEvent(event)).unwrap();
        assert!(!line.contains("the secret"), "{line}");
        assert!(
            line.starts_with(r#"{"kind":"tool_event","event":"completed""#),
            "{line}"
        );
        let failure = r#"{"hook_event_name": "PostToolUseFailure", "is_interrupt": true}"#;
        let event = tool_event(&parse(failure), 1).unwrap();
        assert_eq!(event.event, ToolEventKind::Failed);
        assert_eq!(event.is_interrupt, Some(true));
        assert!(tool_event(&parse(r#"{"hook_event_name": "Stop"}"#), 1).is_err());
        assert!(tool_event(&parse("{}"), 1).is_err());
    }

    #[test]
    fn any_tool_response_is_valid_and_odd_fields_are_named() {
        let input = parse(
            r#"{"hook_event_name": "PostToolUse", "tool_response": "plain text",
                "tool_name": 5, "tool_input": "ls", "duration_ms": "long"}"#,
        );
        let event = tool_event(&input, 1).unwrap();
        assert_eq!((event.tool_name, event.summary), (None, None));
        let odd: Vec<&str> = input
            .mismatches()
            .into_iter()
            .filter_map(|(name, mismatch)| mismatch.map(|_| name))
            .collect();
        assert_eq!(odd, ["tool_name", "tool_input", "duration_ms"]);
    }
}
