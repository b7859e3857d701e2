//! A search query as a person writes it, turned into FTS5's syntax: each word is looked up as it
//! is tokenized (so `foo-bar`, `C++` or `src/main.rs` need no quoting), `"…"` is a phrase,
//! a trailing `*` a prefix, and `OR`, `AND`, `NOT` (in capitals) and parentheses keep their
//! meaning. What FTS5 still refuses is said as an error, never a crash, before the index is
//! opened.
//!
//! A query without operators is run in tiers ([`Tier`]): its words as one exact phrase, then all
//! of them close together, then all of them anywhere, and only when none of those matched, any of
//! them or the words they begin. A query with `OR`, `AND`, `NOT` or parentheses is run as
//! written, in one tier of its own.

use anyhow::{Context as _, Result, bail};
use rusqlite::Connection;
use serde::Serialize;

use super::database::BODY_TABLE;

/// A query ready for `MATCH`, with what a person meant by it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// The FTS5 expression, as written.
    pub expression: String,
    /// The words and phrases to look for (for `recall`'s pattern: the first of them).
    pub terms: Vec<String>,
    /// Each word or phrase as an FTS5 phrase, in order; empty when the query has operators (it
    /// is run as written).
    pub phrases: Vec<Phrase>,
    /// The words that are not after a `NOT`, for the query offered when one with operators finds
    /// nothing.
    pub wanted: Vec<String>,
}

/// A word or a quoted phrase of a query, as FTS5 takes it (`"word"`, `"a phrase"`, `"prefix"*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phrase {
    /// The FTS5 string, quoted, with its `*` when it is a prefix.
    pub fts: String,
    /// Whether the person quoted it: a quoted phrase is never widened to the words it begins.
    pub quoted: bool,
}

/// How a message matched, best first: the order of the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// The query's words as one phrase, in order (a query of one word: that word).
    Exact,
    /// All the words within [`NEAR_DISTANCE`] words of each other, not as the phrase.
    Near,
    /// All the words, farther apart.
    All,
    /// Some of the words, or words they begin: run only when no message within the filters held
    /// all of them.
    Any,
    /// A query with `OR`, `AND`, `NOT` or parentheses, run as written.
    AsWritten,
}

impl Tier {
    /// Its name, as the JSON spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::Near => "near",
            Self::All => "all",
            Self::Any => "any",
            Self::AsWritten => "as_written",
        }
    }
}

/// How many words may stand between the first and the last of the query's words for the
/// [`Tier::Near`] tier (FTS5's `NEAR` default).
pub const NEAR_DISTANCE: usize = 10;

/// A word shorter than this many characters is not widened to the words it begins in the
/// [`Tier::Any`] tier (`a*` is half the language).
const SHORTEST_PREFIX: usize = 3;

/// One query of a tier, ready for `MATCH`. A tier's expression also matches what the tiers
/// before it matched (`near` holds `exact`): the search passes over what it found already, which
/// costs less than FTS5 evaluating the earlier tiers again inside a `NOT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TierQuery {
    /// The tier its matches are in.
    pub tier: Tier,
    /// The FTS5 expression.
    pub expression: String,
    /// Why its matches are there, in words.
    pub why: String,
}

impl Query {
    /// The tiers to run, in order: `[AsWritten]` for a query with operators; otherwise exact,
    /// near and all (the last two only for two words or more), then any (run only when the others
    /// found nothing; absent when it would be the exact tier again), in two steps for three words
    /// or more: all the words but one first, then the rest.
    pub fn tiers(&self) -> Vec<TierQuery> {
        if self.phrases.is_empty() {
            return vec![TierQuery {
                tier: Tier::AsWritten,
                expression: self.expression.clone(),
                why: "matches the query as written (OR, AND, NOT, parentheses)".to_owned(),
            }];
        }
        let fts: Vec<&str> = self
            .phrases
            .iter()
            .map(|phrase| phrase.fts.as_str())
            .collect();
        let exact = fts.join(" + ");
        let mut tiers = vec![TierQuery {
            tier: Tier::Exact,
            expression: exact.clone(),
            why: if self.terms.len() == 1 {
                format!("holds \"{}\"", self.terms[0])
            } else {
                format!("holds the phrase \"{}\"", self.terms.join(" "))
            },
        }];
        if fts.len() > 1 {
            let near = format!("NEAR({}, {NEAR_DISTANCE})", fts.join(" "));
            tiers.push(TierQuery {
                tier: Tier::Near,
                expression: near.clone(),
                why: format!("holds all the words within {NEAR_DISTANCE} words of each other"),
            });
            tiers.push(TierQuery {
                tier: Tier::All,
                expression: fts.join(" "),
                why: "holds all the words, farther apart".to_owned(),
            });
        }
        let alternatives = self.alternatives();
        let any = alternatives.join(" OR ");
        if any == exact {
            return tiers;
        }
        if alternatives.len() > 2 {
            // All but one: a word misspelt or misremembered, the rest right; close together
            // first, as the words of a phrase would be.
            let rests: Vec<String> = (0..alternatives.len())
                .map(|left_out| {
                    let rest: Vec<&str> = alternatives
                        .iter()
                        .enumerate()
                        .filter(|(index, _)| *index != left_out)
                        .map(|(_, alternative)| alternative.as_str())
                        .collect();
                    rest.join(" ")
                })
                .collect();
            let close = rests
                .iter()
                .map(|rest| format!("NEAR({rest}, {NEAR_DISTANCE})"))
                .collect::<Vec<_>>()
                .join(" OR ");
            let anywhere = rests
                .iter()
                .map(|rest| format!("({rest})"))
                .collect::<Vec<_>>()
                .join(" OR ");
            tiers.push(TierQuery {
                tier: Tier::Any,
                expression: close,
                why: format!(
                    "holds all the words but one (or words they begin) within {NEAR_DISTANCE} \
                     words of each other; none held all"
                ),
            });
            tiers.push(TierQuery {
                tier: Tier::Any,
                expression: anywhere,
                why: "holds all the words but one (or words they begin), farther apart; none \
                      held all"
                    .to_owned(),
            });
            tiers.push(TierQuery {
                tier: Tier::Any,
                expression: any,
                why: "holds some of the words or words they begin; none held all".to_owned(),
            });
        } else {
            tiers.push(TierQuery {
                tier: Tier::Any,
                expression: any,
                why: "holds some of the words or words they begin; none held all".to_owned(),
            });
        }
        tiers
    }

    /// Any of the words or phrases (FTS5's `OR`): the query's widening, run as [`Tier::Any`].
    pub fn widened(&self) -> String {
        self.alternatives().join(" OR ")
    }

    /// Each word or phrase once, each word (not a quoted phrase) of [`SHORTEST_PREFIX`]
    /// characters or more also as the start of a longer one (`src/main.rs`: its last part).
    fn alternatives(&self) -> Vec<String> {
        let mut alternatives: Vec<String> = Vec::new();
        for (phrase, term) in self.phrases.iter().zip(&self.terms) {
            let last = term
                .split(|character: char| !character.is_alphanumeric())
                .rfind(|word| !word.is_empty())
                .unwrap_or_default();
            let widened = if phrase.quoted
                || phrase.fts.ends_with('*')
                || last.chars().count() < SHORTEST_PREFIX
            {
                phrase.fts.clone()
            } else {
                format!("{}*", phrase.fts)
            };
            if !alternatives.contains(&widened) {
                alternatives.push(widened);
            }
        }
        alternatives
    }

    /// What a query with operators or quotes that found nothing could be widened to (it is not
    /// widened unasked): its words and the words of its phrases that are not after a `NOT`,
    /// without operators or quotes, to be run in tiers (`None` for a query of bare words, whose
    /// widening runs as [`Tier::Any`]).
    pub fn offered(&self) -> Option<String> {
        let bare = !self.phrases.is_empty() && self.phrases.iter().all(|phrase| !phrase.quoted);
        if bare || self.wanted.is_empty() {
            return None;
        }
        Some(self.wanted.join(" "))
    }
}

/// Turns `text` into a query.
pub fn parse(text: &str) -> Result<Query> {
    // FTS5 reads its expression up to a NUL (a query can hold one over MCP's JSON, never in a
    // command's arguments): refused here, with its reason, before anything is read or written.
    if text.contains('\0') {
        bail!("the query holds a NUL character (U+0000), which the search index cannot take");
    }
    let mut expression = String::new();
    let mut terms = Vec::new();
    let mut phrases = Vec::new();
    let mut wanted = Vec::new();
    let mut operators = false;
    // The parenthesis depth at which a `NOT` started leaving words out, while it does.
    let mut negated: Option<usize> = None;
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
                let fts = push_phrase(&mut expression, &mut terms, phrase, prefix, text)?;
                phrases.push(Phrase { fts, quoted: true });
                keep_unless_negated(&mut wanted, &mut negated, depth, phrase);
            }
            '(' => {
                operators = true;
                depth += 1;
                expression.push('(');
                rest = &rest[1..];
            }
            ')' => {
                if depth == 0 {
                    bail!("the query `{text}` closes a parenthesis it did not open");
                }
                depth -= 1;
                if negated == Some(depth) {
                    negated = None;
                }
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
                    operators = true;
                    if word == "NOT" {
                        negated = Some(depth);
                    }
                    expression.push_str(word);
                    continue;
                }
                let (word, prefix) = match word.strip_suffix('*') {
                    Some(stem) => (stem.trim_end_matches('*'), true),
                    None => (word, false),
                };
                let fts = push_phrase(&mut expression, &mut terms, word, prefix, text)?;
                phrases.push(Phrase { fts, quoted: false });
                keep_unless_negated(&mut wanted, &mut negated, depth, word);
            }
        }
    }
    if depth > 0 {
        bail!("the query `{text}` opens a parenthesis and does not close it");
    }
    if terms.is_empty() {
        bail!("the query `{text}` has no word to search for (letters or digits)");
    }
    // Without operators the expression is FTS5 strings side by side, which FTS5 always takes:
    // only operators and parentheses can make one it refuses.
    if operators {
        check_with_fts5(&expression)?;
        phrases.clear();
    }
    Ok(Query {
        expression,
        terms,
        phrases,
        wanted,
    })
}

/// Keeps `word` for the query offered after nothing was found, unless a `NOT` leaves it out: the
/// word right after `NOT` at the same depth, or everything in the parentheses that follow it.
fn keep_unless_negated(
    wanted: &mut Vec<String>,
    negated: &mut Option<usize>,
    depth: usize,
    word: &str,
) {
    match *negated {
        Some(at) if depth > at => {}
        Some(_) => *negated = None,
        None => wanted.push(word.to_owned()),
    }
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

/// Adds `phrase` as an FTS5 string (its `"` doubled), a prefix when `prefix`; returns that
/// string.
fn push_phrase(
    expression: &mut String,
    terms: &mut Vec<String>,
    phrase: &str,
    prefix: bool,
    text: &str,
) -> Result<String> {
    if !phrase.chars().any(char::is_alphanumeric) {
        bail!(
            "the query `{text}` holds `{phrase}`, which has no word to search for (letters or \
             digits)"
        );
    }
    let mut fts = format!("\"{}\"", phrase.replace('"', "\"\""));
    if prefix {
        fts.push('*');
    }
    expression.push_str(&fts);
    terms.push(phrase.to_owned());
    Ok(fts)
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

    /// Each tier of `text`'s query and its expression (its `why` is checked by the integration
    /// tests, in the results).
    fn tiers_of(text: &str) -> Vec<(Tier, String)> {
        parse(text)
            .unwrap()
            .tiers()
            .into_iter()
            .map(|tier| (tier.tier, tier.expression))
            .collect()
    }

    #[test]
    fn words_are_run_as_a_phrase_then_near_then_anywhere_then_any_of_them() {
        assert_eq!(
            tiers_of("existing LiveView tests"),
            [
                (Tier::Exact, r#""existing" + "LiveView" + "tests""#.to_owned()),
                (
                    Tier::Near,
                    r#"NEAR("existing" "LiveView" "tests", 10)"#
                        .to_owned()
                ),
                (
                    Tier::All,
                    r#""existing" "LiveView" "tests""#
                        .to_owned()
                ),
                (
                    Tier::Any,
                    r#"NEAR("LiveView"* "tests"*, 10) OR NEAR("existing"* "tests"*, 10) OR NEAR("existing"* "LiveView"*, 10)"#
                        .to_owned()
                ),
                (
                    Tier::Any,
                    r#"("LiveView"* "tests"*) OR ("existing"* "tests"*) OR ("existing"* "LiveView"*)"#
                        .to_owned()
                ),
                (
                    Tier::Any,
                    r#""existing"* OR "LiveView"* OR "tests"*"#
                        .to_owned()
                ),
            ]
        );
        // One word: the word, then the words it begins; a short word is not widened.
        assert_eq!(
            tiers_of("render"),
            [
                (Tier::Exact, r#""render""#.to_owned()),
                (Tier::Any, r#""render"*"#.to_owned())
            ]
        );
        assert_eq!(
            tiers_of("go to"),
            [
                (Tier::Exact, r#""go" + "to""#.to_owned()),
                (Tier::Near, r#"NEAR("go" "to", 10)"#.to_owned()),
                (Tier::All, r#""go" "to""#.to_owned()),
                (Tier::Any, r#""go" OR "to""#.to_owned()),
            ]
        );
    }

    #[test]
    fn quotes_and_operators_keep_their_meaning() {
        // A quoted phrase is never widened to the words it begins, nor split.
        assert_eq!(
            tiers_of(r#""transcript renderer""#),
            [(Tier::Exact, r#""transcript renderer""#.to_owned())]
        );
        assert_eq!(
            tiers_of(r#""transcript renderer" spot*"#).last().unwrap(),
            &(Tier::Any, r#""transcript renderer" OR "spot"*"#.to_owned())
        );
        // Operators: the query as written, alone.
        assert_eq!(
            tiers_of("(alpha OR beta) NOT gamma"),
            [(
                Tier::AsWritten,
                r#"("alpha" OR "beta") NOT "gamma""#.to_owned()
            )]
        );
        let offered = |text: &str| parse(text).unwrap().offered();
        assert_eq!(
            offered("(alpha NOT (beta OR gamma)) AND delta").as_deref(),
            Some("alpha delta")
        );
        assert_eq!(
            offered(r#""transcript renderer""#).as_deref(),
            Some("transcript renderer")
        );
        assert_eq!(offered("alpha beta"), None);
    }

    /// A query without operators is not checked by FTS5 when it is parsed (`parse`): its
    /// expression and every tier's must be ones FTS5 takes, whatever the words hold.
    #[test]
    fn every_tier_expression_is_one_fts5_takes() {
        for text in [
            "existing LiveView tests",
            "src/main.rs C++ foo-bar",
            r#""a phrase" word prefix*"#,
            r#"say "it's" now"#,
            r#"col:umn x^y a+b -minus near or and not NEAR "say ""hi"" now"*"#,
            "日本語 e\u{301}t\u{e9} ß* {brace} [square] 'single' \\back\\ a**",
        ] {
            let query = parse(text).unwrap();
            check_with_fts5(&query.expression).unwrap();
            for tier in query.tiers() {
                check_with_fts5(&tier.expression).unwrap();
            }
        }
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
    fn a_nul_is_refused_with_its_reason_with_or_without_operators() {
        for bad in ["a\0b", "\"a\0b\"", "a OR \0b", "\0"] {
            let error = parse(bad).unwrap_err().to_string();
            assert!(error.contains("NUL character"), "{bad:?}: {error}");
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
