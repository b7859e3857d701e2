//! Test support: scratch folders, the scripted model server, and the real Claude Code CLI.

pub mod claude;
pub mod model_server;
pub mod process;
pub mod scratch;
