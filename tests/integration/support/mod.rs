//! Test support: one world per test, one way to run a program in it, one place for fixtures.
//!
//! Every program a test starts goes through [`Run`](run::Run) in a [`World`], and no test
//! changes its own environment (`std::env::set_var`). A new test, in three lines:
//!
//! ```text
//! let world = World::new("short-transcript");        // private HOME, config, state, project
//! world.hook(Hook::Stop).stdin(payload).success();   // exit 0, nothing on stdout
//! assert_eq!(world.errors(), Vec::<Value>::new());   // then look at what it left
//! ```
//!
//! where `payload` names a transcript laid out with `world.write_transcript(..)` from a
//! [`transcript_fixture`], and `world.ctxhooks(["usage", "--session", id, "--json"]).json()` reads
//! the result back through the command.
//!
//! - [`World`] (`world.rs`): the folders of one test (`HOME`, `CLAUDE_CONFIG_DIR`,
//!   `CTXHOOKS_HOME`, the project, Claude Code's transcript folder), removed when dropped.
//! - [`Run`](run::Run) (`run.rs`): the one builder that runs a program. `world.hook(Hook::Stop)`,
//!   `world.ctxhooks([...])` and `world.program(path)` start one with the world's environment
//!   on the child (inherited `ANTHROPIC_*`, `CLAUDE*`, `CTXHOOKS_*` and `OTEL_*` removed);
//!   `.stdin(..)`, `.env(..)`, `.in_dir(..)`, `.timeout(..)`, `.via(..)` shape it;
//!   `.stdout(..)`, `.stderr_contains(..)`, `.expect_file(..)` add checks; `.success()`,
//!   `.exit_code(n)`, `.failure()`, `.json()` or `.output()` run it and print stdout and stderr
//!   when a check fails. A hook run always checks that stdout stays empty.
//! - [`Scratch`] (`scratch.rs`): the one temporary folder type, unique per test and removed when
//!   dropped (kept when `CTXHOOKS_KEEP_SCRATCH` is set). Worlds are made of it.
//! - `fixtures.rs`: [`transcript_fixture`] (`tests/fixtures/transcripts`) and
//!   [`project_fixture`] (`tests/fixtures`); nothing else builds those paths.
//! - `files.rs`: reading what programs leave (modes, JSON Lines) and a few setup steps (a FIFO,
//!   whether the tests run as root, a visible note when a check is skipped, or when a fault
//!   group held).
//! - `mounts.rs`: [`SmallFilesystem`], a tmpfs for one test (a full disk, a read-only state
//!   folder); needs root.
//! - `root.rs`: [`needs_root`], which every test that needs root asks first: it says when the
//!   test is skipped and records for the summary whether it ran.
//! - `claude.rs`: the end-to-end [`claude::Sandbox`], a world with our binaries installed and the
//!   pinned Claude Code CLI; `model_server.rs`: the scripted model server it talks to;
//!   `terminal.rs`: the same CLI run interactively in tmux, read from its screen.
//! - `summary.rs`: each end-to-end group, and each test that needs root, records whether it ran
//!   or why it was skipped, for the summary `tests/run.sh` ends with.
//! - `wait.rs`: [`wait_until`], the one way a test waits for something to happen: the condition
//!   looked at until it holds, under a bound against hangs; no test proves a wait with a sleep.
//!
//! Time: no test asserts a wall-clock time, and none fails because a busy machine is slow. A hook
//! run in a world gets a generous budget ([`run::TEST_HOOK_BUDGET`]) in place of its own, which
//! is sized for Claude Code's timeouts; a test about a deadline sets the one it exercises
//! (`CTXHOOKS_HOOK_BUDGET_MS`, `CTXHOOKS_STDIN_TIMEOUT_MS`, ...), and a test that runs the real
//! CLI, where the hooks have their own budgets, asserts what holds when one runs out.

pub mod claude;
pub mod files;
pub mod fixtures;
pub mod model_server;
pub mod mounts;
pub mod root;
pub mod run;
pub mod scratch;
pub mod summary;
pub mod terminal;
pub mod wait;
pub mod world;

#[cfg(unix)]
pub use files::make_fifo;
pub use files::{append, json_lines, mode, running_as_root, say_held, say_skipped};
pub use fixtures::{all_transcript_fixtures, cli_capture, project_fixture, transcript_fixture};
pub use mounts::SmallFilesystem;
pub use root::{AS_NOBODY, SETPRIV, needs_root, needs_root_and_setpriv};
pub use run::{CTXHOOKS, Hook, spawn_together};
pub use scratch::Scratch;
pub use wait::{HANG_BOUND, wait_until};
pub use world::World;
