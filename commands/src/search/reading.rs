//! Reading a source's bytes from an offset: a kept generation's from the gzip member that holds
//! the offset (members are independent, so nothing before it is decompressed), a live file's
//! through a file opened as a transcript is (no link followed, no FIFO waited on).

use std::io::{Read, Seek as _, SeekFrom};
use std::path::Path;

use anyhow::{Context, Result, bail};
use flate2::read::MultiGzDecoder;

use super::sources::KeptPart;
use ctxhooks_shared::store::kept::open_no_follow;
use ctxhooks_shared::transcript::file::TranscriptFile;

/// The bytes `part` keeps from `from` up to `to`.
pub fn kept_range(part: &KeptPart, from: u64, to: u64) -> Result<Box<dyn Read + Send>> {
    let index = &part.index;
    if to > index.length() || from > to {
        bail!(
            "generation {} of `{}` keeps {} bytes, not {from}..{to}",
            index.header.generation,
            part.name,
            index.length()
        );
    }
    let Some(chunk) = index
        .chunks
        .iter()
        .find(|chunk| chunk.start <= from && from < chunk.end())
    else {
        return Ok(Box::new(std::io::empty()));
    };
    let mut data = open_no_follow(&part.name.data_path(&part.dir, index.header.generation))?;
    data.seek(SeekFrom::Start(chunk.gz_start))?;
    let mut reader = MultiGzDecoder::new(std::io::BufReader::new(
        data.take(index.gz_length().saturating_sub(chunk.gz_start)),
    ))
    .take(to - chunk.start);
    let skip = from - chunk.start;
    let skipped = std::io::copy(&mut (&mut reader).take(skip), &mut std::io::sink())
        .context("failed to read a kept copy")?;
    if skipped != skip {
        bail!(
            "a kept copy of `{}` is shorter than its index says",
            part.name
        );
    }
    Ok(Box::new(reader))
}

/// The live file at `path`, opened as a transcript, with its size.
pub fn open_file(path: &Path) -> Result<Option<TranscriptFile>> {
    Ok(TranscriptFile::open_if_present(path)?)
}

/// `length` bytes of `file` from `from`, added to `bytes` in one read (a snippet's line): through
/// the std handle, which reads into `bytes`' room as it is (`fs_err`'s handle has no `read_buf`,
/// so `read_to_end` through it zeroed the room first, and a line can be hundreds of KB). A read
/// error names the file as `fs_err`'s does.
pub fn read_file_range(
    file: TranscriptFile,
    from: u64,
    length: u64,
    bytes: &mut Vec<u8>,
) -> Result<()> {
    let mut file = file.into_file();
    file.seek(SeekFrom::Start(from))?;
    file.file()
        .take(length)
        .read_to_end(bytes)
        .with_context(|| format!("failed to read from file `{}`", file.path().display()))?;
    Ok(())
}

/// `length` bytes of `file` from `from`, as a reader.
pub fn file_range(file: TranscriptFile, from: u64, length: u64) -> Result<Box<dyn Read + Send>> {
    let mut file = file.into_file();
    file.seek(SeekFrom::Start(from))?;
    Ok(Box::new(file.take(length)))
}
