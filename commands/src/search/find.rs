//! Running a query against the index: the matching messages within the filters, best first, each
//! line once (the same line kept in two generations, or read from the live transcript and its
//! kept copy, or held by an old snapshot's copy, is one result). Best first is by tier (how the
//! message matched: [`Tier`]), each tier one FTS5 query of its own with a `LIMIT`, run until
//! enough are found; within a tier, what a person typed or the model wrote before a tool's call or
//! output and a compaction's summary, then FTS5's BM25 rank, then the newest.

use std::collections::HashSet;

use anyhow::{Context as _, Result};
use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{Connection, params};

use super::query::{Query, Tier, TierQuery};
use super::role::Role;
use crate::time::Time;
use ctxhooks_shared::store::session_id::SessionId;

/// What the results are narrowed to.
#[allow(
    missing_docs,
    reason = "plain data: the type's documentation says what its fields are"
)]
#[derive(Debug, Clone, Default)]
pub struct Filters {
    /// Part of the project's path.
    pub project: Option<String>,
    /// The session's id or its start (which follows the same rule).
    pub session: Option<SessionId>,
    pub role: Option<Role>,
    /// At or after this instant.
    pub since: Option<DateTime<Utc>>,
    /// At or before this instant.
    pub until: Option<DateTime<Utc>>,
}

/// One matching message, as the index knows it.
#[allow(
    missing_docs,
    reason = "plain data: the type's documentation says what its fields are"
)]
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub session: String,
    /// The kept name of its transcript (`transcript.jsonl` or a sub-agent's).
    pub name: String,
    /// The kept generation it was read from (0: a transcript ctxhooks does not keep).
    pub generation: u32,
    /// Whether a sub-agent's transcript holds it.
    pub subagent: bool,
    /// The schema 1 snapshot whose copy holds it.
    pub snapshot: Option<String>,
    pub project: Option<String>,
    /// Where its line starts in the transcript, and its length without the newline.
    pub offset: u64,
    pub length: u64,
    pub role: Role,
    /// When it was said (to the millisecond, as transcripts write it).
    pub time: Option<Time>,
    pub line_hash: i64,
    /// BM25 (lower is better).
    pub rank: f64,
}

/// What [`find`] found.
#[derive(Debug, Clone, Default)]
pub struct Finding {
    /// The tiers run or to run, in order ([`Query::tiers`]).
    pub tiers: Vec<TierQuery>,
    /// The matches, best first, each with the index of its tier in `tiers`.
    pub hits: Vec<(usize, Hit)>,
    /// The [`Tier::Any`] query, when it ran (no message held all the words).
    pub widened: Option<String>,
}

/// Rows asked of a tier's query for each result still wanted: a line kept in several generations
/// is one result of several rows.
const ROWS_PER_RESULT: usize = 3;

/// The best `limit` messages matching `query` within `filters`: the tiers in order, each asked
/// only for what is still wanted; [`Tier::Any`] only when the tiers before it found nothing.
pub fn find(
    connection: &Connection,
    query: &Query,
    filters: &Filters,
    limit: usize,
) -> Result<Finding> {
    let mut finding = Finding {
        tiers: query.tiers(),
        ..Finding::default()
    };
    let mut seen = HashSet::new();
    for (step, tier) in finding.tiers.iter().enumerate() {
        if finding.hits.len() >= limit {
            break;
        }
        if tier.tier == Tier::Any && finding.widened.is_none() {
            if !finding.hits.is_empty() {
                break;
            }
            finding.widened = Some(query.widened());
        }
        find_in_tier(
            connection,
            (step, tier),
            filters,
            limit,
            &mut seen,
            &mut finding.hits,
        )?;
    }
    Ok(finding)
}

/// Adds to `hits` the best of `tier`'s matches not `seen`, with `step` (the tier's index), until
/// `hits` holds `limit`.
fn find_in_tier(
    connection: &Connection,
    (step, tier): (usize, &TierQuery),
    filters: &Filters,
    limit: usize,
    seen: &mut HashSet<(String, i64)>,
    hits: &mut Vec<(usize, Hit)>,
) -> Result<()> {
    // A tier's matches hold the earlier tiers' (found whole, or this tier would not run):
    // enough rows for those and for the results still wanted.
    let mut rows_wanted = limit * ROWS_PER_RESULT;
    loop {
        let rows = matches(connection, &tier.expression, filters, rows_wanted)?;
        let complete = rows.len() < rows_wanted;
        for hit in rows {
            // The same line in another generation, the live file, or an old snapshot's copy.
            if seen.insert((hit.session.clone(), hit.line_hash)) {
                hits.push((step, hit));
                if hits.len() >= limit {
                    return Ok(());
                }
            }
        }
        if complete {
            return Ok(());
        }
        // Copies took the rows: ask again for more (those seen are passed over).
        rows_wanted = rows_wanted.saturating_mul(4);
    }
}

/// The first `rows` rows matching `expression` within `filters`, in the order of a tier.
///
/// The `LIMIT` is written into the statement, not bound: `SQLite` plans a query by its limit
/// when it is a number, and a limit bound after the statement was prepared made it prepare the
/// whole statement a second time at its first step (0.3 M instructions, 3.6 % of a warm
/// search; BENCHMARKS.md). The plan is the one the bound limit gave after that second
/// preparation; each limit is a statement of its own in the connection's cache.
fn matches(
    connection: &Connection,
    expression: &str,
    filters: &Filters,
    rows: usize,
) -> Result<Vec<Hit>> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT s.session, s.name, s.generation, s.project, m.offset, m.length, m.role, m.at, \
         m.line_hash, body.rank, s.subagent, s.snapshot \
         FROM body JOIN messages m ON m.id = body.rowid JOIN sources s ON s.id = m.source \
         WHERE body MATCH ?1 \
         AND (?2 IS NULL OR instr(s.project, ?2) > 0) \
         AND (?3 IS NULL OR substr(s.session, 1, length(?3)) = ?3) \
         AND (?4 IS NULL OR m.role = ?4) \
         AND (?5 IS NULL OR m.at >= ?5) \
         AND (?6 IS NULL OR m.at <= ?6) \
         ORDER BY m.said DESC, body.rank, m.at DESC \
         LIMIT {}",
        i64::try_from(rows).unwrap_or(i64::MAX)
    ))?;
    let rows = statement.query_map(
        params![
            expression,
            filters.project,
            filters.session.as_ref().map(SessionId::as_str),
            filters.role.map(Role::code),
            filters.since.map(|since| since.timestamp_millis()),
            filters.until.map(|until| until.timestamp_millis()),
        ],
        |row| {
            Ok(Hit {
                session: row.get(0)?,
                name: row.get(1)?,
                generation: row.get(2)?,
                project: row.get(3)?,
                offset: row.get(4)?,
                length: row.get(5)?,
                role: Role::from_code(row.get(6)?).unwrap_or(Role::User),
                time: row
                    .get::<_, Option<i64>>(7)?
                    .and_then(DateTime::from_timestamp_millis)
                    .map(|instant| Time::at(instant, SecondsFormat::Millis)),
                line_hash: row.get(8)?,
                rank: row.get(9)?,
                subagent: row.get(10)?,
                snapshot: row.get(11)?,
            })
        },
    );
    let rows = rows.context("failed to search the index")?;
    // The query was checked by FTS5 itself when it was parsed: an error here is the index's.
    rows.collect::<rusqlite::Result<Vec<Hit>>>()
        .context("failed to search the index")
}
