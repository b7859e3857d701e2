//! Installing the hooks into a Claude Code settings file without disturbing anything else (see
//! docs/install.md).

pub mod backup;
pub mod claude_version;
pub mod cli;
pub mod diff;
pub mod handlers;
pub mod installer;
pub mod merge;
pub mod ownership;
pub mod status_line;
