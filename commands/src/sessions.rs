//! The sessions ctxhooks knows, seen by a person: `ctxhooks sessions`, the one way every
//! `--session` is read (a full id, `last`, or the unique start of one), and a session's
//! transcript opened to read (the live file, else the kept copy).

pub mod catalog;
pub mod cli;
pub mod json;
pub mod resolve;
pub mod text;
pub mod transcript;
