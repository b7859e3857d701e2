//! What runs inside Claude Code on every hook event: the frame that keeps a hook from ever
//! hurting the session (`runner.rs`, `watchdog.rs`), the payload, the hook table, and each
//! event's body, which calls the rules in `keep`, `usage` and `gauge`.

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
