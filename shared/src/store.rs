//! The state folder: where ctxhooks keeps its files, what each file holds, and how files are
//! written so that nothing is ever half-written or lost.

pub mod clock;
pub mod config;
pub mod env_vars;
pub mod error_log;
pub mod files;
pub mod gauge;
pub mod io_kind;
pub mod kept;
pub mod kept_check;
pub mod rotation;
pub mod running_hash;
pub mod session_id;
pub mod sidecar;
pub mod snapshot_metadata;
pub mod state_dir;
pub mod status_window;
pub mod storage;
pub mod tool_summary;
pub mod trigger;
pub mod usage_record;
pub mod whereabouts;
