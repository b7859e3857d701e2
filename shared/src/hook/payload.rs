//! Reading a hook's stdin: the first complete JSON value, with a deadline of its own, because
//! Claude Code does not always close stdin.

use std::io::Read;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;

use crate::hook::field::{Mismatch, Text};

use crate::store::env_vars;
use crate::store::session_id::SessionId;

/// How long a hook waits for its input unless `CTXHOOKS_STDIN_TIMEOUT_MS` says otherwise.
pub const DEFAULT_STDIN_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest input a hook accepts. Claude Code's payloads are a few kilobytes; a tool's input
/// or output can be larger. Parsed into a `Value`, a pathological payload (millions of tiny
/// numbers) takes up to about 90 times its size in memory, so the cap stays well under what a
/// hook may use.
const MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;

/// The stdin deadline from the environment, or the default.
pub fn stdin_timeout() -> Duration {
    std::env::var(env_vars::CTXHOOKS_STDIN_TIMEOUT_MS)
        .ok()
        .and_then(|text| text.trim().parse::<u64>().ok())
        .map_or(DEFAULT_STDIN_TIMEOUT, Duration::from_millis)
}

/// Reads `reader` on a helper thread until the first complete JSON value has arrived, and
/// returns it. The bytes are parsed once, as they arrive. Fails on anything that is not a JSON
/// object (as soon as its first byte shows it), on end of input before a complete value, on more
/// than [`MAX_INPUT_BYTES`], and when `timeout` passes first, even while bytes keep arriving (the
/// helper thread is then abandoned, still blocked in `read`; the process is about to exit).
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

    let mut input = ChannelReader {
        receiver,
        deadline: Instant::now() + timeout,
        chunk: Vec::new(),
        position: 0,
        finished: false,
        received: 0,
        first_byte: None,
    };
    let mut stream = serde_json::Deserializer::from_reader(&mut input).into_iter::<Value>();
    let outcome = stream.next();
    drop(stream);
    match outcome {
        Some(Ok(value)) => Ok(value),
        None => bail!("stdin was empty; expected the hook's JSON payload"),
        Some(Err(error)) => Err(describe_failure(&error, &input, timeout)),
    }
}

/// Turns a parse failure into the message a person needs: what arrived, and why it is not a
/// payload.
fn describe_failure(
    error: &serde_json::Error,
    input: &ChannelReader,
    timeout: Duration,
) -> anyhow::Error {
    if error.is_io() {
        let message = error.to_string();
        if message.contains(TIMED_OUT) {
            return anyhow!(
                "stdin held no complete JSON value after {} ms ({} bytes received)",
                timeout.as_millis(),
                input.received
            );
        }
        if let Some(first) = input.first_byte.filter(|byte| *byte != b'{') {
            if first == 0xEF {
                return anyhow!(
                    "stdin is not a JSON object (it starts with a UTF-8 byte-order mark)"
                );
            }
            return anyhow!(
                "stdin is not a JSON object (it starts with {:?})",
                char::from(first)
            );
        }
        return anyhow!("failed to read stdin: {message}");
    }
    if error.is_eof() {
        return anyhow!("stdin ended before its JSON value was complete ({error})");
    }
    anyhow!("stdin is not valid JSON: {error}")
}

/// Marker in the timeout error, recognised by [`describe_failure`].
const TIMED_OUT: &str = "ctxhooks stdin deadline passed";

/// Hands the helper thread's chunks to the JSON parser, enforcing the deadline on every wait, the
/// size limit, and that the first non-blank byte opens an object.
struct ChannelReader {
    receiver: mpsc::Receiver<std::io::Result<Vec<u8>>>,
    deadline: Instant,
    chunk: Vec<u8>,
    position: usize,
    finished: bool,
    received: usize,
    first_byte: Option<u8>,
}

impl ChannelReader {
    /// Waits for the next chunk; `false` at end of input.
    fn refill(&mut self) -> std::io::Result<bool> {
        if self.finished {
            return Ok(false);
        }
        let remaining = self.deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Err(std::io::Error::new(std::io::ErrorKind::TimedOut, TIMED_OUT));
        }
        match self.receiver.recv_timeout(remaining) {
            Ok(Ok(chunk)) if chunk.is_empty() => {
                self.finished = true;
                Ok(false)
            }
            Ok(Ok(chunk)) => {
                self.received += chunk.len();
                if self.received > MAX_INPUT_BYTES {
                    return Err(std::io::Error::other(format!(
                        "stdin is larger than {MAX_INPUT_BYTES} bytes"
                    )));
                }
                if self.first_byte.is_none() {
                    self.first_byte = chunk
                        .iter()
                        .copied()
                        .find(|byte| !byte.is_ascii_whitespace());
                    if self.first_byte.is_some_and(|byte| byte != b'{') {
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::InvalidData,
                            "not a JSON object",
                        ));
                    }
                }
                self.chunk = chunk;
                self.position = 0;
                Ok(true)
            }
            Ok(Err(error)) => Err(error),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                Err(std::io::Error::new(std::io::ErrorKind::TimedOut, TIMED_OUT))
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                self.finished = true;
                Ok(false)
            }
        }
    }
}

impl Read for ChannelReader {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        while self.position >= self.chunk.len() {
            if !self.refill()? {
                return Ok(0);
            }
        }
        let available = &self.chunk[self.position..];
        let count = available.len().min(buffer.len());
        buffer[..count].copy_from_slice(&available[..count]);
        self.position += count;
        Ok(count)
    }
}

/// A hook's typed payload: a struct of [`Field`]s, one per field the hook reads, so that only
/// the fields the hook requires can fail it; any other field of an unexpected type is set aside
/// and named in the error log.
pub trait Payload {
    /// The payload's `hook_event_name` and `session_id` as sent, for the error log.
    fn identity(&self) -> (Option<&str>, Option<&str>);

    /// Every optional field the hook reads, by name, with what it held instead of the expected
    /// type (a required field of another type fails the hook on its own, with its own message).
    fn mismatches(&self) -> Vec<(&'static str, Option<Mismatch>)>;
}

/// The payload's `session_id`, which every hook requires, checked with [`SessionId::parse`].
pub fn session(session_id: &Text<'_>) -> Result<SessionId> {
    SessionId::parse(session_id.required("session_id")?)
        .context("refusing the payload's session id")
}

/// The payload's `transcript_path`, required by the hooks that read the transcript.
pub fn transcript<'field>(transcript_path: &'field Text<'_>) -> Result<&'field Path> {
    transcript_path.required("transcript_path").map(Path::new)
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
    fn the_deadline_holds_while_bytes_keep_arriving() {
        struct Trickle(bool);
        impl Read for Trickle {
            fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
                if !self.0 {
                    self.0 = true;
                    buffer[..7].copy_from_slice(b"{\"a\": \"");
                    return Ok(7);
                }
                std::thread::sleep(Duration::from_millis(1));
                buffer[0] = b'x';
                Ok(1)
            }
        }
        let error = read_first_json_value(Trickle(false), Duration::from_millis(300)).unwrap_err();
        assert!(
            format!("{error:#}").contains("no complete JSON value"),
            "{error:#}"
        );
    }

    #[test]
    fn a_large_payload_is_parsed_in_one_pass() {
        // 250,000 small objects (about 11 MB), as a big PreToolUse payload might carry: this
        // used to be re-parsed from the start for every chunk.
        let mut text = String::from("{\"tool_input\": [");
        for index in 0..250_000 {
            if index > 0 {
                text.push(',');
            }
            text.push_str("{\"k\": \"some value here\", \"n\": 12345}");
        }
        text.push_str("], \"session_id\": \"s\"}");
        let value =
            read_first_json_value(Cursor::new(text.into_bytes()), Duration::from_secs(60)).unwrap();
        assert_eq!(value["tool_input"].as_array().unwrap().len(), 250_000);
        assert_eq!(value["session_id"], "s");
    }

    #[test]
    fn a_payload_past_the_cap_is_refused() {
        let mut text = String::from("{\"x\": [");
        text.push_str(&"0,".repeat(MAX_INPUT_BYTES / 2 + 16));
        text.push_str("0]}");
        let error = read_first_json_value(Cursor::new(text.into_bytes()), Duration::from_secs(60))
            .unwrap_err();
        assert!(format!("{error:#}").contains("larger than"), "{error:#}");
    }

    #[test]
    fn a_byte_order_mark_is_named() {
        let error = parse("\u{feff}{}").unwrap_err();
        assert!(
            format!("{error:#}").contains("byte-order mark"),
            "{error:#}"
        );
    }
}
