//! `ctxhooks doctor`: the installation's health, checked (`checks.rs`, `findings.rs`) and shown
//! (`text.rs`).

pub mod checks;
pub mod cli;
pub mod findings;
pub mod text;
