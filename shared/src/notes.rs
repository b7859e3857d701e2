//! Where work that goes on past a problem leaves it: the rules a hook runs (`keep`, `usage`,
//! `gauge`) take a [`Notes`] and never the hook's frame, which implements it and writes each
//! problem to the error log once the work is done (`hook/runner.rs`).

/// A problem noted: any error, each of its causes a line's part in the error log. Notes are
/// only ever logged, never told apart, so their type is left open: a rule notes its own typed
/// error (`keep::KeepError`, `gauge::GaugeProblem`, ...), a hook's body its `anyhow` chain.
pub type Problem = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Takes the problems that did not stop the work, in the order they came.
pub trait Notes {
    /// Keeps `problem` for later: never blocks and never fails, so that the work goes on.
    fn note(&self, problem: Problem);
}

/// Notes `error` as the cause of `what` failing (`what`: the words of the note's first line).
pub fn note_failed(
    notes: &(impl Notes + ?Sized),
    error: impl std::error::Error + Send + Sync + 'static,
    what: impl std::fmt::Display + Send + Sync + 'static,
) {
    notes.note(anyhow::Error::new(error).context(what).into());
}
