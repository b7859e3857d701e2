//! The text the index holds for a message, and the text its snippet is cut from: each part on a
//! line of its own; a tool call as its name and its input's members, `key: value`, each string
//! as it reads and not as JSON escapes it (a file the model wrote is found by a word at the start
//! of one of its lines, which `\n` would glue to an `n`).

use serde_json::Value;

use ctxhooks_shared::transcript::conversation::Part;

/// Writes the text of `parts` into `text` (cleared first).
pub fn message_text(parts: &[Part], text: &mut String) {
    text.clear();
    for part in parts {
        if !text.is_empty() {
            text.push('\n');
        }
        match part {
            Part::Text { text: said }
            | Part::Thinking { text: said }
            | Part::ToolResult { text: said, .. } => {
                text.push_str(said);
            }
            Part::ToolCall { name, input, .. } => {
                text.push_str(name);
                if let Ok(value) = serde_json::from_str::<Value>(input) {
                    push_value(text, None, &value);
                } else {
                    text.push('\n');
                    text.push_str(input);
                }
            }
        }
    }
}

/// [`message_text`] of `parts`, given them: a message of one text is that text, moved rather than
/// copied (a snippet's line can be a tool's output of megabytes).
pub fn into_message_text(mut parts: Vec<Part>) -> String {
    if let [
        Part::Text { text: said }
        | Part::Thinking { text: said }
        | Part::ToolResult { text: said, .. },
    ] = parts.as_mut_slice()
    {
        return std::mem::take(said);
    }
    let mut text = String::new();
    message_text(&parts, &mut text);
    text
}

/// Each scalar of `value` on a line of its own, after the key it is under.
fn push_value(text: &mut String, key: Option<&str>, value: &Value) {
    let mut line = |scalar: &str| {
        text.push('\n');
        if let Some(key) = key {
            text.push_str(key);
            text.push_str(": ");
        }
        text.push_str(scalar);
    };
    match value {
        Value::String(string) => line(string),
        Value::Number(number) => line(&number.to_string()),
        Value::Bool(true) => line("true"),
        Value::Bool(false) => line("false"),
        Value::Null => {}
        Value::Array(items) => {
            for item in items {
                push_value(text, key, item);
            }
        }
        Value::Object(members) => {
            for (member, item) in members {
                push_value(text, Some(member), item);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_calls_strings_read_as_written_not_as_json_escapes_them() {
        let parts = [
            Part::Text {
                text: "writing it".into(),
            },
            Part::ToolCall {
                name: "Write".into(),
                input: r#"{"file_path":"/src/main.rs","content":"use std;\nfn main() {}\n\tindented","lines":[3,{"deep":true}]}"#.into(),
                id: None,
            },
        ];
        let mut text = String::new();
        message_text(&parts, &mut text);
        assert_eq!(
            text,
            "writing it\nWrite\nfile_path: /src/main.rs\ncontent: use std;\nfn main() {}\n\tindented\nlines: 3\ndeep: true"
        );
    }

    #[test]
    fn parts_given_read_as_the_same_parts_lent() {
        let text = |text: &str| Part::Text { text: text.into() };
        let cases = [
            vec![],
            vec![text("one")],
            vec![text("")],
            vec![Part::Thinking {
                text: "thought".into(),
            }],
            vec![Part::ToolResult {
                text: "output\nlines".into(),
                is_error: true,
            }],
            vec![Part::ToolCall {
                name: "Bash".into(),
                input: r#"{"command":"ls"}"#.into(),
                id: None,
            }],
            vec![text("one"), text("two")],
        ];
        for parts in cases {
            let mut lent = String::new();
            message_text(&parts, &mut lent);
            assert_eq!(into_message_text(parts.clone()), lent, "{parts:?}");
        }
    }
}
