//! Reading a transcript from a byte offset: whole lines only, and a fingerprint of the bytes
//! before the offset that tells whether the file was rewritten since.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

use anyhow::{Context, Result};

use crate::files;

/// How many bytes before the offset the fingerprint covers.
pub const FINGERPRINT_BYTES: u64 = 4096;

/// SHA-256 (hex) of the up to [`FINGERPRINT_BYTES`] bytes just before `offset`.
pub fn fingerprint_before(file: &mut fs_err::File, offset: u64) -> Result<String> {
    let start = offset.saturating_sub(FINGERPRINT_BYTES);
    file.seek(SeekFrom::Start(start))
        .context("failed to seek in the transcript")?;
    let length = usize::try_from(offset - start).unwrap_or(0);
    let mut bytes = vec![0u8; length];
    file.read_exact(&mut bytes)
        .context("failed to read the bytes before the cursor")?;
    Ok(files::sha256_hex(&bytes))
}

/// Calls `each` with every complete line (without its newline) from `offset` on, and returns
/// the offset just after the last complete line. A last line without its newline is left for
/// the next reader (Claude Code may still be writing it), unless `take_unterminated` is set
/// (a file at rest, read whole).
pub fn read_complete_lines(
    file: &mut fs_err::File,
    offset: u64,
    take_unterminated: bool,
    mut each: impl FnMut(u64, &[u8]),
) -> Result<u64> {
    file.seek(SeekFrom::Start(offset))
        .context("failed to seek in the transcript")?;
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    let mut position = offset;
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .context("failed to read the transcript")?;
        if read == 0 {
            break;
        }
        if line.last() == Some(&b'\n') {
            line.pop();
            each(position, &line);
            position += read as u64;
        } else {
            if take_unterminated {
                each(position, &line);
                position += read as u64;
            }
            break;
        }
    }
    Ok(position)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_before_a_half_written_line() {
        let dir = std::env::temp_dir().join(format!("ctxhooks-tail-{}", std::process::id()));
        fs_err::create_dir_all(&dir).unwrap();
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
}
