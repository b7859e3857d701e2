//! The provenance sidecar `<state>/sessions/<id>/provenance.jsonl`: one JSON line per tool hook
//! event and per runtime interrupt mark (schema in `docs/provenance.md`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

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

/// A `runtime_interrupt_mark` line that could not be read as the documented JSON (such as
/// Python's `json.dumps` writing `NaN`). Always reported loudly.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MarkProblem {
    /// The 1-based sidecar line.
    pub line: usize,
    /// What is wrong with it.
    pub problem: String,
    /// The mark's time when it could still be read (the line then also counts as a mark).
    pub salvaged_time_ms: Option<u64>,
    /// The time of the last readable sidecar line before it (the mark is no older).
    pub after_time_ms: Option<u64>,
    /// The time of the first readable sidecar line after it (the mark is no younger).
    pub before_time_ms: Option<u64>,
}

/// Everything one sidecar holds, in file order.
#[derive(Debug, Clone, Default)]
pub struct Sidecar {
    /// The tool hook events.
    pub events: Vec<ToolEvent>,
    /// The runtime marks (including those salvaged from a mark line that is not valid JSON).
    pub marks: Vec<RuntimeMark>,
    /// Lines that could not be read (1-based line number and the reason); kept, never fatal.
    pub unreadable: Vec<(usize, String)>,
    /// Mark lines that could not be read as documented: loud warnings.
    pub mark_problems: Vec<MarkProblem>,
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
    state.ensure_session_dir(session)?;
    let path = state.sidecar(session);
    crate::store::files::append_json_line(&path, &SidecarLine::RuntimeInterruptMark(mark.clone()))
        .context("failed to append the mark to the provenance sidecar")?;
    Ok(path)
}

/// Reads a sidecar; a missing file is an empty sidecar. Mark lines are read leniently (a float
/// `time_ms` is rounded; a bad or non-finite optional field is ignored); a line that mentions
/// `runtime_interrupt_mark` but is not JSON (Python's `json.dumps` writes `NaN`) is salvaged
/// when its time can be read, and always recorded in [`Sidecar::mark_problems`].
pub fn read_sidecar(path: &Path) -> Result<Sidecar> {
    let mut sidecar = Sidecar::default();
    if !path.exists() {
        return Ok(sidecar);
    }
    let text = fs_err::read(path).context("failed to read the provenance sidecar")?;
    // The time of every line that has one, to bound the time of a mark that has none.
    let mut times: Vec<(usize, u64)> = Vec::new();
    for (index, line) in text.split(|byte| *byte == b'\n').enumerate() {
        let number = index + 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let mentions_mark = contains(line, MARK_KIND.as_bytes());
        match serde_json::from_slice::<Value>(line) {
            Ok(value) if value.get("kind").and_then(Value::as_str) == Some(MARK_KIND) => {
                match lenient_mark(&value) {
                    Ok(mark) => {
                        times.push((number, mark.time_ms));
                        sidecar.marks.push(mark);
                    }
                    Err(problem) => sidecar.mark_problems.push(MarkProblem {
                        line: number,
                        problem: format!(
                            "a runtime_interrupt_mark line whose time cannot be read ({problem}), \
                             so interrupts near it are judged unknown"
                        ),
                        salvaged_time_ms: None,
                        after_time_ms: None,
                        before_time_ms: None,
                    }),
                }
            }
            Ok(value) => match serde_json::from_value::<SidecarLine>(value) {
                Ok(SidecarLine::ToolEvent(event)) => {
                    times.push((number, event.time_ms));
                    sidecar.events.push(event);
                }
                Ok(SidecarLine::RuntimeInterruptMark(mark)) => sidecar.marks.push(mark),
                Err(error) => sidecar.unreadable.push((number, error.to_string())),
            },
            Err(error) if mentions_mark => {
                let salvaged = serde_json::from_slice::<Value>(&null_for_non_finite(line))
                    .ok()
                    .and_then(|value| lenient_mark(&value).ok())
                    .or_else(|| {
                        time_ms_in_text(line).map(|time_ms| RuntimeMark {
                            time_ms,
                            reason: format!("(unreadable mark line {number})"),
                            source: None,
                            gauge_pct: None,
                            pid: None,
                        })
                    });
                let problem = format!(
                    "a runtime_interrupt_mark line that is not JSON ({error}; Python's json.dumps \
                     writes NaN or Infinity, which JSON does not allow){}",
                    if salvaged.is_some() {
                        "; its time could still be read, so it is used as a mark"
                    } else {
                        "; its time cannot be read, so interrupts near it are judged unknown"
                    }
                );
                sidecar.mark_problems.push(MarkProblem {
                    line: number,
                    problem,
                    salvaged_time_ms: salvaged.as_ref().map(|mark| mark.time_ms),
                    after_time_ms: None,
                    before_time_ms: None,
                });
                if let Some(mark) = salvaged {
                    times.push((number, mark.time_ms));
                    sidecar.marks.push(mark);
                }
            }
            Err(error) => sidecar.unreadable.push((number, error.to_string())),
        }
    }
    for problem in &mut sidecar.mark_problems {
        problem.after_time_ms = times
            .iter()
            .filter(|(line, _)| *line < problem.line)
            .map(|(_, time)| *time)
            .max();
        problem.before_time_ms = times
            .iter()
            .filter(|(line, _)| *line > problem.line)
            .map(|(_, time)| *time)
            .min();
    }
    Ok(sidecar)
}

/// The `kind` of a mark line.
pub const MARK_KIND: &str = "runtime_interrupt_mark";

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// A mark read leniently from a parsed line: `time_ms` an integer, or a finite non-negative
/// number (rounded); `reason` a string (else a placeholder); a bad optional field is dropped.
fn lenient_mark(value: &Value) -> std::result::Result<RuntimeMark, String> {
    let time_ms = match value.get("time_ms") {
        Some(time) => time
            .as_u64()
            .or_else(|| time.as_f64().and_then(rounded_ms))
            .ok_or_else(|| format!("its time_ms {time} is not a time in milliseconds"))?,
        None => return Err("it has no time_ms".to_owned()),
    };
    Ok(RuntimeMark {
        time_ms,
        reason: value
            .get("reason")
            .and_then(Value::as_str)
            .map_or_else(|| "(no reason given)".to_owned(), str::to_owned),
        source: value
            .get("source")
            .and_then(Value::as_str)
            .map(str::to_owned),
        gauge_pct: value
            .get("gauge_pct")
            .and_then(Value::as_f64)
            .filter(|pct| pct.is_finite() && *pct >= 0.0),
        pid: value
            .get("pid")
            .and_then(Value::as_u64)
            .and_then(|pid| u32::try_from(pid).ok()),
    })
}

/// A finite, non-negative number of milliseconds, rounded.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "the value is checked to be finite, non-negative and below 2^53 first"
)]
fn rounded_ms(time: f64) -> Option<u64> {
    (0.0..9_007_199_254_740_992.0)
        .contains(&time)
        .then(|| time.round() as u64)
}

/// The line with every bare `NaN`, `Infinity` and `-Infinity` outside strings turned into
/// `null`, so that the rest of a line Python wrote can still be read.
fn null_for_non_finite(line: &[u8]) -> Vec<u8> {
    let mut output = Vec::with_capacity(line.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut index = 0;
    while index < line.len() {
        let byte = line[index];
        if in_string {
            output.push(byte);
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
            index += 1;
            continue;
        }
        if byte == b'"' {
            in_string = true;
            output.push(byte);
            index += 1;
            continue;
        }
        let rest = &line[index..];
        if let Some(token) = [&b"-Infinity"[..], b"Infinity", b"NaN"]
            .into_iter()
            .find(|token| rest.starts_with(token))
        {
            output.extend_from_slice(b"null");
            index += token.len();
            continue;
        }
        output.push(byte);
        index += 1;
    }
    output
}

/// The number after `"time_ms":` in a line that is not JSON, when it reads as milliseconds.
fn time_ms_in_text(line: &[u8]) -> Option<u64> {
    let key = b"\"time_ms\"";
    let start = line.windows(key.len()).position(|window| window == key)? + key.len();
    let rest = std::str::from_utf8(&line[start..]).ok()?.trim_start();
    let rest = rest.strip_prefix(':')?.trim_start();
    let end = rest
        .find(|character: char| !(character.is_ascii_digit() || character == '.'))
        .unwrap_or(rest.len());
    rest[..end].parse::<f64>().ok().and_then(rounded_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_kinds_and_keeps_going_past_a_bad_line() {
        let dir = std::env::temp_dir().join(format!("ctxhooks-sidecar-{}", std::process::id()));
        crate::store::files::create_private_dir_all(&dir).unwrap();
        let path = dir.join("provenance.jsonl");
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

    type Problem = (usize, Option<u64>, Option<u64>, Option<u64>);

    fn sidecar_of(name: &str, text: &str) -> Sidecar {
        let dir =
            std::env::temp_dir().join(format!("ctxhooks-sidecar-{name}-{}", std::process::id()));
        crate::store::files::create_private_dir_all(&dir).unwrap();
        let path = dir.join("provenance.jsonl");
        fs_err::write(&path, text).unwrap();
        read_sidecar(&path).unwrap()
    }

    #[test]
    fn mark_lines_are_read_leniently() {
        let sidecar = sidecar_of(
            "lenient",
            concat!(
                r#"{"kind":"runtime_interrupt_mark","time_ms":1000.6,"reason":"a","gauge_pct":"78%","pid":-3}"#,
                "\n",
                r#"{"kind":"runtime_interrupt_mark","time_ms":2000,"reason":"b","gauge_pct":-5}"#,
                "\n"
            ),
        );
        assert!(
            sidecar.mark_problems.is_empty(),
            "{:?}",
            sidecar.mark_problems
        );
        assert_eq!(sidecar.marks.len(), 2);
        assert_eq!(sidecar.marks[0].time_ms, 1001);
        assert_eq!(sidecar.marks[0].gauge_pct, None);
        assert_eq!(sidecar.marks[0].pid, None);
        assert_eq!(sidecar.marks[1].time_ms, 2000);
        assert_eq!(sidecar.marks[1].gauge_pct, None);
    }

    #[test]
    fn a_mark_line_that_is_not_json_is_salvaged_when_its_time_reads() {
        let sidecar = sidecar_of(
            "nan",
            concat!(
                r#"{"kind":"tool_event","event":"started","time_ms":500,"tool_use_id":"t"}"#,
                "\n",
                r#"{"kind": "runtime_interrupt_mark", "time_ms": 1000, "reason": "NaN in text", "gauge_pct": NaN}"#,
                "\n",
                r#"{"kind": "runtime_interrupt_mark", "time_ms": Infinity, "reason": "r"}"#,
                "\n",
                r#"{"kind":"tool_event","event":"started","time_ms":3000,"tool_use_id":"u"}"#,
                "\n",
                r#"{"kind": "runtime_interrupt_mark", "time_ms": 4000, "reas"#,
                "\n",
            ),
        );
        assert_eq!(sidecar.marks.len(), 2);
        assert_eq!(sidecar.marks[0].time_ms, 1000);
        assert_eq!(sidecar.marks[0].reason, "NaN in text");
        assert_eq!(sidecar.marks[0].gauge_pct, None);
        assert_eq!(sidecar.marks[1].time_ms, 4000);
        assert_eq!(sidecar.marks[1].reason, "(unreadable mark line 5)");
        let problems: Vec<Problem> = sidecar
            .mark_problems
            .iter()
            .map(|problem| {
                (
                    problem.line,
                    problem.salvaged_time_ms,
                    problem.after_time_ms,
                    problem.before_time_ms,
                )
            })
            .collect();
        assert_eq!(
            problems,
            vec![
                (2, Some(1000), Some(500), Some(3000)),
                (3, None, Some(1000), Some(3000)),
                (5, Some(4000), Some(3000), None),
            ]
        );
        assert!(sidecar.unreadable.is_empty());
    }
}
