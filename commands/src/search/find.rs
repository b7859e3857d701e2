//! Running a query against the index: the matching messages, best first (FTS5's BM25 rank),
//! within the filters, each line once (the same line kept in two generations, or read from the
//! live transcript and its kept copy, or held by an old snapshot's copy, is one result).

use std::collections::HashSet;

use anyhow::{Context as _, Result};
use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{Connection, params};

use super::query::Query;
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

/// The best `limit` messages matching `query` within `filters`.
pub fn find(
    connection: &Connection,
    query: &Query,
    filters: &Filters,
    limit: usize,
) -> Result<Vec<Hit>> {
    let mut statement = connection.prepare_cached(
        "SELECT s.session, s.name, s.generation, s.project, m.offset, m.length, m.role, m.at, \
         m.line_hash, body.rank, s.subagent, s.snapshot \
         FROM body JOIN messages m ON m.id = body.rowid JOIN sources s ON s.id = m.source \
         WHERE body MATCH ?1 \
         AND (?2 IS NULL OR instr(s.project, ?2) > 0) \
         AND (?3 IS NULL OR substr(s.session, 1, length(?3)) = ?3) \
         AND (?4 IS NULL OR m.role = ?4) \
         AND (?5 IS NULL OR m.at >= ?5) \
         AND (?6 IS NULL OR m.at <= ?6) \
         ORDER BY body.rank",
    )?;
    let rows = statement.query_map(
        params![
            query.expression,
            filters.project,
            filters.session.as_ref().map(SessionId::as_str),
            filters.role.map(Role::code),
            filters.since.map(|since| since.timestamp_millis()),
            filters.until.map(|until| until.timestamp_millis())
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
    let mut seen = HashSet::new();
    let mut hits = Vec::new();
    for row in rows {
        // The query was checked by FTS5 itself when it was parsed: an error here is the index's.
        let hit = row.context("failed to search the index")?;
        // The same line in another generation, the live file, or an old snapshot's copy.
        if seen.insert((hit.session.clone(), hit.line_hash)) {
            hits.push(hit);
            if hits.len() >= limit {
                break;
            }
        }
    }
    Ok(hits)
}
