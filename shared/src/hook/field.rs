//! One field of a hook payload, typed but never fatal: a value of another type than expected is
//! set aside and named, so that one odd optional field never costs the hook its work. Only the
//! fields a hook cannot do without are required ([`Field::required`]).

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use anyhow::{Result, bail};
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// One payload field as it arrived.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Field<T> {
    /// Not in the payload, or `null`.
    #[default]
    Absent,
    /// A value of the expected type.
    Present(T),
    /// A value of another type: set aside.
    Mismatched(Mismatch),
}

/// What a field held instead of what was expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    /// What the field should hold, such as `a string`.
    pub expected: &'static str,
    /// What it held, such as `an object`.
    pub found: &'static str,
}

/// A text field, borrowed from the payload's bytes when it holds no escapes.
pub type Text<'payload> = Field<Cow<'payload, str>>;

impl<T> Field<T> {
    /// The value, when it is present and of the expected type.
    pub fn value(&self) -> Option<&T> {
        match self {
            Self::Present(value) => Some(value),
            Self::Absent | Self::Mismatched(_) => None,
        }
    }

    /// The value, when it is present and of the expected type.
    pub fn into_value(self) -> Option<T> {
        match self {
            Self::Present(value) => Some(value),
            Self::Absent | Self::Mismatched(_) => None,
        }
    }

    /// What the field held instead of what was expected, if it did.
    pub fn mismatch(&self) -> Option<Mismatch> {
        match self {
            Self::Mismatched(mismatch) => Some(*mismatch),
            Self::Absent | Self::Present(_) => None,
        }
    }
}

impl Field<Cow<'_, str>> {
    /// The text, when it is present, a string and not empty.
    pub fn text(&self) -> Option<&str> {
        self.value()
            .map(AsRef::as_ref)
            .filter(|text| !text.is_empty())
    }

    /// The text a hook cannot do without (the payload field `name`): absent, empty or of
    /// another type, it is an error that names the field.
    pub fn required(&self, name: &str) -> Result<&str> {
        match self {
            Self::Mismatched(Mismatch { expected, found }) => bail!(
                "the payload's `{name}` has the wrong type: expected {expected}, found {found}"
            ),
            _ => match self.text() {
                Some(text) => Ok(text),
                None => bail!("the payload has no `{name}`"),
            },
        }
    }
}

/// A type a [`Field`] can hold: which kinds of JSON value it takes. Every kind it does not take
/// makes the field [`Field::Mismatched`].
pub trait FieldValue<'de>: Sized {
    /// What the field should hold, for the error log (`a string`).
    const EXPECTED: &'static str;

    /// From a JSON string.
    fn from_text(text: Cow<'de, str>) -> Option<Self> {
        let _ = text;
        None
    }

    /// From `true` or `false`.
    fn from_bool(value: bool) -> Option<Self> {
        let _ = value;
        None
    }

    /// From a whole number of at least 0.
    fn from_unsigned(value: u64) -> Option<Self> {
        let _ = value;
        None
    }

    /// From a negative whole number.
    fn from_negative(value: i64) -> Option<Self> {
        let _ = value;
        None
    }

    /// From a number with a fraction or an exponent.
    fn from_fraction(value: f64) -> Option<Self> {
        let _ = value;
        None
    }

    /// From a JSON object. Every entry must be consumed, taken or skipped: the default skips
    /// them all and takes nothing.
    fn from_object<A: MapAccess<'de>>(mut object: A) -> Result<Option<Self>, A::Error> {
        while object.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    /// From a JSON array. Every element must be consumed: the default skips them all and takes
    /// nothing.
    fn from_array<A: SeqAccess<'de>>(mut array: A) -> Result<Option<Self>, A::Error> {
        while array.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

impl<'de: 'text, 'text> FieldValue<'de> for Cow<'text, str> {
    const EXPECTED: &'static str = "a string";

    fn from_text(text: Cow<'de, str>) -> Option<Self> {
        Some(text)
    }
}

impl FieldValue<'_> for bool {
    const EXPECTED: &'static str = "true or false";

    fn from_bool(value: bool) -> Option<Self> {
        Some(value)
    }
}

/// A count such as milliseconds: a fraction is rounded to the nearest whole number.
impl FieldValue<'_> for u64 {
    const EXPECTED: &'static str = "a number of at least 0";

    fn from_unsigned(value: u64) -> Option<Self> {
        Some(value)
    }

    fn from_fraction(value: f64) -> Option<Self> {
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
            .then_some(whole)
    }
}

impl<'de, T: FieldValue<'de>> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(FieldVisitor(PhantomData))
    }
}

struct FieldVisitor<T>(PhantomData<T>);

impl<T> FieldVisitor<T> {
    fn found<'de>(value: Option<T>, found: &'static str) -> Field<T>
    where
        T: FieldValue<'de>,
    {
        value.map_or(
            Field::Mismatched(Mismatch {
                expected: T::EXPECTED,
                found,
            }),
            Field::Present,
        )
    }
}

impl<'de, T: FieldValue<'de>> Visitor<'de> for FieldVisitor<T> {
    type Value = Field<T>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(T::EXPECTED)
    }

    fn visit_unit<E>(self) -> Result<Field<T>, E> {
        Ok(Field::Absent)
    }

    fn visit_none<E>(self) -> Result<Field<T>, E> {
        Ok(Field::Absent)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Field<T>, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_bool<E>(self, value: bool) -> Result<Field<T>, E> {
        Ok(Self::found(T::from_bool(value), "true or false"))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Field<T>, E> {
        Ok(Self::found(T::from_unsigned(value), "a number"))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Field<T>, E> {
        Ok(match u64::try_from(value) {
            Ok(value) => Self::found(T::from_unsigned(value), "a number"),
            Err(_) => Self::found(T::from_negative(value), "a negative number"),
        })
    }

    fn visit_f64<E>(self, value: f64) -> Result<Field<T>, E> {
        Ok(Self::found(T::from_fraction(value), "a number"))
    }

    fn visit_borrowed_str<E>(self, value: &'de str) -> Result<Field<T>, E> {
        Ok(Self::found(T::from_text(Cow::Borrowed(value)), "a string"))
    }

    fn visit_str<E>(self, value: &str) -> Result<Field<T>, E> {
        Ok(Self::found(
            T::from_text(Cow::Owned(value.to_owned())),
            "a string",
        ))
    }

    fn visit_string<E>(self, value: String) -> Result<Field<T>, E> {
        Ok(Self::found(T::from_text(Cow::Owned(value)), "a string"))
    }

    fn visit_map<A: MapAccess<'de>>(self, object: A) -> Result<Field<T>, A::Error> {
        Ok(Self::found(T::from_object(object)?, "an object"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, array: A) -> Result<Field<T>, A::Error> {
        Ok(Self::found(T::from_array(array)?, "an array"))
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
    struct Sample<'payload> {
        #[serde(borrow)]
        name: Text<'payload>,
        flag: Field<bool>,
        count: Field<u64>,
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
        assert_eq!(sample.count, Field::Present(13));

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
