//! What runs when a person or a runtime types `ctxhooks …`: one folder per capability, each with
//! its model, its rendering and its subcommands (`cli*.rs`), on top of `ctxhooks-shared` (the
//! state folder, the transcript reader and the rules the hooks use; the compiler keeps the
//! hooks from depending on anything here).
// A struct's or an enum's doc says what its plain fields and variants are; a doc on each that
// restates its name says nothing (`missing_docs` cannot be relaxed for fields alone).
#![allow(missing_docs)]

pub mod archives;
pub mod cli;
pub mod compactions;
pub mod doctor;
pub mod export;
pub mod facts;
pub mod free_name;
pub mod gauge;
pub mod history;
pub mod install;
pub mod links;
pub mod mcp;
pub mod output;
pub mod output_file;
pub mod prices;
pub mod projects;
pub mod provenance;
pub mod recall;
pub mod render;
pub mod retention;
pub mod search;
pub mod search_binary;
pub mod sessions;
pub mod settings;
pub mod snapshots;
#[cfg(test)]
pub mod test_support;
pub mod time;
pub mod usage;
pub mod view;
