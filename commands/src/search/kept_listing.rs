//! What each kept session's folder gave the last search, remembered for the next one
//! (`<state>/search/kept-listing.json`): the kept names with their newest generations (the
//! folder's listing), and the live file each newest generation's header names. A search takes a
//! session's listing from here while its kept folder and the folders below it look the same
//! (device, inode, size, modification and change times, to the nanosecond, never following a
//! link), and a header's live file while its index looks the same; otherwise it lists and reads
//! them again. A new generation or a new kept name is a new file in one of those folders, which
//! changes the folder's times; a kept index is appended to in place, which changes its own.
//!
//! A look is remembered only when its times are older than the moment of the look by
//! [`SETTLED_NS`]: a file system's times have a grain (a clock tick of a few milliseconds, up to
//! FAT's 2 s), and a folder changed again within the grain of its last change keeps the same
//! times, so a listing taken within that grain could miss the second change and never see it
//! (git's rule for its index's racy entries). Such a folder is listed again at the next search.
//!
//! The file is a cache: read once per search, never through a link, never waiting on a FIFO,
//! and never past a bound that grows with the sessions; one that cannot be read, is damaged, too
//! large or of another version is ignored and written again, never an error. It is written only
//! when what it holds changed, atomically (a temporary file renamed over it, 0600, in the 0700
//! folder), without a flush to disk: a crash leaves the old file or one that is not read, and
//! the next search lists again. Two searches at once may both write it; the last rename wins,
//! and each holds what its looks saw. Removing it costs one search its listings.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use ctxhooks_shared::platform::identity::{self, FileFacts};
use ctxhooks_shared::store::files;
use ctxhooks_shared::store::kept::{self, KEPT_SCHEMA, KeptError, KeptName, read_header};
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;

/// The version of the file's layout.
const SCHEMA: u32 = 1;

/// How long before a look a folder's or an index's last change must be for the look to be
/// remembered (in nanoseconds): 2 s, FAT's grain for modification times, the coarsest of the
/// file systems a state folder may sit on (HFS+ and ext3 keep seconds; ext4, XFS, Btrfs, APFS
/// and NTFS keep finer times, set from a clock that ticks every few milliseconds).
pub const SETTLED_NS: i128 = 2_000_000_000;

/// The most bytes read of the file, past the bound per session.
const FLOOR_BYTES: u64 = 64 * 1024;

/// The bytes the file may hold per session (a session's entry is about 200 bytes per kept name:
/// this is over a thousand names each, on average over all of them).
const PER_SESSION_BYTES: u64 = 256 * 1024;

/// The file: its versions, and each kept session as remembered, by id.
#[derive(Debug, Serialize, Deserialize)]
struct Stored {
    schema: u32,
    /// [`KEPT_SCHEMA`]: another layout of the kept copies is listed anew.
    kept_schema: u32,
    sessions: BTreeMap<String, Remembered>,
}

/// A look at a file or folder: device, inode, size, modification and change times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Look(u64, u64, u64, i128, i128);

impl From<FileFacts> for Look {
    fn from(facts: FileFacts) -> Self {
        Self(
            facts.device,
            facts.inode,
            facts.size,
            facts.modified_ns,
            facts.changed_ns,
        )
    }
}

impl Look {
    /// Whether its times are older than `now` (nanoseconds since 1970) by [`SETTLED_NS`]: a
    /// change after the look changes them (see the module's documentation).
    fn settled(self, now: i128) -> bool {
        is_settled(self.3, self.4, now)
    }
}

/// The rule [`Look::settled`] applies, on the times it holds.
fn is_settled(modified_ns: i128, changed_ns: i128, now: i128) -> bool {
    modified_ns.max(changed_ns) < now.saturating_sub(SETTLED_NS)
}

/// One kept session's folder as a search found it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Remembered {
    /// The kept folder (`""`; `null` when there was none) and each folder below it the listing
    /// walked (`subagents`), each with its look taken before it was listed.
    folders: Vec<(String, Option<Look>)>,
    /// Each kept name, in the listing's order.
    names: Vec<Name>,
}

/// A kept name, its newest generation, and when remembered, the look at that generation's
/// index and the live file its header names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Name(String, u32, Option<(Look, String)>);

/// A kept session's listing, remembered or listed now, for one search.
#[derive(Debug)]
pub struct Listing {
    /// Each kept name with its newest generation, sorted as [`kept::list_kept`] sorts them.
    pub names: Vec<(KeptName, u32)>,
    /// Per name, the newest header's live file as remembered (with the index's look then).
    headers: Vec<Option<(Look, String)>>,
    /// The folders' looks to remember, `None` when they are not to be (a look failed, or a
    /// folder changed within [`SETTLED_NS`] of the look).
    folders: Option<Vec<(String, Option<Look>)>>,
    /// Whether the file remembered the session.
    previous: bool,
    /// Whether what is to be remembered of it differs from what the file holds.
    changed: bool,
}

/// Every kept session's listing as remembered, and what this search found.
#[derive(Debug)]
pub struct KeptListings {
    /// The moment the search began, before any look (nanoseconds since 1970).
    now: i128,
    /// The bound the file is read and written within.
    bound: u64,
    /// As read, each session taken out as it is looked at.
    read: BTreeMap<String, Remembered>,
    /// As found now.
    found: BTreeMap<String, Remembered>,
    /// Whether the file must be written.
    changed: bool,
}

impl KeptListings {
    /// The listings remembered in `state` for a search of `sessions` sessions, as of `now`, the
    /// moment the search began. A file that cannot be read, is damaged, too large or of another
    /// version remembers nothing, and is written again.
    pub fn read(state: &StateDir, sessions: usize, now: SystemTime) -> Self {
        let bound = FLOOR_BYTES.saturating_add(PER_SESSION_BYTES.saturating_mul(sessions as u64));
        let now = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |since| i128::try_from(since.as_nanos()).unwrap_or(0));
        let (read, changed) = match load(state, bound) {
            Loaded::Nothing => (BTreeMap::new(), false),
            Loaded::Ignored => (BTreeMap::new(), true),
            Loaded::Stored(sessions) => (sessions, false),
        };
        Self {
            now,
            bound,
            read,
            found: BTreeMap::new(),
            changed,
        }
    }

    /// The listing of `session`'s kept folder `kept_dir`: as remembered while its folders look
    /// the same, else listed now (failing as [`kept::list_kept`] fails, with its errors).
    pub fn listing(&mut self, session: &SessionId, kept_dir: &Path) -> Result<Listing, KeptError> {
        let before = self.read.remove(session.as_str());
        let previous = before.is_some();
        if let Some(listing) = before
            .filter(|remembered| looks_the_same(remembered, kept_dir))
            .and_then(into_listing)
        {
            return Ok(listing);
        }
        let listed = match kept::list_kept_looked(kept_dir) {
            Ok(listed) => listed,
            Err(error) => {
                self.changed |= previous;
                return Err(error);
            }
        };
        let now = self.now;
        let folders = listed.folders.and_then(|folders| {
            folders
                .into_iter()
                .map(|(path, look)| {
                    let look = look.map(Look::from);
                    look.is_none_or(|look| look.settled(now))
                        .then_some((path, look))
                })
                .collect::<Option<Vec<_>>>()
        });
        Ok(Listing {
            headers: vec![None; listed.names.len()],
            names: listed.names,
            folders,
            previous,
            changed: true,
        })
    }

    /// The live file that the header of the newest generation of `listing`'s name number
    /// `position` names, that generation's index being at `index` and looking as `look` (the
    /// look the source's signature takes): as remembered while the index looks the same, else
    /// read now; `None` when the header cannot be read.
    pub fn source(
        &self,
        listing: &mut Listing,
        position: usize,
        index: &Path,
        look: Option<&FileFacts>,
    ) -> Option<PathBuf> {
        let look = look.copied().map(Look::from);
        let remembered = &mut listing.headers[position];
        if let (Some((then, source)), Some(now)) = (remembered.as_ref(), look)
            && *then == now
        {
            return Some(PathBuf::from(source));
        }
        let source = read_header(index).ok().map(|header| header.source);
        let keep = look
            .filter(|look| look.settled(self.now))
            .zip(source.clone());
        if *remembered != keep {
            *remembered = keep;
            listing.changed = true;
        }
        source.map(PathBuf::from)
    }

    /// Takes what this search found of `session`'s folder, to remember it when its looks may be.
    pub fn found(&mut self, session: &SessionId, listing: Listing) {
        let Some(folders) = listing.folders else {
            self.changed |= listing.previous;
            return;
        };
        self.changed |= listing.changed;
        let names = listing
            .names
            .into_iter()
            .zip(listing.headers)
            .map(|((name, newest), header)| Name(name.as_str().to_owned(), newest, header))
            .collect();
        self.found
            .insert(session.to_string(), Remembered { folders, names });
    }

    /// Writes the file when what it holds changed (a session no longer in the state folder is
    /// dropped). A failure costs the next search its listings, nothing more: it is not said.
    pub fn write(mut self, state: &StateDir) {
        self.changed |= !self.read.is_empty();
        if !self.changed {
            return;
        }
        let path = state.search_kept_listing();
        let Some(folder) = path.parent() else {
            return;
        };
        let stored = Stored {
            schema: SCHEMA,
            kept_schema: KEPT_SCHEMA,
            sessions: self.found,
        };
        let Ok(bytes) = serde_json::to_vec(&stored) else {
            return;
        };
        // One past the bound would never be read: it is not written.
        if bytes.len() as u64 > self.bound || state.ensure_real_dir(folder).is_err() {
            return;
        }
        let _ = files::replace_unsynced(&path, &bytes, files::PRIVATE_FILE_MODE);
    }
}

/// What [`load`] found.
enum Loaded {
    /// No file (or no folder for it).
    Nothing,
    /// A file that cannot be read, is damaged, too large, of another version, or a link or
    /// anything but a regular file: to be replaced.
    Ignored,
    Stored(BTreeMap<String, Remembered>),
}

/// The file's sessions, read within `bound` bytes.
fn load(state: &StateDir, bound: u64) -> Loaded {
    let path = state.search_kept_listing();
    // The search folder is never reached through a link (the index's open refuses one there).
    match path.parent().map(fs_err::symlink_metadata) {
        Some(Ok(metadata)) if metadata.is_dir() => {}
        _ => return Loaded::Nothing,
    }
    match files::read_unlinked_within(&path, bound) {
        Ok(None) => Loaded::Nothing,
        Ok(Some(bytes)) => match serde_json::from_slice::<Stored>(&bytes) {
            Ok(stored) if stored.schema == SCHEMA && stored.kept_schema == KEPT_SCHEMA => {
                Loaded::Stored(stored.sessions)
            }
            _ => Loaded::Ignored,
        },
        Err(_) => Loaded::Ignored,
    }
}

/// Whether each folder `remembered` names looks as it did then (the kept folder first, then
/// folders inside it).
fn looks_the_same(remembered: &Remembered, kept_dir: &Path) -> bool {
    let Some(((first, kept), below)) = remembered.folders.split_first() else {
        return false;
    };
    first.is_empty()
        && looks_as(kept_dir, *kept)
        && below.iter().all(|(path, then)| {
            let plain = !path.is_empty()
                && Path::new(path)
                    .components()
                    .all(|component| matches!(component, Component::Normal(_)));
            plain && then.is_some() && looks_as(&kept_dir.join(path), *then)
        })
}

/// `remembered` as a listing, when what it holds is one (names ctxhooks keeps, generations from
/// 1).
fn into_listing(remembered: Remembered) -> Option<Listing> {
    let mut names = Vec::with_capacity(remembered.names.len());
    let mut headers = Vec::with_capacity(remembered.names.len());
    for Name(name, newest, header) in remembered.names {
        if newest == 0 {
            return None;
        }
        names.push((KeptName::parse(&name).ok()?, newest));
        headers.push(header);
    }
    Some(Listing {
        names,
        headers,
        folders: Some(remembered.folders),
        previous: true,
        changed: false,
    })
}

/// Whether `path` looks as `then` (`None`: nothing was there), never following a link.
fn looks_as(path: &Path, then: Option<Look>) -> bool {
    match (files::present(identity::of_path(path)), then) {
        (Ok(Some(now)), Some(then)) => Look::from(now) == then,
        (Ok(None), None) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: i128 = 1_000_000_000;

    #[test]
    fn a_folder_changed_within_the_grain_before_the_look_is_not_remembered() {
        let now = 1_800_000_000 * SECOND;
        // Changed long before: remembered.
        assert!(is_settled(now - 3600 * SECOND, now - 3600 * SECOND, now));
        assert!(is_settled(now - 3 * SECOND, now - 3 * SECOND, now));
        // Changed just now, or within 2 s: a change in the same grain would leave the times as
        // they are, so it is listed again next time.
        assert!(!is_settled(now, now, now));
        assert!(!is_settled(now - SECOND, now - SECOND, now));
        assert!(!is_settled(now - SETTLED_NS, now - SETTLED_NS, now));
        // Either time counts: a modification time set back by hand leaves the change time now
        // (a permission changed, which a listing would meet, changes only that one).
        assert!(!is_settled(now - 3600 * SECOND, now, now));
        assert!(!is_settled(now, now - 3600 * SECOND, now));
        // A time ahead of the clock (another machine's, a clock set back) is not settled.
        assert!(!is_settled(now + 3600 * SECOND, now + 3600 * SECOND, now));
    }
}
