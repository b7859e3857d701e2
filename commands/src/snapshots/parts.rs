//! A session's other transcripts in its kept copy: Claude Code writes a session resumed from
//! another folder on under that folder's project, with the same id, so its main transcript is
//! then two files (the new one holding the rest of the conversation). The hooks keep both under
//! the session's one kept copy, each file a generation of its own with its path as the
//! generation's `source` (a file that opens with the bytes kept so far carries the generation on
//! instead). A reader of the whole conversation reads the newest generation of each other
//! source before the one it chose, oldest first, and joins them with [`JoinedLines`]: a
//! generation of the chosen source is an earlier version of it (rewritten, cut short), not a
//! part.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use ctxhooks_shared::store::kept::{self, GenerationIndex, KeptName};
use ctxhooks_shared::transcript::lines::MAX_LINE_BYTES;
use ctxhooks_shared::transcript::record::Record;

/// The newest readable generation of each source other than `chosen`'s among the generations
/// before it, oldest first: the session's other transcripts, kept.
pub fn earlier_parts(
    kept_dir: &Path,
    name: &KeptName,
    chosen: &GenerationIndex,
) -> Vec<GenerationIndex> {
    let mut sources: HashSet<String> = HashSet::from([chosen.header.source.clone()]);
    let mut parts = Vec::new();
    for generation in (1..chosen.header.generation).rev() {
        let path = name.index_path(kept_dir, generation);
        // The header alone first: most older generations are earlier versions of the chosen
        // source, and a long session's index is long.
        let Ok(header) = kept::read_header(&path) else {
            continue;
        };
        if sources.contains(&header.source) {
            continue;
        }
        let Ok(index) = GenerationIndex::read(&path) else {
            continue;
        };
        if index.length() > 0 && sources.insert(index.header.source.clone()) {
            parts.push(index);
        }
    }
    parts.reverse();
    parts
}

/// Transcripts read one after the other as one: a newline between two when the first's last
/// line has none (a transcript cut in the middle of a line), and each line whose `uuid` an
/// earlier line had passed over (a transcript that opens with a copy of the conversation before
/// it, uuids kept). Lines too long to look at are passed on as they are.
pub struct JoinedLines {
    parts: std::vec::IntoIter<Box<dyn Read>>,
    current: Option<BufReader<Box<dyn Read>>>,
    seen: HashSet<String>,
    line: Vec<u8>,
    at: usize,
    /// The last byte handed on, to know whether a newline must come before the next part.
    last: Option<u8>,
}

impl JoinedLines {
    /// The transcripts `parts`, in this order.
    pub fn new(parts: Vec<Box<dyn Read>>) -> Self {
        Self {
            parts: parts.into_iter(),
            current: None,
            seen: HashSet::new(),
            line: Vec::new(),
            at: 0,
            last: None,
        }
    }

    /// Fills `line` with the next line to hand on; false at the end.
    fn next_line(&mut self) -> std::io::Result<bool> {
        loop {
            self.line.clear();
            self.at = 0;
            let Some(current) = self.current.as_mut() else {
                let Some(next) = self.parts.next() else {
                    return Ok(false);
                };
                self.current = Some(BufReader::new(next));
                if self.last.is_some_and(|last| last != b'\n') {
                    self.line.push(b'\n');
                    return Ok(true);
                }
                continue;
            };
            let limit = u64::try_from(MAX_LINE_BYTES).unwrap_or(u64::MAX);
            if current.take(limit).read_until(b'\n', &mut self.line)? == 0 {
                self.current = None;
                continue;
            }
            let whole = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
            let uuid = Record::parse(whole).and_then(|record| record.uuid.owned());
            if uuid.is_some_and(|uuid| !self.seen.insert(uuid)) {
                continue;
            }
            return Ok(true);
        }
    }
}

impl Read for JoinedLines {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.line.len() && !self.next_line()? {
            return Ok(0);
        }
        let count = buffer.len().min(self.line.len() - self.at);
        buffer[..count].copy_from_slice(&self.line[self.at..self.at + count]);
        self.at += count;
        if let Some(&last) = buffer[..count].last() {
            self.last = Some(last);
        }
        Ok(count)
    }
}

/// Opens a part's kept bytes, whole.
pub fn open_part(
    kept_dir: &Path,
    name: &KeptName,
    part: &GenerationIndex,
) -> Option<Box<dyn Read>> {
    let reader = kept::open_generation(kept_dir, name, part, part.length()).ok()?;
    Some(Box::new(reader))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_joined_line_by_line_each_uuid_once_a_cut_line_ended() {
        let parts: Vec<Box<dyn Read>> = vec![
            Box::new(&b"{\"uuid\":\"a\"}\n{\"uuid\":\"b\"}"[..]),
            Box::new(&b"{\"uuid\":\"a\"}\n{\"uuid\":\"b\"}\nnot json\n{\"uuid\":\"c\"}\n"[..]),
            Box::new(&b""[..]),
            Box::new(&b"{\"type\":\"summary\"}\n"[..]),
        ];
        let mut joined = String::new();
        JoinedLines::new(parts).read_to_string(&mut joined).unwrap();
        assert_eq!(
            joined,
            "{\"uuid\":\"a\"}\n{\"uuid\":\"b\"}\nnot json\n{\"uuid\":\"c\"}\n{\"type\":\"summary\"}\n"
        );
    }
}
