//! An error and its causes in one line, outermost first, each joined to the next by `: `: how a
//! problem kept as text (a generation's problem, a skipped file in `snapshot.json`, a cursor
//! that could not be read) is worded, whatever the error's type. The words are the ones
//! anyhow's `{:#}` gives the same chain, so that a message reads the same on either side of the
//! library's edge.

use std::error::Error;
use std::fmt;

/// `error` and its causes (`source()`, then its source, ...), outermost first, joined by `: `.
#[derive(Debug, Clone, Copy)]
pub struct Causes<'error>(pub &'error (dyn Error + 'static));

impl fmt::Display for Causes<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}", self.0)?;
        let mut cause = self.0.source();
        while let Some(next) = cause {
            write!(formatter, ": {next}")?;
            cause = next.source();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("failed to keep")]
    struct Outer(#[source] std::io::Error);

    #[test]
    fn says_the_chain_as_a_context_chain_says_it() {
        let inner = || std::io::Error::other("the disk is full");
        assert_eq!(
            Causes(&Outer(inner())).to_string(),
            "failed to keep: the disk is full"
        );
        assert_eq!(Causes(&inner()).to_string(), "the disk is full");
    }
}
