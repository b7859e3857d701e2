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
//!   one phrase by `+`, the last token a prefix after `*`; groups (a phrase, phrases side by side
//!   in parentheses, `NEAR(…, n)` of one-token phrases) side by side or joined by `AND` (all must
//!   match) or all joined by `OR` (any may): what the search's tiers pass. `NOT`, nested
//!   parentheses, column filters, `^`, mixed `AND` and `OR`, a `NEAR` of a longer phrase, a
//!   phrase of no token or one not ASCII: back to FTS5.
//! - `highlight()`: a row that does not match is not marked at all; in one that does, every
//!   instance of every phrase of the groups that match (of a `NEAR`, the instances FTS5's walk
//!   keeps: `fts5ExprNearIsMatch`, step for step), instances sharing a token coalesced into one
//!   mark (instances that only touch keep marks of their own), each mark from its first token's
//!   first byte to its last token's last byte.

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

/// An FTS5 expression of the forms marked here: groups all of which must match (side by side or
/// `AND`), or any of which may (`OR`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expression {
    groups: Vec<Group>,
    /// Joined by `OR` rather than `AND`.
    any: bool,
}

/// A part of an expression that matches or not on its own, and whose instances are marked only
/// when it matches.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Group {
    /// Phrases that must all occur: one phrase, or phrases side by side in parentheses.
    All(Vec<Vec<Term>>),
    /// `NEAR(…, distance)` of phrases of one token each (a phrase of more is left to FTS5, whose
    /// phrases after the first one that fails keep the instances of an earlier row).
    Near { phrases: Vec<Term>, distance: i64 },
}

/// One token of a phrase, folded as `unicode61` folds it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Term {
    token: Vec<u8>,
    /// It matches the tokens it begins too.
    prefix: bool,
}

/// What an FTS5 expression is made of, as far as the forms marked here go.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Lexeme {
    /// A string's terms (`*` after it: its last one a prefix).
    String(Vec<Term>),
    Plus,
    And,
    Or,
    Near,
    Open,
    Close,
    Comma,
    Number(i64),
}

/// `expression`'s lexemes; `None` when it holds anything else (a bare word, `NOT`, `:`, `^`,
/// `-`, a character not ASCII, whitespace but spaces, a string of no token).
fn lexemes(expression: &str) -> Option<Vec<Lexeme>> {
    if !expression.is_ascii() {
        return None;
    }
    let mut lexemes = Vec::new();
    let mut rest = expression.as_bytes();
    while let Some(&first) = rest.first() {
        let (lexeme, length) = match first {
            b' ' => {
                rest = &rest[1..];
                continue;
            }
            b'"' => {
                let (string, after) = fts5_string(rest)?;
                let mut terms = phrase_terms(&string)?;
                let mut length = rest.len() - after.len();
                if after.first() == Some(&b'*') {
                    terms.last_mut()?.prefix = true;
                    length += 1;
                }
                (Lexeme::String(terms), length)
            }
            b'+' => (Lexeme::Plus, 1),
            b'(' => (Lexeme::Open, 1),
            b')' => (Lexeme::Close, 1),
            b',' => (Lexeme::Comma, 1),
            b'0'..=b'9' => {
                let length = rest
                    .iter()
                    .position(|byte| !byte.is_ascii_digit())
                    .unwrap_or(rest.len());
                let number: i64 = std::str::from_utf8(&rest[..length]).ok()?.parse().ok()?;
                // A distance FTS5 surely reads as written.
                if number > 100_000 {
                    return None;
                }
                (Lexeme::Number(number), length)
            }
            _ => {
                let length = rest
                    .iter()
                    .position(|byte| !byte.is_ascii_alphabetic())
                    .unwrap_or(rest.len());
                match &rest[..length] {
                    b"AND" => (Lexeme::And, length),
                    b"OR" => (Lexeme::Or, length),
                    // `NEAR` is the operator only right before its parenthesis.
                    b"NEAR" if rest.get(length) == Some(&b'(') => (Lexeme::Near, length),
                    _ => return None,
                }
            }
        };
        lexemes.push(lexeme);
        rest = &rest[length..];
    }
    Some(lexemes)
}

/// Reads the lexemes of an expression, front to back.
struct Parser {
    lexemes: std::iter::Peekable<std::vec::IntoIter<Lexeme>>,
}

impl Parser {
    fn next_if(&mut self, wanted: &Lexeme) -> bool {
        self.lexemes.next_if_eq(wanted).is_some()
    }

    /// A phrase: strings joined by `+`.
    fn phrase(&mut self) -> Option<Vec<Term>> {
        let Some(Lexeme::String(mut terms)) = self.lexemes.next() else {
            return None;
        };
        while self.next_if(&Lexeme::Plus) {
            let Some(Lexeme::String(more)) = self.lexemes.next() else {
                return None;
            };
            terms.extend(more);
        }
        Some(terms)
    }

    /// A group, and whether it may stand side by side with another (FTS5 joins phrases and
    /// `NEAR`s side by side, not parentheses).
    fn group(&mut self) -> Option<(Group, bool)> {
        if self.next_if(&Lexeme::Open) {
            let mut phrases = vec![self.phrase()?];
            while !self.next_if(&Lexeme::Close) {
                self.next_if(&Lexeme::And);
                phrases.push(self.phrase()?);
            }
            return Some((Group::All(phrases), false));
        }
        if self.next_if(&Lexeme::Near) {
            if !self.next_if(&Lexeme::Open) {
                return None;
            }
            let mut phrases = Vec::new();
            while let Some(Lexeme::String(terms)) = self
                .lexemes
                .next_if(|lexeme| matches!(lexeme, Lexeme::String(_)))
            {
                let [term] = <[Term; 1]>::try_from(terms).ok()?;
                phrases.push(term);
            }
            // FTS5's default distance.
            let mut distance = 10;
            if self.next_if(&Lexeme::Comma) {
                let Some(Lexeme::Number(number)) = self.lexemes.next() else {
                    return None;
                };
                distance = number;
            }
            if !self.next_if(&Lexeme::Close) || phrases.is_empty() {
                return None;
            }
            let group = if phrases.len() == 1 {
                Group::All(vec![phrases])
            } else {
                Group::Near { phrases, distance }
            };
            return Some((group, true));
        }
        Some((Group::All(vec![self.phrase()?]), true))
    }
}

impl Expression {
    /// `expression` when it is one of the forms marked here (see the module's documentation);
    /// `None` for any other, which FTS5 marks.
    pub fn parse(expression: &str) -> Option<Self> {
        let mut parser = Parser {
            lexemes: lexemes(expression)?.into_iter().peekable(),
        };
        let (first, mut side_by_side) = parser.group()?;
        let mut groups = vec![first];
        let mut join = None;
        while parser.lexemes.peek().is_some() {
            let joined = if parser.next_if(&Lexeme::And) {
                Join::All
            } else if parser.next_if(&Lexeme::Or) {
                Join::Any
            } else if side_by_side {
                Join::Side
            } else {
                return None;
            };
            let (group, may) = parser.group()?;
            if joined == Join::Side && !may {
                return None;
            }
            side_by_side = may;
            // `AND` and `OR` (or side by side and `OR`) together: their precedence is FTS5's
            // to apply.
            let joined = if joined == Join::Any {
                Join::Any
            } else {
                Join::All
            };
            if join.is_some_and(|join| join != joined) {
                return None;
            }
            join = Some(joined);
            groups.push(group);
        }
        Some(Self {
            groups,
            any: join == Some(Join::Any),
        })
    }
}

/// How two groups are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Join {
    All,
    Any,
    /// Side by side: `AND`.
    Side,
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

/// Which bytes are ASCII letters or digits ([`u8::is_ascii_alphanumeric`]), looked up: the test
/// every byte of a marked text takes.
const ALPHANUMERIC: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte: u8 = 0;
    loop {
        table[byte as usize] = byte.is_ascii_alphanumeric();
        if byte == u8::MAX {
            break table;
        }
        byte += 1;
    }
};

/// The byte ranges of `text`'s tokens, as `unicode61` finds them; `None` when `text` holds a
/// character not surely a separator or a NUL.
fn tokens(text: &str) -> Option<Vec<Range<usize>>> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        if ALPHANUMERIC[usize::from(byte)] {
            // A token: the run of letters and digits from here, in a loop of its own.
            let start = at;
            at += 1;
            while bytes
                .get(at)
                .is_some_and(|&byte| ALPHANUMERIC[usize::from(byte)])
            {
                at += 1;
            }
            tokens.push(start..at);
            continue;
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
    // Where each instance of `phrase` starts (a word's: each token compared with it alone).
    let starts = |phrase: &[Term]| -> Vec<usize> {
        if let [term] = phrase {
            return (0..tokens.len())
                .filter(|&start| matches(term, &tokens[start]))
                .collect();
        }
        (0..(tokens.len() + 1).saturating_sub(phrase.len()))
            .filter(|&start| {
                phrase
                    .iter()
                    .zip(&tokens[start..])
                    .all(|(term, token)| matches(term, token))
            })
            .collect()
    };
    // Each instance as its first and last token.
    let mut instances: Vec<(usize, usize)> = Vec::new();
    let mut all = true;
    let mut some = false;
    for group in &expression.groups {
        let found = match group {
            Group::All(phrases) => {
                let mut found = Vec::new();
                for phrase in phrases {
                    let at = starts(phrase);
                    if at.is_empty() {
                        found.clear();
                        break;
                    }
                    found.extend(
                        at.into_iter()
                            .map(|start| (start, start + phrase.len() - 1)),
                    );
                }
                (!found.is_empty()).then_some(found)
            }
            Group::Near { phrases, distance } => {
                let lists: Vec<Vec<usize>> = phrases
                    .iter()
                    .map(|term| starts(std::slice::from_ref(term)))
                    .collect();
                near(&lists, *distance)
                    .map(|kept| kept.into_iter().flatten().map(|at| (at, at)).collect())
            }
        };
        match found {
            Some(found) => {
                some = true;
                instances.extend(found);
            }
            None => all = false,
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

/// FTS5's `fts5ExprNearIsMatch`, step for step: of each list of a one-token phrase's instances
/// (token positions, ascending), the ones it keeps for a `NEAR` within `distance`; `None` when
/// none are (the `NEAR` does not match). Not simply every instance within reach of the others:
/// FTS5 walks the lists once, greedily, and marks what that walk keeps.
fn near(lists: &[Vec<usize>], distance: i64) -> Option<Vec<Vec<usize>>> {
    /// FTS5's `FTS5_LOOKAHEAD_EOF`.
    const END: i64 = 1 << 62;
    /// FTS5's `Fts5LookaheadReader`.
    struct Reader<'list> {
        list: &'list [usize],
        /// The index of the position after the lookahead.
        next: usize,
        position: i64,
        lookahead: i64,
    }
    impl Reader<'_> {
        /// Moves on; true at the end.
        fn advance(&mut self) -> bool {
            self.position = self.lookahead;
            self.lookahead = self
                .list
                .get(self.next)
                .map_or(END, |&at| i64::try_from(at).unwrap_or(END));
            self.next += 1;
            self.position == END
        }
    }
    if lists.iter().any(Vec::is_empty) {
        return None;
    }
    let mut readers: Vec<Reader> = lists
        .iter()
        .map(|list| {
            let mut reader = Reader {
                list,
                next: 0,
                position: 0,
                lookahead: 0,
            };
            reader.advance();
            reader.advance();
            reader
        })
        .collect();
    let mut kept: Vec<Vec<usize>> = vec![Vec::new(); lists.len()];
    'walk: loop {
        // Advance the readers until they point at instances that together match.
        let mut highest = readers[0].position;
        loop {
            let mut matched = true;
            for reader in &mut readers {
                // A phrase of one token.
                let lowest = highest - 1 - distance;
                if reader.position < lowest || reader.position > highest {
                    matched = false;
                    while reader.position < lowest {
                        if reader.advance() {
                            break 'walk;
                        }
                    }
                    highest = highest.max(reader.position);
                }
            }
            if matched {
                break;
            }
        }
        for (reader, kept) in readers.iter().zip(&mut kept) {
            let position = usize::try_from(reader.position).ok()?;
            if kept.last() != Some(&position) {
                kept.push(position);
            }
        }
        let mut advanced = 0;
        let mut lowest = readers[0].lookahead;
        for (index, reader) in readers.iter().enumerate() {
            if reader.lookahead < lowest {
                lowest = reader.lookahead;
                advanced = index;
            }
        }
        if readers[advanced].advance() {
            break;
        }
    }
    (!kept[0].is_empty()).then_some(kept)
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
            r#"NEAR("existing" "LiveView" "tests", 10)"#,
            r#"NEAR("LiveView"* "tests"*, 10) OR NEAR("existing"* "tests"*, 10)"#,
            r#"("LiveView"* "tests"*) OR ("existing"* "tests"*)"#,
            r#"NEAR("a" "b") "c""#,
        ] {
            assert!(Expression::parse(marked).is_some(), "{marked}");
        }
        for not in [
            r#"NEAR("a b" "c", 10)"#,
            r#"NEAR("a" + "b" "c", 10)"#,
            r#"NEAR "a""#,
            r#"NEAR("a" "b", 10"#,
            r#"("a" "b") "c""#,
            r#"(("a"))"#,
            r#""a" NEAR"#,
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
        let term = |token: &str, prefix: bool| Term {
            token: token.as_bytes().to_vec(),
            prefix,
        };
        assert_eq!(
            Expression::parse(r#""a b"* + "c" "d""#),
            Some(Expression {
                groups: vec![
                    Group::All(vec![vec![
                        term("a", false),
                        term("b", true),
                        term("c", false)
                    ]]),
                    Group::All(vec![vec![term("d", false)]]),
                ],
                any: false,
            })
        );
        assert_eq!(
            Expression::parse(r#"NEAR("a"* "b", 5) OR ("c" AND "d") OR NEAR("e")"#),
            Some(Expression {
                groups: vec![
                    Group::Near {
                        phrases: vec![term("a", true), term("b", false)],
                        distance: 5
                    },
                    Group::All(vec![vec![term("c", false)], vec![term("d", false)]]),
                    Group::All(vec![vec![term("e", false)]]),
                ],
                any: true,
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
            // NEAR, as FTS5 walks the instances.
            ("a b c d e f g h", r#"NEAR("a" "c", 1)"#),
            ("a b c d e f g h", r#"NEAR("a" "d", 1)"#),
            ("a x a x b x x x x a b a", r#"NEAR("a" "b", 2)"#),
            ("b a b a b", r#"NEAR("a" "b" "a", 0)"#),
            ("the the the", r#"NEAR("the" "the", 10)"#),
            (
                "alpha beta gamma alpha",
                r#"NEAR("alpha"* "gam"*, 10) OR NEAR("beta" "zeta", 10)"#,
            ),
            (
                "alpha beta gamma",
                r#"NEAR("zeta" "beta", 10) OR NEAR("alpha", 10)"#,
            ),
            (
                "run x x x x x x x x x x x x tests run",
                r#"NEAR("run" "tests")"#,
            ),
            // Groups in parentheses: those that match are marked, the others not.
            (
                "alpha beta gamma",
                r#"("alpha" "zeta") OR ("beta" "gamma")"#,
            ),
            (
                "alpha beta gamma",
                r#"("alpha" AND "beta") OR ("zeta" "alpha")"#,
            ),
            ("a x b c", r#""a b" OR "c""#),
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
            ("alpha beta", r#""alpha" NOT "gamma""#),
            ("alpha beta", r#"("alpha" OR "gamma") AND "beta""#),
        ];
        let claimed = against_fts5(&left);
        assert!(claimed.iter().all(|claimed| !*claimed), "{claimed:?}");
    }

    /// Texts of a few words, drawn so that they repeat and come close, marked in one batch (as a
    /// search marks its hits) for every kind of expression marked here, `NEAR` with small
    /// distances the most: Rust's marks are FTS5's in every one.
    #[test]
    fn marks_what_fts5_marks_in_many_small_texts_at_once() {
        use super::super::snippet::{CLOSE, Fts5Marking, OPEN};
        // A linear congruential generator: the same draws every run.
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        let mut draw = |below: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            usize::try_from(state >> 33).unwrap() % below
        };
        let words = ["a", "b", "c", "ab", "A", "ba"];
        let separators = [" ", "  ", "-", ". ", "\n", " — "];
        let texts: Vec<String> = (0..400)
            .map(|_| {
                let mut text = String::new();
                for index in 0..draw(14) {
                    if index > 0 {
                        text.push_str(separators[draw(6)]);
                    }
                    text.push_str(words[draw(6)]);
                }
                text
            })
            .collect();
        let phrase = |draw: &mut dyn FnMut(usize) -> usize| {
            let word = ["a", "b", "c", "ab"][draw(4)];
            if draw(3) == 0 {
                format!("\"{word}\"*")
            } else {
                format!("\"{word}\"")
            }
        };
        let mut expressions = Vec::new();
        for _ in 0..150 {
            let count = 2 + draw(2);
            let phrases: Vec<String> = (0..count).map(|_| phrase(&mut draw)).collect();
            let distance = draw(4);
            expressions.push(format!("NEAR({}, {distance})", phrases.join(" ")));
            let other: Vec<String> = (0..2).map(|_| phrase(&mut draw)).collect();
            expressions.push(format!(
                "NEAR({}, {distance}) OR NEAR({}, {})",
                phrases.join(" "),
                other.join(" "),
                draw(3)
            ));
            expressions.push(format!("({}) OR ({})", phrases.join(" "), other.join(" ")));
            expressions.push(phrases.join(" + "));
            expressions.push(phrases.join(" "));
            expressions.push(phrases.join(" OR "));
        }
        let connection = rusqlite::Connection::open_in_memory().unwrap();
        let pieces: Vec<Option<&str>> = texts.iter().map(|text| Some(text.as_str())).collect();
        let expression_texts: Vec<&str> = expressions.iter().map(String::as_str).collect();
        let by_fts5 = Fts5Marking::new(&connection)
            .mark(&pieces, &expression_texts)
            .unwrap();
        let mut marked = 0;
        for (expression, by_fts5) in expressions.iter().zip(by_fts5) {
            let parsed = Expression::parse(expression).unwrap();
            for (text, by_fts5) in texts.iter().zip(by_fts5) {
                let by_rust = highlight(text, &parsed, OPEN, CLOSE).unwrap();
                assert_eq!(
                    by_rust.as_deref().map(visible),
                    by_fts5.as_deref().map(visible),
                    "{expression} in {text:?}"
                );
                marked += usize::from(by_rust.is_some());
            }
        }
        assert!(marked > 50_000, "{marked} marked");
    }

    /// Why a `NEAR` of a longer phrase is left to FTS5: when that phrase fails in a row, the
    /// phrases after it keep an earlier row's instances, and `highlight()` marks them (here the
    /// second `q`, where `c` stood in the row before): no marking of one text alone can say so.
    #[test]
    fn fts5_marks_a_near_of_a_longer_phrase_by_the_rows_before() {
        use super::super::snippet::Fts5Marking;
        let expression = r#"NEAR("x y" "c", 10) OR "a""#;
        let text = "y x q q q q c a";
        let connection = rusqlite::Connection::open_in_memory().unwrap();
        let mut fts5 = Fts5Marking::new(&connection);
        let alone = fts5.mark(&[Some(text)], &[expression]).unwrap();
        let after = fts5
            .mark(&[Some("x y q c"), Some(text)], &[expression])
            .unwrap();
        let visible = |marked: &Option<String>| marked.as_deref().map(visible);
        assert_eq!(visible(&alone[0][0]).as_deref(), Some("y x q q q q c [a]"));
        assert_eq!(
            visible(&after[0][1]).as_deref(),
            Some("y x q [q] q q c [a]")
        );
        assert_eq!(Expression::parse(expression), None);
    }
}
