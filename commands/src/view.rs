//! `ctxhooks view`: a session as one self-contained HTML page, a view of the facts the other
//! commands read (`facts/`'s report, `compactions/`' ledger, `provenance/`'s verdicts, `recall/`'s
//! conversation), and an index page of every session.

pub mod agents;
pub mod cli;
pub mod index;
pub mod markdown;
pub mod page;
