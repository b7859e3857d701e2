//! A Claude Code version, read one way wherever one is written: `claude --version`'s output, a
//! transcript line's `version`, the status line's input.

use std::fmt;

use serde::{Serialize, Serializer};

/// A Claude Code version `major.minor.patch`, ordered by number (`2.1.42` < `2.1.332`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClaudeVersion(pub u32, pub u32, pub u32);

impl ClaudeVersion {
    /// The first `N.N.N` in `text`: `2.1.332` in `2.1.332`, in `2.1.332 (Claude Code)` (as
    /// `claude --version` prints it), in `2.1.332-beta` and in `claude v2.1.332`; a fourth number
    /// is ignored. A text with no three numbers in a row (`2.1`, `2.1.x`) holds none: guessing a
    /// missing patch as 0 could put a version on the wrong side of a rule's first version.
    pub fn find_in(text: &str) -> Option<Self> {
        text.split(|character: char| !(character.is_ascii_digit() || character == '.'))
            .find_map(|word| {
                let mut parts = word.split('.');
                let mut number = || parts.next()?.parse().ok();
                Some(Self(number()?, number()?, number()?))
            })
    }
}

impl fmt::Display for ClaudeVersion {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}.{}.{}", self.0, self.1, self.2)
    }
}

impl Serialize for ClaudeVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_is_read_wherever_claude_code_writes_one() {
        for text in [
            "2.1.332",
            " 2.1.332\n",
            "2.1.332 (Claude Code)\n",
            "2.1.332-beta",
            "2.1.332.7",
            "claude v2.1.332",
        ] {
            assert_eq!(
                ClaudeVersion::find_in(text),
                Some(ClaudeVersion(2, 1, 332)),
                "{text}"
            );
        }
        for text in ["2.1", "2.1.x", "2..1.3", "x", ""] {
            assert_eq!(ClaudeVersion::find_in(text), None, "{text}");
        }
        assert!(ClaudeVersion::find_in("2.1.42") < ClaudeVersion::find_in("2.1.332"));
        assert!(ClaudeVersion::find_in("2.0.76") < ClaudeVersion::find_in("2.1.12"));
        assert_eq!(
            ClaudeVersion::find_in("1.0.108-beta"),
            Some(ClaudeVersion(1, 0, 108))
        );
        assert_eq!(
            ClaudeVersion::find_in("claude v1.0.9"),
            Some(ClaudeVersion(1, 0, 9))
        );
        assert_eq!(ClaudeVersion(2, 1, 332).to_string(), "2.1.332");
    }
}
