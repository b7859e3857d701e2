//! A hook's payload: the first JSON object on stdin, read until it is complete and no further
//! (Claude Code does not always close stdin; the watchdog bounds the wait), then read into the
//! hook's own typed struct of [`Field`](crate::lenient::Field)s ([`Payload`]).

use std::io::BufRead;
use std::path::Path;
use std::time::Duration;

use crate::json_scan::{Nesting, skip_blank};
use crate::lenient::{Mismatch, RequiredError, Text};
use crate::store::env_vars;
use crate::store::session_id::{SessionId, SessionIdError};

/// How long a hook waits for its input unless `CTXHOOKS_STDIN_TIMEOUT_MS` says otherwise.
pub const DEFAULT_STDIN_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest input a hook accepts. Claude Code's payloads are a few kilobytes; a tool's input
/// or output can be larger. The input is kept whole while the hook runs and read in place: the
/// tool hook builds nothing of a tool's input or output but a few fields and 80 characters
/// (a tool output that is one string with escapes is decoded into one buffer as large), so a
/// hook at the cap stays within twice the input's size in memory (BENCHMARKS.md).
const MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;

/// The stdin deadline from the environment, or the default.
pub fn stdin_timeout() -> Duration {
    env_vars::number(env_vars::CTXHOOKS_STDIN_TIMEOUT_MS)
        .map_or(DEFAULT_STDIN_TIMEOUT, Duration::from_millis)
}

/// Why a hook's stdin holds no payload, or the payload not what the hook requires.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PayloadError {
    /// Reading stdin failed.
    #[error("failed to read stdin")]
    Read(#[source] std::io::Error),
    /// Stdin ended with nothing but blanks.
    #[error("stdin was empty; expected the hook's JSON payload")]
    Empty,
    /// Stdin ended inside the object, after this many bytes.
    #[error("stdin ended before its JSON value was complete ({0} bytes received)")]
    Incomplete(usize),
    /// Stdin went past [`MAX_INPUT_BYTES`].
    #[error("stdin is larger than {MAX_INPUT_BYTES} bytes")]
    TooLarge,
    /// The first byte that is not blank is a UTF-8 byte-order mark.
    #[error("stdin is not a JSON object (it starts with a UTF-8 byte-order mark)")]
    ByteOrderMark,
    /// The first byte that is not blank is this one, not `{`.
    #[error("stdin is not a JSON object (it starts with {0:?})")]
    NotAnObject(char),
    /// The object is no valid JSON.
    #[error("stdin is not valid JSON: {0}")]
    NotJson(serde_json::Error),
    /// A field the hook requires is absent, empty or of another type.
    #[error(transparent)]
    Required(#[from] RequiredError),
    /// The `session_id` is no session id (it would not be a safe folder name).
    #[error("refusing the payload's session id")]
    SessionId(#[source] SessionIdError),
}

/// Reads `reader` until the first JSON object in it is complete, and returns exactly that
/// object's bytes; nothing after it is waited for. `received` is told how many bytes have
/// arrived after each read. The bytes are looked at once, as they arrive, only to find where the
/// object ends (strings skipped, brackets counted): parsing is the hook's, from the bytes.
/// Fails on anything that does not start with `{` (as soon as its first byte shows it), on end
/// of input before the object is complete, and past 16 MiB (`MAX_INPUT_BYTES`). A read that never
/// returns blocks here: the watchdog ends the run at the stdin deadline.
pub fn read_first_object(
    mut reader: impl BufRead,
    mut received: impl FnMut(usize),
) -> Result<Vec<u8>, PayloadError> {
    let mut input = Vec::new();
    // The object's `{` was seen; then where its brackets close.
    let mut started = false;
    let mut nesting = Nesting::default();
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(PayloadError::Read(error)),
        };
        if available.is_empty() {
            if !started {
                return Err(PayloadError::Empty);
            }
            return Err(PayloadError::Incomplete(input.len()));
        }
        let count = available.len();
        let mut start = input.len();
        input.extend_from_slice(available);
        reader.consume(count);
        received(input.len());
        if input.len() > MAX_INPUT_BYTES {
            return Err(PayloadError::TooLarge);
        }
        if !started {
            start = skip_blank(&input, start);
            match input.get(start) {
                None => continue,
                Some(b'{') => started = true,
                Some(0xEF) => return Err(PayloadError::ByteOrderMark),
                Some(&first) => return Err(PayloadError::NotAnObject(char::from(first))),
            }
        }
        if let Some(length) = nesting.feed(&input[start..]) {
            input.truncate(start + length);
            return Ok(input);
        }
    }
}

/// Parses `input` (what [`read_first_object`] returned) into the hook's payload struct `P`.
/// Every field being a [`Field`](crate::lenient::Field), only broken JSON fails here.
pub fn parse<'input, P: serde::Deserialize<'input>>(
    input: &'input [u8],
) -> Result<P, PayloadError> {
    serde_json::from_slice(input).map_err(PayloadError::NotJson)
}

/// Declares a hook's payload struct: the fields every event sends (`session_id`,
/// `transcript_path`, `cwd`, `hook_event_name`), then the event's own, each a
/// [`Field`](crate::lenient::Field) so that only the fields the hook requires can fail it, and
/// its [`CommonFields`]; every field may borrow text from the payload (the common fields'
/// `#[serde(borrow)]` lets the whole struct). The common fields are written into each struct by this macro rather
/// than kept in a struct of their own under `#[serde(flatten)]`: a flattened struct makes serde
/// build every key the outer struct does not name into a tree of values (a 16 MiB field among
/// them) instead of skipping it, and it cannot hold a tool input's raw JSON.
macro_rules! hook_payload {
    // With `reports [...]`: also its [`Payload`], whose mismatches are those common fields' and
    // then every one of the event's own, in order.
    (
        $(#[$meta:meta])*
        $visibility:vis $name:ident<$payload:lifetime> reports [$($common:ident),*] {
            $($(#[$field_meta:meta])* $field:ident: $type:ty,)*
        }
    ) => {
        $crate::hook::payload::hook_payload! {
            $(#[$meta])*
            $visibility $name<$payload> {
                $($(#[$field_meta])* $field: $type,)*
            }
        }

        impl $crate::hook::payload::Payload for $name<'_> {
            fn mismatches(&self) -> Vec<(&'static str, Option<$crate::lenient::Mismatch>)> {
                vec![
                    $((stringify!($common), self.$common.mismatch()),)*
                    $((stringify!($field), self.$field.mismatch()),)*
                ]
            }
        }
    };
    (
        $(#[$meta:meta])*
        $visibility:vis $name:ident<$payload:lifetime> {
            $($(#[$field_meta:meta])* $field:ident: $type:ty,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Default, serde::Deserialize)]
        #[serde(default)]
        $visibility struct $name<$payload> {
            /// The session's id (every hook requires it).
            #[serde(borrow)]
            pub session_id: $crate::lenient::Text<$payload>,
            /// The session transcript's path (the parent's, for `SubagentStop`).
            #[serde(borrow)]
            pub transcript_path: $crate::lenient::Text<$payload>,
            /// The working folder of Claude Code (it follows `cd`s).
            #[serde(borrow)]
            pub cwd: $crate::lenient::Text<$payload>,
            /// The event, such as `PreCompact`.
            #[serde(borrow)]
            pub hook_event_name: $crate::lenient::Text<$payload>,
            $($(#[$field_meta])* $visibility $field: $type,)*
        }

        impl $crate::hook::payload::CommonFields for $name<'_> {
            fn common(&self) -> [&$crate::lenient::Text<'_>; 3] {
                [&self.session_id, &self.transcript_path, &self.hook_event_name]
            }
        }
    };
}
pub(crate) use hook_payload;

/// The common fields of a payload declared by [`hook_payload!`], and what is read from them.
pub trait CommonFields {
    /// `session_id`, `transcript_path` and `hook_event_name`.
    fn common(&self) -> [&Text<'_>; 3];

    /// The payload's `hook_event_name` and `session_id` as sent, for the error log.
    fn identity(&self) -> (Option<&str>, Option<&str>) {
        let [session_id, _, hook_event_name] = self.common();
        (hook_event_name.non_empty(), session_id.non_empty())
    }

    /// The payload's `session_id`, which every hook requires, checked with [`SessionId::parse`].
    fn session(&self) -> Result<SessionId, PayloadError> {
        SessionId::parse(self.common()[0].required("session_id")?).map_err(PayloadError::SessionId)
    }

    /// The payload's `transcript_path`, required by the hooks that read the transcript.
    fn transcript(&self) -> Result<&Path, PayloadError> {
        Ok(Path::new(self.common()[1].required("transcript_path")?))
    }
}

/// A hook's typed payload, with what it says of its odd fields.
pub trait Payload: CommonFields {
    /// Every optional field the hook reads, by name, with what it held instead of the expected
    /// type (a required field of another type fails the hook on its own, with its own message).
    fn mismatches(&self) -> Vec<(&'static str, Option<Mismatch>)>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};

    fn read(text: &str) -> Result<Vec<u8>, PayloadError> {
        read_first_object(text.as_bytes(), |_| {})
    }

    #[test]
    fn takes_the_first_object_and_ignores_what_follows() {
        let input =
            read("  {\"a\": \"}{\\\"]\", \"b\": [{}, []]}\n{\"b\": 2} trailing garbage").unwrap();
        assert_eq!(input, b"  {\"a\": \"}{\\\"]\", \"b\": [{}, []]}");
        let value: serde_json::Value = parse(&input).unwrap();
        assert_eq!(value["a"], "}{\"]");
    }

    #[test]
    fn names_the_problem() {
        assert!(matches!(read(""), Err(PayloadError::Empty)));
        assert!(matches!(read(" \n "), Err(PayloadError::Empty)));
        assert!(matches!(read("[1]"), Err(PayloadError::NotAnObject('['))));
        assert!(matches!(
            read("compact please"),
            Err(PayloadError::NotAnObject('c'))
        ));
        assert!(matches!(read("{\"a\":"), Err(PayloadError::Incomplete(5))));
        assert!(matches!(
            read("\u{feff}{}"),
            Err(PayloadError::ByteOrderMark)
        ));
        let broken = parse::<serde_json::Value>(&read("{\"a\" 1}").unwrap());
        assert!(matches!(broken, Err(PayloadError::NotJson(_))));
    }

    hook_payload! {
        Sample<'payload> {
            trigger: Text<'payload>,
        }
    }

    #[test]
    fn the_common_fields_are_read_beside_the_events_own() {
        let input = br#"{"session_id": "s1", "trigger": "auto", "cwd": 5, "other": {"x": [1]},
            "hook_event_name": "PreCompact", "transcript\u005fpath": "/t"}"#;
        let payload: Sample = parse(input).unwrap();
        assert_eq!(payload.identity(), (Some("PreCompact"), Some("s1")));
        assert_eq!(payload.trigger.text(), Some("auto"));
        assert_eq!(payload.transcript().unwrap(), Path::new("/t"));
        assert!(payload.cwd.is_mistyped());
        assert!(parse::<Sample>(br#"{"session_id": "a", "session_id": "b"}"#).is_err());
    }

    #[test]
    fn returns_as_soon_as_the_object_is_complete() {
        // A reader that would block forever after the object, as a pipe Claude Code never
        // closes does, and hands the object over a few bytes at a time.
        struct NeverEnds(&'static [u8]);
        impl Read for NeverEnds {
            fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
                assert!(!self.0.is_empty(), "read past the object");
                let count = self.0.len().min(3).min(buffer.len());
                buffer[..count].copy_from_slice(&self.0[..count]);
                self.0 = &self.0[count..];
                Ok(count)
            }
        }
        let mut totals = Vec::new();
        let input = read_first_object(BufReader::new(NeverEnds(b"{\"x\": [true]}")), |total| {
            totals.push(total);
        })
        .unwrap();
        assert_eq!(input, b"{\"x\": [true]}");
        assert_eq!(totals, [3, 6, 9, 12, 13]);
    }

    #[test]
    fn the_end_is_found_whatever_the_chunks() {
        // Escaped backslashes before a quote, an escaped quote, brackets inside strings.
        let text = r#"{"a": "x\\", "b": "\"}]\\", "c": [{"d": "\u007d"}]} tail"#;
        let object = &text[..text.len() - " tail".len()];
        assert!(serde_json::from_str::<serde_json::Value>(object).is_ok());
        for size in 1..=text.len() {
            // A buffer of `size` bytes: the text arrives `size` bytes at a time.
            let reader = BufReader::with_capacity(size, text.as_bytes());
            let found = read_first_object(reader, |_| {}).map(|input| input.len());
            assert_eq!(found.ok(), Some(object.len()), "chunks of {size}");
        }
    }

    #[test]
    fn a_large_payload_is_scanned_in_one_pass() {
        // 250,000 small objects (about 11 MB), as a big PreToolUse payload might carry.
        let mut text = String::from("{\"tool_input\": [");
        for index in 0..250_000 {
            if index > 0 {
                text.push(',');
            }
            text.push_str("{\"k\": \"some value here\", \"n\": 12345}");
        }
        text.push_str("], \"session_id\": \"s\"}");
        let input = read_first_object(BufReader::new(text.as_bytes()), |_| {}).unwrap();
        assert_eq!(input.len(), text.len());
        let value: serde_json::Value = parse(&input).unwrap();
        assert_eq!(value["tool_input"].as_array().unwrap().len(), 250_000);
    }

    #[test]
    fn a_payload_past_the_cap_is_refused() {
        let mut text = String::from("{\"x\": [");
        text.push_str(&"0,".repeat(MAX_INPUT_BYTES / 2 + 16));
        text.push_str("0]}");
        assert!(matches!(read(&text), Err(PayloadError::TooLarge)));
    }
}
