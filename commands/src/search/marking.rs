//! A snippet's matches marked without FTS5, for the expressions and texts where the marks are
//! provably the ones FTS5's `highlight()` puts (`snippet.rs` asks FTS5 itself for every other
//! case): a scratch FTS5 table costs more than the rest of a snippet.
//!
//! What is reproduced, from `SQLite`'s `fts5_tokenize.c`, `fts5_expr.c` and `fts5_aux.c`:
//! - The default `unicode61` tokenizer on ASCII: a token is a run of ASCII letters and digits,
//!   case folded; every other ASCII character separates. A non-ASCII character is taken only
//!   when it is one of [`SEPARATORS`], characters `unicode61` neither counts as a letter, digit
//!   or private-use character nor lets continue a token as a diacritic (its categories
//!   `L* N* Co` and its diacritics U+0300–U+0331); any other one, or a NUL (which `highlight()`'s
//!   output stops at), sends the text back to FTS5.
//! - The expression: FTS5 strings (`"…"`, `""` a quote), each a phrase of its tokens, joined into
//!   one phrase by `+`, the last token a prefix after `*`; phrases side by side or joined by `AND`
//!   (all must occur) or all joined by `OR` (any may). `NEAR`, `NOT`, parentheses, column filters,
//!   `^`, mixed `AND` and `OR`, a phrase of no token or one not ASCII: back to FTS5.
//! - `highlight()`: a row that does not match is not marked at all; in one that does, every
//!   instance of every phrase, instances sharing a token coalesced into one mark (instances that
//!   only touch keep marks of their own), each mark from its first token's first byte to its
//!   last token's last byte.

use std::ops::Range;

/// Non-ASCII characters `unicode61` surely separates tokens with (punctuation, spaces, symbols,
/// arrows, box drawing, emoji and the like: none a letter, digit, private-use character or
/// diacritic); the tests check each against FTS5. Only characters `SQLite`'s Unicode tables know
/// (they predate many symbols and emoji: `unicode61` takes one it does not know, such as `🙂`
/// U+1F642 or `🤔` U+1F914, for part of a token). Ranges, inclusive, in order.
pub const SEPARATORS: &[(char, char)] = &[
    // Latin-1 punctuation and symbols (not `ª`, `²`, `³`, `µ`, `¹`, `º`, `¼`–`¾`).
    ('\u{A0}', '\u{A9}'),
    ('\u{AB}', '\u{B1}'),
    ('\u{B4}', '\u{B4}'),
    ('\u{B6}', '\u{B8}'),
    ('\u{BB}', '\u{BB}'),
    ('\u{BF}', '\u{BF}'),
    ('\u{D7}', '\u{D7}'),
    ('\u{F7}', '\u{F7}'),
    // General punctuation (spaces, dashes, quotes, `…`, `•`, invisible marks).
    ('\u{2000}', '\u{2064}'),
    ('\u{206A}', '\u{206F}'),
    // Currency.
    ('\u{20A0}', '\u{20B9}'),
    // Arrows, mathematical operators, miscellaneous technical.
    ('\u{2190}', '\u{23F3}'),
    // Box drawing, block elements, geometric shapes, miscellaneous symbols, dingbats (not their
    // circled digits, U+2776–U+2793).
    ('\u{2500}', '\u{26FF}'),
    ('\u{2701}', '\u{2775}'),
    ('\u{2794}', '\u{27BF}'),
    // Miscellaneous symbols and arrows.
    ('\u{2B00}', '\u{2B4C}'),
    ('\u{2B50}', '\u{2B59}'),
    // CJK punctuation (not its iteration marks and numerals).
    ('\u{3000}', '\u{3004}'),
    ('\u{3008}', '\u{3020}'),
    // Variation selectors (emoji presentation), the replacement character.
    ('\u{FE00}', '\u{FE0F}'),
    ('\u{FFFD}', '\u{FFFD}'),
    // Emoji and pictographs.
    ('\u{1F300}', '\u{1F320}'),
    ('\u{1F330}', '\u{1F335}'),
    ('\u{1F337}', '\u{1F37C}'),
    ('\u{1F380}', '\u{1F393}'),
    ('\u{1F3A0}', '\u{1F3C4}'),
    ('\u{1F3C6}', '\u{1F3CA}'),
    ('\u{1F3E0}', '\u{1F3F0}'),
    ('\u{1F400}', '\u{1F43E}'),
    ('\u{1F440}', '\u{1F440}'),
    ('\u{1F442}', '\u{1F4F7}'),
    ('\u{1F4F9}', '\u{1F4FC}'),
    ('\u{1F500}', '\u{1F53D}'),
    ('\u{1F540}', '\u{1F543}'),
    ('\u{1F550}', '\u{1F567}'),
    ('\u{1F5FB}', '\u{1F640}'),
    ('\u{1F645}', '\u{1F64F}'),
    ('\u{1F680}', '\u{1F6C5}'),
];

/// The longest token FTS5 keeps whole (`FTS5_MAX_TOKEN_SIZE`; longer ones are cut). A query's
/// token this long or longer sends the marking back to FTS5; a text's longer token matters not
/// (a shorter query token equals or begins it cut or not).
const LONGEST_TOKEN: usize = 32768;

/// An FTS5 expression of the forms marked here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expression {
    /// Each phrase's terms, in order.
    phrases: Vec<Vec<Term>>,
    /// Joined by `OR` (any phrase may occur) rather than `AND` (each must).
    any: bool,
}

/// One token of a phrase, folded as `unicode61` folds it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Term {
    token: Vec<u8>,
    /// It matches the tokens it begins too.
    prefix: bool,
}

/// What joins an expression's phrases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Join {
    All,
    Any,
}

impl Expression {
    /// `expression` when it is one of the forms marked here (see the module's documentation);
    /// `None` for any other, which FTS5 marks.
    pub fn parse(expression: &str) -> Option<Self> {
        if !expression.is_ascii() {
            return None;
        }
        let mut phrases: Vec<Vec<Term>> = Vec::new();
        let mut join = None;
        // What the next item may be: a string (after `+`, an operator or at the start) or
        // anything (after a string).
        let mut wants_string = true;
        let mut extends = false;
        let mut rest = expression.as_bytes();
        loop {
            rest = trim_spaces(rest);
            let Some(&first) = rest.first() else {
                break;
            };
            if first == b'"' {
                let (string, after) = fts5_string(rest)?;
                rest = after;
                let prefix = rest.first() == Some(&b'*');
                if prefix {
                    rest = &rest[1..];
                }
                let mut terms = phrase_terms(&string)?;
                if prefix {
                    terms.last_mut()?.prefix = true;
                }
                if extends {
                    phrases.last_mut()?.extend(terms);
                } else {
                    if !wants_string {
                        // Side by side: an implicit `AND`.
                        set_join(&mut join, Join::All)?;
                    }
                    phrases.push(terms);
                }
                wants_string = false;
                extends = false;
                continue;
            }
            if wants_string {
                return None;
            }
            let word_end = rest
                .iter()
                .position(|&byte| byte == b' ')
                .unwrap_or(rest.len());
            match &rest[..word_end] {
                b"+" => extends = true,
                b"AND" => set_join(&mut join, Join::All)?,
                b"OR" => set_join(&mut join, Join::Any)?,
                _ => return None,
            }
            rest = &rest[word_end..];
            wants_string = true;
        }
        if wants_string || phrases.is_empty() {
            return None;
        }
        Some(Self {
            phrases,
            any: join == Some(Join::Any),
        })
    }
}

/// Records how phrases are joined; `None` when `AND` and `OR` would both be (their precedence
/// is FTS5's to apply).
fn set_join(join: &mut Option<Join>, new: Join) -> Option<()> {
    match *join {
        Some(old) if old != new => None,
        _ => {
            *join = Some(new);
            Some(())
        }
    }
}

fn trim_spaces(mut bytes: &[u8]) -> &[u8] {
    while let [b' ', rest @ ..] = bytes {
        bytes = rest;
    }
    bytes
}

/// The FTS5 string at the start of `bytes` (which starts with `"`), its doubled quotes single,
/// and what follows it; `None` when it is not closed.
fn fts5_string(bytes: &[u8]) -> Option<(Vec<u8>, &[u8])> {
    let mut string = Vec::new();
    let mut at = 1;
    loop {
        let byte = *bytes.get(at)?;
        if byte == b'"' {
            if bytes.get(at + 1) == Some(&b'"') {
                string.push(b'"');
                at += 2;
                continue;
            }
            return Some((string, &bytes[at + 1..]));
        }
        string.push(byte);
        at += 1;
    }
}

/// The terms of a phrase (ASCII): its tokens, folded; `None` when it has none or one FTS5 would
/// cut.
fn phrase_terms(phrase: &[u8]) -> Option<Vec<Term>> {
    let terms: Vec<Term> = phrase
        .split(|byte| !byte.is_ascii_alphanumeric())
        .filter(|token| !token.is_empty())
        .map(|token| Term {
            token: token.to_ascii_lowercase(),
            prefix: false,
        })
        .collect();
    if terms.is_empty() || terms.iter().any(|term| term.token.len() >= LONGEST_TOKEN) {
        return None;
    }
    Some(terms)
}

/// Whether `unicode61` surely takes `character` (not ASCII) as a separator.
pub fn is_separator(character: char) -> bool {
    SEPARATORS
        .binary_search_by(|&(first, last)| {
            if last < character {
                std::cmp::Ordering::Less
            } else if first > character {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// The byte ranges of `text`'s tokens, as `unicode61` finds them; `None` when `text` holds a
/// character not surely a separator or a NUL.
fn tokens(text: &str) -> Option<Vec<Range<usize>>> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut start = None;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        if byte.is_ascii_alphanumeric() {
            start.get_or_insert(at);
            at += 1;
            continue;
        }
        if let Some(start) = start.take() {
            tokens.push(start..at);
        }
        if byte == 0 {
            return None;
        }
        if byte.is_ascii() {
            at += 1;
        } else {
            let character = text[at..].chars().next()?;
            if !is_separator(character) {
                return None;
            }
            at += character.len_utf8();
        }
    }
    if let Some(start) = start {
        tokens.push(start..bytes.len());
    }
    Some(tokens)
}

/// What FTS5's `highlight(table, 0, open, close)` gives for `text` in a row matched against
/// `expression`: `Some(None)` when the row would not match, `Some(Some(marked))` when it would;
/// `None` when `text` holds what is not marked here (FTS5 marks it).
pub fn highlight(
    text: &str,
    expression: &Expression,
    open: char,
    close: char,
) -> Option<Option<String>> {
    let tokens = tokens(text)?;
    let bytes = text.as_bytes();
    let matches = |term: &Term, token: &Range<usize>| {
        let token = &bytes[token.clone()];
        if term.prefix {
            token.len() >= term.token.len()
                && token[..term.token.len()].eq_ignore_ascii_case(&term.token)
        } else {
            token.eq_ignore_ascii_case(&term.token)
        }
    };
    // Each instance as its first and last token.
    let mut instances: Vec<(usize, usize)> = Vec::new();
    let mut all = true;
    let mut some = false;
    for phrase in &expression.phrases {
        let before = instances.len();
        if let Some(starts) = (tokens.len() + 1).checked_sub(phrase.len()) {
            for start in 0..starts {
                if phrase
                    .iter()
                    .zip(&tokens[start..])
                    .all(|(term, token)| matches(term, token))
                {
                    instances.push((start, start + phrase.len() - 1));
                }
            }
        }
        if instances.len() == before {
            all = false;
        } else {
            some = true;
        }
    }
    if !(if expression.any { some } else { all }) {
        return Some(None);
    }
    instances.sort_unstable();
    let mut marked = String::with_capacity(text.len() + 16);
    let mut copied = 0;
    let mut instances = instances.into_iter().peekable();
    while let Some((first, mut last)) = instances.next() {
        // Instances sharing a token are one mark.
        while let Some(&(next_first, next_last)) = instances.peek() {
            if next_first > last {
                break;
            }
            last = last.max(next_last);
            instances.next();
        }
        let (start, end) = (tokens[first].start, tokens[last].end);
        marked.push_str(&text[copied..start]);
        marked.push(open);
        marked.push_str(&text[start..end]);
        marked.push(close);
        copied = end;
    }
    marked.push_str(&text[copied..]);
    Some(Some(marked))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_separators_are_in_order_and_apart() {
        for pair in SEPARATORS.windows(2) {
            assert!(pair[0].0 <= pair[0].1 && pair[0].1 < pair[1].0, "{pair:?}");
        }
        assert!(is_separator('…') && is_separator('—') && is_separator('😀'));
        assert!(!is_separator('é') && !is_separator('\u{301}') && !is_separator('\u{E000}'));
        assert!(!is_separator('🙂') && !is_separator('🤔'));
    }

    #[test]
    fn parses_only_the_forms_it_marks() {
        for marked in [
            r#""compaction""#,
            r#""transcript renderer""#,
            r#""existing" + "LiveView" + "tests""#,
            r#""existing" "LiveView" "tests""#,
            r#""spot"* + "render""#,
            r#""alpha" AND "beta"*"#,
            r#""alpha"* OR "beta"* OR "C++""#,
            r#""say ""hi"" now""#,
        ] {
            assert!(Expression::parse(marked).is_some(), "{marked}");
        }
        for not in [
            r#"NEAR("a" "b", 10)"#,
            r#""a" NOT "b""#,
            r#"("a" OR "b") "c""#,
            r#""a" OR "b" "c""#,
            r#""a" AND "b" OR "c""#,
            r#"text:"a""#,
            r#"^"a""#,
            r#""a" +"#,
            r#"OR "a""#,
            r#""a" OR"#,
            r#""++""#,
            r#""été""#,
            r#""a" "b"#,
            "a",
            "",
        ] {
            assert_eq!(Expression::parse(not), None, "{not}");
        }
        assert_eq!(
            Expression::parse(r#""a b"* + "c" "d""#),
            Some(Expression {
                phrases: vec![
                    vec![
                        Term {
                            token: b"a".to_vec(),
                            prefix: false
                        },
                        Term {
                            token: b"b".to_vec(),
                            prefix: true
                        },
                        Term {
                            token: b"c".to_vec(),
                            prefix: false
                        }
                    ],
                    vec![Term {
                        token: b"d".to_vec(),
                        prefix: false
                    }],
                ],
                any: false,
            })
        );
    }

    #[test]
    fn a_text_with_a_character_not_surely_a_separator_is_left_to_fts5() {
        let expression = Expression::parse(r#""cafe""#).unwrap();
        for text in [
            "café",
            "cafe\u{301}",
            "cafe\0",
            "x\u{E000}",
            "ｃａｆｅ",
            "Ⅻ cafe",
            "²",
        ] {
            assert_eq!(highlight(text, &expression, '[', ']'), None, "{text:?}");
        }
        assert_eq!(
            highlight("a cafe — ok…", &expression, '[', ']'),
            Some(Some("a [cafe] — ok…".to_owned()))
        );
    }

    /// Each `(text, expression)` marked by FTS5 (`snippet.rs`'s scratch table) and here: equal
    /// wherever this module claims the case; whether it claims it.
    fn against_fts5(cases: &[(&str, &str)]) -> Vec<bool> {
        use super::super::snippet::{CLOSE, Fts5Marking, OPEN};
        let connection = rusqlite::Connection::open_in_memory().unwrap();
        let mut fts5 = Fts5Marking::new(&connection);
        cases
            .iter()
            .map(|&(text, expression)| {
                let by_fts5 = fts5.mark(&[Some(text)], &[expression]).unwrap()[0][0].clone();
                let parsed = Expression::parse(expression);
                let by_rust = parsed
                    .as_ref()
                    .and_then(|parsed| highlight(text, parsed, OPEN, CLOSE));
                if let Some(by_rust) = &by_rust {
                    assert_eq!(
                        by_rust.as_deref().map(visible),
                        by_fts5.as_deref().map(visible),
                        "{expression} in {text:?}"
                    );
                }
                by_rust.is_some()
            })
            .collect()
    }

    /// `marked` with its marks as `[` and `]`, to read in a failure.
    fn visible(marked: &str) -> String {
        marked.replace('\u{E000}', "[").replace('\u{E001}', "]")
    }

    #[test]
    fn marks_what_fts5_marks_in_the_hard_cases() {
        let long = format!("x {} y", "a".repeat(40_000));
        let cases = [
            // Instances that share tokens are one mark; ones that only touch, two.
            ("a a a", r#""a a""#),
            ("a a a a", r#""a a" + "a""#),
            ("to be to be to be, or not", r#""to be""#),
            ("to be to be", r#""to" + "be""#),
            ("a b c", r#""a b" "b c""#),
            ("a b c b c a b", r#""a b" AND "b c""#),
            ("b a b", r#""a" "b""#),
            // At the text's start and end, with or without punctuation.
            ("compaction", r#""compaction""#),
            ("compaction.", r#""compaction""#),
            (".compaction", r#""Compaction""#),
            (
                "COMPACTION Compaction compaction compactions",
                r#""compaction""#,
            ),
            ("compactions compaction", r#""compaction"*"#),
            // Digits, underscores, apostrophes, punctuation inside a word.
            ("v1 2 3 v123 v1.2.3", r#""123""#),
            ("v1 2 3 v123 v1.2.3", r#""v1""#),
            ("v1 2 3 v123 v1.2.3", r#""v1.2"*"#),
            ("0x1F 0x1f", r#""0X1f""#),
            ("snake_case snake case snakecase", r#""snake_case""#),
            ("it's its it s", r#""it's""#),
            ("it's its it s", r#""it""#),
            ("see src/main.rs and src main rs", r#""src/main.rs""#),
            ("C++ c c# c++", r#""C++""#),
            ("foo-bar foo bar foobar", r#""foo-bar""#),
            ("say \"hi\" now", r#""say ""hi"" now""#),
            // Prefixes, also inside a phrase.
            ("spotter render spot renders", r#""spot"* + "render""#),
            ("spotter render spot renders", r#""spot"* + "render"*"#),
            ("the wor world work", r#""wor"*"#),
            // All phrases or none; any of them.
            ("alpha beta", r#""alpha" "gamma""#),
            ("alpha beta", r#""alpha" OR "gamma""#),
            ("alpha beta gamma", r#""gamma"* OR "alpha" OR "zeta""#),
            ("alpha beta", r#""zeta" OR "eta""#),
            ("", r#""alpha""#),
            ("   ", r#""alpha""#),
            // A token longer than FTS5 keeps whole.
            (&long, r#""aaa"*"#),
            (&long, r#""a"*"#),
            (&long, r#""y""#),
            // Separators beyond ASCII.
            (
                "done — really… “yes” → ok ✓ 😀 next",
                r#""really" "yes" "ok" "next""#,
            ),
            ("a\u{A0}b", r#""a" + "b""#),
        ];
        let claimed = against_fts5(&cases);
        assert!(claimed.iter().all(|claimed| *claimed), "{claimed:?}");
        // Left to FTS5, and still marked by it.
        let left = [
            ("café cafe", r#""cafe""#),
            ("naïve naive", r#""naive""#),
            ("e\u{301}te ete", r#""ete""#),
            ("日本語 text", r#""text""#),
            ("ﬁle file", r#""file""#),
            ("a\0b a", r#""a""#),
            ("thanks 🙂 ok 🤔", r#""ok""#),
            ("alpha beta", r#"NEAR("alpha" "beta", 10)"#),
            ("alpha beta", r#""alpha" NOT "gamma""#),
            ("alpha beta", r#"("alpha" OR "gamma") AND "beta""#),
        ];
        let claimed = against_fts5(&left);
        assert!(claimed.iter().all(|claimed| !*claimed), "{claimed:?}");
    }
}
