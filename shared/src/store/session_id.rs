//! Session ids as Claude Code gives them, checked before they become folder names.

use std::fmt;

/// The longest session id we accept.
const MAX_LENGTH: usize = 128;

/// Why a text is not a session id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SessionIdError {
    /// Nothing at all.
    #[error("session id is empty")]
    Empty,
    /// Longer than [`MAX_LENGTH`] bytes.
    #[error("session id is longer than {MAX_LENGTH} characters")]
    TooLong,
    /// A character a folder name may not safely hold (`/`, `.`, a space, a letter not ASCII).
    #[error(
        "session id `{}` contains {character:?}; only letters, digits, `-` and `_` are allowed",
        .id.escape_debug()
    )]
    Character {
        /// The text refused.
        id: String,
        /// The first character refused in it.
        character: char,
    },
}

/// A session id that is safe to use as a single path component: 1 to 128 characters of
/// `[A-Za-z0-9_-]`. Anything else (`../x`, `/`, an empty string) is refused.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(String);

impl SessionId {
    /// Checks `text` and wraps it.
    pub fn parse(text: &str) -> Result<Self, SessionIdError> {
        if text.is_empty() {
            return Err(SessionIdError::Empty);
        }
        if text.len() > MAX_LENGTH {
            return Err(SessionIdError::TooLong);
        }
        if let Some(character) = text
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
        {
            return Err(SessionIdError::Character {
                id: text.to_owned(),
                character,
            });
        }
        Ok(Self(text.to_owned()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad`, not `write_str`: a table's `{:<36}` widens the column.
        formatter.pad(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::SessionId;

    #[test]
    fn accepts_uuids_and_simple_names() {
        for good in [
            "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9",
            "a",
            "A_b-9",
            &"x".repeat(128),
        ] {
            assert_eq!(SessionId::parse(good).unwrap().as_str(), good);
        }
    }

    #[test]
    fn a_table_column_pads_a_short_id() {
        assert_eq!(format!("{:<4}|", SessionId::parse("a").unwrap()), "a   |");
    }

    #[test]
    fn refuses_traversal_separators_and_empty() {
        for bad in [
            "",
            "../x",
            "..",
            ".",
            "/",
            "a/b",
            "a\\b",
            "a b",
            "a\0b",
            "é",
            &"x".repeat(129),
        ] {
            assert!(SessionId::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }
}
