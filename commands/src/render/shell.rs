//! Text as one word of a POSIX shell command line, for the commands ctxhooks prints or
//! registers for a person, the model or Claude Code to run: as it is when no character needs
//! quoting, else in single quotes (a `'` inside written `'\''`).
//!
//! Two quoters, which differ in one character, `=`:
//! - [`shell_word`], the hooks' (`ctxhooks-shared`), quotes it, so that a word can stand
//!   anywhere, even first, where `NAME=value` would be an assignment; `report` uses it too.
//! - [`shell_word_bare_equals`] leaves it bare. It writes the `statusLine` command `install`
//!   sets, which a later `install` compares with the settings file's by its exact text (quoting
//!   `=` now would rewrite, or leave alone as another's, the status line an earlier install set
//!   on a path holding one), and the next commands `search` suggests. Each word it writes is an
//!   absolute path or an argument, never an assignment.

pub use ctxhooks_shared::shell_word::shell_word;

/// `text` as one shell word: as it is when it holds only letters, digits and `/._-+@%:,=`, else
/// in single quotes.
pub fn shell_word_bare_equals(text: &str) -> String {
    ctxhooks_shared::shell_word::word_bare_with(text, "/._-+@%:,=")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_quoters_differ_in_equals_alone() {
        for text in [
            "/home/me/.local/bin/ctxhooks",
            "a,b:c@d%e+f",
            "it's",
            "",
            "$HOME",
            "a b",
        ] {
            assert_eq!(shell_word_bare_equals(text), shell_word(text), "{text}");
        }
        assert_eq!(shell_word_bare_equals("it's"), r"'it'\''s'");
        assert_eq!(shell_word_bare_equals("key=value"), "key=value");
        assert_eq!(shell_word("key=value"), "'key=value'");
    }
}
