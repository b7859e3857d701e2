//! What runs inside Claude Code on every hook event: the frame that keeps a hook from ever
//! hurting the session, the payload, the hook table, and each hook's work.

pub mod cursor;
pub mod gauge;
pub mod ingest;
pub mod keep;
pub mod payload;
pub mod precompact;
pub mod runner;
pub mod session;
pub mod settings_file;
pub mod snapshot;
pub mod stop;
pub mod subagents;
pub mod table;
pub mod threshold;
pub mod tooluse;
pub mod usage_log;
pub mod watchdog;
