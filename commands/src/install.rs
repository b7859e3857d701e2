//! Installing the hooks into a Claude Code settings file without disturbing anything else (see
//! docs/install.md).

pub mod backup;
pub mod claude_version;
pub mod cli;
pub mod diff;
pub mod document;
pub mod handlers;
pub mod installer;
pub mod locate;
pub mod merge;
pub mod ownership;
pub mod patch;
pub mod scope;
pub mod status_line;
pub mod style;
