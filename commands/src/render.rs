//! What every command's words are made of, in one place: numbers, bytes, times, tables, shell
//! words, dollars, text made safe, facts as their sentences in JSON, text made safe in HTML and what the SVG charts draw with.
//! Each capability's `text.rs`, `json.rs` and `chart.rs` build on these; nothing here knows a
//! capability.

pub mod bytes;
pub mod cost;
pub mod html;
pub mod numbers;
pub mod sentence;
pub mod shell;
pub mod svg;
pub mod table;
pub mod text;
pub mod time;
