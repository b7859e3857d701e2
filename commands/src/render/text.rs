//! Text someone else wrote, made safe to print on a terminal, and paths named for people.
//!
//! Two ways to make a text safe, by what the reader needs: [`controls_as_spaces`] where the text
//! stands on a line of its own or in a table (a title, a query), [`controls_escaped`] where the
//! reader must see exactly what was written (a snapshot's custom instructions).

use std::path::Path;

/// Paths for people: each between backquotes, separated by commas.
pub fn quoted_paths<'a>(paths: impl IntoIterator<Item = &'a Path>) -> String {
    let quoted: Vec<String> = paths
        .into_iter()
        .map(|path| format!("`{}`", path.display()))
        .collect();
    quoted.join(", ")
}

/// The last component of `path`, for people (empty when there is none).
pub fn name_of(path: Option<&Path>) -> String {
    path.and_then(Path::file_name)
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A text someone else wrote (a session's title) on one line: its control characters (a
/// newline, an escape sequence) become spaces, so that it can break no table and no terminal.
pub fn controls_as_spaces(text: &str) -> String {
    text.replace(char::is_control, " ")
}

/// `text` with its control characters escaped as Rust writes them (`\n`, `\u{1b}`), every
/// other character as it is: safe to print on a terminal, and nothing hidden.
pub fn controls_escaped(text: &str) -> String {
    text.chars()
        .map(|character| {
            if character.is_control() {
                character.escape_default().to_string()
            } else {
                character.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_control_character_becomes_a_space_or_its_escape() {
        let written = "a\nb\u{1b}[31m\tc é";
        assert_eq!(controls_as_spaces(written), "a b [31m c é");
        assert_eq!(controls_escaped(written), "a\\nb\\u{1b}[31m\\tc é");
    }
}
