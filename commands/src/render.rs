//! What every command's words are made of, in one place: numbers, text made safe. Each capability's
//! `text.rs`, `json.rs` and `chart.rs` build on these; nothing here knows a capability.

pub mod numbers;
pub mod text;
