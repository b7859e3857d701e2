//! The values of the transcript format that are not plain objects of keys, and what they count:
//! a list of uuids and the cache writes by lifetime (each read by both readers here), and the
//! counts of a `usage` or of one of its iterations (`Written`) summed into [`Iterations`] (an
//! iteration is an entry of the table, so [`super::schema`] reads the list and counts each entry
//! here, keeping nothing of it). The table names these types as its fields'.

use std::borrow::Cow;

use serde::de::{MapAccess, SeqAccess};

use super::direct::{Direct, Reader, Step};
#[cfg(any(test, feature = "test-support"))]
use super::shape::{Shape, Shaped};
use crate::lenient::{Field, Lenient};
use crate::store::usage_record::{ModelUsage, TokenUsage};

/// A list of uuids (strings; any other element is skipped).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Uuids<'a>(pub Vec<Cow<'a, str>>);

/// `usage.cache_creation`: the cache writes by lifetime.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CacheCreationSplit {
    /// The sum of every integer value (the 5m and 1h buckets, and any later one).
    pub total: u64,
    /// [`FIVE_MINUTE_WRITES`].
    pub five_minutes: u64,
    /// [`ONE_HOUR_WRITES`].
    pub one_hour: u64,
    /// True when a `*_input_tokens` bucket held something that is not a count (`-5`, `"5"`):
    /// the line's usage cannot be read, as with an odd flat field.
    pub mistyped: bool,
}

/// The key of `usage.cache_creation`'s writes into the 5-minute cache.
pub const FIVE_MINUTE_WRITES: &str = "ephemeral_5m_input_tokens";

/// The key of `usage.cache_creation`'s writes into the 1-hour cache.
pub const ONE_HOUR_WRITES: &str = "ephemeral_1h_input_tokens";

impl CacheCreationSplit {
    /// Counts the entry `key` in the order written: every count adds to the total.
    pub fn add(&mut self, key: &str, count: &Field<u64>) {
        if count.is_mistyped() && key.ends_with("_input_tokens") {
            self.mistyped = true;
        }
        if let Field::Present(count) = *count {
            self.total = self.total.saturating_add(count);
            match key {
                FIVE_MINUTE_WRITES => self.five_minutes = count,
                ONE_HOUR_WRITES => self.one_hour = count,
                _ => {}
            }
        }
    }
}

/// The four token counts (input, cache write, cache read, output) and the 5m/1h split, as
/// `message.usage` and each of its iterations write them.
pub(super) struct Written<'f>(
    pub(super) [&'f Field<u64>; 4],
    pub(super) &'f Field<CacheCreationSplit>,
);

/// The [`Written`] counts of a `usage` or of one of its iterations (the same keys).
macro_rules! written {
    ($of:expr) => {
        $crate::transcript::values::Written(
            [
                &$of.input_tokens,
                &$of.cache_creation_input_tokens,
                &$of.cache_read_input_tokens,
                &$of.output_tokens,
            ],
            &$of.cache_creation,
        )
    };
}

pub(super) use written;

impl Written<'_> {
    /// The counts: the flat `cache_creation_input_tokens`, or the nested split when the flat
    /// one is 0 (before 2.1.152 the flat field could be 0 while the split held the writes).
    pub(super) fn tokens(&self) -> TokenUsage {
        let count = |field: &Field<u64>| field.get().copied().unwrap_or(0);
        let [input, cache_write, cache_read, output] = self.0;
        let flat = count(cache_write);
        let nested = self.1.get().map_or(0, |split| split.total);
        TokenUsage {
            input_tokens: count(input),
            cache_creation_input_tokens: if flat == 0 { nested } else { flat },
            cache_read_input_tokens: count(cache_read),
            output_tokens: count(output),
        }
    }

    /// True when none of the four flat counts holds a token (each 0 or absent). The nested
    /// split is not looked at: a response that read and wrote nothing has no cache writes, and
    /// a CLI may fill the split from the iterations while the four counts stay 0.
    pub(super) fn flat_counts_empty(&self) -> bool {
        self.0
            .iter()
            .all(|field| field.get().is_none_or(|count| *count == 0))
    }

    /// True when a count, the split or one of its buckets held something that is not a count.
    pub(super) fn mistyped(&self) -> bool {
        self.0.iter().any(|field| field.is_mistyped())
            || self.1.is_mistyped()
            || self.1.get().is_some_and(|split| split.mistyped)
    }
}

/// `usage.iterations`: the inferences one response was made of. The session model's are
/// `message` iterations (the last one read the context the next request starts from); the
/// advisor's are `advisor_message` ones, each naming its own model. A `fallback_message` one is
/// the API's answer from another model when the requested one refused (the CLI's
/// `serverRefusalFallback`): it read the same conversation, so it can hold the context, as the
/// CLI itself takes it (the last `message` or `fallback_message` iteration that read something).
/// Other kinds (`compaction`, ...) are not read.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Iterations {
    /// The counts of the last `message` or `fallback_message` iteration that read something:
    /// the context.
    pub last_message: Option<TokenUsage>,
    /// The `message` and `fallback_message` iterations' counts, summed: the session's own
    /// inferences, which the top level sums when it is written (the advisor's are not in it).
    pub inferences: TokenUsage,
    /// The `advisor_message` iterations' counts, summed per model in the order first seen (one
    /// at least when an iteration's `type` is `advisor_message`).
    pub advisor_usage: Vec<ModelUsage>,
    /// True when a count of a `message` or `advisor_message` iteration held something that is
    /// not a count: the usage cannot be read, as with an odd top-level field.
    pub mistyped: bool,
}

impl Iterations {
    /// Counts one entry of `usage.iterations`, in the order written: its `type`, its `model` and
    /// its counts.
    pub(super) fn add(&mut self, kind: Option<&str>, model: Option<&str>, written: &Written<'_>) {
        match kind {
            Some("message" | FALLBACK_ITERATION) => {
                self.mistyped |= written.mistyped();
                let tokens = written.tokens();
                self.inferences = self.inferences.saturating_add(tokens);
                if tokens.input_side() > 0 {
                    self.last_message = Some(tokens);
                }
            }
            Some(ADVISOR_ITERATION) => {
                self.mistyped |= written.mistyped();
                let usage = ModelUsage {
                    model: model.map(ToOwned::to_owned),
                    tokens: written.tokens(),
                };
                crate::store::usage_record::add_by_model(
                    &mut self.advisor_usage,
                    std::slice::from_ref(&usage),
                );
            }
            _ => {}
        }
    }
}

/// The `type` of a `usage.iterations` entry the API's model fallback answered.
pub const FALLBACK_ITERATION: &str = "fallback_message";

/// The `type` of a `usage.iterations` entry made by the advisor.
pub const ADVISOR_ITERATION: &str = "advisor_message";

impl<'de: 'a, 'a> Lenient<'de> for Uuids<'a> {
    const EXPECTED: &'static str = "an array";

    fn from_seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Option<Self>, A::Error> {
        let mut uuids = Vec::new();
        while let Some(uuid) = seq.next_element::<Field<Cow<'de, str>>>()? {
            if let Field::Present(uuid) = uuid {
                uuids.push(uuid);
            }
        }
        Ok(Some(Self(uuids)))
    }
}

impl<'de> Lenient<'de> for CacheCreationSplit {
    const EXPECTED: &'static str = "an object";

    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Option<Self>, A::Error> {
        let mut split = Self::default();
        while let Some((key, count)) = map.next_entry::<Field<Cow<'de, str>>, Field<u64>>()? {
            split.add(key.text().unwrap_or_default(), &count);
        }
        Ok(Some(split))
    }
}

/// An array of strings (anything else is left to serde).
impl<'a> Direct<'a> for Uuids<'a> {
    fn read(reader: &mut Reader<'a>) -> Step<Self> {
        let mut uuids = Vec::new();
        reader.elements(|uuid| uuids.push(uuid))?;
        Ok(Uuids(uuids))
    }
}

/// `usage.cache_creation`: every key's count, in order.
impl Direct<'_> for CacheCreationSplit {
    fn read(reader: &mut Reader<'_>) -> Step<Self> {
        let mut split = Self::default();
        reader.object(|reader, key| {
            let key = reader.key_text(key)?;
            split.add(key, &Field::read(reader)?);
            Ok(())
        })?;
        Ok(split)
    }
}

#[cfg(any(test, feature = "test-support"))]
impl Shaped for Uuids<'_> {
    fn shape() -> Shape {
        Shape::Array(Box::new(Shape::Text))
    }
}

#[cfg(any(test, feature = "test-support"))]
impl Shaped for CacheCreationSplit {
    fn shape() -> Shape {
        Shape::Object(vec![
            (FIVE_MINUTE_WRITES, Shape::Count),
            (ONE_HOUR_WRITES, Shape::Count),
        ])
    }
}
