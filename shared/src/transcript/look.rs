//! A cheap look at one transcript line's bytes before any parse: the value of its top-level
//! `type` key, found by walking the object's structure with `memchr` over strings (strings are
//! skipped, never decoded). It decides nothing by itself: a reader that may pass a line unread
//! asks the one definition of what a line means (for the usage ingest,
//! [`crate::usage::ingest::Ingest::passes_unread`]) whether that kind can matter.

use memchr::memchr;

use crate::json_scan::{plain_string, skip_blank, string_end};

/// The value of the line's top-level `"type"` key, when the line is a JSON object whose
/// top-level `type` key is written plainly (no escape in the key or its value) before any
/// malformed part. `None` means "not known from a look": the caller parses the line.
pub fn top_level_type(line: &[u8]) -> Option<&[u8]> {
    top_level_type_before(line, None)
}

/// [`top_level_type`], but `None` as soon as the top-level key `stop` comes before `type`: a
/// reader that parses every line with a top-level `message` anyway (the conversation's records;
/// Claude Code 2.1.332 writes their `type` after the whole message) need not walk past it.
pub fn top_level_type_before<'line>(line: &'line [u8], stop: Option<&[u8]>) -> Option<&'line [u8]> {
    let mut depth: i32 = 0;
    let mut position = 0;
    while position < line.len() {
        let quote = position + memchr(b'"', &line[position..])?;
        for byte in &line[position..quote] {
            match byte {
                b'{' | b'[' => depth += 1,
                b'}' | b']' => depth -= 1,
                _ => {}
            }
        }
        let end = string_end(line, quote + 1)?;
        position = end + 1;
        if depth == 1 && stop.is_some_and(|stop| &line[quote + 1..end] == stop) {
            return None;
        }
        if depth == 1 && &line[quote + 1..end] == b"type" {
            let colon = skip_blank(line, position);
            let value = skip_blank(line, colon + 1);
            if line.get(colon) != Some(&b':') || line.get(value) != Some(&b'"') {
                return None;
            }
            return plain_string(&line[value + 1..]);
        }
    }
    None
}

/// [`top_level_type`] of a line that starts with its `type` key (`{"type":"`), as Claude Code
/// writes file-history snapshots, summaries and queue operations, read from its first bytes;
/// `None` for any other line.
pub fn leading_type(line: &[u8]) -> Option<&[u8]> {
    plain_string(line.strip_prefix(br#"{"type":""#)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_top_level_type_not_a_nested_one() {
        let look = |line: &str| top_level_type(line.as_bytes()).map(<[u8]>::to_vec);
        // An attachment holds a nested `type` before its own.
        assert_eq!(
            look(
                r#"{"attachment":{"type":"hook_success","x":["a\"type\":\"b"]},"type":"attachment"}"#
            ),
            Some(b"attachment".to_vec())
        );
        assert_eq!(
            look(r#"{"message":{"content":[{"type":"text"}]}, "type" : "user"}"#),
            Some(b"user".to_vec())
        );
        assert_eq!(
            look(r#"{"a":"\\","type":"system"}"#),
            Some(b"system".to_vec())
        );
        // Escapes in the value, no type, not an object, cut short: not known.
        assert_eq!(look(r#"{"type":"us\u0065r"}"#), None);
        assert_eq!(look(r#"{"message":{"type":"assistant"}}"#), None);
        assert_eq!(look(r#"["type","user"]"#), None);
        assert_eq!(look(r#"{"x":"unterminated"#), None);
        assert_eq!(look(r#"{"type":5}"#), None);
        // A reader that parses every line with a message stops at it.
        let line = br#"{"parentUuid":null,"message":{"type":"x"},"type":"assistant"}"#;
        assert_eq!(top_level_type_before(line, Some(b"message")), None);
        assert_eq!(top_level_type_before(line, None), Some(&b"assistant"[..]));
        let line = br#"{"type":"api-request-blob","message":{}}"#;
        assert_eq!(
            top_level_type_before(line, Some(b"message")),
            Some(&b"api-request-blob"[..])
        );
    }
}
