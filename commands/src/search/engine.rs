//! One search, as `ctxhooks search` and the MCP server's `search` tool run it: the index opened
//! (rebuilt when damaged), brought up to date with every source, queried, and each result given
//! its snippet and the commands that continue from it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Result;
use rusqlite::Connection;
use serde::Serialize;

use super::database::{self, Database, is_damage};
use super::find::{Filters, Finding, Hit, find};
use super::progress::Progress;
use super::query::{Query, Tier, parse};
use super::role::Role;
use super::snippet::{Origin, Snippet, Snippets};
use super::sources::{Source, find_sources};
use super::update::{Indexed, Updated, update};
use crate::output::Schema;
use crate::projects::discover::Problem;
use crate::render::shell::shell_word_bare_equals;
use crate::time::Time;
use ctxhooks_shared::store::kept::MAIN_NAME;
use ctxhooks_shared::store::state_dir::StateDir;

/// What to search for.
#[allow(
    missing_docs,
    reason = "plain data: the type's documentation says what its fields are"
)]
#[derive(Debug, Clone)]
pub struct Request {
    pub query: String,
    pub filters: Filters,
    pub limit: usize,
    /// The projects folders that hold live transcripts.
    pub projects: Vec<PathBuf>,
}

/// A match, ranked, with where it is and how to go on from it.
#[allow(
    missing_docs,
    reason = "plain data: the type's documentation says what its fields are"
)]
#[derive(Debug, Clone, Serialize)]
pub struct Found {
    /// How it matched: the results are in this order.
    pub tier: Tier,
    /// That, in words.
    pub why: String,
    /// The session's full id.
    pub session: String,
    /// Its first 8 characters, as people type it.
    pub short_session: String,
    /// The project's folder (the transcript's `cwd`), else Claude Code's name for it.
    pub project: Option<String>,
    /// When it was said (RFC 3339 UTC, to the millisecond).
    pub time: Option<Time>,
    pub role: Role,
    /// The sub-agent's kept name, when a sub-agent said it.
    pub subagent: Option<String>,
    /// The schema 1 snapshot whose copy it was found in (its live transcript and kept copy
    /// hold it no more).
    pub snapshot: Option<String>,
    pub snippet: Snippet,
    /// Where its text was read from now.
    pub origin: Origin,
    /// The kept generation (0: a transcript ctxhooks does not keep).
    pub generation: u32,
    /// The line's byte offset in its transcript.
    pub offset: u64,
    /// Commands that go on from here.
    pub next: Vec<String>,
}

/// A search's answer.
#[allow(
    missing_docs,
    reason = "plain data: the type's documentation says what its fields are"
)]
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub query: String,
    pub results: Vec<Found>,
    /// The wider query run because no message held all the words, or offered because a query
    /// with operators or quotes found nothing.
    pub widened: Option<Widened>,
    /// Why the index was rebuilt from nothing at this search, when it was.
    pub rebuilt: Option<String>,
    /// Transcript bytes read into the index before the search.
    pub indexed_bytes: u64,
    /// Messages added to the index before the search.
    pub indexed_messages: u64,
    /// What could not be read in the projects folders, in words.
    pub problems: Vec<String>,
}

/// A search's JSON layout: schema 2 ranks the results by tier and adds `tier`, `why` and
/// `widened` (schema 1, ranked by BM25 alone, printed no `schema`).
impl Schema for Outcome {
    const SCHEMA: u32 = 2;
}

/// A wider query than the one asked.
#[derive(Debug, Clone, Serialize)]
pub struct Widened {
    /// The FTS5 expression that ran, or the words offered to search for instead.
    pub query: String,
    /// True when it ran (nothing held all the words); false when it is offered (a query with
    /// operators or quotes found nothing, and is never widened unasked).
    pub ran: bool,
}

/// Runs `request` over the index of `state`.
///
/// When there is an index, a second thread opens it and runs the query on it as it stands while
/// this one looks for the sources (system calls and paths, no database): the usual search finds
/// every source as the index holds it, and that finding is then its answer; otherwise the index
/// is brought up to date and the query run again. Either way the answer, and each error, is the
/// one the steps taken in turn give: the query parsed, the sources found, the index opened,
/// updated and queried (when the sources cannot be found, an index that was there may have been
/// opened meanwhile, and rebuilt if it was damaged, as the next search would).
pub fn search(state: &StateDir, request: &Request, progress: &Progress) -> Result<Outcome> {
    let query = parse(&request.query)?;
    // A new index is built from nothing (seconds, which no guess spares), and nothing is created
    // before the sources are found. (A link there is looked at, never followed.)
    let (found, opened) = if fs_err::symlink_metadata(state.search_index()).is_ok() {
        let (found, opened) = look_while_guessing(state, &query, request);
        (found, Some(opened))
    } else {
        (look_for_sources(state, &request.projects), None)
    };
    // The sources' error comes first, as when the index was opened only once they were found.
    let (sources, problems) = found?;
    let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
    let (database, guess) = match opened {
        Some(opened) => opened?,
        None => (database::open(state)?, None),
    };
    let outcome = match search_in(state, &database, &sources, &query, request, progress, guess) {
        Err(error) if is_damage(&error) => {
            // Damage found past the open's check: the index is rebuilt, never trusted.
            let reason = format!("it is damaged ({error:#})");
            let path = database.path.clone();
            drop(database);
            let database = database::rebuild(&path, reason)?;
            search_in(state, &database, &sources, &query, request, progress, None)
        }
        outcome => outcome,
    };
    outcome.map(|outcome| Outcome {
        problems,
        ..outcome
    })
}

/// The sources looked for on this thread while a second one opens the index and guesses. A
/// thread can start late (a core woken from idle may take a millisecond): when it has not begun
/// by the time the sources are found, this one opens and guesses itself, and that thread, once
/// it starts, finds the work taken and ends, never waited for.
fn look_while_guessing(
    state: &StateDir,
    query: &Query,
    request: &Request,
) -> (Result<Looked>, Result<(Database, Option<Guess>)>) {
    // Set by whichever thread takes the work first.
    let taken = Arc::new(AtomicBool::new(false));
    let guessing = {
        let (taken, state, query, request) = (
            Arc::clone(&taken),
            state.clone(),
            query.clone(),
            request.clone(),
        );
        std::thread::Builder::new()
            .name("search-guess".to_owned())
            .spawn(move || {
                (!taken.swap(true, Ordering::AcqRel))
                    .then(|| open_and_guess(&state, &query, &request))
            })
    };
    let found = look_for_sources(state, &request.projects);
    let theirs = if taken.swap(true, Ordering::AcqRel) {
        // Taken there: its answer, or its panic as this thread's, as had it been done here.
        guessing.ok().and_then(|guessing| {
            guessing
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    } else {
        // Not begun there, or no thread to be had.
        None
    };
    let opened = theirs.unwrap_or_else(|| open_and_guess(state, query, request));
    (found, opened)
}

/// Every source, and what could not be read in the projects folders.
type Looked = (Vec<Source>, Vec<Problem>);

/// Looks for every source ([`find_sources`]).
fn look_for_sources(state: &StateDir, projects: &[PathBuf]) -> Result<Looked> {
    let mut problems = Vec::new();
    let sources = find_sources(state, projects, &mut problems)?;
    Ok((sources, problems))
}

/// The index opened, and the query run on it as it stands.
fn open_and_guess(
    state: &StateDir,
    query: &Query,
    request: &Request,
) -> Result<(Database, Option<Guess>)> {
    let database = database::open(state)?;
    // No read transaction to be had: the steps are taken in turn.
    let guess = Guess::take(&database.connection, query, request).ok();
    Ok((database, guess))
}

/// The query run on the index as it stood before the sources were known, with what the index
/// held then.
struct Guess {
    indexed: Indexed,
    /// The query's finding, or why it failed; none when not every source's row could be read
    /// (a finding [`up_to_date`] would not use).
    finding: Option<Result<Finding>>,
}

impl Guess {
    /// Both read in one read transaction: what the index held is what the query ran on, whatever
    /// another search writes meanwhile (it can commit only once this has ended).
    fn take(connection: &Connection, query: &Query, request: &Request) -> Result<Self> {
        let transaction = connection.unchecked_transaction()?;
        let indexed = Indexed::read(connection);
        let finding = indexed
            .is_whole()
            .then(|| find(connection, query, &request.filters, request.limit));
        // A read: its end (a rollback, nothing to undo) cannot change what was read.
        drop(transaction);
        Ok(Self { indexed, finding })
    }
}

/// The index brought up to date with `sources` and the query run on it: when the index held
/// every source as it is now (the usual search: nothing changed since the last one, seen
/// without taking the write lock), `guess`'s finding, which is what a query now would find;
/// otherwise the index updated and the query run again.
fn up_to_date(
    connection: &Connection,
    sources: &[Source],
    query: &Query,
    request: &Request,
    progress: &Progress,
    guess: Option<Guess>,
) -> Result<(Updated, Finding)> {
    let (indexed, guessed) = match guess {
        Some(Guess { indexed, finding }) => (indexed, finding),
        None => (Indexed::read(connection), None),
    };
    if indexed.holds(sources)? {
        let finding = match guessed {
            Some(finding) => finding?,
            None => find(connection, query, &request.filters, request.limit)?,
        };
        return Ok((Updated::default(), finding));
    }
    // A finding in an index that differs from the files is never the answer.
    let updated = update(connection, sources, progress)?;
    let finding = find(connection, query, &request.filters, request.limit)?;
    Ok((updated, finding))
}

fn search_in(
    state: &StateDir,
    database: &Database,
    sources: &[Source],
    query: &Query,
    request: &Request,
    progress: &Progress,
    guess: Option<Guess>,
) -> Result<Outcome> {
    let (
        Updated {
            bytes, messages, ..
        },
        Finding {
            tiers,
            hits,
            widened,
        },
    ) = up_to_date(
        &database.connection,
        sources,
        query,
        request,
        progress,
        guess,
    )?;
    let places = places(sources);
    let mut snippets = Snippets::new(&database.connection, state, sources);
    let mut results = Vec::new();
    // Each tier's hits are marked with its own expression (a prefix matched in `any` is marked).
    for chunk in hits.chunk_by(|(one, _), (other, _)| one == other) {
        let tier = &tiers[chunk[0].0];
        let marking = Query {
            expression: tier.expression.clone(),
            ..query.clone()
        };
        let chunk_hits: Vec<Hit> = chunk.iter().map(|(_, hit)| hit.clone()).collect();
        let marked = snippets.of(&chunk_hits, &marking)?;
        for (hit, snippet) in chunk_hits.into_iter().zip(marked) {
            let (snippet, origin) = snippet.unwrap_or((Snippet::default(), Origin::Live));
            let next = next_commands(&hit, places.get(hit.session.as_str()), query);
            results.push(found(
                tier.tier,
                tier.why.clone(),
                hit,
                snippet,
                origin,
                next,
            ));
        }
    }
    let widened = match widened {
        Some(expression) => Some(Widened {
            query: expression,
            ran: true,
        }),
        None if results.is_empty() => query.offered().map(|words| Widened {
            query: words,
            ran: false,
        }),
        None => None,
    };
    Ok(Outcome {
        query: request.query.clone(),
        results,
        widened,
        rebuilt: database.rebuilt.clone(),
        indexed_bytes: bytes,
        indexed_messages: messages,
        problems: Vec::new(),
    })
}

fn found(
    tier: Tier,
    why: String,
    hit: Hit,
    snippet: Snippet,
    origin: Origin,
    next: Vec<String>,
) -> Found {
    Found {
        tier,
        why,
        short_session: hit.session.chars().take(8).collect(),
        subagent: hit.subagent.then(|| hit.name.clone()),
        snapshot: hit.snapshot.clone(),
        session: hit.session,
        project: hit.project,
        time: hit.time,
        role: hit.role,
        snippet,
        origin,
        generation: hit.generation,
        offset: hit.offset,
        next,
    }
}

/// Where a session's main transcript is: Claude Code's file (present or gone) and whether
/// ctxhooks keeps it.
#[derive(Debug, Default)]
struct Place {
    transcript: Option<PathBuf>,
    kept: bool,
}

fn places(sources: &[Source]) -> HashMap<&str, Place> {
    let mut places: HashMap<&str, Place> = HashMap::new();
    for source in sources
        .iter()
        .filter(|source| !source.subagent && source.snapshot.is_none())
    {
        let place = places.entry(source.session.as_str()).or_default();
        if source.kept.is_some() {
            place.kept = true;
        }
        if let Some(file) = &source.file {
            place.transcript = Some(file.clone());
        }
    }
    places
}

/// `ctxhooks recall` at the match (when ctxhooks keeps the main transcript it is in), then
/// `claude --resume` when Claude Code still has the transcript, else `ctxhooks archives
/// restore` first.
fn next_commands(hit: &Hit, place: Option<&Place>, query: &Query) -> Vec<String> {
    let mut next = Vec::new();
    let empty = Place::default();
    let place = place.unwrap_or(&empty);
    let session = &hit.session;
    if place.kept
        && hit.name == MAIN_NAME
        && let Some(term) = query.terms.first()
    {
        next.push(format!(
            "ctxhooks recall --session {session} {}",
            shell_word_bare_equals(term)
        ));
    }
    let present = place
        .transcript
        .as_deref()
        .is_some_and(|path| fs_err::symlink_metadata(path).is_ok_and(|m| m.is_file()));
    let resume = match hit
        .project
        .as_deref()
        .filter(|project| Path::new(project).is_dir())
    {
        Some(project) => format!(
            "cd {} && claude --resume {session}",
            shell_word_bare_equals(project)
        ),
        None => format!("claude --resume {session}"),
    };
    if present {
        next.push(resume);
    } else if let Some(snapshot) = &hit.snapshot {
        next.push(format!(
            "ctxhooks archives restore --session {session} --snapshot {}",
            shell_word_bare_equals(snapshot)
        ));
        next.push(resume);
    } else if place.kept {
        next.push(format!("ctxhooks archives restore --session {session}"));
        next.push(resume);
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxhooks_shared::test_support::TempFolder;
    use std::io::Write as _;

    const SESSION: &str = "0f0e0d0c-0000-4000-8000-0000000000aa";

    fn said(uuid: &str, text: &str) -> String {
        serde_json::json!({"type": "user", "uuid": uuid, "sessionId": SESSION, "cwd": "/work/demo",
            "timestamp": "2026-11-01T10:00:00.000Z", "message": {"role": "user", "content": text}})
        .to_string()
            + "\n"
    }

    /// The guess is taken while the sources are looked for, and another search may bring the
    /// index up to date in between: the guess's finding stands only if the index it was found
    /// in held the sources as they are, never because the index holds them by the time they
    /// are known.
    #[test]
    fn a_guess_is_checked_against_the_index_it_was_found_in() {
        let temp = TempFolder::new("search-guess");
        let state = StateDir::at(temp.join("state"));
        let projects = temp.join("projects");
        let transcript = projects.join("-work-demo").join(format!("{SESSION}.jsonl"));
        fs_err::create_dir_all(transcript.parent().unwrap()).unwrap();
        fs_err::write(&transcript, said("u1", "the first kumquat")).unwrap();
        let request = Request {
            query: "tamarind".to_owned(),
            filters: Filters::default(),
            limit: 10,
            projects: vec![projects],
        };
        let query = parse(&request.query).unwrap();
        let progress = Progress::silent();
        let database = database::open(&state).unwrap();
        let (sources, _) = look_for_sources(&state, &request.projects).unwrap();
        let (updated, finding) = up_to_date(
            &database.connection,
            &sources,
            &query,
            &request,
            &progress,
            None,
        )
        .unwrap();
        assert_eq!(updated.messages, 1);
        assert!(finding.hits.is_empty());

        let guess = Guess::take(&database.connection, &query, &request).unwrap();
        let mut file = fs_err::OpenOptions::new()
            .append(true)
            .open(&transcript)
            .unwrap();
        file.write_all(said("u2", "then a tamarind").as_bytes())
            .unwrap();
        drop(file);
        let (sources, _) = look_for_sources(&state, &request.projects).unwrap();
        let other = database::open(&state).unwrap();
        let (updated, _) = up_to_date(
            &other.connection,
            &sources,
            &query,
            &request,
            &progress,
            None,
        )
        .unwrap();
        assert_eq!(updated.messages, 1);

        // The index holds the files as they are now; the guess was found before they grew.
        let (updated, finding) = up_to_date(
            &database.connection,
            &sources,
            &query,
            &request,
            &progress,
            Some(guess),
        )
        .unwrap();
        assert_eq!(updated.messages, 0);
        assert_eq!(finding.hits.len(), 1, "{finding:?}");
        // And a guess taken now is the answer.
        let guess = Guess::take(&database.connection, &query, &request).unwrap();
        let (_, finding) = up_to_date(
            &database.connection,
            &sources,
            &query,
            &request,
            &progress,
            Some(guess),
        )
        .unwrap();
        assert_eq!(finding.hits.len(), 1, "{finding:?}");
    }
}
