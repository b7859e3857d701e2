//! The library every ctxhooks binary shares: the state folder, hook input, atomic files, the
//! transcript archive, the usage log, interrupt provenance and the settings installer.

pub mod archive;
pub mod cli;
pub mod doctor;
pub mod env_vars;
pub mod error_log;
pub mod files;
pub mod hook_input;
pub mod hook_runner;
pub mod precompact;
pub mod provenance;
pub mod session_id;
pub mod settings;
pub mod state;
pub mod stop;
pub mod tooluse;
pub mod transcript;
pub mod usage;
