//! A search query as a person writes it, turned into FTS5's syntax: each word is looked up as it
//! is tokenized (so `foo-bar`, `C++` or `src/main.rs` need no quoting), `"…"` is a phrase,
//! a trailing `*` a prefix, and `OR`, `AND`, `NOT` (in capitals) and parentheses keep their
//! meaning. What FTS5 still refuses is said as an error, never a crash.

use anyhow::{Result, bail};

/// A query ready for `MATCH`, with what a person meant by it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// The FTS5 expression.
    pub expression: String,
    /// The words and phrases to look for (for `recall`'s pattern: the first of them).
    pub terms: Vec<String>,
}

/// Turns `text` into a query.
pub fn parse(text: &str) -> Result<Query> {
    let mut expression = String::new();
    let mut terms = Vec::new();
    let mut rest = text.trim();
    let mut depth = 0usize;
    while let Some(start) = rest.chars().next() {
        if start.is_whitespace() {
            rest = rest.trim_start();
            continue;
        }
        if !expression.is_empty() && !expression.ends_with('(') {
            expression.push(' ');
        }
        match start {
            '"' => {
                let Some(end) = rest[1..].find('"') else {
                    bail!("the query `{text}` opens a phrase with `\"` and does not close it");
                };
                let phrase = &rest[1..=end];
                rest = &rest[end + 2..];
                let prefix = rest.starts_with('*');
                if prefix {
                    rest = &rest[1..];
                }
                push_phrase(&mut expression, &mut terms, phrase, prefix, text)?;
            }
            '(' => {
                depth += 1;
                expression.push('(');
                rest = &rest[1..];
            }
            ')' => {
                if depth == 0 {
                    bail!("the query `{text}` closes a parenthesis it did not open");
                }
                depth -= 1;
                if expression.ends_with(' ') {
                    expression.pop();
                }
                expression.push(')');
                rest = &rest[1..];
            }
            _ => {
                let end = rest
                    .find(|character: char| {
                        character.is_whitespace() || matches!(character, '"' | '(' | ')')
                    })
                    .unwrap_or(rest.len());
                let word = &rest[..end];
                rest = &rest[end..];
                if matches!(word, "OR" | "AND" | "NOT") {
                    expression.push_str(word);
                    continue;
                }
                let (word, prefix) = match word.strip_suffix('*') {
                    Some(stem) => (stem.trim_end_matches('*'), true),
                    None => (word, false),
                };
                push_phrase(&mut expression, &mut terms, word, prefix, text)?;
            }
        }
    }
    if depth > 0 {
        bail!("the query `{text}` opens a parenthesis and does not close it");
    }
    if terms.is_empty() {
        bail!("the query `{text}` has no word to search for (letters or digits)");
    }
    Ok(Query { expression, terms })
}

/// Adds `phrase` as an FTS5 string (its `"` doubled), a prefix when `prefix`.
fn push_phrase(
    expression: &mut String,
    terms: &mut Vec<String>,
    phrase: &str,
    prefix: bool,
    text: &str,
) -> Result<()> {
    if !phrase.chars().any(char::is_alphanumeric) {
        bail!(
            "the query `{text}` holds `{phrase}`, which has no word to search for (letters or \
             digits)"
        );
    }
    expression.push('"');
    expression.push_str(&phrase.replace('"', "\"\""));
    expression.push('"');
    if prefix {
        expression.push('*');
    }
    terms.push(phrase.to_owned());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_phrases_prefixes_and_operators() {
        let query = parse(r#"compaction "transcript renderer" spot* OR C++ src/main.rs"#).unwrap();
        assert_eq!(
            query.expression,
            r#""compaction" "transcript renderer" "spot"* OR "C++" "src/main.rs""#
        );
        assert_eq!(query.terms[1], "transcript renderer");
        let grouped = parse("(alpha OR beta) NOT gamma").unwrap();
        assert_eq!(grouped.expression, r#"("alpha" OR "beta") NOT "gamma""#);
    }

    #[test]
    fn refuses_what_has_no_words_or_is_left_open() {
        for bad in ["", "   ", "***", "\"unclosed", "(alpha", "alpha)", "--"] {
            let error = parse(bad).unwrap_err().to_string();
            assert!(error.contains("the query"), "{bad}: {error}");
        }
    }
}
