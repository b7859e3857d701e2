//! A source's new lines read on a thread of their own while the caller writes the index: each
//! line's place, and for a message its speaker, time, hash and text, handed over in order, in
//! batches (parsing the JSON and writing `SQLite` take about as long each; on two cores they
//! overlap).

use std::io::Read;
use std::ops::ControlFlow;
use std::sync::mpsc::sync_channel;

use anyhow::{Result, anyhow};

use super::message::message_text;
use super::role::Role;
use crate::time::Time;
use ctxhooks_shared::transcript::conversation::{Entry, Part, Speaker, read_entry};
use ctxhooks_shared::transcript::lines::{LinesRead, MAX_LINE_BYTES, split_lines};
use ctxhooks_shared::transcript::record::Record;

/// Lines per batch.
const BATCH_LINES: usize = 512;
/// Text per batch, in bytes, at most (a batch of large tool results is handed over early).
const BATCH_TEXT: usize = 8 * 1024 * 1024;
/// Batches read ahead of the writer.
const AHEAD: usize = 4;

/// A transcript line, parsed on the second thread into what the index keeps of it.
#[derive(Debug)]
pub struct PreparedLine {
    /// Where it starts, and its length without the newline.
    pub offset: u64,
    pub length: u64,
    /// What it says, when it is a message.
    pub message: Option<PreparedMessage>,
    /// The project's folder, from the first line that names its `cwd` (looked for only until
    /// then).
    pub cwd: Option<String>,
}

/// A message, ready for the index.
#[derive(Debug)]
pub struct PreparedMessage {
    pub role: Role,
    /// When it was said, in milliseconds since the Unix epoch.
    pub at: Option<i64>,
    /// [`line_hash`] of its line.
    pub hash: i64,
    pub text: String,
    /// Whether it is words a person typed or the model wrote ([`said`]).
    pub said: bool,
}

/// Reads `reader`'s complete lines (the first at `from`) on a second thread, and calls `each`
/// with every line in order on this one. Stops at `each`'s first error, which it returns;
/// otherwise returns where the lines ended.
pub fn prepare_lines(
    reader: Box<dyn Read + Send>,
    from: u64,
    subagent: bool,
    mut want_cwd: bool,
    mut each: impl FnMut(PreparedLine) -> Result<()>,
) -> Result<LinesRead> {
    std::thread::scope(|scope| {
        let (sender, receiver) = sync_channel::<Vec<PreparedLine>>(AHEAD);
        let reading = scope.spawn(move || {
            let mut batch = Vec::with_capacity(BATCH_LINES);
            let mut text_bytes = 0;
            let mut writer_gone = false;
            let read = split_lines(reader, from, false, MAX_LINE_BYTES, |line| {
                let (message, cwd) = match line.bytes {
                    Some(bytes) => {
                        let cwd = if want_cwd {
                            Record::parse(bytes)
                                .and_then(|record| record.cwd.text().map(ToOwned::to_owned))
                        } else {
                            None
                        };
                        want_cwd &= cwd.is_none();
                        (prepare(bytes, subagent), cwd)
                    }
                    None => (None, None),
                };
                text_bytes += message.as_ref().map_or(0, |message| message.text.len());
                batch.push(PreparedLine {
                    offset: line.offset,
                    length: line.length,
                    message,
                    cwd,
                });
                if batch.len() >= BATCH_LINES || text_bytes >= BATCH_TEXT {
                    text_bytes = 0;
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH_LINES));
                    if sender.send(full).is_err() {
                        writer_gone = true;
                        return ControlFlow::Break(());
                    }
                }
                ControlFlow::Continue(())
            });
            if !writer_gone && !batch.is_empty() {
                let _ = sender.send(batch);
            }
            read
        });
        let mut failure = None;
        'batches: for batch in &receiver {
            for line in batch {
                if let Err(error) = each(line) {
                    failure = Some(error);
                    break 'batches;
                }
            }
        }
        // The reader stops at its next batch once nobody takes it.
        drop(receiver);
        let read = reading
            .join()
            .map_err(|_| anyhow!("the search index's reader stopped on a panic"))?;
        match failure {
            Some(error) => Err(error),
            None => Ok(read?),
        }
    })
}

/// `bytes` as the index holds it, when the line is a message.
fn prepare(bytes: &[u8], subagent: bool) -> Option<PreparedMessage> {
    let entry = read_entry(bytes, subagent);
    let Some(Entry::Message {
        speaker,
        time,
        parts,
        ..
    }) = entry
    else {
        return None;
    };
    let mut text = String::new();
    message_text(&parts, &mut text);
    Some(PreparedMessage {
        said: said(speaker, &parts),
        role: Role::of(speaker),
        at: time
            .as_deref()
            .and_then(|time| Time::parse(time).instant())
            .map(|instant| instant.timestamp_millis()),
        hash: line_hash(bytes),
        text,
    })
}

/// Whether a message is words a person typed or the model wrote: a prompt, or a line of the
/// model's that holds text (a line of only tool calls, a tool's output and a compaction's
/// summary are not). Within a tier of matches these come first: people search for what was
/// said, and a tool's output or a summary repeats it scattered.
pub fn said(speaker: Speaker, parts: &[Part]) -> bool {
    matches!(speaker, Speaker::User | Speaker::Assistant)
        && parts.iter().any(|part| matches!(part, Part::Text { .. }))
}

/// A 64-bit hash of a line's bytes: the same line kept in two generations is one result, and a
/// line read back for its snippet is checked to be the one indexed.
pub fn line_hash(bytes: &[u8]) -> i64 {
    use std::hash::{Hash as _, Hasher as _};
    let mut hasher = rustc_hash::FxHasher::default();
    bytes.hash(&mut hasher);
    hasher.finish().cast_signed()
}
