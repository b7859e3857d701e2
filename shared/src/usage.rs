//! Context usage per API request: the log the Stop hook keeps, drops and their classes,
//! trigger and floor estimates, and the report.

pub mod chart;
pub mod cursor;
pub mod drops;
pub mod estimates;
pub mod ingest;
pub mod log;
pub mod record;
pub mod render;
pub mod report;
pub mod snapshots;

pub use log::{
    IngestOutcome, SessionLog, TimelineItem, ingest_transcript, log_from_transcript, read_records,
    read_rows, read_session_log, usage_log_path,
};
pub use record::{BoundaryRow, RescanRow, SourceRow, ToolResultNote, UsageRecord, UsageRow};
pub use report::{ReportOptions, SessionReport, build_report};
