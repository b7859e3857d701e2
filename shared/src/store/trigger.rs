//! What started a compaction, as Claude Code reports it: `auto`, `manual`, or a value this
//! version does not know (kept as it is, never lost).

use serde::{Deserialize, Serialize};

/// A compaction's trigger: `PreCompact`'s `trigger` and a boundary's `compactMetadata.trigger`.
/// In JSON it is the plain string Claude Code wrote.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, strum::AsRefStr, strum::Display,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Trigger {
    /// `auto`: the context reached the auto-compact threshold.
    Auto,
    /// `manual`: `/compact`.
    Manual,
    /// `unknown`: what ctxhooks records when the payload named none.
    Unknown,
    /// Any other value, as written.
    #[serde(untagged)]
    #[strum(transparent)]
    Other(String),
}

impl Trigger {
    /// The trigger a text names.
    pub fn from_text(text: &str) -> Self {
        match text {
            "auto" => Self::Auto,
            "manual" => Self::Manual,
            "unknown" => Self::Unknown,
            other => Self::Other(other.to_owned()),
        }
    }

    /// The text Claude Code writes for it.
    pub fn as_str(&self) -> &str {
        self.as_ref()
    }

    /// Returns true if and only if the context reaching the threshold started it.
    pub fn is_automatic(&self) -> bool {
        *self == Self::Auto
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_column_pads_a_short_trigger() {
        assert_eq!(format!("{:<7}|", Trigger::from_text("auto")), "auto   |");
        assert_eq!(
            format!("{:<9}|", Trigger::from_text("reactive")),
            "reactive |"
        );
    }

    #[test]
    fn every_value_round_trips_as_its_text() {
        for text in ["auto", "manual", "unknown", "reactive"] {
            let trigger: Trigger = serde_json::from_str(&format!("\"{text}\"")).unwrap();
            assert_eq!(trigger.as_str(), text);
            assert_eq!(
                serde_json::to_string(&trigger).unwrap(),
                format!("\"{text}\"")
            );
        }
        assert!(Trigger::from_text("auto").is_automatic());
        assert_eq!(
            Trigger::from_text("reactive"),
            Trigger::Other("reactive".into())
        );
    }
}
