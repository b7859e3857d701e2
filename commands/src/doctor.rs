//! `ctxhooks doctor`: the installation's health, checked (`checks.rs`, `findings.rs`, the plugins
//! that register our hooks in `plugins.rs`, the hooks at work in `activity.rs`, ctxhooks' own
//! storage in `storage.rs`) and shown (`text.rs`).

pub mod activity;
pub mod checks;
pub mod cli;
pub mod findings;
pub mod plugins;
pub mod storage;
pub mod text;
