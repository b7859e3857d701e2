//! The JSON report of `ctxhooks provenance --json`: the model's facts as they are (their
//! `Serialize`), with every piece of evidence, reason and warning as the sentence `text.rs` words
//! it (through `render/sentence.rs`).

use serde::Serialize;

use super::verdict::ProvenanceReport;

#[derive(Debug, Serialize)]
pub struct JsonReport<'a> {
    pub session: Option<&'a str>,
    pub transcript: String,
    #[serde(flatten)]
    pub report: &'a ProvenanceReport,
}
