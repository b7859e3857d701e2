//! The `table!` macro that [`super::schema`] writes the transcript format with: each struct of
//! the table a field per `"key" => field: Type` line, and both readers of it generated from that
//! one line (serde's, through [`Lenient`](crate::lenient::Lenient), and the direct reader's key
//! dispatch, through [`Direct`](super::direct::Direct)), with the [`Shape`](super::shape::Shape)
//! a test builds lines from. A module of its own, below the types the table's fields have, so
//! that those can read themselves without importing the table.

/// Generates each struct of the table with a field per `"key" => field: Type` line, and reads
/// it both ways. A struct's own docs say what it is; each field's doc names its key.
macro_rules! table {
    ($(
        $(#[$meta:meta])*
        pub struct $name:ident $(<$lifetime:lifetime>)? {
            $(
                $(#[$field_meta:meta])*
                $key:literal => $field:ident: $type:ty,
            )*
        }
    )*) => {$(
        $(#[$meta])*
        #[derive(Debug, Default)]
        pub struct $name $(<$lifetime>)? {
            $(
                $(#[$field_meta])*
                #[doc = ""]
                #[doc = concat!("Key `", $key, "`.")]
                pub $field: $type,
            )*
        }
        impl<'de $(: $lifetime, $lifetime)?> $crate::lenient::Lenient<'de> for $name $(<$lifetime>)? {
            const EXPECTED: &'static str = "an object";

            fn from_map<A: ::serde::de::MapAccess<'de>>(map: A) -> Result<Option<Self>, A::Error> {
                $crate::transcript::table::table!(@from_map map $($key => $field),*)
            }
        }

        // `'r` is the line's lifetime; a struct that borrows from it has it as its own (the two
        // bounds make them one).
        impl<'r $(: $lifetime, $lifetime: 'r)?> $crate::transcript::direct::Direct<'r> for $name $(<$lifetime>)? {
            fn read(
                reader: &mut $crate::transcript::direct::Reader<'r>,
            ) -> $crate::transcript::direct::Step<Self> {
                let mut value = Self::default();
                value.fill(reader)?;
                Ok(value)
            }
        }

        impl<'r $(: $lifetime, $lifetime: 'r)?> $name $(<$lifetime>)? {
            /// Reads an object into these fields, straight from the line (the direct reader).
            pub(super) fn fill(
                &mut self,
                reader: &mut $crate::transcript::direct::Reader<'r>,
            ) -> $crate::transcript::direct::Step<()> {
                $crate::transcript::table::table!(@read self reader $($key => $field),*)
            }
        }

        #[cfg(any(test, feature = "test-support"))]
        impl $(<$lifetime>)? $crate::transcript::shape::Shaped for $name $(<$lifetime>)? {
            fn shape() -> $crate::transcript::shape::Shape {
                $crate::transcript::shape::Shape::Object(vec![
                    $(($key, <$type as $crate::transcript::shape::Shaped>::shape())),*
                ])
            }
        }
    )*};

    // serde: each key found among the struct's by its index, its value read as its field's
    // type; a key seen twice fails the object, as serde's derive does.
    (@from_map $map:ident $($key:literal => $field:ident),*) => {{
        #[allow(non_camel_case_types, reason = "one variant per field, named as the field")]
        enum Slot { $($field),* }
        const KEYS: &[&str] = &[$($key),*];
        const { assert!(KEYS.len() <= 64, "one bit per field") };
        let mut map = $map;
        let mut value = Self::default();
        let mut seen = 0_u64;
        while let Some(index) = map.next_key_seed($crate::lenient::KeyIndex(KEYS))? {
            let Some(index) = index else {
                map.next_value::<::serde::de::IgnoredAny>()?;
                continue;
            };
            if seen & (1 << index) != 0 {
                return Err(::serde::de::Error::duplicate_field(KEYS[index]));
            }
            seen |= 1 << index;
            match index {
                $(slot if slot == Slot::$field as usize => value.$field = map.next_value()?,)*
                _ => map.next_value::<::serde::de::IgnoredAny>().map(drop)?,
            }
        }
        Ok(Some(value))
    }};

    // The direct reader: each key matched as it is written, its value read straight into its
    // field; a key seen twice gives up. The keys are matched as byte strings: a `match` on
    // those is a decision tree on the length and the bytes, where one on `&str` compares with
    // each key in turn.
    (@read $value:ident $reader:ident $($key:literal => $field:ident),*) => {{
        #[allow(non_camel_case_types, reason = "one variant per field, named as the field")]
        enum Slot { $($field),* }
        struct Key;
        #[allow(non_upper_case_globals, reason = "one key per field, named as the field")]
        impl Key { $(const $field: &'static [u8] = $key.as_bytes();)* }
        let mut seen = 0_u64;
        $reader.object(|reader, key| {
            match reader.key(key)? {
                $(Key::$field => $value.$field = reader.once(&mut seen, Slot::$field as u32)?,)*
                _ => reader.skip_value()?,
            }
            Ok(())
        })
    }};
}

pub(crate) use table;
