//! The JSON report of `ctxhooks provenance --json`: the model's facts as they are (their
//! `Serialize`), with every piece of evidence, reason and warning as the sentence `text.rs` words
//! it.

use std::fmt::Display;

use serde::{Serialize, Serializer};

use super::verdict::ProvenanceReport;

#[derive(Debug, Serialize)]
pub struct JsonReport<'a> {
    pub session: Option<&'a str>,
    pub transcript: String,
    #[serde(flatten)]
    pub report: &'a ProvenanceReport,
}

/// A fact as its sentence (for `#[serde(serialize_with)]`).
pub fn sentence<S: Serializer>(fact: &impl Display, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(fact)
}

/// Facts as their sentences (for `#[serde(serialize_with)]`).
pub fn sentences<S: Serializer>(facts: &[impl Display], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(facts.iter().map(ToString::to_string))
}
