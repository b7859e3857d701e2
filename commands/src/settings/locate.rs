//! Finding where a value sits in JSON text (line and column), to name it in error messages.

use ctxhooks_shared::json_scan::{skip_blank, string_end, value_end};

/// Where the value reached from the top of `text` (valid JSON) through the object keys in `path`
/// starts (a byte offset), or `None` when a key is missing. With duplicate keys the last one
/// wins, as in `serde_json`.
pub fn locate(text: &str, path: &[&str]) -> Option<usize> {
    let mut node = parse_node(text, skip_blank(text.as_bytes(), 0))?;
    for key in path {
        let mut children = node.children.into_iter().rev();
        node = children
            .find(|child| child.key.as_deref() == Some(*key))?
            .value;
    }
    Some(node.start)
}

/// The line and column, both from 1 (columns count characters), of byte offset `offset`.
pub fn position_of(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |index| index + 1);
    let line = before.matches('\n').count() + 1;
    (line, before[line_start..].chars().count() + 1)
}

/// Where a JSON value sits in the text (byte offsets), and where its members or elements sit.
pub struct Node {
    pub start: usize,
    pub end: usize,
    pub children: Vec<Child>,
}

/// A member (from its key, with the key's text) or an element of an object or array.
pub struct Child {
    pub start: usize,
    pub key: Option<String>,
    pub value: Node,
}

/// The value of valid JSON `text` that starts at byte `start`, with every value inside it.
pub fn parse_node(text: &str, start: usize) -> Option<Node> {
    let bytes = text.as_bytes();
    let (open, close) = match bytes.get(start)? {
        b'{' => (b'{', b'}'),
        b'[' => (b'[', b']'),
        _ => {
            return Some(Node {
                start,
                end: value_end(bytes, start)?,
                children: Vec::new(),
            });
        }
    };
    let mut children = Vec::new();
    let mut index = skip_blank(bytes, start + 1);
    loop {
        if *bytes.get(index)? == close {
            return Some(Node {
                start,
                end: index + 1,
                children,
            });
        }
        let child_start = index;
        let mut key = None;
        if open == b'{' {
            let key_end = string_end(bytes, index + 1)? + 1;
            key = Some(serde_json::from_str(&text[index..key_end]).ok()?);
            index = skip_blank(bytes, key_end);
            if *bytes.get(index)? != b':' {
                return None;
            }
            index = skip_blank(bytes, index + 1);
        }
        let value = parse_node(text, index)?;
        index = skip_blank(bytes, value.end);
        children.push(Child {
            start: child_start,
            key,
            value,
        });
        if *bytes.get(index)? == b',' {
            index = skip_blank(bytes, index + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_values_past_tricky_strings() {
        let text = "{\n  \"a\": \"}\\\"{\",\n  \"hooks\": {\n    \"Stop\": 3\n  }\n}";
        let at = |path: &[&str]| locate(text, path).map(|offset| position_of(text, offset));
        assert_eq!(at(&["hooks", "Stop"]), Some((4, 13)));
        assert_eq!(at(&["hooks"]), Some((3, 12)));
        assert_eq!(at(&["missing"]), None);
        assert_eq!(position_of("  [1]", locate("  [1]", &[]).unwrap()), (1, 3));
    }
}
