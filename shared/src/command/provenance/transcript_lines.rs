//! A transcript read as its exact lines: the original bytes of each line (so that a relabelled
//! copy keeps every other line byte-identical) and, where it parses, its JSON value.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// One line of a transcript.
#[derive(Debug, Clone)]
pub struct TranscriptLine {
    /// The line's bytes, with its newline when it had one (the last line may have none).
    pub raw: Vec<u8>,
    /// The parsed record, or `None` for a line that is not JSON (such as a truncated last line).
    pub record: Option<Value>,
}

impl TranscriptLine {
    /// The record's `timestamp` in milliseconds, when it has one.
    pub fn time_ms(&self) -> Option<u64> {
        self.record
            .as_ref()
            .and_then(|record| record.get("timestamp"))
            .and_then(Value::as_str)
            .and_then(crate::store::clock::parse_timestamp_ms)
    }
}

/// Splits transcript bytes into lines, keeping each line's bytes exactly.
pub fn split_transcript(bytes: &[u8]) -> Vec<TranscriptLine> {
    let mut lines = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let end = bytes[start..]
            .iter()
            .position(|byte| *byte == b'\n')
            .map_or(bytes.len(), |offset| start + offset + 1);
        let raw = bytes[start..end].to_vec();
        let body = raw.strip_suffix(b"\n").unwrap_or(&raw);
        let record = if body.iter().all(u8::is_ascii_whitespace) {
            None
        } else {
            serde_json::from_slice::<Value>(body)
                .ok()
                .filter(Value::is_object)
        };
        lines.push(TranscriptLine { raw, record });
        start = end;
    }
    lines
}

/// Reads a transcript file. A missing or empty file is an error; a line that does not parse is
/// kept as it is (its `record` is `None`).
pub fn read_transcript(path: &Path) -> Result<Vec<TranscriptLine>> {
    let bytes = fs_err::read(path).context("failed to read the transcript")?;
    if bytes.is_empty() {
        bail!("the transcript `{}` is empty", path.display());
    }
    let lines = split_transcript(&bytes);
    if lines.iter().all(|line| line.record.is_none()) {
        bail!(
            "the transcript `{}` holds no JSON records; is it a transcript?",
            path.display()
        );
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_bytes_and_a_missing_final_newline() {
        let text = b"{\"a\":1}\n{\"b\": 2}";
        let lines = split_transcript(text);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].raw, b"{\"a\":1}\n");
        assert_eq!(lines[1].raw, b"{\"b\": 2}");
        let joined: Vec<u8> = lines.iter().flat_map(|line| line.raw.clone()).collect();
        assert_eq!(joined, text);
    }

    #[test]
    fn a_truncated_line_is_kept_unparsed() {
        let lines = split_transcript(b"{\"a\":1}\n{\"b\": ");
        assert!(lines[0].record.is_some());
        assert!(lines[1].record.is_none());
    }
}
