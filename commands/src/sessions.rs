//! The sessions ctxhooks knows, seen by a person: `ctxhooks sessions`, and the one way every
//! `--session` is read (a full id, `last`, or the unique start of one).

pub mod catalog;
pub mod cli;
pub mod resolve;
pub mod text;
