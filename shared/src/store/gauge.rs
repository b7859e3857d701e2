//! `<state>/sessions/<id>/gauge.json`: how close one session is to its auto-compact trigger, as
//! of the last Stop (or `SubagentStop`, `PreCompact`) hook: the context, the trigger T, the
//! percent of T, the room left, the compactions so far, and whether the warning was given for the
//! current crossing. Small and replaced whole at every ingest that moved, so a status line or a
//! runtime reads it in constant time whatever the transcript's size. The format is documented in
//! `docs/usage.md`.

use std::io::{self, Read as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::store::files::{self, FileError};

/// Why a gauge file could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(
    missing_docs,
    reason = "each variant's message says what it is; its fields are named for what they hold"
)]
pub enum GaugeError {
    #[error("failed to read `{}`", .path.display())]
    Read { path: PathBuf, source: io::Error },
    #[error("`{}` is larger than {MAX_GAUGE_BYTES} bytes; it is no gauge", .0.display())]
    TooLarge(PathBuf),
    #[error("`{}` is not a readable gauge", .path.display())]
    NotAGauge {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("`{}` has schema {schema}, this ctxhooks reads {GAUGE_SCHEMA}", .path.display())]
    Schema { path: PathBuf, schema: u32 },
    #[error("failed to serialize the gauge")]
    Serialize(#[source] serde_json::Error),
    #[error("failed to write `{}`", .path.display())]
    Write { path: PathBuf, source: FileError },
    /// The gauge file, opened as a state file (a link, a folder, a FIFO refused).
    #[error(transparent)]
    File(#[from] FileError),
}

impl GaugeError {
    /// The file system's error behind this one, wherever it is (a step's source, or one a
    /// transparent variant hides from the chain of causes): what
    /// [`super::io_kind::is_io_kind`] reads.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            Self::Read { source, .. } => Some(source),
            Self::Write { source, .. } | Self::File(source) => source.io_error(),
            Self::TooLarge(_)
            | Self::NotAGauge { .. }
            | Self::Schema { .. }
            | Self::Serialize(_) => None,
        }
    }
}

/// Version of the gauge file's layout.
pub const GAUGE_SCHEMA: u32 = 1;

/// The largest gauge file read: a real one is under a kilobyte; anything larger is not ours.
pub const MAX_GAUGE_BYTES: usize = 64 * 1024;

/// One session's gauge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct Gauge {
    /// [`GAUGE_SCHEMA`].
    pub schema: u32,
    pub session_id: String,
    /// The main transcript it was read from.
    pub transcript: String,
    /// When the hook wrote it (RFC 3339, UTC).
    pub updated_at: String,
    /// The context now: the latest main-chain request's input + cache read + cache write, or,
    /// after a compaction with no request since, what the compaction left (`postTokens`).
    /// `None` when no request has been read yet, or a compaction left a count Claude Code did
    /// not write.
    pub context_tokens: Option<u64>,
    /// When that context was measured (the request's or the compaction's timestamp).
    pub context_time: Option<String>,
    /// True when `context_tokens` is what a compaction left, not a request's.
    pub after_compaction: bool,
    /// The auto-compact trigger T in tokens, when there is one.
    pub trigger_tokens: Option<u64>,
    /// How T was found.
    pub trigger: TriggerBasis,
    /// `context_tokens` as a percentage of T (one decimal).
    pub percent: Option<f64>,
    /// T − context: what can still be added before Claude Code compacts (negative past T).
    pub room_left: Option<i64>,
    /// Full compactions of the main chain so far (with the pending one, if any).
    pub compactions: u64,
    /// Claude Code reported a compaction (`PostCompact`) whose boundary is not in the
    /// transcript yet (2.1.332 writes it after the compaction's hooks ran): counted in
    /// `compactions`; the context it left is unknown until the next ingest reads it.
    #[serde(default)]
    pub compaction_pending: bool,
    /// The share of T at which the Stop hook warns, in percent; `None` when warnings are off.
    pub warn_at_percent: Option<u8>,
    /// True while the context is at or above `warn_at_percent` and the warning for this crossing
    /// was given; it falls back to false once the context is below the share again (a
    /// compaction), so the next crossing warns again.
    pub warned: bool,
    /// The session's title: the name a person gave it (`/rename`), else the CLI's own title
    /// (for the status line's `{title}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// Where the trigger T of a gauge came from (by default: nowhere, no T).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerBasis {
    /// `rule`, `observed` or `none`.
    pub derivation: TriggerDerivation,
    /// The window W T is computed from, in tokens (`None` with no rule).
    pub window_tokens: Option<u64>,
    /// Where W came from: `env:CLAUDE_CODE_AUTO_COMPACT_WINDOW`, `settings:<path>`,
    /// `settings:<path>#modelSettings.<model>.autoCompactWindow` or `model`.
    pub window_source: Option<String>,
    /// The model of the latest request.
    pub model: Option<String>,
    /// The Claude Code version of the latest request.
    pub version: Option<String>,
}

/// How the gauge's T was derived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TriggerDerivation {
    /// Claude Code's own rule for the version, model, window and environment of the session.
    Rule,
    /// The rule gives none for this model (it compacts only when the API refuses a prompt); T is
    /// the context the last automatic compaction fired at.
    Observed,
    /// The session contradicts the rule: a context at or above the rule's T was checked and did
    /// not compact. T is the middle between that context and the last automatic compaction above
    /// it, or none when no compaction bounds it (never the rule's).
    RuleContradicted,
    /// No T: no request read yet, or a model compacted only on refusal and none was seen.
    #[default]
    None,
}

impl Gauge {
    /// Reads a gauge file: `None` when there is none. Anything but a regular file (a folder, a
    /// FIFO) is refused at once, as is a file that is not a gauge.
    pub fn read(path: &Path) -> Result<Option<Self>, GaugeError> {
        let Some(file) = files::open_state_file(path)? else {
            return Ok(None);
        };
        let mut bytes = Vec::with_capacity(1024);
        file.take(MAX_GAUGE_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|source| GaugeError::Read {
                path: path.to_owned(),
                source,
            })?;
        if bytes.len() > MAX_GAUGE_BYTES {
            return Err(GaugeError::TooLarge(path.to_owned()));
        }
        let gauge: Self =
            serde_json::from_slice(&bytes).map_err(|source| GaugeError::NotAGauge {
                path: path.to_owned(),
                source,
            })?;
        if gauge.schema != GAUGE_SCHEMA {
            return Err(GaugeError::Schema {
                path: path.to_owned(),
                schema: gauge.schema,
            });
        }
        Ok(Some(gauge))
    }

    /// Replaces the gauge file atomically (0600). Not flushed to disk: the next ingest writes it
    /// again from the cursor, so a crash can cost at most a stale gauge, never a torn one.
    pub fn write(&self, path: &Path) -> Result<(), GaugeError> {
        let bytes = serde_json::to_vec(self).map_err(GaugeError::Serialize)?;
        files::replace_unsynced(path, &bytes, files::PRIVATE_FILE_MODE).map_err(|source| {
            GaugeError::Write {
                path: path.to_owned(),
                source,
            }
        })
    }

    /// Marks a compaction whose boundary is not read yet: counted, the context it left unknown,
    /// the warning re-armed (the context fell).
    pub fn mark_compaction_pending(&mut self, counted: u64) {
        self.compactions = counted + 1;
        self.compaction_pending = true;
        self.after_compaction = true;
        self.context_tokens = None;
        self.context_time = None;
        self.percent = None;
        self.room_left = None;
        self.warned = false;
    }

    /// Returns true if and only if `other` says the same as `self`, its time aside.
    pub fn same_as(&self, other: &Self) -> bool {
        let mut other = other.clone();
        other.updated_at.clone_from(&self.updated_at);
        *self == other
    }
}

/// The context `context` as a percentage of the trigger `trigger` ([`percent_of`]), and the room
/// left before Claude Code compacts, `trigger − context` (negative past T), when both are known:
/// the gauge's and the status line's measures.
pub fn percent_and_room(context: Option<u64>, trigger: Option<u64>) -> (Option<f64>, Option<i64>) {
    let Some((context, trigger)) = context.zip(trigger) else {
        return (None, None);
    };
    let signed = |value: u64| i64::try_from(value).unwrap_or(i64::MAX);
    let room = signed(trigger) - signed(context);
    (percent_of(context, trigger), Some(room))
}

/// `part` as a percentage of `whole`, rounded down to one decimal (99.97 is 99.9: a gauge never
/// says the trigger is reached before it is).
pub fn percent_of(part: u64, whole: u64) -> Option<f64> {
    if whole == 0 {
        return None;
    }
    #[expect(
        clippy::cast_precision_loss,
        reason = "token counts are far below 2^52; the percentage is rounded for display"
    )]
    let percent = part as f64 * 100.0 / whole as f64;
    Some((percent * 10.0).floor() / 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{TempFolder, sample_gauge as gauge};

    #[test]
    fn a_gauge_round_trips_and_nothing_else_is_one() {
        let temp = TempFolder::new("gauge");
        let path = temp.path().join("gauge.json");
        assert_eq!(Gauge::read(&path).unwrap(), None);
        gauge().write(&path).unwrap();
        assert_eq!(Gauge::read(&path).unwrap(), Some(gauge()));
        assert_eq!(gauge().percent, Some(85.3));
        fs_err::write(&path, "{\"schema\": 1}").unwrap();
        let error = Gauge::read(&path).unwrap_err();
        assert!(matches!(error, GaugeError::NotAGauge { .. }), "{error:?}");
        let mut older = serde_json::to_value(gauge()).unwrap();
        older["schema"] = 0.into();
        fs_err::write(&path, older.to_string()).unwrap();
        let error = Gauge::read(&path).unwrap_err();
        assert!(
            matches!(error, GaugeError::Schema { schema: 0, .. }),
            "{error:?}"
        );
        fs_err::write(&path, vec![b' '; MAX_GAUGE_BYTES + 1]).unwrap();
        let error = Gauge::read(&path).unwrap_err();
        assert!(matches!(error, GaugeError::TooLarge(_)), "{error:?}");
        fs_err::remove_file(&path).unwrap();
        fs_err::create_dir(&path).unwrap();
        let error = Gauge::read(&path).unwrap_err();
        assert!(matches!(error, GaugeError::File(_)), "{error:?}");
        let mut later = gauge();
        later.updated_at = "2026-12-02T00:00:00.000Z".into();
        assert!(gauge().same_as(&later));
        later.warned = true;
        assert!(!gauge().same_as(&later));
    }
}
