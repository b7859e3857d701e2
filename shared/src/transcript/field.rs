//! Reading a transcript field leniently: its value when it has the type the reader expects, and
//! otherwise only whether it was there, without failing the whole line.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// One field of a transcript line. Claude Code's format is internal and changes between
/// releases; a field whose type changed must not make the rest of the line unreadable, yet a
/// reader that always refused such lines (the usage log) must still be able to tell.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Field<T> {
    /// Missing, or `null`.
    #[default]
    Absent,
    /// Present with the expected type.
    Present(T),
    /// Present with another type (its value is skipped).
    Mistyped,
}

impl<T> Field<T> {
    /// The value, when present with the expected type.
    pub fn get(&self) -> Option<&T> {
        match self {
            Self::Present(value) => Some(value),
            Self::Absent | Self::Mistyped => None,
        }
    }

    /// The value, when present with the expected type.
    pub fn into_option(self) -> Option<T> {
        match self {
            Self::Present(value) => Some(value),
            Self::Absent | Self::Mistyped => None,
        }
    }

    /// Returns true if and only if the field is present with another type.
    pub fn is_mistyped(&self) -> bool {
        matches!(self, Self::Mistyped)
    }
}

impl Field<Cow<'_, str>> {
    /// The text, when present as a string.
    pub fn text(&self) -> Option<&str> {
        self.get().map(AsRef::as_ref)
    }
}

impl Field<bool> {
    /// Returns true if and only if the field is present and `true`.
    pub fn is_true(&self) -> bool {
        self.get() == Some(&true)
    }
}

/// A type a [`Field`] can hold: which JSON values it is made from. Every default says "not
/// this type" and skips the value (a skipped object or array is still read to its end).
pub trait Lenient<'de>: Sized {
    /// From `true` or `false`.
    fn from_bool(value: bool) -> Option<Self> {
        let _ = value;
        None
    }

    /// From a non-negative integer.
    fn from_u64(value: u64) -> Option<Self> {
        let _ = value;
        None
    }

    /// From a negative integer.
    fn from_i64(value: i64) -> Option<Self> {
        let _ = value;
        None
    }

    /// From a number with a fraction or an exponent (`5.0`, `1e3`, `1.5`).
    fn from_f64(value: f64) -> Option<Self> {
        let _ = value;
        None
    }

    /// From a string (borrowed from the line when it holds no escape).
    fn from_text(value: Cow<'de, str>) -> Option<Self> {
        let _ = value;
        None
    }

    /// From an object.
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Option<Self>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    /// From an array.
    fn from_seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Option<Self>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// Reads an object into a struct that derives `Deserialize` (its own fields being lenient).
pub fn struct_from_map<'de, T: Deserialize<'de>, A: MapAccess<'de>>(
    map: A,
) -> Result<Option<T>, A::Error> {
    T::deserialize(MapAccessDeserializer::new(map)).map(Some)
}

/// Reads an array into a `Vec` of lenient items.
pub fn vec_from_seq<'de, T: Deserialize<'de>, A: SeqAccess<'de>>(
    seq: A,
) -> Result<Option<Vec<T>>, A::Error> {
    Vec::<T>::deserialize(SeqAccessDeserializer::new(seq)).map(Some)
}

impl<'de: 'a, 'a> Lenient<'de> for Cow<'a, str> {
    fn from_text(value: Cow<'de, str>) -> Option<Self> {
        Some(value)
    }
}

impl Lenient<'_> for bool {
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
    fn from_u64(value: u64) -> Option<Self> {
        Some(value)
    }

    fn from_i64(value: i64) -> Option<Self> {
        u64::try_from(value).ok()
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

impl<'de, T: Lenient<'de>> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(FieldVisitor(PhantomData))
    }
}

struct FieldVisitor<T>(PhantomData<T>);

fn found<T>(value: Option<T>) -> Field<T> {
    value.map_or(Field::Mistyped, Field::Present)
}

impl<'de, T: Lenient<'de>> Visitor<'de> for FieldVisitor<T> {
    type Value = Field<T>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Field::Absent)
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Field::Absent)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_bool<E>(self, value: bool) -> Result<Self::Value, E> {
        Ok(found(T::from_bool(value)))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Self::Value, E> {
        Ok(found(T::from_u64(value)))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Self::Value, E> {
        Ok(found(T::from_i64(value)))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Self::Value, E> {
        Ok(found(T::from_f64(value)))
    }

    fn visit_borrowed_str<E>(self, value: &'de str) -> Result<Self::Value, E> {
        Ok(found(T::from_text(Cow::Borrowed(value))))
    }

    fn visit_str<E>(self, value: &str) -> Result<Self::Value, E> {
        Ok(found(T::from_text(Cow::Owned(value.to_owned()))))
    }

    fn visit_string<E>(self, value: String) -> Result<Self::Value, E> {
        Ok(found(T::from_text(Cow::Owned(value))))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        T::from_map(map).map(found)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        T::from_seq(seq).map(found)
    }
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
}
