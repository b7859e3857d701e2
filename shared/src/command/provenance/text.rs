//! The English of provenance: how each typed fact of the model reads for a person.

use std::fmt;

use super::sidecar::MarkProblemKind;

impl fmt::Display for MarkProblemKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotJson { error } => write!(
                formatter,
                "a runtime_interrupt_mark line that is not JSON ({error}; Python's json.dumps \
                 writes NaN or Infinity, which JSON does not allow); its time cannot be read, so \
                 interrupts near it are judged unknown"
            ),
            Self::NoTime => formatter.write_str(
                "a runtime_interrupt_mark line whose time cannot be read (it has no time_ms), so \
                 interrupts near it are judged unknown",
            ),
            Self::BadTime { value } => write!(
                formatter,
                "a runtime_interrupt_mark line whose time cannot be read (its time_ms {value} is \
                 not a time in milliseconds), so interrupts near it are judged unknown"
            ),
        }
    }
}
