//! `ctxhooks recall`: what a session said, read back from its kept transcript (and what the
//! live transcript added since), by a person or by the model through Bash after a compaction.

pub mod cli;
pub mod conversation;
pub mod matching;
pub mod text;
