//! Integration tests: the real binaries, run the way Claude Code runs them.
