//! Reading a settings file: its bytes, its JSON value, its text style, and the checks that
//! make us refuse to touch a file we do not understand.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value};

use super::locate::{locate, position_of};
use super::patch::patch_text;
use super::style::TextStyle;

/// A settings file as read from disk (or an empty object if it does not exist).
#[derive(Debug, Clone)]
pub struct SettingsDocument {
    pub path: PathBuf,
    /// Its bytes, or `None` if the file does not exist.
    pub original: Option<Vec<u8>>,
    /// Its parsed content (`{}` for a missing or blank file).
    pub value: Value,
    /// Its layout, to be reused when rewriting it.
    pub style: TextStyle,
}

impl SettingsDocument {
    /// Reads and checks `path`. Fails, naming the file and the line:column position, when it is
    /// not JSON or not shaped like a settings file.
    pub fn read(path: &Path) -> Result<Self> {
        let original = read_settings_bytes(path)?;
        let (value, style) = match &original {
            None => (Value::Object(Map::new()), TextStyle::default()),
            Some(bytes) => {
                let value = parse_settings(path, bytes).with_context(|| {
                    format!(
                        "refusing to edit `{}`; it was left untouched",
                        path.display()
                    )
                })?;
                let style = TextStyle::detect(&String::from_utf8_lossy(bytes));
                (value, style)
            }
        };
        Ok(Self {
            path: path.to_path_buf(),
            original,
            value,
            style,
        })
    }

    /// The text `value` would be written as: the file's own text with only the changed members
    /// and elements rewritten, or, when that is not possible, all of it in the file's style.
    pub fn render(&self, value: &Value) -> Result<String> {
        if let Some(text) = self
            .original
            .as_deref()
            .and_then(|bytes| std::str::from_utf8(bytes).ok())
            && let Some(patched) = patch_text(text, &self.value, value, &self.style)
        {
            return Ok(patched);
        }
        self.style.render(value)
    }
}

/// The settings file's bytes are read by the hook side's reader (the Stop hook reads a window
/// from them too); the installer and doctor read through it.
pub use ctxhooks_shared::settings_file::read_settings_bytes;

/// Parses and checks a settings file's bytes: valid UTF-8 JSON whose top level is an object,
/// whose `hooks` (if any) is an object whose every value is an array. A blank file counts as
/// `{}`.
pub fn parse_settings(path: &Path, bytes: &[u8]) -> Result<Value> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        bail!(
            "`{}` is not UTF-8 text; it was left untouched",
            path.display()
        );
    };
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    let value: Value = serde_json::from_str(text).map_err(|error| {
        let message = error.to_string();
        let reason = message
            .rfind(" at line ")
            .map_or(message.as_str(), |index| &message[..index]);
        let position = (error.line(), error.column().max(1));
        refusal(path, position, &format!("not valid JSON: {reason}"))
    })?;
    // Where the value at a path of keys starts, to name it (the top when it cannot be found).
    let at = |keys: &[&str]| position_of(text, locate(text, keys).unwrap_or(0));
    let Some(top) = value.as_object() else {
        return Err(refusal(path, at(&[]), "the top level is not a JSON object"));
    };
    if let Some(hooks) = top.get("hooks") {
        let Some(events) = hooks.as_object() else {
            let reason = "`hooks` is not a JSON object";
            return Err(refusal(path, at(&["hooks"]), reason));
        };
        if let Some((event, _)) = events.iter().find(|(_, groups)| !groups.is_array()) {
            let reason = format!("`hooks.{event}` is not a JSON array");
            return Err(refusal(path, at(&["hooks", event]), &reason));
        }
    }
    Ok(value)
}

/// The refusal of the file at `path` over `reason`, at a line and column.
fn refusal(path: &Path, (line, column): (usize, usize), reason: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "{}:{line}:{column} (line {line}, column {column}): {reason}",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> String {
        format!(
            "{:#}",
            parse_settings(Path::new("/x/settings.json"), text.as_bytes()).unwrap_err()
        )
    }

    #[test]
    fn refusals_name_file_and_position() {
        let message = refused("{\n  \"a\": 1,\n}\n");
        assert!(message.contains("/x/settings.json:3:1"), "{message}");
        assert!(message.contains("trailing comma"), "{message}");
        assert!(refused("\n [1]").contains("/x/settings.json:2:2"));
        let message = refused("{\"hooks\": {\"Stop\": {}}}");
        assert!(
            message.contains(":1:20") && message.contains("hooks.Stop"),
            "{message}"
        );
        assert!(refused("{\"hooks\": []}").contains(":1:11"));
    }

    #[test]
    fn blank_file_is_an_empty_object() {
        let value = parse_settings(Path::new("x"), b"  \n").unwrap();
        assert_eq!(value, Value::Object(Map::new()));
    }
}
