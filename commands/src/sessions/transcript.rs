//! A session's main transcript, to read from its start: the live file while Claude Code still
//! has it, else the newest readable generation of the kept copy (after Claude Code's cleanup
//! deleted it); a session whose id has transcripts in other project folders too (resumed from
//! another folder) has theirs first (`snapshots/parts.rs`).

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::snapshots::catalog::list_snapshots;
use crate::snapshots::parts::{JoinedLines, earlier_parts, open_part};
use ctxhooks_shared::store::kept::{self, GenerationIndex, KeptName};
use ctxhooks_shared::store::kept_check::{Depth, newest_whole};
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::transcript::file::TranscriptFile;

/// A session's transcript, open.
pub struct SessionTranscript {
    /// Its bytes from the start.
    pub reader: Box<dyn Read>,
    /// Where they come from, for people: the live file, or the kept copy's generation.
    pub source: PathBuf,
    /// True when they come from the kept copy (the live file is gone).
    pub kept: bool,
}

/// Opens `session`'s main transcript: the live file where the kept copy (or a snapshot) says it
/// is, when it is still there; else the kept copy.
pub fn open_session_transcript(state: &StateDir, session: &SessionId) -> Result<SessionTranscript> {
    let kept_dir = state.kept_dir(session);
    let name = KeptName::main();
    let index = newest_whole(&kept_dir, &name, Depth::Files)?
        .chosen
        .and_then(|chosen| chosen.index);
    let opened = open_chosen(state, session, index.as_ref())?;
    // The session's other transcripts first (resumed from another folder), each its live file
    // where it still is, else as kept.
    let parts = index
        .as_ref()
        .map(|index| earlier_parts(&kept_dir, &name, index))
        .unwrap_or_default();
    if parts.is_empty() {
        return Ok(opened);
    }
    let mut readers: Vec<Box<dyn Read>> = Vec::new();
    for part in &parts {
        let live = TranscriptFile::open_if_present(Path::new(&part.header.source))?;
        match live {
            Some(file) => readers.push(Box::new(file.into_file())),
            None => readers.extend(open_part(&kept_dir, &name, part)),
        }
    }
    readers.push(opened.reader);
    Ok(SessionTranscript {
        reader: Box::new(JoinedLines::new(readers)),
        ..opened
    })
}

/// Opens the transcript of the kept copy's generation `index` (the newest whole one): the live
/// file where it (or a snapshot) says it is, when it is still there; else the kept copy.
fn open_chosen(
    state: &StateDir,
    session: &SessionId,
    index: Option<&GenerationIndex>,
) -> Result<SessionTranscript> {
    let kept_dir = state.kept_dir(session);
    let name = KeptName::main();
    let live = match index {
        Some(index) => Some(PathBuf::from(&index.header.source)),
        None => list_snapshots(state, Some(session))?
            .last()
            .map(|snapshot| PathBuf::from(&snapshot.metadata.source_path)),
    };
    if let Some(path) = &live
        && let Some(file) = TranscriptFile::open_if_present(path)?
    {
        return Ok(SessionTranscript {
            reader: Box::new(file.into_file()),
            source: path.clone(),
            kept: false,
        });
    }
    let Some(index) = index else {
        bail!(
            "nothing of session {session}'s transcript is kept{} (the Stop, PreCompact and \
             SessionEnd hooks keep it; `ctxhooks doctor` checks they are installed)",
            live.map(|path| format!(", and `{}` is gone", path.display()))
                .unwrap_or_default()
        );
    };
    let generation = index.header.generation;
    let reader = kept::open_generation(&kept_dir, &name, index, index.length())?;
    Ok(SessionTranscript {
        reader: Box::new(ReadAhead::start(reader)),
        source: name.data_path(&kept_dir, generation),
        kept: true,
    })
}

/// How much a [`ReadAhead`] thread reads at a time, and how many such pieces it may be ahead.
const PIECE_BYTES: usize = 1024 * 1024;
const PIECES_AHEAD: usize = 4;

/// A reader whose bytes another thread reads ahead: the kept copy is decompressed on one core
/// while its lines are read on another (decompressing is most of the cost of reading it).
pub struct ReadAhead {
    pieces: std::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
    piece: Vec<u8>,
    at: usize,
}

impl ReadAhead {
    /// Starts reading `reader` on a thread of its own, at most `PIECES_AHEAD` pieces ahead.
    pub fn start(mut reader: impl Read + Send + 'static) -> Self {
        let (sender, pieces) = std::sync::mpsc::sync_channel(PIECES_AHEAD);
        std::thread::spawn(move || {
            loop {
                // A whole piece, or what there was before the end or an error (whose bytes
                // read are kept).
                let mut piece = Vec::with_capacity(PIECE_BYTES);
                let outcome = (&mut reader)
                    .take(PIECE_BYTES as u64)
                    .read_to_end(&mut piece);
                let filled = piece.len();
                let last = filled < PIECE_BYTES || outcome.is_err();
                // The bytes read come first, then the error that stopped the reading.
                let mut sent = if filled > 0 {
                    sender.send(Ok(piece))
                } else {
                    Ok(())
                };
                if let (Ok(()), Err(error)) = (&sent, outcome) {
                    sent = sender.send(Err(error));
                }
                // The reader went away (it stopped reading), or all was read.
                if sent.is_err() || last {
                    return;
                }
            }
        });
        Self {
            pieces,
            piece: Vec::new(),
            at: 0,
        }
    }
}

impl Read for ReadAhead {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.piece.len() {
            match self.pieces.recv() {
                Ok(piece) => {
                    self.piece = piece?;
                    self.at = 0;
                }
                // The thread is done: everything was read.
                Err(_) => return Ok(0),
            }
        }
        let count = buffer.len().min(self.piece.len() - self.at);
        buffer[..count].copy_from_slice(&self.piece[self.at..self.at + count]);
        self.at += count;
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_ahead_gives_every_byte_in_order_and_the_error_at_its_place() {
        let bytes: Vec<u8> = (0..(PIECE_BYTES * 3 + 17))
            .map(|at| u8::try_from(at % 251).unwrap())
            .collect();
        let mut read = Vec::new();
        ReadAhead::start(std::io::Cursor::new(bytes.clone()))
            .read_to_end(&mut read)
            .unwrap();
        assert_eq!(read, bytes);
        let mut empty = Vec::new();
        ReadAhead::start(std::io::empty())
            .read_to_end(&mut empty)
            .unwrap();
        assert!(empty.is_empty());
        // A reader that fails after some bytes: those bytes, then its error.
        let failing = std::io::Cursor::new(vec![7u8; 10]).chain(Failing);
        let mut ahead = ReadAhead::start(failing);
        let mut first = [0u8; 10];
        ahead.read_exact(&mut first).unwrap();
        assert_eq!(first, [7u8; 10]);
        let error = ahead.read(&mut first).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
    }

    struct Failing;

    impl Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "damaged",
            ))
        }
    }
}
