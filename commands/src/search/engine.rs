//! One search, as `ctxhooks search` and the MCP server's `search` tool run it: the index opened
//! (rebuilt when damaged), brought up to date with every source, queried, and each result given
//! its snippet and the commands that continue from it.

use std::path::{Path, PathBuf};

use anyhow::Result;
use rustc_hash::{FxBuildHasher, FxHashMap};
use serde::Serialize;

use super::database::{self, Database, is_damage};
use super::find::{Filters, Finding, Hit, find};
use super::known_parents::KnownParents;
use super::progress::Progress;
use super::query::{Query, Tier, parse};
use super::role::Role;
use super::snippet::{Origin, Snippet, Snippets};
use super::sources::{Source, find_kept_sources};
use super::update::{Updated, update};
use crate::output::Schema;
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
pub fn search(state: &StateDir, request: &Request, progress: &Progress) -> Result<Outcome> {
    let query = parse(&request.query)?;
    let mut problems = Vec::new();
    // The kept copies first: a state folder whose sessions cannot be listed fails the search
    // before the index is opened (or created).
    let kept = find_kept_sources(state, &mut problems)?;
    let database = database::open(state)?;
    // A 2.0.x flat sub-agent's file read before and looking the same is under its session then.
    let known = KnownParents::of(&database.connection);
    let sources = kept.with_the_rest(state, &request.projects, &mut problems, &|path, facts| {
        known.parent(path, facts)
    });
    let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
    let outcome = match search_in(state, &database, &sources, &query, request, progress) {
        Err(error) if is_damage(&error) => {
            // Damage found past the open's check: the index is rebuilt, never trusted.
            let reason = format!("it is damaged ({error:#})");
            let path = database.path.clone();
            drop(database);
            let database = database::rebuild(&path, reason)?;
            search_in(state, &database, &sources, &query, request, progress)
        }
        outcome => outcome,
    };
    outcome.map(|outcome| Outcome {
        problems,
        ..outcome
    })
}

fn search_in(
    state: &StateDir,
    database: &Database,
    sources: &[Source],
    query: &Query,
    request: &Request,
    progress: &Progress,
) -> Result<Outcome> {
    let Updated {
        bytes, messages, ..
    } = update(&database.connection, sources, progress)?;
    let Finding {
        tiers,
        hits,
        widened,
    } = find(&database.connection, query, &request.filters, request.limit)?;
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

/// Hashed by `FxHash` and given its room at once, as the other maps of a search's own names are:
/// it is made at every search, for every session found.
fn places(sources: &[Source]) -> FxHashMap<&str, Place> {
    let mut places: FxHashMap<&str, Place> =
        FxHashMap::with_capacity_and_hasher(sources.len(), FxBuildHasher);
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
