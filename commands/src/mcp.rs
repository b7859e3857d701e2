//! `ctxhooks mcp`: the Model Context Protocol server that gives the model its own past, and
//! its registration in Claude Code's configuration.

pub mod probe;
pub mod registration;
pub mod server;
pub mod stdio;
pub mod tools;
