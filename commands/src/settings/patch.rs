//! Editing settings text in place: only the members and elements that change are rewritten, so
//! a hand-formatted file keeps its layout everywhere else.

use ctxhooks_shared::json_scan::skip_blank;
use serde_json::Value;

use super::locate::{Node, parse_node};
use super::style::TextStyle;

/// The text of `old_text` (whose JSON value is `old`) changed to hold `new`, touching only what
/// differs; `None` when the text cannot be patched, or the patched text would not parse back to
/// exactly `new` (the caller then rewrites the whole file).
pub fn patch_text(old_text: &str, old: &Value, new: &Value, style: &TextStyle) -> Option<String> {
    let root = parse_node(old_text, skip_blank(old_text.as_bytes(), 0))?;
    let patcher = Patcher {
        text: old_text,
        style,
        // A file on one line stays on one line (unless it is an empty `{}`).
        multiline: old_text.trim_end().contains('\n') || root.children.is_empty(),
        newline: if style.crlf { "\r\n" } else { "\n" },
    };
    let mut text = old_text[..root.start].to_owned();
    patcher.write(&mut text, &root, old, new)?;
    text.push_str(&old_text[root.end..]);
    let reparsed: Value = serde_json::from_str(&text).ok()?;
    (reparsed == *new).then_some(text)
}

/// A child kept from the old text: its index, its old value and its new one.
type Kept<'value> = (usize, &'value Value, &'value Value);

struct Patcher<'text> {
    text: &'text str,
    style: &'text TextStyle,
    multiline: bool,
    newline: &'static str,
}

impl Patcher<'_> {
    /// Writes `new` in place of `node` (which holds `old`): its old text where they are equal,
    /// an object or array patched where its old children can stay, else `new` rendered whole.
    fn write(&self, out: &mut String, node: &Node, old: &Value, new: &Value) -> Option<()> {
        if old == new {
            out.push_str(&self.text[node.start..node.end]);
            return Some(());
        }
        match (old, new) {
            (Value::Object(old), Value::Object(members)) if node.children.len() == old.len() => {
                let kept: Vec<Kept<'_>> = old
                    .iter()
                    .enumerate()
                    .filter_map(|(index, (key, old))| Some((index, old, members.get(key)?)))
                    .collect();
                let added = members.iter().filter(|(key, _)| !old.contains_key(*key));
                // Patching keeps the old order and appends: the new order must be exactly that.
                let expected = old.keys().filter(|key| members.contains_key(*key));
                if expected
                    .chain(added.clone().map(|(key, _)| key))
                    .eq(members.keys())
                {
                    let added = added.map(|(key, value)| (Some(key), value)).collect();
                    return self.write_children(out, node, new, &kept, added);
                }
            }
            (Value::Array(old), Value::Array(elements)) if node.children.len() == old.len() => {
                let kept: Vec<Kept<'_>> = if old.len() == elements.len() {
                    let pairs = old.iter().zip(elements).enumerate();
                    pairs.map(|(index, (old, new))| (index, old, new)).collect()
                } else {
                    // Old elements kept in order (by equality), then the rest of `new` appended.
                    let mut kept = Vec::new();
                    for (index, old) in old.iter().enumerate() {
                        if elements.get(kept.len()) == Some(old) {
                            kept.push((index, old, old));
                        }
                    }
                    kept
                };
                let added = elements[kept.len()..].iter().map(|value| (None, value));
                return self.write_children(out, node, new, &kept, added.collect());
            }
            _ => {}
        }
        self.replace(out, node, new)
    }

    /// Writes the object or array `node` with the `kept` children (which come in order) written
    /// in place, every other child left out with the separator before it (the first kept one
    /// takes the first child's place), and `added` appended after the last child with the first
    /// child's separator; `new`, the whole value, rendered in place when nothing is kept.
    fn write_children(
        &self,
        out: &mut String,
        node: &Node,
        new: &Value,
        kept: &[Kept<'_>],
        added: Vec<(Option<&String>, &Value)>,
    ) -> Option<()> {
        if kept.is_empty() {
            return self.replace(out, node, new);
        }
        let (first, last) = (node.children.first()?, node.children.last()?);
        out.push_str(&self.text[node.start..first.start]);
        for (position, &(index, old, new)) in kept.iter().enumerate() {
            let child = &node.children[index];
            let from = if position == 0 {
                child.start
            } else {
                node.children[index - 1].value.end
            };
            out.push_str(&self.text[from..child.value.start]);
            self.write(out, &child.value, old, new)?;
        }
        let separator = &self.text[node.start + 1..first.start];
        // The children's indentation if they sit on lines of their own.
        let indent = separator
            .rfind('\n')
            .map(|newline| &separator[newline + 1..]);
        let colon = if self.multiline { ": " } else { ":" };
        for (key, value) in added {
            out.push(',');
            out.push_str(separator);
            if let Some(key) = key {
                out.push_str(&serde_json::to_string(key).ok()?);
                out.push_str(colon);
            }
            out.push_str(&self.render_at(value, indent)?);
        }
        out.push_str(&self.text[last.value.end..node.end]);
        Some(())
    }

    /// Writes a whole value, rendered at the indentation of the line it starts on.
    fn replace(&self, out: &mut String, node: &Node, new: &Value) -> Option<()> {
        let line_start = self.text[..node.start]
            .rfind('\n')
            .map_or(0, |index| index + 1);
        let line = &self.text[line_start..node.start];
        let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
        out.push_str(&self.render_at(new, self.multiline.then_some(indent))?);
        Some(())
    }

    /// `value` rendered in the file's style with its continuation lines indented by `indent`, or
    /// on one line when `indent` is `None`.
    fn render_at(&self, value: &Value, indent: Option<&str>) -> Option<String> {
        let Some(indent) = indent else {
            return serde_json::to_string(value).ok();
        };
        let style = TextStyle {
            indent: self.style.indent.clone(),
            final_newline: false,
            crlf: false,
        };
        let rendered = style.render(value).ok()?;
        Some(rendered.replace('\n', &format!("{}{indent}", self.newline)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn patched(text: &str, new: &Value) -> String {
        let old: Value = serde_json::from_str(text).unwrap();
        patch_text(text, &old, new, &TextStyle::detect(text)).unwrap()
    }

    #[test]
    fn keeps_hand_formatting_outside_the_change() {
        let text = "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"x\"},\n  \"hooks\": {\n    \"Stop\": [ {\"hooks\": []} ]\n  }\n}\n";
        let new = json!({
            "statusLine": {"type": "command", "command": "x"},
            "hooks": {"Stop": [{"hooks": []}, {"hooks": [1]}], "PreCompact": [{"hooks": [2]}]}
        });
        assert_eq!(
            patched(text, &new),
            "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"x\"},\n  \"hooks\": {\n    \"Stop\": [ {\"hooks\": []}, {\"hooks\":[1]} ],\n    \"PreCompact\": [\n      {\n        \"hooks\": [\n          2\n        ]\n      }\n    ]\n  }\n}\n"
        );
    }

    #[test]
    fn removes_members_and_elements_with_their_separators() {
        let text = "{\r\n\t\"a\": [1, 2, 3],\r\n\t\"b\": 2,\r\n\t\"c\": 3\r\n}";
        assert_eq!(
            patched(text, &json!({"a": [2], "c": 3})),
            "{\r\n\t\"a\": [2],\r\n\t\"c\": 3\r\n}"
        );
        assert_eq!(
            patched("{\"a\":1}", &json!({"a": 1, "b": [1]})),
            "{\"a\":1,\"b\":[1]}"
        );
        assert_eq!(
            patched("{}\n", &json!({"b": {"c": 1}})),
            "{\n  \"b\": {\n    \"c\": 1\n  }\n}\n"
        );
    }
}
