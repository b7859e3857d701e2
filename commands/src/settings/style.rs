//! The text style of a settings file (indentation, line endings, final newline), detected and reused.

use anyhow::Result;
use serde::Serialize;
use serde_json::Value;
use serde_json::ser::{PrettyFormatter, Serializer};

/// How a settings file's JSON is laid out, so that a rewrite looks like the original.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextStyle {
    /// One level of indentation: two spaces, four spaces, a tab, ...
    pub indent: String,
    /// Whether the file ended with a newline.
    pub final_newline: bool,
    /// Whether lines end with `\r\n` instead of `\n`.
    pub crlf: bool,
}

impl Default for TextStyle {
    /// The style Claude Code itself writes: two spaces, `\n`, a final newline.
    fn default() -> Self {
        Self {
            indent: "  ".to_owned(),
            final_newline: true,
            crlf: false,
        }
    }
}

impl TextStyle {
    /// Detects the style of `text`: the leading whitespace of the first indented line is one
    /// level (a file with no indented line gets two spaces).
    pub fn detect(text: &str) -> Self {
        let indent = text
            .lines()
            .skip(1)
            .map(|line| {
                let trimmed = line.trim_start_matches([' ', '\t']);
                &line[..line.len() - trimmed.len()]
            })
            .find(|leading| !leading.is_empty())
            // One level: a tab if the line starts with one, else its spaces.
            .map_or("  ", |leading| {
                leading.strip_prefix('\t').map_or(leading, |_| "\t")
            })
            .to_owned();
        Self {
            indent,
            final_newline: text.ends_with('\n'),
            crlf: text.contains("\r\n"),
        }
    }

    /// Writes `value` as pretty JSON in this style.
    pub fn render(&self, value: &Value) -> Result<String> {
        let mut bytes = Vec::new();
        let formatter = PrettyFormatter::with_indent(self.indent.as_bytes());
        let mut serializer = Serializer::with_formatter(&mut bytes, formatter);
        value.serialize(&mut serializer)?;
        let mut text = String::from_utf8(bytes)?;
        if self.final_newline {
            text.push('\n');
        }
        if self.crlf {
            text = text.replace('\n', "\r\n");
        }
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn detects_and_reproduces_common_styles() {
        for text in [
            "{\n  \"a\": [\n    1\n  ]\n}\n",
            "{\n    \"a\": [\n        1\n    ]\n}",
            "{\n\t\"a\": [\n\t\t1\n\t]\n}\n",
            "{\r\n  \"a\": [\r\n    1\r\n  ]\r\n}\r\n",
        ] {
            let style = TextStyle::detect(text);
            assert_eq!(style.render(&json!({"a": [1]})).unwrap(), text);
        }
    }

    #[test]
    fn a_one_line_file_gets_two_spaces() {
        let style = TextStyle::detect("{}");
        assert_eq!(style.indent, "  ");
        assert!(!style.final_newline);
    }
}
