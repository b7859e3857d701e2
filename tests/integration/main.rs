//! Integration tests: the real binaries, run the way Claude Code runs them.

// The scripted model server and helpers for running the real Claude Code CLI.
mod support;

// Tests for `ctxhooks-precompact` and `ctxhooks archives`.
mod precompact;

// Tests for `ctxhooks install` / `uninstall` on real settings files.
mod install;

// Tests for `ctxhooks doctor`.
mod doctor;

// Tests for the usage log over the real transcript fixtures.
mod usage;

// Tests for interrupt provenance over the real transcript fixtures.
mod provenance;

// End-to-end tests with the real Claude Code CLI.
mod e2e_claude;
