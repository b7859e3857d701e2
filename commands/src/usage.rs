//! Context usage, seen by a person: the rows of a session, and the report that explains its
//! drops, compactions, trigger, floor and headroom.

pub mod chart;
pub mod classify;
pub mod cli_report;
pub mod cli_usage;
pub mod compactions;
pub mod drops;
pub mod estimates;
pub mod json;
pub mod log;
pub mod report;
pub mod snapshots;
pub mod text;
pub mod warnings;
