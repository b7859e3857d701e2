//! `ctxhooks compactions`: the compaction ledger, what each compaction's summary named, kept or
//! left out of the conversation before it.

pub mod cli;
pub mod ledger;
pub mod text;
