//! What the unit tests of both library crates share (for the commands crate, behind the
//! `test-support` feature): a temporary folder that is removed when dropped, and a gauge.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::store::gauge::{GAUGE_SCHEMA, Gauge, TriggerBasis, TriggerDerivation, percent_of};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fresh folder under the system temp folder, unique per test, removed when dropped.
pub struct TempFolder(PathBuf);

impl TempFolder {
    /// Creates `<tmp>/ctxhooks-unit-<name>-<pid>-<n>`.
    pub fn new(name: &str) -> Self {
        let number = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "ctxhooks-unit-{name}-{}-{number}",
            std::process::id()
        ));
        let _ = fs_err::remove_dir_all(&path);
        fs_err::create_dir_all(&path).expect("the system temp folder takes a scratch folder");
        Self(path)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// A path inside the folder.
    pub fn join(&self, relative: impl AsRef<Path>) -> PathBuf {
        self.0.join(relative)
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        let _ = fs_err::remove_dir_all(&self.0);
    }
}

/// A gauge as the Stop hook writes it: 142,503 tokens of claude-opus-4-6's T of 167,000 under
/// 2.1.332 (a 200,000 window), two compactions, no warning yet.
pub fn sample_gauge() -> Gauge {
    Gauge {
        schema: GAUGE_SCHEMA,
        session_id: "s1".into(),
        transcript: "/t.jsonl".into(),
        updated_at: "2026-12-01T00:00:00.000Z".into(),
        context_tokens: Some(142_503),
        context_time: None,
        after_compaction: false,
        trigger_tokens: Some(167_000),
        trigger: TriggerBasis {
            derivation: TriggerDerivation::Rule,
            window_tokens: Some(200_000),
            window_source: Some("model".into()),
            model: Some("claude-opus-4-6".into()),
            version: Some("2.1.332".into()),
        },
        percent: percent_of(142_503, 167_000),
        room_left: Some(24_497),
        compactions: 2,
        compaction_pending: false,
        warn_at_percent: Some(90),
        warned: false,
        title: None,
    }
}
