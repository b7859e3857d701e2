//! What became of each item of a segment at its compaction: named by the summary, kept word for
//! word (`compactMetadata.preservedMessages`), left out, or not known (no summary to read).

use rustc_hash::FxHashSet;
use serde::Serialize;

use super::naming::{Named, SummaryText};
use crate::store::usage_record::CompactionDetails;

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
    /// What the boundary's `details` say was kept (nothing, for a boundary without them or a
    /// CLI that kept nothing).
    pub fn of(details: &CompactionDetails) -> Self {
        match &details.preserved_messages {
            Some(uuids) => Self {
                uuids: uuids.iter().cloned().collect(),
                unlisted: false,
            },
            None => Self {
                uuids: FxHashSet::default(),
                unlisted: details.preserved_segment.is_some(),
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
    use crate::store::usage_record::Boundary;
    use crate::transcript::record::Record;

    /// What the boundary on `line` says was kept.
    fn preserved_by(line: &str) -> Preserved {
        let record = Record::parse(line.as_bytes()).unwrap();
        let (_, metadata) = record.boundary().unwrap();
        Preserved::of(&Boundary::of(&record, metadata).details)
    }

    #[test]
    fn kept_messages_come_first_then_the_summary() {
        let line = r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"preservedSegment":{"headUuid":"h"},"preservedMessages":{"uuids":["kept"]}}}"#;
        let preserved = preserved_by(line);
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
        assert!(preserved_by(line).unlisted);
        let line = r#"{"type":"system","subtype":"compact_boundary"}"#;
        assert_eq!(preserved_by(line), Preserved::default());
    }
}
