//! Writing a file a person named on the command line (`export --out`, `history --svg`,
//! `report --svg`): a FIFO or a character device (or a link to one: `/dev/stdout`, a shipper's
//! pipe) is written into, never replaced; a regular file, or none, is replaced atomically with
//! mode 0600 whatever the umask (what we write names projects and sessions), through any link.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;

use crate::links::resolve_links;
use crate::output;
use ctxhooks_shared::platform::open::is_stream;
use ctxhooks_shared::store::files;

/// How `report` and `history` print: words or JSON, and an SVG written beside them (the help
/// is `report`'s; `history` words its own with `mut_arg`).
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Print JSON (an array with `--all`).
    #[arg(long)]
    pub json: bool,
    /// Also write an SVG chart of context per request (one session only); says on stderr where.
    /// Written as `export --out` writes: mode 0600, a FIFO written into.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
}

impl RenderArgs {
    /// Writes the SVG `draw` makes to the `--svg` file, when one is named, and says on stderr
    /// where (`what`: `chart`, `overview`).
    pub fn write_svg(&self, what: &str, draw: impl FnOnce() -> String) -> Result<()> {
        if let Some(path) = &self.svg {
            write_output_file(path, draw().as_bytes()).context("failed to write the SVG")?;
            output::note(&format!("wrote the {what} to {}", path.display()));
        }
        Ok(())
    }
}

/// Writes `bytes` to the file `path` names. A FIFO or a character device, or a link to one, is
/// opened for writing (a FIFO waits for its reader, as a shell's `>` does) and the bytes streamed
/// into it. A regular file, or nothing, is replaced atomically by a new file of mode 0600; when
/// `path` is a link (to a regular file, or to none yet), the file it leads to is replaced and the
/// link stays. A folder, a block device or a socket is refused, and nothing is written.
pub fn write_output_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let kind = files::present(fs_err::metadata(path))?.map(|metadata| metadata.file_type());
    match kind {
        Some(kind) if is_stream(&kind) => {
            let mut target = fs_err::OpenOptions::new().write(true).open(path)?;
            target.write_all(bytes)?;
            target.flush()?;
            Ok(())
        }
        Some(kind) if kind.is_dir() => bail!("`{}` is a folder", path.display()),
        Some(kind) if !kind.is_file() => bail!(
            "`{}` is neither a regular file, a FIFO nor a character device",
            path.display()
        ),
        _ => {
            let target = resolve_links(path)?;
            files::write_atomic(&target, bytes, files::PRIVATE_FILE_MODE)
                .with_context(|| format!("failed to write `{}`", target.display()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxhooks_shared::platform::private::mode_of;
    use ctxhooks_shared::test_support::symlink_file;

    #[test]
    fn a_file_is_replaced_private_and_a_link_to_one_is_written_through() {
        let dir = ctxhooks_shared::test_support::TempFolder::new("output-file");
        let file = dir.join("out.jsonl");
        fs_err::write(&file, "old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            fs_err::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        let link = dir.join("link.jsonl");
        let through = if symlink_file(Path::new("out.jsonl"), &link) {
            &link
        } else {
            &file
        };
        write_output_file(through, b"new\n").unwrap();
        assert!(through == &file || fs_err::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(fs_err::read(&file).unwrap(), b"new\n");
        assert_eq!(mode_of(&file).unwrap() & 0o777, 0o600);
        // A link to a file not there yet creates it; a folder is refused.
        let dangling = dir.join("dangling.jsonl");
        if symlink_file(Path::new("later.jsonl"), &dangling) {
            write_output_file(&dangling, b"x").unwrap();
            assert_eq!(fs_err::read(dir.join("later.jsonl")).unwrap(), b"x");
        }
        assert!(write_output_file(dir.path(), b"x").is_err());
    }
}
