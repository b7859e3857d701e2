//! The auto-compact threshold rule as the report uses it. The rule itself lives on the hook side
//! (`hook/threshold.rs`), where the Stop hook computes the gauge's trigger with it: one rule,
//! read by both sides.

pub use crate::hook::threshold::*;
