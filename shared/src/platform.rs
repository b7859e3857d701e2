//! What Unix (Linux, macOS) and Windows do differently, one module per concern, each with both
//! paths side by side; the rest of the code calls these and names no platform itself.
//!
//! - [`canonical`]: a path with its links resolved, in the form people read;
//! - [`private`]: files and folders only their owner can reach (exact modes on Unix, an
//!   owner-only access list on Windows);
//! - [`open`]: opening without following a link (on Windows any reparse point) and without
//!   waiting on a FIFO;
//! - [`positioned`]: reads at an offset, whatever the file's cursor;
//! - [`identity`]: which file a path or handle is, and when it last changed;
//! - [`owner`]: a replaced file's owner kept (Unix; on Windows a new file is its writer's);
//! - [`stdin`]: reading stdin with a deadline;
//! - [`program`]: executable files and the binaries' names;
//! - [`host`]: the machine's name.

pub mod canonical;
pub mod host;
pub mod identity;
pub mod open;
pub mod owner;
pub mod positioned;
pub mod private;
pub mod program;
pub mod rename;
pub mod stdin;

#[cfg(windows)]
mod windows;
