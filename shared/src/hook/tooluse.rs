//! The tooluse hook's work: one sidecar line per `PreToolUse`, `PostToolUse` and `PostToolUseFailure`
//! event, so that `ctxhooks provenance` knows which calls really started and finished. It runs
//! on every tool call: no transcript reading, one small append.

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::hook::runner::HookContext;
use crate::hook::table::{HookEvent, TOOLUSE};
use crate::store::clock::now_ms;
use crate::store::files;
use crate::store::session_id::SessionId;
use crate::store::sidecar::{SidecarLine, ToolEvent, ToolEventKind};
use crate::store::tool_summary::summarize_tool_input;

/// Handles one `PreToolUse`, `PostToolUse` or `PostToolUseFailure` payload.
pub fn handle(context: &HookContext) -> Result<()> {
    let event = tool_event(&context.payload, now_ms())?;
    let session_id =
        text(&context.payload, "session_id").context("the payload has no `session_id`")?;
    let session = SessionId::parse(session_id).context("refusing the payload's session id")?;
    context.state.ensure_session_dir(&session)?;
    files::append_json_line(
        &context.state.sidecar(&session),
        &SidecarLine::ToolEvent(event),
    )
    .context("failed to append to the provenance sidecar")
}

/// The sidecar line for a payload, stamped `time_ms`.
pub fn tool_event(payload: &Value, time_ms: u64) -> Result<ToolEvent> {
    let hook_event_name =
        text(payload, "hook_event_name").context("the payload has no `hook_event_name`")?;
    let event = match HookEvent::from_name(hook_event_name) {
        Some(HookEvent::PreToolUse) => ToolEventKind::Started,
        Some(HookEvent::PostToolUse) => ToolEventKind::Completed,
        Some(HookEvent::PostToolUseFailure) => ToolEventKind::Failed,
        _ => {
            let names: Vec<&str> = TOOLUSE.events.iter().map(|event| event.name()).collect();
            bail!(
                "`{}` handles {}, not `{}`",
                TOOLUSE.name,
                names.join(", "),
                hook_event_name.escape_debug()
            )
        }
    };
    let tool_name = text(payload, "tool_name");
    let summary = tool_name.and_then(|name| {
        payload
            .get("tool_input")
            .and_then(|input| summarize_tool_input(name, input))
    });
    let duration_ms = payload.get("duration_ms").and_then(|value| {
        value.as_u64().or_else(|| {
            value
                .as_f64()
                .filter(|number| number.is_finite() && *number >= 0.0)
                .map(|number| {
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    let rounded = number.round() as u64;
                    rounded
                })
        })
    });
    Ok(ToolEvent {
        event,
        hook_event_name: Some(hook_event_name.to_owned()),
        time_ms,
        tool_use_id: text(payload, "tool_use_id").map(str::to_owned),
        tool_name: tool_name.map(str::to_owned),
        summary,
        duration_ms,
        is_interrupt: payload.get("is_interrupt").and_then(Value::as_bool),
        interrupted: payload
            .get("tool_response")
            .and_then(|response| response.get("interrupted"))
            .and_then(Value::as_bool),
        agent_id: text(payload, "agent_id").map(str::to_owned),
        transcript_path: text(payload, "transcript_path").map(str::to_owned),
    })
}

fn text<'a>(payload: &'a Value, field: &str) -> Option<&'a str> {
    payload
        .get(field)
        .and_then(Value::as_str)
        .filter(|text| !text.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn maps_each_event_and_keeps_only_a_summary() {
        let payload = json!({
            "session_id": "s1", "transcript_path": "/t.jsonl", "cwd": "/p",
            "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": "cat secret-file && echo done", "description": "x"},
            "tool_use_id": "toolu_1", "duration_ms": 12.6,
            "tool_response": {"stdout": "the secret", "stderr": "", "interrupted": false}
        });
        let event = tool_event(&payload, 99).unwrap();
        assert_eq!(event.event, ToolEventKind::Completed);
        assert_eq!(event.duration_ms, Some(13));
        assert_eq!(event.interrupted, Some(false));
        let line = serde_json::to_string(&SidecarLine::ToolEvent(event)).unwrap();
        assert!(!line.contains("the secret"), "{line}");
        assert!(
            line.starts_with(r#"{"kind":"tool_event","event":"completed""#),
            "{line}"
        );
        let failure = json!({"hook_event_name": "PostToolUseFailure", "is_interrupt": true});
        let event = tool_event(&failure, 1).unwrap();
        assert_eq!(event.event, ToolEventKind::Failed);
        assert_eq!(event.is_interrupt, Some(true));
        assert!(tool_event(&json!({"hook_event_name": "Stop"}), 1).is_err());
        assert!(tool_event(&json!({}), 1).is_err());
    }
}
