//! `ctxhooks history`: every past session in Claude Code's projects folders, read with the usage
//! ingest and explained by the report's own rules, with totals per day and per project.

pub mod chart;
pub mod cli;
pub mod json;
pub mod model;
pub mod session;
pub mod text;
