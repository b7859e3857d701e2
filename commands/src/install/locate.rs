//! Finding where a value sits in JSON text (line and column), to name it in error messages.

use std::fmt;

use ctxhooks_shared::json_scan::{skip_blank, string_end, value_end};

/// A 1-based line and column (columns count characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// Line number, from 1.
    pub line: usize,
    /// Column number, from 1.
    pub column: usize,
}

impl fmt::Display for Position {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}:{}", self.line, self.column)
    }
}

/// The position of the value reached from the top of `text` (valid JSON) through the object keys
/// in `path`, or `None` when a key is missing. With duplicate keys the last one wins, as in
/// `serde_json`.
pub fn locate(text: &str, path: &[&str]) -> Option<Position> {
    let bytes = text.as_bytes();
    let mut start = skip_blank(bytes, 0);
    for key in path {
        start = member_value(text, start, key)?;
    }
    Some(position_of(text, start))
}

/// The line and column of byte offset `offset`.
pub fn position_of(text: &str, offset: usize) -> Position {
    let before = &text[..offset.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |index| index + 1);
    Position {
        line: before.matches('\n').count() + 1,
        column: before[line_start..].chars().count() + 1,
    }
}

/// The offset of the value of member `key` of the object starting at `start`.
fn member_value(text: &str, start: usize, key: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(start) != Some(&b'{') {
        return None;
    }
    let mut index = skip_blank(bytes, start + 1);
    let mut found = None;
    while bytes.get(index) == Some(&b'"') {
        let key_end = string_end(bytes, index + 1)? + 1;
        let name: String = serde_json::from_str(&text[index..key_end]).ok()?;
        index = skip_blank(bytes, key_end);
        if bytes.get(index) != Some(&b':') {
            return None;
        }
        let value_start = skip_blank(bytes, index + 1);
        if name == key {
            found = Some(value_start);
        }
        index = skip_blank(bytes, value_end(bytes, value_start)?);
        if bytes.get(index) == Some(&b',') {
            index = skip_blank(bytes, index + 1);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_values_past_tricky_strings() {
        let text = "{\n  \"a\": \"}\\\"{\",\n  \"hooks\": {\n    \"Stop\": 3\n  }\n}";
        assert_eq!(
            locate(text, &["hooks", "Stop"]),
            Some(Position {
                line: 4,
                column: 13
            })
        );
        assert_eq!(
            locate(text, &["hooks"]),
            Some(Position {
                line: 3,
                column: 12
            })
        );
        assert_eq!(locate(text, &["missing"]), None);
        assert_eq!(locate("  [1]", &[]), Some(Position { line: 1, column: 3 }));
    }
}
