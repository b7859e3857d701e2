//! Reading Claude Code's JSON leniently, one field at a time: a transcript line, a hook's payload,
//! the status line's input. A field holds its value when it has the type the reader expects;
//! otherwise it is set aside with what it held instead, and the rest of the object is still read.
//! Claude Code's formats are internal and change between releases: one field of an unexpected
//! type must never cost a line or a hook its work, yet a reader that must refuse such a value
//! (the usage log's token counts) can still tell.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{
    Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
};

/// One field as it arrived.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Field<T> {
    /// Missing, or `null`.
    #[default]
    Absent,
    /// Present with the expected type.
    Present(T),
    /// Present with another type: its value is skipped, what it was is kept.
    Mismatched(Found),
}

/// The kind of JSON value a field held instead of the expected one, named in words (such as
/// `an object`) by its `&'static str`. One byte: a transcript record holds dozens of fields and
/// is moved whole while it is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
pub enum Found {
    /// `true` or `false`.
    #[strum(serialize = "true or false")]
    Boolean,
    /// A number that is not negative (or has a fraction or an exponent).
    #[strum(serialize = "a number")]
    Number,
    /// A negative integer.
    #[strum(serialize = "a negative number")]
    NegativeNumber,
    /// A string.
    #[strum(serialize = "a string")]
    String,
    /// An object.
    #[strum(serialize = "an object")]
    Object,
    /// An array.
    #[strum(serialize = "an array")]
    Array,
}

/// What a field held instead of what was expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    /// What the field should hold, such as `a string`.
    pub expected: &'static str,
    /// What it held, such as `an object`.
    pub found: &'static str,
}

/// Why a field a reader cannot do without is not there: [`Field::required`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequiredError {
    /// Present with another type than text.
    #[error(
        "the payload's `{name}` has the wrong type: expected {}, found {}",
        .mismatch.expected,
        .mismatch.found
    )]
    WrongType {
        /// The field's name.
        name: String,
        /// What it held instead.
        mismatch: Mismatch,
    },
    /// Absent, `null` or empty.
    #[error("the payload has no `{0}`")]
    Missing(String),
}

/// A text field, borrowed from the input's bytes when it holds no escape.
pub type Text<'input> = Field<Cow<'input, str>>;

impl<T> Field<T> {
    /// The value, when present with the expected type.
    pub fn get(&self) -> Option<&T> {
        match self {
            Self::Present(value) => Some(value),
            Self::Absent | Self::Mismatched(_) => None,
        }
    }

    /// The value, when present with the expected type.
    pub fn into_option(self) -> Option<T> {
        match self {
            Self::Present(value) => Some(value),
            Self::Absent | Self::Mismatched(_) => None,
        }
    }

    /// What the field held instead of what was expected, if it did.
    pub fn mismatch<'de>(&self) -> Option<Mismatch>
    where
        T: Lenient<'de>,
    {
        match self {
            Self::Mismatched(found) => Some(Mismatch {
                expected: T::EXPECTED,
                found: found.into(),
            }),
            Self::Absent | Self::Present(_) => None,
        }
    }

    /// Returns true if and only if the field is present with another type.
    pub fn is_mistyped(&self) -> bool {
        matches!(self, Self::Mismatched(_))
    }
}

impl Field<Cow<'_, str>> {
    /// The text, when present as a string (an empty one included).
    pub fn text(&self) -> Option<&str> {
        self.get().map(AsRef::as_ref)
    }

    /// [`Self::text`], owned.
    pub fn owned(&self) -> Option<String> {
        self.text().map(ToOwned::to_owned)
    }

    /// The text, when present as a string that is not empty.
    pub fn non_empty(&self) -> Option<&str> {
        self.text().filter(|text| !text.is_empty())
    }

    /// The text a reader cannot do without (the field `name` of a hook's payload): absent, empty
    /// or of another type, it is an error that names the field.
    pub fn required(&self, name: &str) -> Result<&str, RequiredError> {
        if let Some(mismatch) = self.mismatch() {
            return Err(RequiredError::WrongType {
                name: name.to_owned(),
                mismatch,
            });
        }
        self.non_empty()
            .ok_or_else(|| RequiredError::Missing(name.to_owned()))
    }
}

impl Field<bool> {
    /// Returns true if and only if the field is present and `true`.
    pub fn is_true(&self) -> bool {
        self.get() == Some(&true)
    }
}

/// A type a [`Field`] can hold: which JSON values it is made from. Every default says "not this
/// type" and skips the value (a skipped object or array is still read to its end).
pub trait Lenient<'de>: Sized {
    /// What the field should hold, for the error log (`a string`).
    const EXPECTED: &'static str;

    /// From `true` or `false`.
    fn from_bool(_: bool) -> Option<Self> {
        None
    }

    /// From a non-negative integer.
    fn from_u64(_: u64) -> Option<Self> {
        None
    }

    /// From a number with a fraction or an exponent (`5.0`, `1e3`, `1.5`).
    fn from_f64(_: f64) -> Option<Self> {
        None
    }

    /// From a string (borrowed from the input when it holds no escape).
    fn from_text(_: Cow<'de, str>) -> Option<Self> {
        None
    }

    /// From a string that held an escape, decoded into a buffer the parser reuses: the default
    /// copies it for [`Lenient::from_text`]; a type that needs only its length copies nothing.
    fn from_decoded_text(value: &str) -> Option<Self> {
        Self::from_text(Cow::Owned(value.to_owned()))
    }

    /// From an object. Every entry must be consumed: the default skips them all.
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Option<Self>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    /// From an array. Every element must be consumed: the default skips them all.
    fn from_seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Option<Self>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// A boxed object: read as the object it holds, kept on the heap (a large field that few
/// records hold, so that the records and blocks without it stay small to move).
impl<'de, T: Lenient<'de>> Lenient<'de> for Box<T> {
    const EXPECTED: &'static str = T::EXPECTED;

    fn from_map<A: MapAccess<'de>>(map: A) -> Result<Option<Self>, A::Error> {
        Ok(T::from_map(map)?.map(Box::new))
    }
}

/// Reads an object into a struct that derives `Deserialize` (its own fields being lenient).
pub fn struct_from_map<'de, T: Deserialize<'de>, A: MapAccess<'de>>(
    map: A,
) -> Result<Option<T>, A::Error> {
    T::deserialize(MapAccessDeserializer::new(map)).map(Some)
}

impl<'de: 'a, 'a> Lenient<'de> for Cow<'a, str> {
    const EXPECTED: &'static str = "a string";

    fn from_text(value: Cow<'de, str>) -> Option<Self> {
        Some(value)
    }
}

impl Lenient<'_> for bool {
    const EXPECTED: &'static str = "true or false";

    fn from_bool(value: bool) -> Option<Self> {
        Some(value)
    }
}

/// The largest whole number a JSON writer in JavaScript (Claude Code) writes exactly: 2^53.
const MAX_EXACT_FLOAT: f64 = 9_007_199_254_740_992.0;

/// A count. JSON has one kind of number, so `5.0` (or `5e0`) is the count 5, as JavaScript,
/// which writes transcripts, reads it; a number with a fraction, a negative one, or one past
/// 2^53 (which a double does not hold exactly) is not a count.
impl Lenient<'_> for u64 {
    const EXPECTED: &'static str = "a whole number of at least 0";

    fn from_u64(value: u64) -> Option<Self> {
        Some(value)
    }

    fn from_f64(value: f64) -> Option<Self> {
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "used only when the range and fraction checks beside it hold"
        )]
        let whole = value as u64;
        ((0.0..=MAX_EXACT_FLOAT).contains(&value) && value.fract() == 0.0).then_some(whole)
    }
}

/// A duration in milliseconds as Claude Code reports it (`duration_ms`): a fraction is rounded
/// to the nearest whole millisecond.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Milliseconds(pub u64);

impl Lenient<'_> for Milliseconds {
    const EXPECTED: &'static str = "a number of at least 0";

    fn from_u64(value: u64) -> Option<Self> {
        Some(Self(value))
    }

    fn from_f64(value: f64) -> Option<Self> {
        let rounded = value.round();
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "used only when the range check beside it holds"
        )]
        let whole = rounded as u64;
        // From 0 up to 2^64 (as f64), every whole value converts exactly; NaN is out of range.
        (0.0..18_446_744_073_709_551_616.0)
            .contains(&rounded)
            .then_some(Self(whole))
    }
}

impl<'de, T: Lenient<'de>> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(FieldVisitor(PhantomData))
    }
}

struct FieldVisitor<T>(PhantomData<T>);

/// The field a value made, or the mismatch naming what it was.
fn found<T>(value: Option<T>, found: Found) -> Field<T> {
    value.map_or(Field::Mismatched(found), Field::Present)
}

impl<'de, T: Lenient<'de>> Visitor<'de> for FieldVisitor<T> {
    type Value = Field<T>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Field::Absent)
    }

    fn visit_bool<E>(self, value: bool) -> Result<Self::Value, E> {
        Ok(found(T::from_bool(value), Found::Boolean))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Self::Value, E> {
        Ok(found(T::from_u64(value), Found::Number))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Self::Value, E> {
        Ok(match u64::try_from(value) {
            Ok(value) => found(T::from_u64(value), Found::Number),
            // No lenient type is made from a negative integer.
            Err(_) => Field::Mismatched(Found::NegativeNumber),
        })
    }

    fn visit_f64<E>(self, value: f64) -> Result<Self::Value, E> {
        Ok(found(T::from_f64(value), Found::Number))
    }

    fn visit_borrowed_str<E>(self, value: &'de str) -> Result<Self::Value, E> {
        Ok(found(T::from_text(Cow::Borrowed(value)), Found::String))
    }

    fn visit_str<E>(self, value: &str) -> Result<Self::Value, E> {
        Ok(found(T::from_decoded_text(value), Found::String))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Ok(found(T::from_map(map)?, Found::Object))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Ok(found(T::from_seq(seq)?, Found::Array))
    }
}

/// A key of an object, as its index among the keys given (a struct's of the table, the fields a
/// tool's summary names); `None` for any other key (read without copying an escaped key).
pub struct KeyIndex(pub &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for KeyIndex {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for KeyIndex {
    type Value = Option<usize>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a field name")
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().position(|known| *known == key))
    }
}

/// The fields among `fields` (`(name, field's mismatch)`) that held another type than
/// expected, as one message for the error log; `None` when there are none.
pub fn describe_mismatches(fields: &[(&str, Option<Mismatch>)]) -> Option<String> {
    let named: Vec<String> = fields
        .iter()
        .filter_map(|(name, mismatch)| {
            mismatch.map(|Mismatch { expected, found }| {
                format!("`{name}` ({found}, expected {expected})")
            })
        })
        .collect();
    (!named.is_empty()).then(|| {
        format!(
            "set aside payload field(s) of an unexpected type and did the work without them: {}",
            named.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Default, Deserialize)]
    #[serde(default)]
    struct Probe<'a> {
        #[serde(borrow)]
        name: Field<Cow<'a, str>>,
        count: Field<u64>,
        flag: Field<bool>,
        #[serde(borrow)]
        inner: Field<Inner<'a>>,
    }

    #[derive(Debug, Default, Deserialize)]
    #[serde(default)]
    struct Inner<'a> {
        #[serde(borrow)]
        name: Field<Cow<'a, str>>,
    }

    impl<'de: 'a, 'a> Lenient<'de> for Inner<'a> {
        const EXPECTED: &'static str = "an object";

        fn from_map<A: MapAccess<'de>>(map: A) -> Result<Option<Self>, A::Error> {
            struct_from_map(map)
        }
    }

    #[test]
    fn a_field_of_another_type_is_skipped_and_noted() {
        let probe: Probe = serde_json::from_str(
            r#"{"name": 5, "count": -1, "flag": "yes", "inner": [1, {"a": 2}], "other": {"x": [1]}}"#,
        )
        .unwrap();
        assert!(probe.name.is_mistyped());
        assert!(probe.count.is_mistyped());
        assert!(probe.flag.is_mistyped());
        assert!(probe.inner.is_mistyped());
        let probe: Probe =
            serde_json::from_str(r#"{"name": null, "count": 1.5, "inner": {"name": "x"}}"#)
                .unwrap();
        assert_eq!(probe.name, Field::Absent);
        assert!(probe.count.is_mistyped());
        assert_eq!(
            probe.inner.get().and_then(|inner| inner.name.text()),
            Some("x")
        );
    }

    #[test]
    fn a_count_written_as_a_whole_float_is_the_count() {
        let count = |json: &str| {
            serde_json::from_str::<Probe>(&format!(r#"{{"count": {json}}}"#))
                .unwrap()
                .count
        };
        assert_eq!(count("5.0"), Field::Present(5));
        assert_eq!(count("5e2"), Field::Present(500));
        assert_eq!(count("-0.0"), Field::Present(0));
        assert_eq!(count("9007199254740992.0"), Field::Present(1 << 53));
        for odd in ["5.5", "-5.0", "-5", "1e16", "\"5\""] {
            assert!(count(odd).is_mistyped(), "{odd}");
        }
        // Out of a double's range: not a number serde_json reads at all.
        assert!(serde_json::from_str::<Probe>(r#"{"count": 1e400}"#).is_err());
    }

    #[test]
    fn strings_are_borrowed_unless_escaped() {
        let probe: Probe = serde_json::from_str(r#"{"name": "plain", "count": 7}"#).unwrap();
        assert!(matches!(probe.name.get(), Some(Cow::Borrowed("plain"))));
        assert_eq!(probe.count.get(), Some(&7));
        let probe: Probe = serde_json::from_str(r#"{"name": "a\nb", "flag": true}"#).unwrap();
        assert!(matches!(probe.name.get(), Some(Cow::Owned(text)) if text == "a\nb"));
        assert!(probe.flag.is_true());
    }

    #[derive(Debug, Default, Deserialize)]
    #[serde(default)]
    struct Sample<'payload> {
        #[serde(borrow)]
        name: Text<'payload>,
        flag: Field<bool>,
        count: Field<Milliseconds>,
    }

    #[test]
    fn borrows_text_and_sets_other_types_aside_without_failing() {
        let sample: Sample =
            serde_json::from_str(r#"{"name": "plain", "flag": true, "count": 12.6, "x": [1]}"#)
                .unwrap();
        assert!(matches!(
            sample.name,
            Field::Present(Cow::Borrowed("plain"))
        ));
        assert_eq!(sample.flag, Field::Present(true));
        assert_eq!(sample.count, Field::Present(Milliseconds(13)));

        let odd: Sample =
            serde_json::from_str(r#"{"name": {"x": [1, {"y": 2}]}, "flag": "yes", "count": -3}"#)
                .unwrap();
        assert_eq!(
            odd.name.mismatch(),
            Some(Mismatch {
                expected: "a string",
                found: "an object"
            })
        );
        assert_eq!(odd.flag.mismatch().unwrap().found, "a string");
        assert_eq!(odd.count.mismatch().unwrap().found, "a negative number");

        let null: Sample = serde_json::from_str(r#"{"name": null, "count": 1e30}"#).unwrap();
        assert_eq!(null.name, Field::Absent);
        assert_eq!(null.count.mismatch().unwrap().found, "a number");
    }

    #[test]
    fn required_text_names_the_field() {
        let sample: Sample = serde_json::from_str(r#"{"name": 42}"#).unwrap();
        let error = sample.name.required("name").unwrap_err().to_string();
        assert!(
            error.contains("wrong type") && error.contains("`name`"),
            "{error}"
        );
        let empty: Sample = serde_json::from_str(r#"{"name": ""}"#).unwrap();
        assert_eq!(
            empty.name.required("name").unwrap_err().to_string(),
            "the payload has no `name`"
        );
        let escaped: Sample = serde_json::from_str(r#"{"name": "a\"b"}"#).unwrap();
        assert_eq!(escaped.name.required("name").unwrap(), "a\"b");
    }

    #[test]
    fn mismatches_are_named_in_one_message() {
        let sample: Sample = serde_json::from_str(r#"{"name": 5, "flag": {}}"#).unwrap();
        let message = describe_mismatches(&[
            ("name", sample.name.mismatch()),
            ("flag", sample.flag.mismatch()),
            ("count", sample.count.mismatch()),
        ])
        .unwrap();
        assert!(
            message.ends_with(
                "`name` (a number, expected a string), `flag` (an object, expected true or false)"
            ),
            "{message}"
        );
        assert_eq!(describe_mismatches(&[("count", None)]), None);
    }
}
