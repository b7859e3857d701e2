//! Text as one word of a POSIX shell command line, for the commands ctxhooks prints for a
//! person or the model to run: as it is when no character needs quoting, else in single quotes.

/// `text` as one shell word: as it is when it holds only letters, digits and `/._-+:,@%`, else
/// in single quotes (a `'` inside written `'\''`).
pub fn shell_word(text: &str) -> String {
    word_bare_with(text, "/._-+:,@%")
}

/// `text` as one shell word: as it is when it holds only letters, digits and the characters of
/// `bare`, else in single quotes (a `'` inside written `'\''`).
pub fn word_bare_with(text: &str, bare: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || bare.contains(character));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_quoted_only_when_it_must_be() {
        assert_eq!(
            shell_word("/usr/local/bin/ctxhooks"),
            "/usr/local/bin/ctxhooks"
        );
        assert_eq!(
            shell_word("/opt/bin with space/ctxhooks"),
            "'/opt/bin with space/ctxhooks'"
        );
        assert_eq!(shell_word("/a'b/ctxhooks"), "'/a'\\''b/ctxhooks'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("cargo test"), "'cargo test'");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
        assert_eq!(shell_word("a=b"), "'a=b'");
    }
}
