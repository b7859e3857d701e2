//! Writing command output to stdout (the only module that does). A command that prints in words
//! or, with `--json`, as JSON hands [`emit`] the [`Format`] and one typed value that knows both
//! ([`Emit`]); a JSON document whose layout has a version is [`Versioned`]. Only what has one
//! format (a status line, JSON Lines, a transcript streamed through) is printed as it is.

use std::io::{BufWriter, StdoutLock, Write};
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

/// How a command prints what it found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Words, for people.
    Text,
    /// JSON, for programs.
    Json,
}

impl Format {
    /// JSON when `json` (a command's `--json`), else text.
    pub fn json_if(json: bool) -> Self {
        if json { Self::Json } else { Self::Text }
    }
}

/// What a command prints: its words ([`Emit::text`]), and its JSON, the value's serde
/// serialisation unless [`Emit::json`] says otherwise.
pub trait Emit: Serialize {
    /// The value in words, as printed (each line ending with a newline).
    fn text(&self) -> String;

    /// The value as printed with `--json`: pretty JSON and a newline.
    fn json(&self) -> serde_json::Result<String> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }
}

/// Writes `value` to stdout in `format`: the one way a command with `--json` prints.
pub fn emit(format: Format, value: &impl Emit) -> Result<()> {
    match format {
        Format::Text => print(&value.text()),
        Format::Json => print(&value.json()?),
    }
}

/// [`emit`]s `value` (JSON when `json`, a command's `--json`, else words): how a command that
/// found what it was asked for ends.
pub fn emit_ok(json: bool, value: &impl Emit) -> Result<ExitCode> {
    emit_exit(json, value, true)
}

/// [`emit`]s `value` as [`emit_ok`] does, then ends the command with 0 when `ok`, else 1
/// (something it checked is broken, or failed).
pub fn emit_exit(json: bool, value: &impl Emit, ok: bool) -> Result<ExitCode> {
    emit(Format::json_if(json), value)?;
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// A JSON layout with a version: `{"schema": SCHEMA, ...}`, the number a program checks before
/// it reads the rest (documented beside each layout in `docs/`).
pub trait Schema {
    /// The layout's version, raised when a field changes meaning or goes.
    const SCHEMA: u32;
}

impl<T: Schema> Schema for &T {
    const SCHEMA: u32 = T::SCHEMA;
}

/// `value` with its layout's version first, `{"schema": N, ...value's fields}`: the one way a
/// command's versioned JSON is made.
#[derive(Debug, Serialize)]
pub struct Versioned<T> {
    schema: u32,
    #[serde(flatten)]
    value: T,
}

impl<T: Schema> Versioned<T> {
    /// `value`, marked with [`Schema::SCHEMA`].
    pub fn new(value: T) -> Self {
        Self {
            schema: T::SCHEMA,
            value,
        }
    }
}

impl<T: Schema + Emit> Emit for Versioned<T> {
    fn text(&self) -> String {
        self.value.text()
    }
}

/// Writes each listed field of `$from` under its own name, in order, into the struct serializer
/// `$into`: `fields_by_name! { into, from; a, b }` is `into.serialize_field("a", &from.a)?;` and
/// the same for `b`. For a hand-written `Serialize` whose keys interleave several values' fields
/// (a derive gives one value's, in its order).
macro_rules! fields_by_name {
    ($into:ident, $from:expr; $($field:ident),+) => {
        $($into.serialize_field(stringify!($field), &$from.$field)?;)+
    };
}
pub(crate) use fields_by_name;

/// Writes `text` to stdout as it is.
pub fn print(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// Writes `text` and a newline to stdout.
pub fn println(text: &str) -> Result<()> {
    print(&format!("{text}\n"))
}

/// Writes to stdout through a buffer whatever `write` writes, exactly as it is (for output too
/// large to hold in memory that must stay byte-identical, such as a transcript).
pub fn print_with(
    write: impl FnOnce(&mut BufWriter<StdoutLock<'static>>) -> Result<()>,
) -> Result<()> {
    let mut stdout = BufWriter::with_capacity(256 * 1024, std::io::stdout().lock());
    write(&mut stdout)?;
    stdout.flush()?;
    Ok(())
}

/// Writes a note to stderr (for people; never parsed).
pub fn note(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Counted {
        count: u32,
        #[serde(flatten)]
        more: serde_json::Value,
    }

    impl Schema for Counted {
        const SCHEMA: u32 = 7;
    }

    #[test]
    fn a_versioned_value_has_its_schema_first_then_its_own_fields_in_their_order() {
        let value = Versioned::new(Counted {
            count: 2,
            more: serde_json::json!({"z": 1, "a": null}),
        });
        assert_eq!(
            serde_json::to_string(&value).unwrap(),
            r#"{"schema":7,"count":2,"z":1,"a":null}"#
        );
    }
}
