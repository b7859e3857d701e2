//! A result's snippet, made from the source bytes (the index keeps no text): the matched line is
//! read back from the live transcript or the kept copy at its recorded offset, checked to be the
//! line indexed (its hash), read as the conversation reader reads it, and its matches found by
//! FTS5 itself (`highlight()` over a scratch table in memory), so they are exactly the tokens
//! the query matched, case and diacritics folded as the index folds them; or, where that is
//! provably the same marking, in Rust (`marking.rs`: a word, a phrase, `NEAR` of words, phrases
//! that must all occur or any of which may, over a text of ASCII words), which costs a fraction
//! of FTS5's.

use std::collections::HashMap;
use std::io::Read as _;
use std::ops::Range;

use anyhow::{Context, Result};
use rusqlite::{Connection, params};
use serde::Serialize;

use super::find::Hit;
use super::marking::{self, Expression};
use super::message::into_message_text;
use super::prepare::line_hash;
use super::query::Query;
use super::reading::{kept_range, open_file, read_file_range};
use super::sources::{KeptPart, Source};
use ctxhooks_shared::store::kept::{GenerationIndex, KeptName};
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::transcript::conversation::message_parts;

/// Characters of context shown before the first match.
const BEFORE: usize = 60;
/// The longest snippet, in characters.
const LONGEST: usize = 220;
/// A text longer than this many bytes is marked in a window of this size (FTS5 tokenizes all it
/// is given, and a tool's result can be megabytes; the snippet shows [`LONGEST`] characters)…
const WINDOW: usize = 2048;
/// …of which this many bytes come before the first place a query word appears.
const WINDOW_BEFORE: usize = 512;
/// Marks put around each match by `highlight()` (private-use characters, removed from the text
/// first).
pub const OPEN: char = '\u{E000}';
pub const CLOSE: char = '\u{E001}';

/// A piece of the message around its first match.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Snippet {
    /// The text, whitespace collapsed, `…` where it was cut.
    pub text: String,
    /// Each match in `text`: `[start, end)` in characters (Unicode scalar values).
    pub matches: Vec<(usize, usize)>,
}

/// Where a hit's bytes were read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The kept copy (the live transcript no longer holds the line).
    Kept,
    /// The live transcript, which still holds the line (kept or not).
    Live,
}

/// Reads hits' lines back and marks their matches.
pub struct Snippets<'connection> {
    state: StateDir,
    /// The sources as found now: where each one's live file is (a project's folder renamed
    /// since it was indexed holds the same file under another path).
    sources: &'connection [Source],
    kept: HashMap<(String, String, u32), Option<KeptPart>>,
    /// What marks the texts Rust does not.
    fts5: Fts5Marking<'connection>,
    /// What finds [`OPEN`] and [`CLOSE`] in a text, made once (a searcher made for each
    /// look, two a snippet, cost more than the looks).
    marks: [memchr::memmem::Finder<'static>; 2],
}

impl<'connection> Snippets<'connection> {
    /// Snippets read with `connection` (its scratch table) from the kept copies of `state` and
    /// the live files of `sources`.
    pub fn new(
        connection: &'connection Connection,
        state: &StateDir,
        sources: &'connection [Source],
    ) -> Self {
        Self {
            state: state.clone(),
            sources,
            kept: HashMap::new(),
            fts5: Fts5Marking::new(connection),
            marks: [OPEN, CLOSE].map(|mark| {
                memchr::memmem::Finder::new(mark.encode_utf8(&mut [0; 4]).as_bytes()).into_owned()
            }),
        }
    }

    /// The snippet of each of `hits` and where it was read from; `None` for one whose line can
    /// no longer be read as it was indexed (the file changed since: the next search re-reads
    /// it).
    pub fn of(&mut self, hits: &[Hit], query: &Query) -> Result<Vec<Option<(Snippet, Origin)>>> {
        let mut texts = Vec::with_capacity(hits.len());
        let mut origins = Vec::with_capacity(hits.len());
        for hit in hits {
            let (text, origin) = self.text(hit)?.unzip();
            texts.push(text);
            origins.push(origin);
        }
        let snippets = self.mark(&texts, query)?;
        Ok(snippets
            .into_iter()
            .zip(origins)
            .map(|(snippet, origin)| snippet.zip(origin))
            .collect())
    }

    /// The snippet of each of `texts`. A long text is marked in a window around where a query
    /// word first appears; where FTS5 finds no match there, in whole.
    fn mark(&mut self, texts: &[Option<String>], query: &Query) -> Result<Vec<Option<Snippet>>> {
        let mut windows: Vec<Range<usize>> = texts
            .iter()
            .map(|text| text.as_deref().map_or(0..0, |text| window(text, query)))
            .collect();
        let pieces: Vec<Option<&str>> = texts
            .iter()
            .zip(&windows)
            .map(|(text, window)| text.as_deref().map(|text| &text[window.clone()]))
            .collect();
        let mut marked = self.highlight(&pieces, query)?;
        let again: Vec<Option<&str>> = texts
            .iter()
            .zip(&windows)
            .zip(&marked)
            .map(|((text, window), marked)| match (text, marked) {
                (Some(text), None) if window.len() < text.len() => Some(text.as_str()),
                _ => None,
            })
            .collect();
        if again.iter().any(Option::is_some) {
            let whole = self.highlight(&again, query)?;
            for (index, whole) in whole.into_iter().enumerate() {
                if let (Some(whole), Some(text)) = (whole, &texts[index]) {
                    marked[index] = Some(whole);
                    windows[index] = 0..text.len();
                }
            }
        }
        Ok(texts
            .iter()
            .zip(windows)
            .zip(marked)
            .map(|((text, window), marked)| {
                let text = text.as_deref()?;
                let piece = marked.as_deref().unwrap_or(&text[window.clone()]);
                Some(cut(piece, window.start > 0, window.end < text.len()))
            })
            .collect())
    }

    /// The text of `hit`'s message as the index read it, and where it was read from.
    fn text(&mut self, hit: &Hit) -> Result<Option<(String, Origin)>> {
        let Some((bytes, origin)) = self.line(hit)? else {
            return Ok(None);
        };
        // The line the index read as a message (its hash says so): its parts alone are read.
        let Some(parts) = message_parts(&bytes) else {
            return Ok(None);
        };
        let mut text = into_message_text(parts);
        // The marks `highlight()` puts are taken out of the text first (rare: a private-use
        // character in a transcript).
        if self
            .marks
            .iter()
            .any(|mark| mark.find(text.as_bytes()).is_some())
        {
            text = text.replace([OPEN, CLOSE], " ");
        }
        Ok(Some((text, origin)))
    }

    /// The line's bytes: from the live file while it still holds them (the line's hash says
    /// so), else from the kept copy. The live file is read first because a kept generation's
    /// line is inflated from the start of the gzip member that holds it, and a member holds up
    /// to 8 MiB of transcript (all that was there when the hooks first kept it): tens of
    /// milliseconds for a snippet, against a seek and a read.
    fn line(&mut self, hit: &Hit) -> Result<Option<(Vec<u8>, Origin)>> {
        let live = self.live_line(hit);
        if hit.generation == 0 {
            return Ok(live?.map(|bytes| (bytes, Origin::Live)));
        }
        // A kept generation's line is read from the kept copy when the live file fails too.
        if let Ok(Some(bytes)) = live {
            return Ok(Some((bytes, Origin::Live)));
        }
        let end = hit.offset + hit.length;
        let key = (hit.session.clone(), hit.name.clone(), hit.generation);
        let state = &self.state;
        let part = self
            .kept
            .entry(key)
            .or_insert_with(|| kept_part(state, hit).ok());
        if let Some(part) = part.as_ref().filter(|part| part.index.length() >= end) {
            let mut bytes = line_buffer(hit);
            kept_range(part, hit.offset, end)?.read_to_end(&mut bytes)?;
            if line_hash(&bytes) == hit.line_hash {
                return Ok(Some((bytes, Origin::Kept)));
            }
        }
        Ok(None)
    }

    /// The line's bytes from the live file of `hit`'s source as found now (a kept generation
    /// has one only while it is the newest and the file carries it on), when it holds them.
    fn live_line(&self, hit: &Hit) -> Result<Option<Vec<u8>>> {
        let end = hit.offset + hit.length;
        // The file as found now: the rows read from it stand only while it is the same file
        // (`update.rs`), wherever it is, and the line's hash is checked below.
        // A look through the sources for each hit (a few dozen at most) is cheaper than a map
        // of them all.
        let Some(path) = self
            .sources
            .iter()
            .find(|source| {
                source.generation == hit.generation
                    && source.name == hit.name
                    && source.session == hit.session
            })
            .and_then(|source| source.file.as_ref())
        else {
            return Ok(None);
        };
        let Some(file) = open_file(path).ok().flatten() else {
            return Ok(None);
        };
        if file.size() < end {
            return Ok(None);
        }
        let mut bytes = line_buffer(hit);
        read_file_range(file, hit.offset, hit.length, &mut bytes)?;
        Ok((line_hash(&bytes) == hit.line_hash).then_some(bytes))
    }

    /// Each of `texts` with FTS5's matches of `query` between [`OPEN`] and [`CLOSE`] (`None`
    /// where it has none): marked in Rust where that is provably what FTS5 marks
    /// (`marking.rs`), by FTS5 itself in [`Fts5Marking`] for the rest.
    fn highlight(&mut self, texts: &[Option<&str>], query: &Query) -> Result<Vec<Option<String>>> {
        let mut marked = vec![None; texts.len()];
        let mut left = texts.to_vec();
        if let Some(expression) = Expression::parse(&query.expression) {
            for (text, slot) in left.iter_mut().zip(&mut marked) {
                if let Some(by_rust) =
                    text.and_then(|text| marking::highlight(text, &expression, OPEN, CLOSE))
                {
                    *slot = by_rust;
                    *text = None;
                }
            }
        }
        if left.iter().any(Option::is_some) {
            let by_fts5 = self
                .fts5
                .mark(&left, &[query.expression.as_str()])?
                .pop()
                .unwrap_or_default();
            for ((slot, text), by_fts5) in marked.iter_mut().zip(&left).zip(by_fts5) {
                if text.is_some() {
                    *slot = by_fts5;
                }
            }
        }
        Ok(marked)
    }
}

/// FTS5's own marking: `highlight()` over a scratch table in memory, so that the matches are
/// exactly the tokens the query matched, case and diacritics folded as the index folds them
/// (what marks every text `marking.rs` does not, and the reference it is checked against).
pub struct Fts5Marking<'connection> {
    connection: &'connection Connection,
    ready: bool,
    /// Rows the scratch table holds.
    rows: usize,
}

impl<'connection> Fts5Marking<'connection> {
    /// The marking done with `connection` (its scratch table, made when first needed).
    pub fn new(connection: &'connection Connection) -> Self {
        Self {
            connection,
            ready: false,
            rows: 0,
        }
    }

    /// For each of `expressions`, each of `texts` with its matches between [`OPEN`] and
    /// [`CLOSE`] (`None` where it has none), all in one transaction of the scratch table (one
    /// flush of its index; its rows stay until the connection closes, under row ids of their
    /// own).
    pub fn mark(
        &mut self,
        texts: &[Option<&str>],
        expressions: &[&str],
    ) -> Result<Vec<Vec<Option<String>>>> {
        if texts.iter().all(Option::is_none) {
            return Ok(vec![vec![None; texts.len()]; expressions.len()]);
        }
        if !self.ready {
            self.connection
                // No column sizes: `highlight()` does not need them, and each table FTS5
                // keeps costs a statement to create.
                .execute_batch(
                    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.marking USING fts5(text, columnsize=0)",
                )
                .context("failed to prepare the snippets")?;
            self.ready = true;
        }
        let first = self.rows;
        self.rows += texts.len();
        let transaction = self.connection.unchecked_transaction()?;
        let mut all = Vec::with_capacity(expressions.len());
        {
            let mut insert =
                transaction.prepare("INSERT INTO temp.marking(rowid, text) VALUES (?1, ?2)")?;
            for (index, text) in texts.iter().enumerate() {
                if let Some(text) = text {
                    insert.execute(params![first + index, text])?;
                }
            }
            let mut select = transaction.prepare(
                "SELECT rowid, highlight(marking, 0, ?2, ?3) FROM temp.marking \
                 WHERE marking MATCH ?1 AND rowid >= ?4",
            )?;
            for expression in expressions {
                let mut marked = vec![None; texts.len()];
                let rows = select.query_map(
                    params![expression, OPEN.to_string(), CLOSE.to_string(), first],
                    |row| Ok((row.get::<_, usize>(0)?, row.get::<_, String>(1)?)),
                )?;
                for row in rows {
                    let (row, text) = row?;
                    if let Some(slot) = marked.get_mut(row - first) {
                        *slot = Some(text);
                    }
                }
                all.push(marked);
            }
        }
        transaction.commit()?;
        Ok(all)
    }
}

/// A buffer that holds `hit`'s line: read into it in one piece, not in reads that start at
/// 32 bytes and double (a line is a few KiB to megabytes). Capped, so that a length the index
/// got wrong cannot ask for more memory than a bound; the line's hash is checked after.
fn line_buffer(hit: &Hit) -> Vec<u8> {
    const MOST_AT_ONCE: u64 = 64 * 1024 * 1024;
    Vec::with_capacity(usize::try_from(hit.length.min(MOST_AT_ONCE)).unwrap_or(0))
}

fn kept_part(state: &StateDir, hit: &Hit) -> Result<KeptPart> {
    let session = SessionId::parse(&hit.session)?;
    let dir = state.kept_dir(&session);
    let name = KeptName::parse(&hit.name)?;
    let index = GenerationIndex::read(&name.index_path(&dir, hit.generation))?;
    Ok(KeptPart { dir, name, index })
}

/// Where in `text` to mark matches: all of it, or when it is longer than [`WINDOW`], a window
/// from a little before the first place the first word of a query term appears (ASCII case
/// folded; from the start when none does).
fn window(text: &str, query: &Query) -> Range<usize> {
    if text.len() <= WINDOW {
        return 0..text.len();
    }
    let first = query
        .terms
        .iter()
        .filter_map(|term| {
            let word = term
                .split(|character: char| !character.is_alphanumeric())
                .find(|word| !word.is_empty())?;
            find_ascii_caseless(text.as_bytes(), word.as_bytes())
        })
        .min()
        .unwrap_or(0);
    let mut start = first.saturating_sub(WINDOW_BEFORE);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + WINDOW).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    start..end
}

/// Where `needle` first stands in `haystack`, ASCII letters' case folded (as comparing the two
/// lowercased would find it, without a lowercased copy of a text that can be megabytes).
///
/// The places to compare are found by the needle's rarest byte as `memchr` ranks bytes (its
/// guess for its own substring search), in either case: every place the needle stands holds
/// that byte that far in, and those bytes are met in order, so the first place that compares
/// equal is the first the needle stands. A word's first letter is often among the commonest (the
/// `c` of `compaction`: 1,679 places compared, each a call to `memchr2`, 0.18 M instructions of
/// a warm search).
fn find_ascii_caseless(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let folded = needle.to_ascii_lowercase();
    let rare = match memchr::arch::all::packedpair::Pair::new(&folded) {
        Some(pair) => usize::from(pair.index1()),
        None => 0,
    };
    let byte = *folded.get(rare)?;
    // Where the rare byte is looked for next: `rare` past the next place the needle may start.
    let mut at = rare;
    while let Some(found) = memchr::memchr2(byte, byte.to_ascii_uppercase(), haystack.get(at..)?) {
        let start = at + found - rare;
        let candidate = haystack.get(start..start + needle.len())?;
        if candidate.eq_ignore_ascii_case(needle) {
            return Some(start);
        }
        at += found + 1;
    }
    None
}

/// The part of `marked` around its first match, whitespace collapsed, with the matches' places;
/// `before` and `after`: the text goes on beyond `marked` (it is a window of it).
fn cut(marked: &str, before: bool, after: bool) -> Snippet {
    // Collapse whitespace; find matches in characters.
    let mut characters: Vec<char> = Vec::with_capacity(marked.len());
    let mut matches = Vec::new();
    let mut open_at = None;
    let mut space = false;
    for character in marked.chars() {
        match character {
            OPEN => {
                // The space before a match stays outside it.
                if space && !characters.is_empty() {
                    characters.push(' ');
                }
                space = false;
                open_at = Some(characters.len());
            }
            CLOSE => {
                if let Some(start) = open_at.take() {
                    matches.push((start, characters.len()));
                }
            }
            // Control characters too: a snippet never carries an escape sequence.
            _ if character.is_whitespace() || character.is_control() => space = true,
            _ => {
                if space && !characters.is_empty() {
                    characters.push(' ');
                }
                space = false;
                characters.push(character);
                // Past the longest snippet after the first match, nothing more is shown: a
                // character more says the text goes on.
                if let Some((first, _)) = matches.first()
                    && characters.len() > first + LONGEST
                {
                    break;
                }
            }
        }
    }
    let first = matches.first().map_or(0, |(start, _)| *start);
    let mut from = first.saturating_sub(BEFORE);
    // Start at a word when the cut falls inside one.
    if from > 0
        && let Some(space) = characters[from..first].iter().position(|c| *c == ' ')
    {
        from += space + 1;
    }
    let to = (from + LONGEST).min(characters.len());
    let lead = if from > 0 || before { "…" } else { "" };
    let tail = if to < characters.len() || after {
        "…"
    } else {
        ""
    };
    let shift = lead.chars().count();
    let text = format!(
        "{lead}{}{tail}",
        characters[from..to].iter().collect::<String>()
    );
    let matches = matches
        .into_iter()
        .filter(|(start, end)| *start >= from && *end <= to)
        .map(|(start, end)| (start - from + shift, end - from + shift))
        .collect();
    Snippet { text, matches }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caseless_find_finds_what_lowercased_copies_find() {
        let texts = [
            "",
            "a",
            "Compaction",
            "xx COMPACTION and compaction",
            "ÉtÉ été Été",
            "aaab",
            "ab",
        ];
        let needles = [
            "a",
            "ab",
            "aab",
            "compaction",
            "COMPaction",
            "été",
            "Été",
            "b",
            "abc",
        ];
        let by_copies = |text: &str, needle: &str| {
            memchr::memmem::find(
                text.to_ascii_lowercase().as_bytes(),
                needle.to_ascii_lowercase().as_bytes(),
            )
        };
        for text in texts {
            for needle in needles {
                assert_eq!(
                    find_ascii_caseless(text.as_bytes(), needle.as_bytes()),
                    by_copies(text, needle),
                    "{needle:?} in {text:?}"
                );
            }
        }
        // Every piece of a text as the needle, in both cases, in texts where the rarest byte
        // stands before, inside and after near misses, and at either end.
        for text in [
            "qaz zq Qz zQq qqzaz QAZQ",
            "xompaction cOmpactioN compaction ompactio",
            "ÉtÉ zéQ été Qé",
        ] {
            for start in 0..text.len() {
                for end in start + 1..=text.len() {
                    let Some(needle) = text.get(start..end) else {
                        continue;
                    };
                    for needle in [needle.to_owned(), needle.to_ascii_uppercase()] {
                        assert_eq!(
                            find_ascii_caseless(text.as_bytes(), needle.as_bytes()),
                            by_copies(text, &needle),
                            "{needle:?} in {text:?}"
                        );
                    }
                }
            }
        }
        assert_eq!(find_ascii_caseless(b"abc", b""), None);
    }

    #[test]
    fn a_long_text_is_marked_around_its_match_and_in_whole_when_the_window_misses_it() {
        let connection = Connection::open_in_memory().unwrap();
        let temp = ctxhooks_shared::test_support::TempFolder::new("snippet-window");
        let mut snippets =
            Snippets::new(&connection, &StateDir::at(temp.path().to_path_buf()), &[]);
        let query = super::super::query::parse("needle").unwrap();
        let filler = "hay ".repeat(2_000);
        // Deep in a long text: found through the window.
        let deep = format!("{filler}the needle here {filler}");
        // `needle` first appears inside a longer word, far before the real token: the window
        // misses it, and the whole text is marked.
        let decoy = format!("needlework {filler}{filler}the needle at last");
        let short = "a short needle".to_owned();
        let texts = [Some(deep), Some(decoy), None, Some(short)];
        let marked = snippets.mark(&texts, &query).unwrap();
        let words = |snippet: &Snippet| -> Vec<String> {
            let characters: Vec<char> = snippet.text.chars().collect();
            snippet
                .matches
                .iter()
                .map(|(start, end)| characters[*start..*end].iter().collect())
                .collect()
        };
        for index in [0, 1, 3] {
            let snippet = marked[index].as_ref().unwrap();
            assert_eq!(words(snippet), ["needle"], "{index}: {}", snippet.text);
        }
        assert!(marked[0].as_ref().unwrap().text.starts_with('…'));
        assert!(marked[0].as_ref().unwrap().text.ends_with('…'));
        assert!(marked[2].is_none());
        assert_eq!(marked[3].as_ref().unwrap().text, "a short needle");
    }

    /// `cut` as it was before it stopped reading past the longest snippet after the first
    /// match: every character collected.
    fn cut_reading_all(marked: &str, before: bool, after: bool) -> Snippet {
        let mut characters: Vec<char> = Vec::new();
        let mut matches = Vec::new();
        let mut open_at = None;
        let mut space = false;
        for character in marked.chars() {
            match character {
                OPEN => {
                    if space && !characters.is_empty() {
                        characters.push(' ');
                    }
                    space = false;
                    open_at = Some(characters.len());
                }
                CLOSE => {
                    if let Some(start) = open_at.take() {
                        matches.push((start, characters.len()));
                    }
                }
                _ if character.is_whitespace() || character.is_control() => space = true,
                _ => {
                    if space && !characters.is_empty() {
                        characters.push(' ');
                    }
                    space = false;
                    characters.push(character);
                }
            }
        }
        let first = matches.first().map_or(0, |(start, _)| *start);
        let mut from = first.saturating_sub(BEFORE);
        if from > 0
            && let Some(space) = characters[from..first].iter().position(|c| *c == ' ')
        {
            from += space + 1;
        }
        let to = (from + LONGEST).min(characters.len());
        let lead = if from > 0 || before { "…" } else { "" };
        let tail = if to < characters.len() || after {
            "…"
        } else {
            ""
        };
        let shift = lead.chars().count();
        let text = format!(
            "{lead}{}{tail}",
            characters[from..to].iter().collect::<String>()
        );
        let matches = matches
            .into_iter()
            .filter(|(start, end)| *start >= from && *end <= to)
            .map(|(start, end)| (start - from + shift, end - from + shift))
            .collect();
        Snippet { text, matches }
    }

    #[test]
    fn a_cut_stopped_past_the_longest_snippet_is_the_cut_of_it_all() {
        let mut cases = 0;
        for first in [0, 1, 30, 59, 60, 61, 100, 300] {
            for length in [1, 5, LONGEST - 1, LONGEST, LONGEST + 1, LONGEST + 40, 600] {
                for gap in ["", " ", "  \n", "\u{0}"] {
                    // Words before the first match, a match, words after it with more matches
                    // about the place the snippet ends.
                    let head: String = (0..first)
                        .map(|at| if at % 7 == 6 { ' ' } else { 'h' })
                        .collect();
                    let tail: String = (0..length)
                        .map(|at| if at % 5 == 4 { ' ' } else { 't' })
                        .collect();
                    let marked = format!(
                        "{head}{gap}{OPEN}word{CLOSE}{gap}{tail}{OPEN}m{CLOSE}é{gap}{OPEN}end{CLOSE}{gap}"
                    );
                    for (before, after) in [(false, false), (true, true)] {
                        assert_eq!(
                            cut(&marked, before, after),
                            cut_reading_all(&marked, before, after),
                            "{marked:?}"
                        );
                        cases += 1;
                    }
                    let unmarked = marked.replace([OPEN, CLOSE], "");
                    assert_eq!(
                        cut(&unmarked, false, false),
                        cut_reading_all(&unmarked, false, false)
                    );
                }
            }
        }
        assert!(cases > 100);
    }

    #[test]
    fn cuts_around_the_first_match_and_keeps_the_matches_places() {
        let words = "word ".repeat(40);
        let marked = format!("{words}the {OPEN}needle{CLOSE}  in\nthe {OPEN}hay{CLOSE}");
        let snippet = cut(&marked, false, false);
        assert!(snippet.text.starts_with('…'), "{}", snippet.text);
        let chars: Vec<char> = snippet.text.chars().collect();
        let found: Vec<String> = snippet
            .matches
            .iter()
            .map(|(start, end)| chars[*start..*end].iter().collect())
            .collect();
        assert_eq!(found, ["needle", "hay"]);
        assert!(
            snippet.text.ends_with("needle in the hay"),
            "{}",
            snippet.text
        );
    }
}
