//! Reading a session's provenance sidecar for the verdicts: the hook events of each call, the
//! runtime marks, and every line that could not be read (counted and reported, never repaired).

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::Value;

use ctxhooks_shared::store::rotation;
use ctxhooks_shared::store::sidecar::{
    MARK_KIND, RuntimeMark, SidecarLine, ToolEvent, ToolEventKind,
};

/// What a tool hook saw of one call, as the verdicts need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookEvent {
    /// started, completed or failed.
    pub event: ToolEventKind,
    /// When the hook ran, milliseconds since the Unix epoch.
    pub time_ms: u64,
    /// The payload's `is_interrupt` (`PostToolUseFailure`), when given.
    pub is_interrupt: Option<bool>,
}

/// What is wrong with a `runtime_interrupt_mark` line (`NotJson`: Python's `json.dumps` writes
/// `NaN` and `Infinity`, which JSON does not allow; `error` is the JSON parser's message, `value`
/// the time as JSON).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MarkProblemKind {
    #[error(
        "a runtime_interrupt_mark line that is not JSON ({error}; Python's json.dumps writes NaN \
         or Infinity, which JSON does not allow); its time cannot be read, so interrupts near it \
         are judged unknown"
    )]
    NotJson { error: String },
    #[error(
        "a runtime_interrupt_mark line whose time cannot be read (it has no time_ms), so \
         interrupts near it are judged unknown"
    )]
    NoTime,
    #[error(
        "a runtime_interrupt_mark line whose time cannot be read (its time_ms {value} is not a \
         time in milliseconds), so interrupts near it are judged unknown"
    )]
    BadTime { value: String },
}

/// A `runtime_interrupt_mark` line whose time cannot be read. Always reported loudly; every
/// uncovered interrupt near it is judged `unknown`, never `user`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkProblem {
    /// The 1-based sidecar line.
    pub line: usize,
    /// What is wrong with it.
    pub problem: MarkProblemKind,
    /// The time of the last readable sidecar line before it (the mark is no older).
    pub after_time_ms: Option<u64>,
    /// The time of the first readable sidecar line after it (the mark is no younger).
    pub before_time_ms: Option<u64>,
}

/// Everything one sidecar holds that the verdicts use, in file order: the tool hook events with
/// a `tool_use_id`, the earliest and latest time of any, the transcript path the most recent
/// one recorded, the runtime marks, the lines that could not be read (1-based line number and
/// the reason; kept, never fatal) and the mark lines whose time cannot be read (loud warnings).
#[derive(Debug, Clone, Default)]
pub struct Sidecar {
    pub events: Vec<HookEvent>,
    /// Where each call's events are in [`Sidecar::events`].
    calls: HashMap<String, Vec<usize>>,
    event_span: Option<(u64, u64)>,
    pub transcript_path: Option<String>,
    /// Every transcript path the events recorded, each once, in the order first recorded: a
    /// session resumed from another folder goes on in that folder's project's transcript.
    pub transcript_paths: Vec<String>,
    pub marks: Vec<RuntimeMark>,
    pub unreadable: Vec<(usize, String)>,
    pub mark_problems: Vec<MarkProblem>,
}

impl Sidecar {
    /// The events of one tool call, in file order.
    pub fn events_for<'a>(&'a self, tool_use_id: &str) -> impl Iterator<Item = &'a HookEvent> {
        self.calls
            .get(tool_use_id)
            .into_iter()
            .flatten()
            .map(|index| &self.events[*index])
    }

    /// Returns true if and only if tool hook events lie both at or before and at or after
    /// `time_ms` (the hook was active around that time).
    pub fn hook_active_around(&self, time_ms: u64) -> bool {
        self.event_span
            .is_some_and(|(first, last)| first <= time_ms && time_ms <= last)
    }

    /// Adds a tool hook event.
    pub fn add_event(&mut self, event: ToolEvent) {
        let (first, last) = self.event_span.unwrap_or((event.time_ms, event.time_ms));
        self.event_span = Some((first.min(event.time_ms), last.max(event.time_ms)));
        if let Some(path) = event.transcript_path.filter(|path| !path.is_empty()) {
            if !self.transcript_paths.contains(&path) {
                self.transcript_paths.push(path.clone());
            }
            self.transcript_path = Some(path);
        }
        if let Some(id) = event.tool_use_id {
            self.calls.entry(id).or_default().push(self.events.len());
            self.events.push(HookEvent {
                event: event.event,
                time_ms: event.time_ms,
                is_interrupt: event.is_interrupt,
            });
        }
    }
}

/// Reads a sidecar, its rotated parts first (`store/rotation.rs`; lines are numbered across
/// them); a missing file is an empty sidecar. Mark lines are read leniently (a float
/// `time_ms` is rounded; a bad or non-finite optional field is ignored); a mark line whose time
/// cannot be read (not JSON, or no usable `time_ms`) is recorded in [`Sidecar::mark_problems`]
/// and never used as a mark.
pub fn read_sidecar(path: &Path) -> Result<Sidecar> {
    let mut sidecar = Sidecar::default();
    let Some(log) = rotation::open_log(path).context("failed to read the provenance sidecar")?
    else {
        return Ok(sidecar);
    };
    // The latest time of the lines read so far, to bound the time of a mark that has none.
    let mut latest: Option<u64> = None;
    for (index, line) in BufReader::new(log).split(b'\n').enumerate() {
        let line = line.context("failed to read the provenance sidecar")?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Some(time) = read_line(&mut sidecar, index + 1, &line, latest) {
            latest = latest.max(Some(time));
            for problem in &mut sidecar.mark_problems {
                let before = problem.before_time_ms.get_or_insert(time);
                *before = (*before).min(time);
            }
        }
    }
    Ok(sidecar)
}

/// Reads one line into `sidecar`; returns its time when it has one.
fn read_line(
    sidecar: &mut Sidecar,
    number: usize,
    line: &[u8],
    latest: Option<u64>,
) -> Option<u64> {
    let problem = |problem| MarkProblem {
        line: number,
        problem,
        after_time_ms: latest,
        before_time_ms: None,
    };
    let value = match serde_json::from_slice::<Value>(line) {
        Ok(value) => value,
        Err(error) => {
            if memchr::memmem::find(line, MARK_KIND.as_bytes()).is_some() {
                sidecar
                    .mark_problems
                    .push(problem(MarkProblemKind::NotJson {
                        error: error.to_string(),
                    }));
            } else {
                sidecar.unreadable.push((number, error.to_string()));
            }
            return None;
        }
    };
    if value.get("kind").and_then(Value::as_str) == Some(MARK_KIND) {
        let mark = lenient_mark(&value)
            .inspect_err(|kind| sidecar.mark_problems.push(problem(kind.clone())))
            .ok()?;
        let time = mark.time_ms;
        sidecar.marks.push(mark);
        return Some(time);
    }
    match serde_json::from_value::<SidecarLine>(value) {
        Ok(SidecarLine::ToolEvent(event)) => {
            let time = event.time_ms;
            sidecar.add_event(event);
            Some(time)
        }
        // Mark lines never get here: they were read leniently above.
        Ok(SidecarLine::RuntimeInterruptMark(_)) => None,
        Err(error) => {
            sidecar.unreadable.push((number, error.to_string()));
            None
        }
    }
}

/// How much of a sidecar's end [`has_recent_tool_events`] looks at: a few hundred lines.
pub const RECENT_BYTES: u64 = 64 * 1024;

/// Returns true if and only if the last [`RECENT_BYTES`] of the sidecar at `path` hold a tool
/// hook event (`"tool_event"` in the bytes; nothing is parsed). For `ctxhooks mark-interrupt`,
/// which runs while a runtime waits to interrupt: it reads that much whatever the sidecar's
/// size (and the newest rotated part's end, only when the sidecar was just rotated and holds
/// less). A missing sidecar holds none.
pub fn has_recent_tool_events(path: &Path) -> Result<bool> {
    let tail = rotation::read_tail(path, RECENT_BYTES)
        .context("failed to read the end of the provenance sidecar")?;
    Ok(memchr::memmem::find(&tail, br#""tool_event""#).is_some())
}

/// A mark read leniently from a parsed line: `time_ms` an integer, or a finite non-negative
/// number (rounded); `reason` a string (else a placeholder); a bad optional field is dropped.
fn lenient_mark(value: &Value) -> Result<RuntimeMark, MarkProblemKind> {
    let time = value.get("time_ms").ok_or(MarkProblemKind::NoTime)?;
    let time_ms = time
        .as_u64()
        .or_else(|| time.as_f64().and_then(rounded_ms))
        .ok_or_else(|| MarkProblemKind::BadTime {
            value: time.to_string(),
        })?;
    let text = |key| value.get(key).and_then(Value::as_str).map(str::to_owned);
    Ok(RuntimeMark {
        time_ms,
        reason: text("reason").unwrap_or_else(|| "(no reason given)".to_owned()),
        source: text("source"),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_kinds_and_keeps_going_past_a_bad_line() {
        let sidecar = sidecar_of(
            "kinds",
            concat!(
                r#"{"kind":"tool_event","event":"started","time_ms":5,"tool_use_id":"toolu_1","tool_name":"Bash","transcript_path":"/t.jsonl"}"#,
                "\n{not json\n",
                r#"{"kind":"runtime_interrupt_mark","time_ms":7,"reason":"backstop","gauge_pct":78.5,"pid":42}"#,
                "\n",
                r#"{"kind":"something_new","time_ms":9}"#,
                "\n"
            ),
        );
        assert_eq!(sidecar.events.len(), 1);
        assert_eq!(sidecar.events[0].event, ToolEventKind::Started);
        assert_eq!(sidecar.events_for("toolu_1").count(), 1);
        assert_eq!(sidecar.marks[0].gauge_pct, Some(78.5));
        let lines: Vec<usize> = sidecar.unreadable.iter().map(|(line, _)| *line).collect();
        assert_eq!(lines, vec![2, 4]);
        assert!(
            sidecar.unreadable[1]
                .1
                .contains("expected `tool_event` or `runtime_interrupt_mark`"),
            "{:?}",
            sidecar.unreadable
        );
        assert_eq!(sidecar.transcript_path.as_deref(), Some("/t.jsonl"));
        assert!(sidecar.hook_active_around(5));
        assert!(!sidecar.hook_active_around(6));
    }

    type Problem = (usize, MarkProblemKind, Option<u64>, Option<u64>);

    fn sidecar_of(name: &str, text: &str) -> Sidecar {
        let temp = ctxhooks_shared::test_support::TempFolder::new(name);
        let path = temp.join("provenance.jsonl");
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
    fn a_mark_line_that_is_not_json_is_counted_and_never_repaired() {
        // A malformed line is a mark problem with no time, even when a time could be guessed
        // from its text: reported, bounded by its neighbours' times, never used as a mark.
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
                r#"{"kind": "runtime_interrupt_mark", "reason": "no time"}"#,
                "\n",
                r#"{"kind": "runtime_interrupt_mark", "time_ms": "soon", "reason": "r"}"#,
                "\n",
            ),
        );
        assert!(sidecar.marks.is_empty());
        let problems: Vec<Problem> = sidecar
            .mark_problems
            .iter()
            .map(|problem| {
                let kind = match &problem.problem {
                    MarkProblemKind::NotJson { .. } => MarkProblemKind::NotJson {
                        error: String::new(),
                    },
                    other => other.clone(),
                };
                (
                    problem.line,
                    kind,
                    problem.after_time_ms,
                    problem.before_time_ms,
                )
            })
            .collect();
        let not_json = || MarkProblemKind::NotJson {
            error: String::new(),
        };
        assert_eq!(
            problems,
            vec![
                (2, not_json(), Some(500), Some(3000)),
                (3, not_json(), Some(500), Some(3000)),
                (5, not_json(), Some(3000), None),
                (6, MarkProblemKind::NoTime, Some(3000), None),
                (
                    7,
                    MarkProblemKind::BadTime {
                        value: "\"soon\"".to_owned()
                    },
                    Some(3000),
                    None
                ),
            ]
        );
        assert!(sidecar.unreadable.is_empty());
    }
}
