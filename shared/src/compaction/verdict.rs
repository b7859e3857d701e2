//! What became of each item of a segment at its compaction: named by the summary, kept word for
//! word (`compactMetadata.preservedMessages`), left out, or not known (no summary to read).

use rustc_hash::FxHashSet;
use serde::Serialize;

use super::naming::{Named, SummaryText};
use crate::transcript::record::BoundaryMetadata;

/// What became of one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The summary names it (see `naming.rs`).
    Named,
    /// The compaction kept the message that holds it word for word: not left out.
    KeptVerbatim,
    /// Neither: the model no longer sees it.
    LeftOut,
    /// The summary could not be read, so whether it names the item is not known.
    NotChecked,
}

/// The messages a compaction kept word for word, as its boundary says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preserved {
    /// The `uuid` of every message kept (`preservedMessages.uuids`).
    pub uuids: FxHashSet<String>,
    /// The boundary says messages were kept (`preservedSegment`) without listing them: which
    /// items they hold is not known.
    pub unlisted: bool,
}

impl Preserved {
    /// What `metadata` says was kept (nothing, for a boundary without metadata or a CLI that
    /// kept nothing).
    pub fn of(metadata: Option<&BoundaryMetadata>) -> Self {
        let Some(metadata) = metadata else {
            return Self::default();
        };
        let uuids = metadata
            .preserved_messages
            .get()
            .and_then(|messages| messages.uuids.get());
        match uuids {
            Some(uuids) => Self {
                uuids: uuids.0.iter().map(ToString::to_string).collect(),
                unlisted: false,
            },
            None => Self {
                uuids: FxHashSet::default(),
                unlisted: metadata.preserved_segment.get().is_some(),
            },
        }
    }
}

/// Judges items against one compaction's summary and what it kept.
#[derive(Debug, Clone, Copy)]
pub struct Judge<'a> {
    /// The summary, when it could be read.
    pub summary: Option<&'a SummaryText>,
    /// What the compaction kept word for word.
    pub preserved: &'a Preserved,
}

impl Judge<'_> {
    /// What became of `item`, made by the record whose `uuid` is given.
    pub fn verdict(&self, item: Named, uuid: Option<&str>) -> Verdict {
        if uuid.is_some_and(|uuid| self.preserved.uuids.contains(uuid)) {
            return Verdict::KeptVerbatim;
        }
        match self.summary {
            None => Verdict::NotChecked,
            Some(summary) if summary.names(item) => Verdict::Named,
            Some(_) => Verdict::LeftOut,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::record::Record;

    #[test]
    fn kept_messages_come_first_then_the_summary() {
        let line = r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"preservedSegment":{"headUuid":"h"},"preservedMessages":{"uuids":["kept"]}}}"#;
        let record = Record::parse(line.as_bytes()).unwrap();
        let (_, metadata) = record.boundary().unwrap();
        let preserved = Preserved::of(metadata);
        assert!(!preserved.unlisted);
        let summary = SummaryText::new("Edited main.rs.");
        let judge = Judge {
            summary: Some(&summary),
            preserved: &preserved,
        };
        let file = Named::File("src/lib.rs");
        assert_eq!(judge.verdict(file, Some("kept")), Verdict::KeptVerbatim);
        assert_eq!(judge.verdict(file, Some("other")), Verdict::LeftOut);
        assert_eq!(
            judge.verdict(Named::File("src/main.rs"), None),
            Verdict::Named
        );
        let unread = Judge {
            summary: None,
            preserved: &preserved,
        };
        assert_eq!(unread.verdict(file, None), Verdict::NotChecked);
        // A segment kept without its list of messages.
        let line = r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"preservedSegment":{"headUuid":"h"}}}"#;
        let record = Record::parse(line.as_bytes()).unwrap();
        assert!(Preserved::of(record.boundary().unwrap().1).unlisted);
        assert_eq!(Preserved::of(None), Preserved::default());
    }
}
