//! Claude Code's settings files as documents: which file a scope names, its JSON read and
//! checked, its text style kept, a change written back in place, so that everything else in the
//! file stays byte for byte. `install`, `doctor`, `retention` and `mcp`'s registration use it.

pub mod document;
pub mod locate;
pub mod patch;
pub mod scope;
pub mod style;
pub mod write;
