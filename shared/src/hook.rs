//! What runs inside Claude Code on every hook event, from the bottom up: the events
//! (`event.rs`), the payload, the watchdog and what a body receives (`context.rs`); each event's
//! body, which calls the rules in `keep`, `usage` and `gauge` with the state folder and the
//! context as their [`Notes`](crate::notes::Notes); the hook table; and the frame that keeps a
//! hook from ever hurting the session (`runner.rs`).

pub mod catch_up;
pub mod context;
pub mod event;
pub mod payload;
pub mod precompact;
pub mod runner;
pub mod session;
pub mod stop;
pub mod table;
pub mod tooluse;
pub mod watchdog;
