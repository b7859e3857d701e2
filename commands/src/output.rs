//! Writing command output to stdout (the only module that does), as text or JSON.

use std::io::{BufWriter, StdoutLock, Write};

use anyhow::Result;
use serde::Serialize;

/// Writes `text` to stdout as it is.
pub fn print(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(())
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

/// Writes `text` and a newline to stdout.
pub fn println(text: &str) -> Result<()> {
    print(&format!("{text}\n"))
}

/// Writes `value` as pretty JSON and a newline to stdout.
pub fn print_json<T: Serialize>(value: &T) -> Result<()> {
    println(&serde_json::to_string_pretty(value)?)
}

/// Writes `value` as pretty JSON with `--json`, else the text `text` makes of it, as it is.
pub fn print_json_or<T: Serialize>(
    json: bool,
    value: &T,
    text: impl FnOnce(&T) -> String,
) -> Result<()> {
    if json {
        print_json(value)
    } else {
        print(&text(value))
    }
}

/// Writes a note to stderr (for people; never parsed).
pub fn note(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}
