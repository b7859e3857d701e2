//! `ctxhooks export`: the history and the state folder as flat, versioned JSON Lines, one record
//! per fact, each naming its host, project and session, for an engine that reads many hosts'
//! files (`DuckDB`; the queries are in `docs/fleet/`).

pub mod cli;
pub mod collect;
pub mod records;
