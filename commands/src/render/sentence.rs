//! A fact in JSON as the sentence a person reads (its `Display`), so that the text and the JSON
//! say it in the same words: for `#[serde(serialize_with = "...")]` on a model's field.

use std::fmt::Display;

use serde::Serializer;

/// A fact as its sentence (for `#[serde(serialize_with)]`).
pub fn sentence<S: Serializer>(fact: &impl Display, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(fact)
}

/// Facts as their sentences (for `#[serde(serialize_with)]`).
pub fn sentences<S: Serializer>(facts: &[impl Display], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(facts.iter().map(ToString::to_string))
}
