//! Reads at an offset: `pread` on Unix, which leaves the file's cursor alone; on Windows a read
//! at an offset moves the cursor, so every caller seeks before its own reads (as the
//! transcript's readers do) or appends (whose writes go to the end whatever the cursor).

use std::io;

/// Fills `buffer` from `file` at `offset`; an `UnexpectedEof` error when the file ends first.
#[expect(
    clippy::disallowed_types,
    reason = "positioned reads work on the std handle inside an fs_err file"
)]
pub fn read_exact_at(file: &std::fs::File, buffer: &mut [u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buffer, offset)
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::FileExt as _;
        let mut done = 0;
        while done < buffer.len() {
            match file.seek_read(&mut buffer[done..], offset + done as u64) {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(read) => done += read,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }
}
