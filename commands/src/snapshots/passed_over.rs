//! The newer generations of a kept copy that a reader does not take (they keep nothing or are
//! damaged), said the same way by `archives restore` and `recall`, in the words of `archives
//! verify`.

use serde::Serialize;

use ctxhooks_shared::store::kept_check::{self, CheckedGeneration, ProblemKind};

/// A newer generation `restore` did not take, and why (in words: `generation N: why`).
#[derive(Debug, Clone, Serialize, thiserror::Error)]
#[error("generation {generation}: {detail}")]
pub struct PassedOver {
    /// The generation (the first of a gap in the numbers).
    pub generation: u32,
    /// `kept_nothing`, `kept_missing` or `kept_damaged`, as `archives verify` reports it.
    pub status: ProblemKind,
    /// What is wrong, in words.
    pub detail: String,
}

impl PassedOver {
    /// Why `checked` was passed over.
    pub fn of(checked: &CheckedGeneration) -> Self {
        // Damage first; else the first problem (damage when none is said): the first of the
        // least by this key.
        let status = checked
            .problems
            .iter()
            .map(kept_check::GenerationProblem::kind)
            .min_by_key(|kind| *kind != ProblemKind::KeptDamaged)
            .unwrap_or(ProblemKind::KeptDamaged);
        Self {
            generation: checked.generation,
            status,
            detail: checked.describe(),
        }
    }

    /// Each generation passed over in words, separated by semicolons.
    pub fn list(passed_over: &[Self]) -> String {
        let reasons: Vec<String> = passed_over.iter().map(ToString::to_string).collect();
        reasons.join("; ")
    }
}
