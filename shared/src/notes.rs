//! Where work that goes on past a problem leaves it: the rules a hook runs (`keep`, `usage`,
//! `gauge`) take a [`Notes`] and never the hook's frame, which implements it and writes each
//! problem to the error log once the work is done (`hook/runner.rs`).

/// Takes the problems that did not stop the work, in the order they came.
pub trait Notes {
    /// Keeps `problem` for later: never blocks and never fails, so that the work goes on.
    fn note(&self, problem: anyhow::Error);
}
