//! Interrupt provenance: who cut a tool call off (the runtime, a person, a permission rule), and
//! whether the call ran. Hook events and runtime marks go to a per-session sidecar; the
//! transcript's interrupt records are recognised, matched to marks, and relabelled for a ledger.

pub mod clock;
pub mod ledger;
pub mod marks;
pub mod records;
pub mod session;
pub mod sidecar;
pub mod summary;
pub mod transcript_lines;
pub mod verdict;

pub use ledger::{PROMPT_RULE, ledger_input};
pub use marks::{
    Analysis, Loaded, MARK_CALL_SLACK_MS, MARK_WINDOW_AFTER_MS, MARK_WINDOW_BEFORE_MS,
    UnmatchedMark, load_analysis, unmatched_marks, unmatched_marks_in_all_sessions,
};
pub use records::{ResultKind, classify_record, classify_tool_result, is_interrupt_marker_text};
pub use session::{ledger_input_for, report_for};
pub use sidecar::{
    MarkProblem, RuntimeMark, Sidecar, SidecarLine, ToolEvent, ToolEventKind, append_mark,
    read_sidecar, sidecar_path,
};
pub use summary::summarize_tool_input;
pub use verdict::{CallReport, ProvenanceReport, ToolState, Verdict, provenance_report};
