//! Where a path that may be a symbolic link leads: the file a write through the link replaces.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use ctxhooks_shared::platform::canonical::canonicalize;

/// How many symbolic links in a row [`resolve_links`] follows (as the kernel does).
const MAX_SYMBOLIC_LINKS: usize = 40;

/// Where the file `path` names is, or will be: absolute, with symbolic links resolved, so that a
/// file replaced through a link (a settings file symlinked from a dotfiles repository, an
/// export's output) is replaced where it lives and the link survives. A link whose target does
/// not exist yet resolves to that target (to be created), as long as the target's folder exists;
/// otherwise it is refused.
pub fn resolve_links(path: &Path) -> Result<PathBuf> {
    let mut current = std::path::absolute(path)
        .with_context(|| format!("failed to make `{}` absolute", path.display()))?;
    let mut followed_link = false;
    for _ in 0..=MAX_SYMBOLIC_LINKS {
        if let Ok(resolved) = canonicalize(&current) {
            return Ok(resolved);
        }
        // The file does not exist (yet): resolve its folder; when the name itself is a link
        // (a dangling one), follow it to where the file will be.
        let (Some(parent), Some(name)) = (current.parent(), current.file_name()) else {
            return Ok(current);
        };
        let Ok(folder) = canonicalize(parent) else {
            if followed_link {
                bail!(
                    "`{}` is a symbolic link to `{}`, whose folder does not exist; create the \
                     folder or remove the link",
                    path.display(),
                    current.display()
                );
            }
            return Ok(current);
        };
        let candidate = folder.join(name);
        match fs_err::read_link(&candidate) {
            Ok(target) => {
                current = folder.join(target);
                followed_link = true;
            }
            Err(_) => return Ok(candidate),
        }
    }
    bail!(
        "`{}` is a chain of more than {MAX_SYMBOLIC_LINKS} symbolic links",
        path.display()
    )
}
