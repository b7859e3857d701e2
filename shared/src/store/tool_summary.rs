//! The short summary of a tool call kept in the sidecar and reports: never the whole input.

use serde_json::Value;

/// The most characters a summary keeps.
pub const SUMMARY_MAX_CHARS: usize = 80;

/// The input field that names what a tool call does, by tool.
fn summary_field(tool_name: &str) -> &'static [&'static str] {
    match tool_name {
        "Bash" | "PowerShell" => &["command"],
        "Read" | "Write" | "Edit" | "MultiEdit" => &["file_path"],
        "NotebookEdit" | "NotebookRead" => &["notebook_path"],
        "Glob" | "Grep" => &["pattern"],
        "WebFetch" => &["url"],
        "WebSearch" => &["query"],
        "Task" | "Agent" => &["description"],
        _ => &["file_path", "path", "url", "description"],
    }
}

/// At most [`SUMMARY_MAX_CHARS`] characters of the field that says what the call does (a Bash
/// command's start, a file path), on one line; `None` when there is no such field.
pub fn summarize_tool_input(tool_name: &str, input: &Value) -> Option<String> {
    summarize_input_fields(tool_name, |field| input.get(field).and_then(Value::as_str))
}

/// [`summarize_tool_input`] over an input read some other way: `field` gives the input field of
/// that name when it is a string.
pub fn summarize_input_fields<'input>(
    tool_name: &str,
    field: impl Fn(&str) -> Option<&'input str>,
) -> Option<String> {
    let text = summary_field(tool_name)
        .iter()
        .find_map(|name| field(name))?;
    let mut summary = String::with_capacity(text.len().min(SUMMARY_MAX_CHARS * 4));
    for character in text.chars().take(SUMMARY_MAX_CHARS) {
        summary.push(if character.is_control() {
            ' '
        } else {
            character
        });
    }
    Some(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_eighty_characters_on_one_line() {
        let long = format!("echo 'a\nb' {}", "x".repeat(200));
        let summary = summarize_tool_input("Bash", &json!({"command": long})).unwrap();
        assert_eq!(summary.chars().count(), 80);
        assert!(summary.starts_with("echo 'a b' xx"));
        assert_eq!(
            summarize_tool_input(
                "Edit",
                &json!({"file_path": "/a/b.rs", "old_string": "secret"})
            ),
            Some("/a/b.rs".into())
        );
        assert_eq!(
            summarize_tool_input("Mystery", &json!({"token": "secret"})),
            None
        );
    }
}
