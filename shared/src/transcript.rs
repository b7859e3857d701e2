//! Reading Claude Code transcripts: the entries ctxhooks needs, and reading only what was added.

pub mod entry;
pub mod tail;

pub use entry::{AssistantPart, Boundary, BoundaryKind, Entry, TokenUsage, ToolResult, parse_line};
pub use tail::{
    FINGERPRINT_BYTES, LinesRead, MAX_LINE_BYTES, fingerprint_before, read_bounded_lines,
    read_complete_lines,
};
