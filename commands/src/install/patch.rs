//! Editing settings text in place: only the members and elements that change are rewritten, so
//! a hand-formatted file keeps its layout everywhere else.

use ctxhooks_shared::json_scan::skip_blank;
use serde_json::{Map, Value};

use super::locate::{Node, parse_node};
use super::style::TextStyle;

/// The text of `old_text` (whose JSON value is `old`) changed to hold `new`, touching only what
/// differs; `None` when the text cannot be patched, or the patched text would not parse back to
/// exactly `new` (the caller then rewrites the whole file).
pub fn patch_text(old_text: &str, old: &Value, new: &Value, style: &TextStyle) -> Option<String> {
    let root = parse_node(old_text, skip_blank(old_text.as_bytes(), 0))?;
    let mut patcher = Patcher {
        text: old_text,
        style,
        // A file on one line stays on one line (unless it is an empty `{}`).
        multiline: old_text.trim_end().contains('\n') || root.children.is_empty(),
        newline: if style.crlf { "\r\n" } else { "\n" },
        edits: Vec::new(),
    };
    patcher.patch(&root, old, new)?;
    let mut edits = patcher.edits;
    edits.sort_by(|a, b| b.start.cmp(&a.start).then(b.end.cmp(&a.end)));
    let mut text = old_text.to_owned();
    for edit in edits {
        text.replace_range(edit.start..edit.end, &edit.text);
    }
    let reparsed: Value = serde_json::from_str(&text).ok()?;
    (&reparsed == new).then_some(text)
}

/// One replacement of `start..end` by `text`.
struct Edit {
    start: usize,
    end: usize,
    text: String,
}

struct Patcher<'text> {
    text: &'text str,
    style: &'text TextStyle,
    multiline: bool,
    newline: &'static str,
    edits: Vec<Edit>,
}

impl Patcher<'_> {
    fn patch(&mut self, node: &Node, old: &Value, new: &Value) -> Option<()> {
        if old == new {
            return Some(());
        }
        match (old, new) {
            (Value::Object(old), Value::Object(new)) if node.children.len() == old.len() => {
                self.patch_object(node, old, new)
            }
            (Value::Array(old), Value::Array(new)) if node.children.len() == old.len() => {
                self.patch_array(node, old, new)
            }
            _ => self.replace(node, new),
        }
    }

    fn patch_object(
        &mut self,
        node: &Node,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
    ) -> Option<()> {
        let kept: Vec<usize> = old
            .keys()
            .enumerate()
            .filter(|(_, key)| new.contains_key(*key))
            .map(|(index, _)| index)
            .collect();
        let added: Vec<(&String, &Value)> = new
            .iter()
            .filter(|(key, _)| !old.contains_key(*key))
            .collect();
        // Patching keeps the old order and appends: the new order must be exactly that.
        let expected = old
            .keys()
            .filter(|key| new.contains_key(*key))
            .chain(added.iter().map(|(key, _)| *key));
        if kept.is_empty() || !expected.eq(new.keys()) {
            return self.replace(node, &Value::Object(new.clone()));
        }
        for (index, (key, old_value)) in old.iter().enumerate() {
            if let Some(new_value) = new.get(key) {
                self.patch(&node.children[index].value, old_value, new_value)?;
            }
        }
        self.remove_children(node, &kept);
        let indent = self.child_indent(node);
        let colon = if self.multiline { ": " } else { ":" };
        let items = added
            .iter()
            .map(|(key, value)| {
                Some(format!(
                    "{}{colon}{}",
                    serde_json::to_string(key).ok()?,
                    self.render_at(value, indent.as_deref())?
                ))
            })
            .collect::<Option<Vec<_>>>()?;
        self.append_children(node, &items);
        Some(())
    }

    fn patch_array(&mut self, node: &Node, old: &[Value], new: &[Value]) -> Option<()> {
        if old.len() == new.len() {
            for ((child, old_value), new_value) in node.children.iter().zip(old).zip(new) {
                self.patch(&child.value, old_value, new_value)?;
            }
            return Some(());
        }
        // Old elements kept in order (by equality), then the rest of `new` appended.
        let mut kept = Vec::new();
        let mut matched = 0;
        for (index, old_value) in old.iter().enumerate() {
            if new.get(matched) == Some(old_value) {
                kept.push(index);
                matched += 1;
            }
        }
        if kept.is_empty() {
            return self.replace(node, &Value::Array(new.to_vec()));
        }
        self.remove_children(node, &kept);
        let indent = self.child_indent(node);
        let items = new[matched..]
            .iter()
            .map(|value| self.render_at(value, indent.as_deref()))
            .collect::<Option<Vec<_>>>()?;
        self.append_children(node, &items);
        Some(())
    }

    /// Replaces the bytes from `start` to `end` with `text`.
    fn edit(&mut self, start: usize, end: usize, text: String) {
        self.edits.push(Edit { start, end, text });
    }

    /// Removes every child not in `kept` (which is sorted and not empty), with its separator.
    fn remove_children(&mut self, node: &Node, kept: &[usize]) {
        let first_kept = kept[0];
        if first_kept > 0 {
            let (start, end) = (node.children[0].start, node.children[first_kept].start);
            self.edit(start, end, String::new());
        }
        for index in first_kept + 1..node.children.len() {
            if !kept.contains(&index) {
                let start = node.children[index - 1].value.end;
                self.edit(start, node.children[index].value.end, String::new());
            }
        }
    }

    /// Appends already rendered children after the last one, with the first child's separator.
    fn append_children(&mut self, node: &Node, items: &[String]) {
        let (Some(first), Some(last)) = (node.children.first(), node.children.last()) else {
            return;
        };
        if items.is_empty() {
            return;
        }
        let separator = &self.text[node.start + 1..first.start];
        let mut text = String::new();
        for item in items {
            text.push(',');
            text.push_str(separator);
            text.push_str(item);
        }
        self.edit(last.value.end, last.value.end, text);
    }

    /// The indentation of `node`'s children if they sit on lines of their own, else `None`.
    fn child_indent(&self, node: &Node) -> Option<String> {
        let first = node.children.first()?;
        let separator = &self.text[node.start + 1..first.start];
        let newline = separator.rfind('\n')?;
        Some(separator[newline + 1..].to_owned())
    }

    /// Replaces a whole value, rendered at the indentation of the line it starts on.
    fn replace(&mut self, node: &Node, new: &Value) -> Option<()> {
        let line_start = self.text[..node.start]
            .rfind('\n')
            .map_or(0, |index| index + 1);
        let line = &self.text[line_start..node.start];
        let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
        let indent = self.multiline.then(|| indent.to_owned());
        let text = self.render_at(new, indent.as_deref())?;
        self.edit(node.start, node.end, text);
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
