//! Who said a message, as the index stores it (a small number) and as `--role` names it.

use clap::ValueEnum;
use serde::{Deserialize, Serialize};

use ctxhooks_shared::transcript::conversation::Speaker;

/// Who said it: a person, the model, a tool (its result), or a compaction (its summary).
#[allow(
    missing_docs,
    reason = "plain data: the type's documentation says what its fields are"
)]
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
    Tool,
    Summary,
}

impl Role {
    /// The speaker of a conversation message.
    pub fn of(speaker: Speaker) -> Self {
        match speaker {
            Speaker::User => Self::User,
            Speaker::Assistant => Self::Assistant,
            Speaker::Tool => Self::Tool,
            Speaker::Summary => Self::Summary,
        }
    }

    /// The number the index stores.
    pub fn code(self) -> i64 {
        match self {
            Self::User => 0,
            Self::Assistant => 1,
            Self::Tool => 2,
            Self::Summary => 3,
        }
    }

    /// The role of a stored number.
    pub fn from_code(code: i64) -> Option<Self> {
        [Self::User, Self::Assistant, Self::Tool, Self::Summary]
            .into_iter()
            .find(|role| role.code() == code)
    }

    /// Its name, as `--role` and the JSON spell it.
    pub fn name(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::Tool => "tool",
            Self::Summary => "summary",
        }
    }
}
