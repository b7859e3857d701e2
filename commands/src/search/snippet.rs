//! A result's snippet, made from the source bytes (the index keeps no text): the matched line is
//! read back from the kept copy or the live transcript at its recorded offset, checked to be the
//! line indexed (its hash), read as the conversation reader reads it, and its matches found by
//! FTS5 itself (`highlight()` over a scratch table in memory), so they are exactly the tokens
//! the query matched, case and diacritics folded as the index folds them.

use std::collections::HashMap;
use std::io::Read as _;
use std::path::PathBuf;

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension as _, params};
use serde::Serialize;

use super::find::Hit;
use super::message::message_text;
use super::prepare::line_hash;
use super::query::Query;
use super::reading::{file_range, kept_range, open_file};
use super::sources::KeptPart;
use ctxhooks_shared::store::kept::{GenerationIndex, KeptName};
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::transcript::conversation::{Entry, read_entry, read_subagent_entry};

/// Characters of context shown before the first match.
const BEFORE: usize = 60;
/// The longest snippet, in characters.
const LONGEST: usize = 220;
/// Marks put around each match by `highlight()` (private-use characters, removed from the text
/// first).
const OPEN: char = '\u{E000}';
const CLOSE: char = '\u{E001}';

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
    /// The kept copy.
    Kept,
    /// The live transcript (past what is kept, or not kept at all).
    Live,
}

/// Reads hits' lines back and marks their matches.
pub struct Snippets<'connection> {
    connection: &'connection Connection,
    state: StateDir,
    kept: HashMap<(String, String, u32), Option<KeptPart>>,
    ready: bool,
}

impl<'connection> Snippets<'connection> {
    /// Snippets read with `connection` (its scratch table) from the kept copies of `state`.
    pub fn new(connection: &'connection Connection, state: &StateDir) -> Self {
        Self {
            connection,
            state: state.clone(),
            kept: HashMap::new(),
            ready: false,
        }
    }

    /// The snippet of each of `hits` and where it was read from; `None` for one whose line can
    /// no longer be read as it was indexed (the file changed since: the next search re-reads
    /// it).
    pub fn of(&mut self, hits: &[Hit], query: &Query) -> Result<Vec<Option<(Snippet, Origin)>>> {
        let mut texts = Vec::with_capacity(hits.len());
        for hit in hits {
            texts.push(self.text(hit)?);
        }
        let mut marked = self.highlight(&texts, query)?;
        Ok(texts
            .into_iter()
            .zip(marked.iter_mut())
            .map(|(text, marked)| {
                text.map(|(text, origin)| (cut(marked.as_deref().unwrap_or(&text)), origin))
            })
            .collect())
    }

    /// The text of `hit`'s message as the index read it, and where it was read from.
    fn text(&mut self, hit: &Hit) -> Result<Option<(String, Origin)>> {
        let Some((bytes, origin)) = self.line(hit)? else {
            return Ok(None);
        };
        let entry = if hit.subagent {
            read_subagent_entry(&bytes)
        } else {
            read_entry(&bytes)
        };
        let Some(Entry::Message { parts, .. }) = entry else {
            return Ok(None);
        };
        let mut text = String::new();
        message_text(&parts, &mut text);
        Ok(Some((text.replace([OPEN, CLOSE], " "), origin)))
    }

    /// The line's bytes, from the kept copy when it keeps them, else from the live file.
    fn line(&mut self, hit: &Hit) -> Result<Option<(Vec<u8>, Origin)>> {
        let end = hit.offset + hit.length;
        if hit.generation > 0 {
            let key = (hit.session.clone(), hit.name.clone(), hit.generation);
            let state = &self.state;
            let part = self
                .kept
                .entry(key)
                .or_insert_with(|| kept_part(state, hit).ok());
            if let Some(part) = part.as_ref().filter(|part| part.index.length() >= end) {
                let mut bytes = Vec::new();
                kept_range(part, hit.offset, end)?.read_to_end(&mut bytes)?;
                if line_hash(&bytes) == hit.line_hash {
                    return Ok(Some((bytes, Origin::Kept)));
                }
            }
        }
        let path: Option<String> = self
            .connection
            .prepare_cached(
                "SELECT file_path FROM sources WHERE session = ?1 AND name = ?2 AND generation = ?3",
            )?
            .query_row(params![hit.session, hit.name, hit.generation], |row| {
                row.get(0)
            })
            .optional()?
            .flatten();
        let Some(path) = path else {
            return Ok(None);
        };
        let Some(file) = open_file(&PathBuf::from(path)).ok().flatten() else {
            return Ok(None);
        };
        if file.size() < end {
            return Ok(None);
        }
        let mut bytes = Vec::new();
        file_range(file, hit.offset, hit.length)?.read_to_end(&mut bytes)?;
        Ok((line_hash(&bytes) == hit.line_hash).then_some((bytes, Origin::Live)))
    }

    /// Each of `texts` with FTS5's matches of `query` between [`OPEN`] and [`CLOSE`] (`None`
    /// where it has none), all in one transaction of the scratch table (one flush of its index).
    fn highlight(
        &mut self,
        texts: &[Option<(String, Origin)>],
        query: &Query,
    ) -> Result<Vec<Option<String>>> {
        if !self.ready {
            self.connection
                .execute_batch("CREATE VIRTUAL TABLE IF NOT EXISTS temp.marking USING fts5(text)")
                .context("failed to prepare the snippets")?;
            self.ready = true;
        }
        let mut marked = vec![None; texts.len()];
        let transaction = self.connection.unchecked_transaction()?;
        {
            let mut insert =
                transaction.prepare("INSERT INTO temp.marking(rowid, text) VALUES (?1, ?2)")?;
            for (row, text) in texts.iter().enumerate() {
                if let Some((text, _)) = text {
                    insert.execute(params![row, text])?;
                }
            }
            let mut select = transaction.prepare(
                "SELECT rowid, highlight(marking, 0, ?2, ?3) FROM temp.marking WHERE marking MATCH ?1",
            )?;
            let rows = select.query_map(
                params![query.expression, OPEN.to_string(), CLOSE.to_string()],
                |row| Ok((row.get::<_, usize>(0)?, row.get::<_, String>(1)?)),
            )?;
            for row in rows {
                let (row, text) = row?;
                if let Some(slot) = marked.get_mut(row) {
                    *slot = Some(text);
                }
            }
        }
        transaction.execute("DELETE FROM temp.marking", [])?;
        transaction.commit()?;
        Ok(marked)
    }
}

fn kept_part(state: &StateDir, hit: &Hit) -> Result<KeptPart> {
    let session = SessionId::parse(&hit.session)?;
    let dir = state.kept_dir(&session);
    let name = KeptName::parse(&hit.name)?;
    let index = GenerationIndex::read(&name.index_path(&dir, hit.generation))?;
    Ok(KeptPart { dir, name, index })
}

/// The part of `marked` around its first match, whitespace collapsed, with the matches' places.
fn cut(marked: &str) -> Snippet {
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
    let lead = if from > 0 { "…" } else { "" };
    let tail = if to < characters.len() { "…" } else { "" };
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
    fn cuts_around_the_first_match_and_keeps_the_matches_places() {
        let words = "word ".repeat(40);
        let marked = format!("{words}the {OPEN}needle{CLOSE}  in\nthe {OPEN}hay{CLOSE}");
        let snippet = cut(&marked);
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
