//! `ctxhooks search`: everything said in every session, kept or live, main and sub-agents, in
//! a full-text index (`SQLite` FTS5) in the state folder that each search brings up to date first.

pub mod cli;
pub mod database;
pub mod engine;
pub mod find;
pub mod kept_listing;
pub mod known_parents;
pub mod marking;
pub mod message;
pub mod prepare;
pub mod progress;
pub mod query;
pub mod reading;
pub mod role;
pub mod snippet;
pub mod sources;
pub mod text;
pub mod update;
