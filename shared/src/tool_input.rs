//! A tool call's input, as the tool hook's payload and a transcript's `tool_use` block both carry
//! it: of its fields, only those a summary may name ([`SUMMARY_FIELDS`]), each kept as the JSON
//! text it arrived as, borrowed from the input's bytes. Nothing else is built or decoded: a
//! 16 MiB `Write` content, or millions of tiny values, cost no memory beyond the input's bytes,
//! and [`summarize_encoded_fields`] decodes only the 80 characters it keeps (BENCHMARKS.md).

use std::borrow::Cow;

use serde::de::{IgnoredAny, MapAccess};
use serde_json::value::RawValue;

use crate::lenient::{KeyIndex, Lenient};
use crate::store::tool_summary::{SUMMARY_FIELDS, summarize_encoded_fields};

/// The fields of a tool's input that say what a call does.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ToolInput<'input> {
    /// (field name, its value as written in JSON), the last of each name when one repeats.
    fields: Vec<(&'static str, &'input str)>,
}

impl<'input> ToolInput<'input> {
    /// `key` as the field of [`SUMMARY_FIELDS`] it is, `None` for any other: the only keys kept.
    pub fn summary_field(key: &str) -> Option<&'static str> {
        SUMMARY_FIELDS.iter().copied().find(|name| *name == key)
    }

    /// Keeps `encoded`, a value as written in JSON, for the field `name`, in place of an earlier
    /// one of the same name.
    pub fn insert(&mut self, name: &'static str, encoded: &'input str) {
        self.fields.retain(|(known, _)| *known != name);
        self.fields.push((name, encoded));
    }

    /// The input field `name` as written in JSON (`"ls -la"`, `5`).
    pub fn encoded(&self, name: &str) -> Option<&'input str> {
        self.fields
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, value)| *value)
    }

    /// The input field `name` when it is a string, decoded (borrowed when it holds no escape):
    /// a path or a command whole, where the summary keeps 80 characters.
    pub fn text(&self, name: &str) -> Option<Cow<'input, str>> {
        let encoded = self.encoded(name)?;
        match serde_json::from_str::<&'input str>(encoded) {
            Ok(plain) => Some(Cow::Borrowed(plain)),
            Err(_) => serde_json::from_str::<String>(encoded).ok().map(Cow::Owned),
        }
    }

    /// The summary of a call of `tool_name` with this input (see
    /// [`crate::store::tool_summary`]).
    pub fn summary(&self, tool_name: &str) -> Option<String> {
        summarize_encoded_fields(tool_name, |field| self.encoded(field))
    }
}

impl<'de: 'input, 'input> Lenient<'de> for ToolInput<'input> {
    const EXPECTED: &'static str = "an object";

    fn from_map<A: MapAccess<'de>>(mut object: A) -> Result<Option<Self>, A::Error> {
        let mut input = Self::default();
        while let Some(index) = object.next_key_seed(KeyIndex(&SUMMARY_FIELDS))? {
            if let Some(index) = index {
                let value: &'de RawValue = object.next_value()?;
                input.insert(SUMMARY_FIELDS[index], value.get());
            } else {
                object.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Some(input))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lenient::Field;

    fn input(json: &str) -> Field<ToolInput<'_>> {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn keeps_only_the_summary_fields_as_written_the_last_of_a_name() {
        let read = input(
            r#"{"command": "ls \"x\"", "content": "secret", "path": 5, "command": "pwd", "descr\u0069ption": "d"}"#,
        );
        let read = read.get().unwrap();
        assert_eq!(read.encoded("command"), Some(r#""pwd""#));
        assert_eq!(read.encoded("path"), Some("5"));
        assert_eq!(read.encoded("description"), Some(r#""d""#));
        assert_eq!(read.encoded("content"), None);
        assert_eq!(read.summary("Bash").as_deref(), Some("pwd"));
        assert_eq!(read.summary("Task").as_deref(), Some("d"));
        // A string field decoded whole, borrowed when it holds no escape; another type is none.
        assert_eq!(read.text("command").as_deref(), Some("pwd"));
        assert!(matches!(read.text("command"), Some(Cow::Borrowed(_))));
        assert_eq!(read.text("path"), None);
        let escaped = input(r#"{"command": "echo \"a\"\nb"}"#);
        assert_eq!(
            escaped.get().unwrap().text("command").as_deref(),
            Some("echo \"a\"\nb")
        );
        assert!(input(r#""ls""#).is_mistyped());
    }
}
