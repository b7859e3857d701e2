//! A SHA-256 that can be saved between runs and carried on: the kept copy of a transcript
//! grows by a few kilobytes per hook run, and the SHA-256 of everything kept so far must not
//! cost a read of everything kept so far. The state is the eight words after the last whole
//! 64-byte block, the bytes after it and the length; it is written as text in the kept copy's
//! index and read back by the next run.

use std::fmt::Write as _;

use sha2::digest::generic_array::GenericArray;

/// SHA-256's initial state (FIPS 180-4, 5.3.3).
const INITIAL_STATE: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

/// SHA-256's block size in bytes.
const BLOCK: usize = 64;

/// A SHA-256 in progress, which can be saved as text ([`RunningHash::saved`]) and carried on
/// later ([`RunningHash::restore`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningHash {
    state: [u32; 8],
    /// The bytes after the last whole block (fewer than 64).
    pending: Vec<u8>,
    /// Bytes hashed so far.
    length: u64,
}

impl Default for RunningHash {
    fn default() -> Self {
        Self::new()
    }
}

/// Hashing as a sink: what is written is hashed after everything hashed so far.
impl std::io::Write for RunningHash {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl RunningHash {
    /// The hash of nothing yet.
    pub fn new() -> Self {
        Self {
            state: INITIAL_STATE,
            pending: Vec::with_capacity(BLOCK),
            length: 0,
        }
    }

    /// Bytes hashed so far.
    pub fn length(&self) -> u64 {
        self.length
    }

    /// Hashes `bytes` after everything hashed so far.
    pub fn update(&mut self, mut bytes: &[u8]) {
        self.length += bytes.len() as u64;
        if !self.pending.is_empty() {
            let wanted = (BLOCK - self.pending.len()).min(bytes.len());
            self.pending.extend_from_slice(&bytes[..wanted]);
            bytes = &bytes[wanted..];
            if self.pending.len() < BLOCK {
                return;
            }
            let block = GenericArray::clone_from_slice(&self.pending);
            sha2::compress256(&mut self.state, &[block]);
            self.pending.clear();
        }
        let whole = bytes.len() / BLOCK * BLOCK;
        // Block by block, borrowed in place: no copy of what is hashed.
        for block in bytes[..whole].chunks_exact(BLOCK) {
            sha2::compress256(
                &mut self.state,
                std::slice::from_ref(GenericArray::from_slice(block)),
            );
        }
        self.pending.extend_from_slice(&bytes[whole..]);
    }

    /// The SHA-256 of everything hashed so far, as lowercase hex (the hash can go on after).
    pub fn hex_digest(&self) -> String {
        let mut state = self.state;
        let mut tail = self.pending.clone();
        tail.push(0x80);
        while tail.len() % BLOCK != BLOCK - 8 {
            tail.push(0);
        }
        tail.extend_from_slice(&(self.length.wrapping_mul(8)).to_be_bytes());
        let blocks: Vec<GenericArray<u8, _>> = tail
            .chunks_exact(BLOCK)
            .map(GenericArray::clone_from_slice)
            .collect();
        sha2::compress256(&mut state, &blocks);
        let mut text = String::with_capacity(64);
        for word in state {
            let _ = write!(text, "{word:08x}");
        }
        text
    }

    /// The state as text: the eight words in hex, a `:`, then the pending bytes in hex. With
    /// the length (kept beside it), [`RunningHash::restore`] carries on from it.
    pub fn saved(&self) -> String {
        let mut text = String::with_capacity(64 + 1 + self.pending.len() * 2);
        for word in self.state {
            let _ = write!(text, "{word:08x}");
        }
        text.push(':');
        for byte in &self.pending {
            let _ = write!(text, "{byte:02x}");
        }
        text
    }

    /// The hash [`RunningHash::saved`] wrote after `length` bytes; `None` when `saved` is not
    /// such a state (`:` between 64 hex digits of words and fewer than 64 pending bytes in hex)
    /// or does not match `length`: the kept copy it came from is damaged, whatever the reason.
    pub fn restore(saved: &str, length: u64) -> Option<Self> {
        let (words, pending) = saved.split_once(':')?;
        if words.len() != 64 {
            return None;
        }
        let mut state = [0u32; 8];
        for (index, word) in state.iter_mut().enumerate() {
            *word = u32::from_str_radix(words.get(index * 8..index * 8 + 8)?, 16).ok()?;
        }
        if pending.len() % 2 != 0 || pending.len() / 2 >= BLOCK {
            return None;
        }
        let pending = (0..pending.len() / 2)
            .map(|index| u8::from_str_radix(pending.get(index * 2..index * 2 + 2)?, 16).ok())
            .collect::<Option<Vec<u8>>>()?;
        if length % BLOCK as u64 != pending.len() as u64 {
            return None;
        }
        Some(Self {
            state,
            pending,
            length,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::files::sha256_hex;

    #[test]
    fn matches_sha256_however_the_bytes_come_and_across_a_save() {
        let data: Vec<u8> = (0..1000u32)
            .map(|index| u8::try_from(index * 7 % 251).unwrap())
            .collect();
        for split in [0, 1, 55, 56, 63, 64, 65, 128, 500, 999, 1000] {
            let mut first = RunningHash::new();
            first.update(&data[..split]);
            assert_eq!(first.hex_digest(), sha256_hex(&data[..split]));
            let mut second = RunningHash::restore(&first.saved(), first.length()).unwrap();
            for piece in data[split..].chunks(37) {
                second.update(piece);
            }
            assert_eq!(second.hex_digest(), sha256_hex(&data), "split at {split}");
            assert_eq!(second.length(), 1000);
        }
        assert_eq!(RunningHash::new().hex_digest(), sha256_hex(b""));
    }

    #[test]
    fn a_damaged_state_is_refused() {
        let mut hash = RunningHash::new();
        hash.update(b"abc");
        let saved = hash.saved();
        assert!(RunningHash::restore(&saved, 3).is_some());
        assert!(RunningHash::restore(&saved, 4).is_none());
        assert!(RunningHash::restore(&saved.replace(':', ""), 3).is_none());
        assert!(RunningHash::restore("zz", 0).is_none());
        // A two-byte character across a word's end: refused, not a slice that panics.
        let words = format!("0000000\u{e9}{}", "0".repeat(55));
        assert_eq!(words.len(), 64);
        assert!(RunningHash::restore(&format!("{words}:"), 0).is_none());
    }
}
