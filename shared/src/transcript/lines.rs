//! Reading a transcript from a byte offset: whole lines only, and a fingerprint of the bytes
//! before the offset that tells whether the file was rewritten since.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::ops::ControlFlow;

use crate::store::files;
use crate::transcript::file::TranscriptError;

/// How many bytes before the offset the fingerprint covers.
pub const FINGERPRINT_BYTES: u64 = 4096;

/// SHA-256 (hex) of the up to [`FINGERPRINT_BYTES`] bytes just before `offset`.
pub fn fingerprint_before(file: &mut fs_err::File, offset: u64) -> Result<String, TranscriptError> {
    let start = offset.saturating_sub(FINGERPRINT_BYTES);
    file.seek(SeekFrom::Start(start))
        .map_err(TranscriptError::Seek)?;
    let length = usize::try_from(offset - start).unwrap_or(0);
    let mut bytes = vec![0u8; length];
    file.read_exact(&mut bytes)
        .map_err(TranscriptError::ReadBeforeCursor)?;
    Ok(files::sha256_hex(&bytes))
}

/// The longest line handed to a reader (64 MiB); a longer one is skipped, not buffered.
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// What one pass over a transcript's complete lines found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinesRead {
    /// The offset just after the last complete line.
    pub offset: u64,
    /// Complete lines skipped because they were longer than the limit.
    pub overlong_lines: u64,
}

/// Calls `each` with every complete line (without its newline) from `offset` up to `until`, and
/// returns the offset just after the last complete line and how many lines it skipped: a last
/// line without its newline is left for the next reader (Claude Code may still be writing it),
/// unless `take_unterminated` is set (a file at rest, read whole); a complete line longer than
/// `max_line` is not handed to `each` (its bytes are not kept), but the offset moves past it. An
/// unterminated last line is never buffered beyond the limit either (the pass ends at its start,
/// as for any unterminated line), so memory stays bounded whatever the file holds.
pub fn read_bounded_lines(
    file: &mut fs_err::File,
    offset: u64,
    until: u64,
    take_unterminated: bool,
    max_line: usize,
    mut each: impl FnMut(u64, &[u8]),
) -> Result<LinesRead, TranscriptError> {
    file.seek(SeekFrom::Start(offset))
        .map_err(TranscriptError::Seek)?;
    // Nothing past `until` is read: a file that keeps growing while it is read must not keep
    // the reader going, and one run reads a bounded amount.
    let window = (&mut *file).take(until.saturating_sub(offset));
    split_lines(window, offset, take_unterminated, max_line, |line| {
        if let Some(bytes) = line.bytes {
            each(line.offset, bytes);
        }
        ControlFlow::Continue(())
    })
}

/// One line found by [`split_lines`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'bytes> {
    /// Where it starts.
    pub offset: u64,
    /// Its bytes without the newline; `None` when it is longer than the limit (not kept).
    pub bytes: Option<&'bytes [u8]>,
    /// Its length without the newline.
    pub length: u64,
}

/// How much [`split_lines`] reads at a time: a whole transcript goes through in few reads.
const READ_BUFFER: usize = 1024 * 1024;

/// How much [`split_opening_lines`] reads at a time.
const OPENING_READ_BUFFER: usize = 16 * 1024;

/// Calls `each` with every complete line `reader` holds, the first starting at `offset` (the
/// reader's position in its file), until `each` breaks, and returns what the pass found (the
/// offset after the last line handed). A line longer than `max_line` is handed without its bytes
/// and counted; the last line without its newline is handed only when `take_unterminated` is
/// set.
pub fn split_lines(
    reader: impl Read,
    offset: u64,
    take_unterminated: bool,
    max_line: usize,
    each: impl FnMut(Line<'_>) -> ControlFlow<()>,
) -> Result<LinesRead, TranscriptError> {
    split_lines_by(
        READ_BUFFER,
        reader,
        offset,
        take_unterminated,
        max_line,
        each,
    )
}

/// [`split_lines`] for a reader that stops after the first lines (a transcript's opening):
/// 16 KiB read at a time, so that a short look neither fills (and first clears) a whole MiB
/// nor, from a kept gzip copy, inflates that much.
pub fn split_opening_lines(
    reader: impl Read,
    max_line: usize,
    each: impl FnMut(Line<'_>) -> ControlFlow<()>,
) -> Result<LinesRead, TranscriptError> {
    split_lines_by(OPENING_READ_BUFFER, reader, 0, false, max_line, each)
}

fn split_lines_by(
    capacity: usize,
    reader: impl Read,
    offset: u64,
    take_unterminated: bool,
    max_line: usize,
    mut each: impl FnMut(Line<'_>) -> ControlFlow<()>,
) -> Result<LinesRead, TranscriptError> {
    let mut reader = BufReader::with_capacity(capacity, reader);
    let mut read = LinesRead {
        offset,
        overlong_lines: 0,
    };
    // The line being gathered: its bytes while it fits, its length only once it does not.
    let mut line = Vec::new();
    let mut line_length: u64 = 0;
    let mut overlong = false;
    let mut hand = |read: &mut LinesRead, line: &[u8], length: u64, overlong: bool| {
        if overlong {
            read.overlong_lines += 1;
        }
        each(Line {
            offset: read.offset,
            bytes: (!overlong).then_some(line),
            length,
        })
    };
    loop {
        let buffer = reader.fill_buf().map_err(TranscriptError::Read)?;
        if buffer.is_empty() {
            if take_unterminated && line_length > 0 {
                // The last line: whether `each` would go on changes nothing.
                let _ = hand(&mut read, &line, line_length, overlong);
                read.offset += line_length;
            }
            return Ok(read);
        }
        let newline = memchr::memchr(b'\n', buffer);
        let piece = &buffer[..newline.unwrap_or(buffer.len())];
        if line_length == 0
            && let Some(newline) = newline
            && piece.len() <= max_line
        {
            // A whole line in the buffer: handed from it, not copied.
            let length = piece.len() as u64;
            let flow = hand(&mut read, piece, length, false);
            read.offset += length + 1;
            reader.consume(newline + 1);
            if flow.is_break() {
                return Ok(read);
            }
            continue;
        }
        line_length += piece.len() as u64;
        if !overlong {
            if line.len() + piece.len() > max_line {
                overlong = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(piece);
            }
        }
        let consumed = piece.len() + usize::from(newline.is_some());
        reader.consume(consumed);
        if newline.is_some() {
            let flow = hand(&mut read, &line, line_length, overlong);
            read.offset += line_length + 1;
            if flow.is_break() {
                return Ok(read);
            }
            line.clear();
            line_length = 0;
            overlong = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls `each` with every complete line (without its newline) from `offset` on, and returns
    /// the offset just after the last complete line. A last line without its newline is left for
    /// the next reader (Claude Code may still be writing it), unless `take_unterminated` is set
    /// (a file at rest, read whole). Lines longer than [`MAX_LINE_BYTES`] are skipped.
    fn read_complete_lines(
        file: &mut fs_err::File,
        offset: u64,
        take_unterminated: bool,
        each: impl FnMut(u64, &[u8]),
    ) -> Result<u64, TranscriptError> {
        read_bounded_lines(
            file,
            offset,
            u64::MAX,
            take_unterminated,
            MAX_LINE_BYTES,
            each,
        )
        .map(|read| read.offset)
    }

    #[test]
    fn stops_before_a_half_written_line() {
        let temp = crate::test_support::TempFolder::new("tail");
        let dir = temp.path();
        let path = dir.join("t.jsonl");
        fs_err::write(&path, b"one\ntwo\nthr").unwrap();
        let mut file = fs_err::File::open(&path).unwrap();
        let mut lines = Vec::new();
        let end = read_complete_lines(&mut file, 0, false, |offset, line| {
            lines.push((offset, line.to_vec()));
        })
        .unwrap();
        assert_eq!(end, 8);
        assert_eq!(lines, vec![(0, b"one".to_vec()), (4, b"two".to_vec())]);
        let mut rest = Vec::new();
        let end =
            read_complete_lines(&mut file, 8, true, |_, line| rest.push(line.to_vec())).unwrap();
        assert_eq!((end, rest), (11, vec![b"thr".to_vec()]));
        assert_eq!(
            fingerprint_before(&mut file, 8).unwrap(),
            files::sha256_hex(b"one\ntwo\n")
        );
    }

    #[test]
    fn nothing_past_until_is_read() {
        let temp = crate::test_support::TempFolder::new("tail-until");
        let dir = temp.path();
        let path = dir.join("t.jsonl");
        fs_err::write(&path, b"one\ntwo\nthree\n").unwrap();
        let mut file = fs_err::File::open(&path).unwrap();
        let mut lines = Vec::new();
        // The window ends inside "two": only "one" is whole within it.
        let read = read_bounded_lines(&mut file, 0, 6, false, 64, |_, line| {
            lines.push(line.to_vec());
        })
        .unwrap();
        assert_eq!(lines, [b"one".to_vec()]);
        assert_eq!(read.offset, 4);
    }

    #[test]
    fn an_overlong_line_is_skipped_and_passed() {
        let temp = crate::test_support::TempFolder::new("tail-long");
        let dir = temp.path();
        let path = dir.join("t.jsonl");
        fs_err::write(&path, b"one\nmuch-too-long\ntwo\nalso-too-long").unwrap();
        let mut file = fs_err::File::open(&path).unwrap();
        let mut lines = Vec::new();
        let read = read_bounded_lines(&mut file, 0, u64::MAX, false, 8, |offset, line| {
            lines.push((offset, line.to_vec()));
        })
        .unwrap();
        // "one\n" is 4 bytes, "much-too-long\n" 14, "two\n" 4: the cursor passes the long
        // line and stops before the unterminated one.
        assert_eq!(
            read,
            LinesRead {
                offset: 22,
                overlong_lines: 1
            }
        );
        assert_eq!(lines, vec![(0, b"one".to_vec()), (18, b"two".to_vec())]);
    }
}
