//! Integration tests: the real binaries, run the way Claude Code runs them.

#![allow(
    unreachable_pub,
    dead_code,
    reason = "test support is private to this binary and not every test uses every helper"
)]
#![allow(
    clippy::unwrap_used,
    clippy::needless_pass_by_value,
    clippy::items_after_statements,
    clippy::struct_field_names,
    clippy::similar_names,
    reason = "tests fail loudly on purpose and favour plain helpers"
)]
#![cfg_attr(
    windows,
    allow(
        unused_imports,
        reason = "imports that only the Unix-only tests use (their modules and tests are cfg(unix))"
    )
)]

// The harness: one World per test, one Run builder, the fixture locator, the e2e Sandbox.
mod support;

// The layout's rules, read from the source: no module imports one that imports it back, the
// shared crate's layers never point up, and the commands' shared homes import no capability.
mod architecture;

// Tests for `ctxhooks-precompact` and `ctxhooks archives`.
mod precompact;

// Tests for `ctxhooks-tooluse` and the frame every hook runs in.
mod tooluse;

// Tests for `ctxhooks install` / `uninstall` on real settings files.
mod install;

// Tests for `ctxhooks doctor`.
mod doctor;

// Cost in dollars: `report`, `history`, `export`, the status line's `{cost}`, `config.json`'s prices.
mod cost;

// Claude Code's cleanup: `sessions` marks what it deletes, `archives restore --deleted`.
mod cleanup;

// ctxhooks' own storage: the logs' rotation, doctor's size and growth, `archives prune`.
mod storage;

// Faults the hooks must hold under (the fault issue's defects, one test each).
// Unix only: FIFOs, tmpfs mounts for a full or read-only disk, `setpriv`, `/bin/sh` and signals.
#[cfg(unix)]
mod faults;

// Tests for the kept transcript copies: the hooks that keep them, `sessions`, `recall`,
// `archives restore`.
mod keep;

// The kept copies when something went wrong with them: what `archives restore` gives, what
// `archives verify` reports, what the hooks do next.
mod kept_damage;

// Tests for `ctxhooks-stop`, the usage log and `ctxhooks usage` / `report`.
mod usage;

// The compaction ledger (`ctxhooks compactions`) and the note after a compaction that lists
// what its summary left out.
mod compactions;

// The gauge the Stop hook keeps, its warning, `ctxhooks gauge` and `ctxhooks statusline`.
mod gauge;

// The direct transcript line reader against the serde reader that defines a record.
mod direct_reader;

// Every record type of today through every reader: none unreadable, the session's own facts.
mod today_records;

// Tests for `ctxhooks search` and `ctxhooks mcp`: the index, its queries, the MCP tools.
mod search;

// `search`'s ranking: the tiers of how a message matches, its order within a tier, the widened
// query, in the text, the JSON and the MCP tool.
mod search_rank;

// `search`'s snippets marked in Rust against FTS5's own marking, over every real message.
mod search_marking;

// `search`'s remembered kept listings: what each kept folder gave the last search, while it
// looks the same.
mod search_kept_listing;

// Tests for `ctxhooks history` over projects folders, with no hooks and no state folder.
// Unix only: FIFOs, links to `/dev/zero`, `/proc` for the peak memory, `ulimit` through `/bin/sh`.
#[cfg(unix)]
mod history;

// Tests for `ctxhooks export`: three hosts' exports, their JSON Schemas, DuckDB's answers.
// Unix only: python3 with DuckDB and jsonschema, FIFOs, `/proc/self/fd`, `unshare`.
#[cfg(unix)]
mod fleet;

// The usage log's totals against ccusage's for the same transcripts.
// Unix only: Node.js and the ccusage package.
#[cfg(unix)]
mod ccusage;

// Tests for interrupt provenance: `ctxhooks provenance`, `ledger-input`, `mark-interrupt`.
mod provenance;

// End-to-end tests with the real Claude Code CLI.
// Unix only: the real Claude Code CLI under Node.js.
#[cfg(unix)]
mod e2e_claude;

// End-to-end tests of interrupt provenance with the real Agent SDK.
// Unix only: the real Agent SDK under Node.js.
#[cfg(unix)]
mod e2e_sdk;

// The report on real captures of real CLIs: classes from evidence, T from the CLI's rule.
mod report_truth;

// Provenance on real permission refusals of the CLI and of a person.
mod provenance_truth;

// End-to-end checks of the report's trigger and the provenance of a refusal with the real CLI.
// Unix only: the real Claude Code CLI under Node.js.
#[cfg(unix)]
mod e2e_truth;

// End-to-end tests of the kept transcripts with the real CLI: restore for `--resume`, recall
// after `/compact`.
// Unix only: the real Claude Code CLI under Node.js.
#[cfg(unix)]
mod e2e_keep;

// End-to-end in a real terminal: the pinned CLI interactive in tmux, the status line segment
// read from the screen, the warning where the person sees it.
// Unix only: the real Claude Code CLI in tmux.
#[cfg(unix)]
mod e2e_terminal;

// The repository as a plugin marketplace: its manifests and the plugin's hooks file.
mod plugin;

// The plugin installed with the pinned CLI's `claude plugin` commands, its hooks at work.
// Unix only: the real Claude Code CLI under Node.js.
#[cfg(unix)]
mod e2e_plugin;

// `ctxhooks mcp` registered by `install --mcp`, its `search` tool called by the scripted model.
// Unix only: the real Claude Code CLI under Node.js.
#[cfg(unix)]
mod e2e_search;

// `ctxhooks view`: a session's page against its transcript, hostile text, the index, errors.
mod view;

// `ctxhooks view`'s pages in headless Chromium: what is shown, nothing run, no request out.
// Unix only: Debian's Chromium driven by playwright-core under Node.js.
#[cfg(unix)]
mod e2e_browser;

// The npm packages (`npm/pack.sh`) installed offline, their native hooks run by the pinned CLI
// (`tests/release/npm.sh` makes the tarballs and runs it; skipped without them).
// Unix only: npm and the real Claude Code CLI under Node.js.
#[cfg(unix)]
mod e2e_npm;

// The suite's own promises: the tests that need root pass when it is not root, and say so.
// Unix only: root and `setpriv` to run the root tests again as `nobody`.
#[cfg(unix)]
mod suite;
