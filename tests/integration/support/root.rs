//! The tests that need root (a tmpfs for a full or read-only disk, `setpriv` to run a program as
//! another user, `chown`): each asks here whether it may run its root part, which says on stderr
//! when it is skipped and records for the summary `tests/run.sh` ends with whether it ran (the
//! `root` line: `ran (N)`, or `SKIPPED (N): not root`), so that a run that is not root never
//! passes them in silence.
//!
//! ```text
//! let Some(root) = needs_root("the full-disk group") else { return };
//! let Some(disk) = SmallFilesystem::mount(path, "16k") else { return root.skip("could not mount a tmpfs") };
//! ```

use std::path::Path;

use super::files::{running_as_root, say_skipped};
use super::summary::record_group;

/// The group the tests that need root record themselves in.
pub const ROOT_GROUP: &str = "root";

/// The `setpriv` that runs a program as another user.
pub const SETPRIV: &str = "/usr/bin/setpriv";

/// `setpriv`'s arguments to run a program as `nobody`, without root's groups.
pub const AS_NOBODY: [&str; 3] = ["--reuid=65534", "--regid=65534", "--clear-groups"];

/// A test's root part, under way: recorded as ran when it ends (failed or not), unless it was
/// skipped.
#[must_use = "the root part is recorded when this is dropped"]
pub struct RootPart {
    /// What the test does as root, for a note if it is skipped.
    what: String,
    /// Recorded already (skipped).
    recorded: bool,
}

impl RootPart {
    /// Skips the rest of the root part, though the tests run as root (`why`: a tmpfs could not be
    /// mounted, no `setpriv`): said on stderr and recorded for the summary.
    pub fn skip(mut self, why: &str) {
        say_skipped(&format!("{}: {why}", self.what));
        record_group(ROOT_GROUP, &format!("skipped: {why}"));
        self.recorded = true;
    }
}

impl Drop for RootPart {
    fn drop(&mut self) {
        if !self.recorded {
            record_group(ROOT_GROUP, "ran");
        }
    }
}

/// The root part of a test that does `what`, when the tests run as root; otherwise `None`, after
/// saying that it was skipped and recording it for the summary.
pub fn needs_root(what: &str) -> Option<RootPart> {
    if !running_as_root() {
        say_skipped(&format!("{what}: the tests do not run as root"));
        record_group(ROOT_GROUP, "skipped: not root");
        return None;
    }
    Some(RootPart {
        what: what.to_owned(),
        recorded: false,
    })
}

/// [`needs_root`], with `setpriv` to run a program as another user.
pub fn needs_root_and_setpriv(what: &str) -> Option<RootPart> {
    let root = needs_root(what)?;
    if Path::new(SETPRIV).exists() {
        return Some(root);
    }
    root.skip("setpriv is not installed");
    None
}
