//! A search query as a person writes it, turned into FTS5's syntax: each word is looked up as it
//! is tokenized (so `foo-bar`, `C++` or `src/main.rs` need no quoting), `"…"` is a phrase,
//! a trailing `*` a prefix, and `OR`, `AND`, `NOT` (in capitals) and parentheses keep their
//! meaning. What FTS5 still refuses is said as an error, never a crash, before the index is
//! opened.

use anyhow::{Context as _, Result, bail};
use rusqlite::Connection;

use super::database::BODY_TABLE;

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
    check_with_fts5(&expression)?;
    Ok(Query { expression, terms })
}

/// Refuses what FTS5 refuses (`NOT` with nothing before it, an operator with nothing after it,
/// `()`), before anything is read or written: the expression is run against an empty table of
/// the index's kind in memory, where `SQLITE_ERROR` can only be the expression's fault (that
/// table holds nothing to be damaged or locked), told apart by its code, never its words.
fn check_with_fts5(expression: &str) -> Result<()> {
    let connection = Connection::open_in_memory().context("failed to check the query")?;
    connection
        .execute_batch(&format!("CREATE VIRTUAL TABLE checked USING {BODY_TABLE}"))
        .context("failed to check the query")?;
    let evaluated = connection.query_row(
        "SELECT count(*) FROM checked WHERE checked MATCH ?1",
        [expression],
        |row| row.get::<_, i64>(0),
    );
    match evaluated {
        Ok(_) => Ok(()),
        Err(rusqlite::Error::SqliteFailure(error, reason))
            if error.extended_code == rusqlite::ffi::SQLITE_ERROR =>
        {
            bail!(
                "the query is not valid ({}); searched as `{expression}` (words, \"a phrase\", a \
                 prefix*, OR, AND, NOT and parentheses)",
                reason.as_deref().unwrap_or("FTS5 refuses it")
            )
        }
        Err(error) => Err(error).context("failed to check the query"),
    }
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
    fn what_fts5_refuses_is_refused_with_its_reason() {
        for bad in [
            "NOT alpha",
            "alpha OR",
            "alpha AND",
            "() alpha",
            "alpha NOT",
        ] {
            let error = format!("{:#}", parse(bad).unwrap_err());
            assert!(
                error.contains("the query is not valid (fts5: syntax error"),
                "{bad}: {error}"
            );
        }
        for good in [
            "alpha NOT beta",
            "(alpha OR beta) AND gamma",
            "alpha AND beta*",
        ] {
            parse(good).unwrap();
        }
    }

    #[test]
    fn refuses_what_has_no_words_or_is_left_open() {
        for bad in ["", "   ", "***", "\"unclosed", "(alpha", "alpha)", "--"] {
            let error = parse(bad).unwrap_err().to_string();
            assert!(error.contains("the query"), "{bad}: {error}");
        }
    }
}
