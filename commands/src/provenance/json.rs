//! The report `ctxhooks provenance` prints: in JSON the model's facts as they are (their
//! `Serialize`), with every piece of evidence, reason and warning as the sentence `text.rs` words
//! it (through `render/sentence.rs`); in words, `text.rs`'s report.

use serde::Serialize;

use super::text::render_report;
use super::verdict::ProvenanceReport;
use crate::output::Emit;

#[derive(Debug, Serialize)]
pub struct PrintedReport<'a> {
    pub session: Option<&'a str>,
    pub transcript: String,
    #[serde(flatten)]
    pub report: &'a ProvenanceReport,
}

impl Emit for PrintedReport<'_> {
    fn text(&self) -> String {
        render_report(self.report, &self.transcript)
    }
}
