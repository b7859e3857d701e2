//! Context usage, seen by a person: the rows of a session, and the report that explains its
//! drops, compactions, trigger, floor and headroom (its facts computed in `facts/`), in words,
//! JSON and SVG.

pub mod chart;
pub mod cli_report;
pub mod cli_usage;
pub mod json;
pub mod text;
