//! The short summary of a tool call kept in the sidecar and reports: never the whole input.

/// The most characters a summary keeps.
pub const SUMMARY_MAX_CHARS: usize = 80;

/// Every input field a summary may name, whatever the tool: a reader that keeps only these never
/// holds a tool's whole input. Each tool's fields are a run of it ([`summary_fields`]); the last
/// four are what a tool of no run of its own is summarized by, tried in this order.
pub static SUMMARY_FIELDS: [&str; 8] = [
    "command",
    "notebook_path",
    "pattern",
    "query",
    "file_path",
    "path",
    "url",
    "description",
];

/// The input fields that name what a call of `tool_name` does, tried in order.
fn summary_fields(tool_name: &str) -> &'static [&'static str] {
    let run = match tool_name {
        "Bash" | "PowerShell" => 0..1,
        "NotebookEdit" | "NotebookRead" => 1..2,
        "Glob" | "Grep" => 2..3,
        "WebSearch" => 3..4,
        "Read" | "Write" | "Edit" | "MultiEdit" => 4..5,
        "WebFetch" => 6..7,
        "Task" | "Agent" => 7..8,
        _ => 4..8,
    };
    &SUMMARY_FIELDS[run]
}

/// At most [`SUMMARY_MAX_CHARS`] characters of the field that says what the call does (a Bash
/// command's start, a file path), on one line; `None` when there is no such string field.
/// `encoded` gives the input field of that name as its JSON text (`"cargo test\n"`, or `5` for
/// a number). Only the first [`SUMMARY_MAX_CHARS`] characters of the one field the summary
/// takes are decoded, so a field of megabytes costs no copy.
pub fn summarize_encoded_fields<'input>(
    tool_name: &str,
    encoded: impl Fn(&str) -> Option<&'input str>,
) -> Option<String> {
    let text = summary_fields(tool_name)
        .iter()
        .find_map(|name| leading_characters(encoded(name)?))?;
    Some(one_line(&text))
}

/// The first [`SUMMARY_MAX_CHARS`] characters of `text`, control characters (newlines, tabs)
/// made spaces.
fn one_line(text: &str) -> String {
    let visible = |character: char| {
        if character.is_control() {
            ' '
        } else {
            character
        }
    };
    text.chars().take(SUMMARY_MAX_CHARS).map(visible).collect()
}

/// The first [`SUMMARY_MAX_CHARS`] characters of a JSON string written as JSON (its quotes and
/// escapes as they came), decoded; `None` when `encoded` is not a string. Only those
/// characters are looked at: each is at most 12 bytes (`\ud83d\ude00`), whatever the length of
/// the whole string.
fn leading_characters(encoded: &str) -> Option<String> {
    let body = encoded.strip_prefix('"')?;
    let bytes = body.as_bytes();
    let mut end = 0;
    for _ in 0..SUMMARY_MAX_CHARS {
        match bytes.get(end)? {
            b'"' => break,
            b'\\' => end += escape_length(&bytes[end..]),
            _ => end += body.get(end..)?.chars().next()?.len_utf8(),
        }
    }
    serde_json::from_str(&format!("\"{}\"", body.get(..end)?)).ok()
}

/// The length of the escape `bytes` starts with: 2 (`\n`), 6 (`\u00e9`), or 12 for a surrogate
/// pair (`\ud83d\ude00`, one character).
fn escape_length(bytes: &[u8]) -> usize {
    if bytes.get(1) != Some(&b'u') {
        return 2;
    }
    let unit = bytes
        .get(2..6)
        .and_then(|hex| std::str::from_utf8(hex).ok())
        .and_then(|hex| u16::from_str_radix(hex, 16).ok());
    if unit.is_some_and(|unit| (0xD800..0xDC00).contains(&unit))
        && bytes.get(6..8) == Some(b"\\u".as_slice())
    {
        12
    } else {
        6
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// The summary of `input`, each field given to the reader as the JSON text it was written as.
    fn summarize_encoded(tool_name: &str, input: &Value) -> Option<String> {
        let encoded: Vec<(String, String)> = input
            .as_object()
            .unwrap()
            .iter()
            .map(|(name, value)| (name.clone(), value.to_string()))
            .collect();
        summarize_encoded_fields(tool_name, |field| {
            encoded
                .iter()
                .find(|(name, _)| name == field)
                .map(|(_, text)| text.as_str())
        })
    }

    /// The summary of `input` from its fields decoded: the first string field the tool may
    /// name, on one line (what the encoded reader must give).
    fn summarize_decoded(tool_name: &str, input: &Value) -> Option<String> {
        let text = summary_fields(tool_name)
            .iter()
            .find_map(|name| input.get(*name).and_then(Value::as_str))?;
        Some(one_line(text))
    }

    #[test]
    fn keeps_eighty_characters_on_one_line() {
        let long = format!("echo 'a\nb' {}", "x".repeat(200));
        for summarize in [summarize_encoded, summarize_decoded] {
            let summary = summarize("Bash", &json!({"command": long})).unwrap();
            assert_eq!(summary.chars().count(), 80);
            assert!(summary.starts_with("echo 'a b' xx"));
            assert_eq!(
                summarize(
                    "Edit",
                    &json!({"file_path": "/a/b.rs", "old_string": "secret"})
                ),
                Some("/a/b.rs".into())
            );
            assert_eq!(summarize("Mystery", &json!({"token": "secret"})), None);
            // A field of another type is passed over for the next one the tool may name.
            assert_eq!(
                summarize("Mystery", &json!({"file_path": 5, "path": "/p"})),
                Some("/p".into())
            );
        }
    }

    #[test]
    fn each_tool_is_summarized_by_the_field_claude_code_names_it_by() {
        // Every field, its value its name: the summary says which one a tool is summarized by.
        let mut input = json!({
            "command": "command", "notebook_path": "notebook_path", "pattern": "pattern",
            "query": "query", "file_path": "file_path", "path": "path", "url": "url",
            "description": "description", "content": "content"
        });
        for (tool, field) in [
            ("Bash", "command"),
            ("PowerShell", "command"),
            ("Read", "file_path"),
            ("Write", "file_path"),
            ("Edit", "file_path"),
            ("MultiEdit", "file_path"),
            ("NotebookEdit", "notebook_path"),
            ("NotebookRead", "notebook_path"),
            ("Glob", "pattern"),
            ("Grep", "pattern"),
            ("WebFetch", "url"),
            ("WebSearch", "query"),
            ("Task", "description"),
            ("Agent", "description"),
        ] {
            assert_eq!(summarize_encoded(tool, &input).as_deref(), Some(field));
        }
        // Any other tool: the first of these it has.
        for field in ["file_path", "path", "url", "description"] {
            assert_eq!(summarize_encoded("Mystery", &input).as_deref(), Some(field));
            input.as_object_mut().unwrap().remove(field);
        }
        assert_eq!(summarize_encoded("Mystery", &input), None);
    }

    #[test]
    fn the_encoded_reader_decodes_every_escape_as_the_decoded_one_does() {
        let texts = [
            String::new(),
            "short".into(),
            "tab\there \"quoted\" back\\slash / é ü 😀 \u{1}".into(),
            "😀".repeat(100),
            "\n".repeat(100),
            format!("{}é", "x".repeat(79)),
            format!("{}😀 and more", "x".repeat(79)),
            format!("{}\"", "x".repeat(79)),
        ];
        for text in &texts {
            let input = json!({"command": text});
            assert_eq!(
                summarize_encoded("Bash", &input),
                summarize_decoded("Bash", &input),
                "{text:?}"
            );
        }
        // Escapes as other writers spell them: `\/`, `\u00e9`, a surrogate pair in hex, across
        // the 80th character.
        let written = format!(r#""{}\/\u00e9\ud83d\ude00\b\f\r""#, "x".repeat(77));
        let decoded: String = serde_json::from_str(&written).unwrap();
        assert_eq!(
            leading_characters(&written),
            Some(decoded.chars().take(80).collect())
        );
        assert_eq!(
            leading_characters(&format!(r#""{}\ud83d\ude00""#, "x".repeat(79))),
            Some(format!("{}😀", "x".repeat(79)))
        );
        assert_eq!(leading_characters("5"), None);
        assert_eq!(leading_characters("{\"a\": 1}"), None);
        assert_eq!(leading_characters(r#""unterminated"#), None);
    }
}
