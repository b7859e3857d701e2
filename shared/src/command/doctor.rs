//! `ctxhooks doctor`: the installation's health, checked and shown.

pub mod checks;
pub mod cli;
