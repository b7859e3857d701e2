//! `search`'s snippets marked in Rust (`commands/src/search/marking.rs`) against FTS5's own
//! `highlight()` (`snippet.rs`'s scratch table, which marks every case Rust does not claim):
//! every message of the real transcripts the tests have, for queries made from their own words,
//! run through the query's tiers as the search runs them. Where Rust claims a case its marks must
//! be FTS5's, byte for byte; and it must claim most cases, or it would pass by never marking.

use std::collections::BTreeSet;

use ctxhooks_commands::search::marking::{Expression, SEPARATORS, highlight};
use ctxhooks_commands::search::message::message_text;
use ctxhooks_commands::search::query::parse;
use ctxhooks_commands::search::snippet::{CLOSE, Fts5Marking, OPEN};
use ctxhooks_shared::transcript::conversation::{Entry, read_entry};

use crate::support::Scratch;
use crate::support::fixtures::{all_captures, all_sdk_transcripts, all_transcript_fixtures};

/// The text of every message of every transcript the tests have, as `snippet.rs` reads it (the
/// marks taken out), each once; and a window of 2 KiB from the middle of each long one, as the
/// snippet marks a long text (its cut can fall inside a word).
fn texts() -> Vec<String> {
    let scratch = Scratch::new("search-marking");
    let mut files = all_transcript_fixtures();
    files.extend(all_captures(scratch.path()));
    files.extend(all_sdk_transcripts());
    let mut texts = BTreeSet::new();
    let mut text = String::new();
    for path in files {
        let bytes = fs_err::read(&path).unwrap();
        for line in bytes.split(|byte| *byte == b'\n') {
            if let Some(Entry::Message { parts, .. }) = read_entry(line, true) {
                message_text(&parts, &mut text);
                let text = text.replace([OPEN, CLOSE], " ");
                if text.len() > 4096 {
                    let mut start = text.len() / 2;
                    while !text.is_char_boundary(start) {
                        start -= 1;
                    }
                    let mut end = start + 2048;
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    texts.insert(text[start..end].to_owned());
                }
                texts.insert(text);
            }
        }
    }
    texts.into_iter().collect()
}

/// Queries as people write them, made from `texts`' words: single words in their case, upper
/// and lower case, prefixes, phrases of two to four words (bare and quoted), two words anywhere,
/// words no text holds, words with punctuation, operators.
fn queries(texts: &[String]) -> Vec<String> {
    let usable = |word: &str| {
        (2..=24).contains(&word.len())
            && word.is_ascii()
            && word.bytes().any(|byte| byte.is_ascii_alphanumeric())
            && !word.contains(['"', '(', ')', '*'])
            && !matches!(word, "OR" | "AND" | "NOT")
    };
    let mut words = Vec::new();
    let mut phrases = Vec::new();
    for (number, text) in texts.iter().enumerate() {
        let all: Vec<&str> = text.split_whitespace().collect();
        if let Some(word) = all.iter().skip(number % 7).find(|word| usable(word)) {
            words.push((*word).to_owned());
        }
        let length = 2 + number % 3;
        let from = (number * 5) % all.len().max(1);
        if let Some(phrase) = all.get(from..from + length)
            && phrase.iter().all(|word| usable(word))
        {
            phrases.push(phrase.join(" "));
        }
    }
    words.sort();
    words.dedup();
    phrases.sort();
    phrases.dedup();
    let words: Vec<String> = words.into_iter().step_by(3).take(70).collect();
    let phrases: Vec<String> = phrases.into_iter().step_by(2).take(50).collect();
    let mut queries = Vec::new();
    for (index, word) in words.iter().enumerate() {
        queries.push(word.clone());
        match index % 3 {
            0 => queries.push(word.to_uppercase()),
            1 => queries.push(word.to_lowercase()),
            _ => {}
        }
        let stem: String = word
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(3)
            .collect();
        if !stem.is_empty() {
            queries.push(format!("{stem}*"));
        }
        let other = &words[(index * 7 + 3) % words.len()];
        queries.push(format!("{word} {other}"));
        if index % 5 == 0 {
            queries.push(format!("{word} OR {other}"));
            queries.push(format!("{word} AND {other}*"));
            queries.push(format!("{word} NOT {other}"));
        }
    }
    for phrase in &phrases {
        queries.push(phrase.clone());
        queries.push(format!("\"{phrase}\""));
    }
    for fixed in [
        "zqxjkvbw",
        "zqxjkvbw compaction",
        "src/main.rs",
        "C++",
        "foo-bar",
        "it's",
        "snake_case",
        "don't",
        "e.g.",
        "v1.2.3",
        "the",
        "the a",
        "a",
        "wor*",
        "te* the",
        "\"to the\"*",
        "café",
        "(error OR warning) AND file",
    ] {
        queries.push(fixed.to_owned());
    }
    queries
}

/// Each tier's expression of each query (and its widening), as the search marks with them.
fn expressions(queries: &[String]) -> Vec<String> {
    let mut expressions = BTreeSet::new();
    for text in queries {
        let Ok(query) = parse(text) else {
            continue;
        };
        for tier in query.tiers() {
            expressions.insert(tier.expression);
        }
    }
    expressions.into_iter().collect()
}

#[test]
fn search_marks_in_rust_exactly_what_fts5_marks_in_real_messages() {
    let texts = texts();
    assert!(texts.len() > 250, "{} texts", texts.len());
    let expressions = expressions(&queries(&texts));
    assert!(expressions.len() > 300, "{} expressions", expressions.len());
    let connection = rusqlite::Connection::open_in_memory().unwrap();
    let pieces: Vec<Option<&str>> = texts.iter().map(|text| Some(text.as_str())).collect();
    let expression_texts: Vec<&str> = expressions.iter().map(String::as_str).collect();
    let by_fts5 = Fts5Marking::new(&connection)
        .mark(&pieces, &expression_texts)
        .unwrap();
    let (mut parsed, mut pairs, mut claimed, mut marked) = (0, 0, 0, 0);
    for (expression, by_fts5) in expressions.iter().zip(by_fts5) {
        let Some(parsed_expression) = Expression::parse(expression) else {
            continue;
        };
        parsed += 1;
        for (text, by_fts5) in texts.iter().zip(by_fts5) {
            pairs += 1;
            let Some(by_rust) = highlight(text, &parsed_expression, OPEN, CLOSE) else {
                continue;
            };
            claimed += 1;
            if by_rust.is_some() {
                marked += 1;
            }
            assert!(
                by_rust == by_fts5,
                "`{expression}` in {text:?}:\nRust: {by_rust:?}\nFTS5: {by_fts5:?}"
            );
        }
    }
    // Words, phrases, prefixes, `NEAR`, all and any of them: most tiers' expressions are marked
    // in Rust (754 of 798 when this was written), and most texts.
    assert!(
        parsed * 10 > expressions.len() * 8,
        "{parsed} of {} expressions",
        expressions.len()
    );
    assert!(claimed * 10 > pairs * 9, "{claimed} of {pairs} cases");
    assert!(marked > 5_000, "{marked} cases marked");
}

#[test]
fn every_character_the_rust_marking_takes_as_a_separator_is_one_for_fts5() {
    let mut texts = Vec::new();
    for &(first, last) in SEPARATORS {
        for code in u32::from(first)..=u32::from(last) {
            let character = char::from_u32(code).unwrap();
            texts.push(format!("x{character}y {character}x{character}"));
        }
    }
    // And every ASCII character but NUL, which Rust leaves to FTS5.
    for byte in 1..=127u8 {
        let character = char::from(byte);
        texts.push(format!("x{character}y {character}x{character}"));
    }
    let connection = rusqlite::Connection::open_in_memory().unwrap();
    let pieces: Vec<Option<&str>> = texts.iter().map(|text| Some(text.as_str())).collect();
    let expressions = [r#""x" + "y""#, r#""x""#, r#""y" "x"*"#];
    let by_fts5 = Fts5Marking::new(&connection)
        .mark(&pieces, &expressions)
        .unwrap();
    let mut differ = BTreeSet::new();
    for (expression, by_fts5) in expressions.iter().zip(by_fts5) {
        let parsed = Expression::parse(expression).unwrap();
        for (text, by_fts5) in texts.iter().zip(by_fts5) {
            let by_rust = highlight(text, &parsed, OPEN, CLOSE).unwrap();
            if by_rust != by_fts5 {
                differ.insert(format!("U+{:04X}", u32::from(text.chars().nth(1).unwrap())));
            }
        }
    }
    assert!(differ.is_empty(), "marked otherwise by FTS5: {differ:?}");
}
