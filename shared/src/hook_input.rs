//! Reading a hook's stdin: the first complete JSON value, with a deadline of its own, because
//! Claude Code does not always close stdin.

use std::io::Read;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde::Deserialize;
use serde_json::Value;

use crate::env_vars;
use crate::session_id::SessionId;

/// How long a hook waits for its input unless `CTXHOOKS_STDIN_TIMEOUT_MS` says otherwise.
pub const DEFAULT_STDIN_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest input a hook accepts (Claude Code's payloads are a few kilobytes; tool inputs
/// can be larger).
const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

/// The stdin deadline from the environment, or the default.
pub fn stdin_timeout() -> Duration {
    std::env::var(env_vars::CTXHOOKS_STDIN_TIMEOUT_MS)
        .ok()
        .and_then(|text| text.trim().parse::<u64>().ok())
        .map_or(DEFAULT_STDIN_TIMEOUT, Duration::from_millis)
}

/// Reads `reader` on a helper thread until the first complete JSON value has arrived, and
/// returns it. Fails on anything that is not a JSON object, on end of input before a complete
/// value, and when `timeout` passes first (the helper thread is then abandoned, still blocked
/// in `read`; the process is about to exit anyway).
pub fn read_first_json_value(
    reader: impl Read + Send + 'static,
    timeout: Duration,
) -> Result<Value> {
    let (sender, receiver) = mpsc::channel::<std::io::Result<Vec<u8>>>();
    std::thread::spawn(move || {
        let mut reader = reader;
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buffer) {
                Ok(0) => {
                    let _ = sender.send(Ok(Vec::new()));
                    return;
                }
                Ok(read) => {
                    if sender.send(Ok(buffer[..read].to_vec())).is_err() {
                        return;
                    }
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => {
                    let _ = sender.send(Err(error));
                    return;
                }
            }
        }
    });

    let deadline = Instant::now() + timeout;
    let mut input = Vec::new();
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        let chunk = match receiver.recv_timeout(remaining) {
            Ok(chunk) => chunk.context("failed to read stdin")?,
            Err(mpsc::RecvTimeoutError::Timeout) => bail!(
                "stdin held no complete JSON value after {} ms ({} bytes received)",
                timeout.as_millis(),
                input.len()
            ),
            Err(mpsc::RecvTimeoutError::Disconnected) => Vec::new(),
        };
        let at_end = chunk.is_empty();
        input.extend_from_slice(&chunk);
        if input.len() > MAX_INPUT_BYTES {
            bail!("stdin is larger than {MAX_INPUT_BYTES} bytes");
        }
        if let Some(value) = parse_first_value(&input, at_end)? {
            return Ok(value);
        }
        if at_end {
            if input.iter().all(u8::is_ascii_whitespace) {
                bail!("stdin was empty; expected the hook's JSON payload");
            }
            bail!("stdin ended before its JSON value was complete");
        }
    }
}

/// Parses the first JSON value of `input`; `None` when more bytes are needed.
fn parse_first_value(input: &[u8], at_end: bool) -> Result<Option<Value>> {
    let Some(first) = input.iter().find(|byte| !byte.is_ascii_whitespace()) else {
        return Ok(None);
    };
    if *first != b'{' {
        bail!(
            "stdin is not a JSON object (it starts with {:?})",
            char::from(*first)
        );
    }
    let mut stream = serde_json::Deserializer::from_slice(input).into_iter::<Value>();
    match stream.next() {
        Some(Ok(value)) => Ok(Some(value)),
        Some(Err(error)) if error.is_eof() && !at_end => Ok(None),
        Some(Err(error)) if error.is_eof() => {
            Err(anyhow!(error)).context("stdin ended before its JSON value was complete")
        }
        Some(Err(error)) => Err(anyhow!(error)).context("stdin is not valid JSON"),
        None => Ok(None),
    }
}

/// Turns the raw payload into a typed one, with an error naming the field on a wrong type.
pub fn typed<T: for<'de> Deserialize<'de>>(value: Value) -> Result<T> {
    serde_json::from_value(value).context("the hook payload has a field of the wrong type")
}

/// Fields every hook payload carries. Only `session_id` is required by ctxhooks; the rest may
/// be absent. Unknown fields are ignored.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CommonInput {
    /// The session's id, checked later with [`crate::session_id::SessionId::parse`].
    pub session_id: Option<String>,
    /// The session transcript's path.
    pub transcript_path: Option<String>,
    /// The working folder of Claude Code.
    pub cwd: Option<String>,
    /// The event's name, such as `PreCompact`.
    pub hook_event_name: Option<String>,
}

impl CommonInput {
    /// The payload's session id, checked with [`SessionId::parse`].
    pub fn session(&self) -> Result<SessionId> {
        let text = self
            .session_id
            .as_deref()
            .context("the payload has no `session_id`")?;
        SessionId::parse(text).context("refusing the payload's session id")
    }

    /// The payload's transcript path; an empty one counts as missing.
    pub fn transcript(&self) -> Result<&Path> {
        self.transcript_path
            .as_deref()
            .filter(|path| !path.is_empty())
            .map(Path::new)
            .context("the payload has no `transcript_path`")
    }
}

/// The `PreCompact` payload.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct PreCompactInput {
    /// Fields every hook has.
    #[serde(flatten)]
    pub common: CommonInput,
    /// `manual` (`/compact`) or `auto` (context full); other values are kept as they are.
    pub trigger: Option<String>,
    /// What the user typed after `/compact`; null or empty for automatic compactions.
    pub custom_instructions: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn parse(text: &'static str) -> Result<Value> {
        read_first_json_value(Cursor::new(text.as_bytes()), Duration::from_secs(2))
    }

    #[test]
    fn takes_the_first_value_and_ignores_what_follows() {
        let value = parse("  {\"a\": 1}\n{\"b\": 2} trailing garbage").unwrap();
        assert_eq!(value["a"], 1);
    }

    #[test]
    fn names_the_problem() {
        assert!(format!("{:#}", parse("").unwrap_err()).contains("empty"));
        assert!(format!("{:#}", parse("[1]").unwrap_err()).contains("not a JSON object"));
        assert!(format!("{:#}", parse("{\"a\":").unwrap_err()).contains("ended before"));
        assert!(format!("{:#}", parse("{\"a\" 1}").unwrap_err()).contains("not valid JSON"));
    }

    #[test]
    fn returns_before_end_of_input() {
        struct NeverEnds(Option<&'static [u8]>);
        impl Read for NeverEnds {
            fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
                if let Some(bytes) = self.0.take() {
                    buffer[..bytes.len()].copy_from_slice(bytes);
                    return Ok(bytes.len());
                }
                std::thread::sleep(Duration::from_secs(3600));
                Ok(0)
            }
        }
        let value =
            read_first_json_value(NeverEnds(Some(b"{\"x\": true}")), Duration::from_secs(30))
                .unwrap();
        assert_eq!(value["x"], true);
        let error = read_first_json_value(NeverEnds(Some(b"{\"x\"")), Duration::from_millis(200))
            .unwrap_err();
        assert!(format!("{error:#}").contains("no complete JSON value"));
    }

    #[test]
    fn custom_instructions_may_be_null_empty_or_text() {
        for (text, expected) in [
            (r#"{"custom_instructions": null}"#, None),
            (r#"{"custom_instructions": ""}"#, Some(String::new())),
            (
                r#"{"custom_instructions": "keep ids", "unknown": [1]}"#,
                Some("keep ids".into()),
            ),
        ] {
            let input: PreCompactInput = typed(serde_json::from_str(text).unwrap()).unwrap();
            assert_eq!(input.custom_instructions, expected);
        }
    }
}
