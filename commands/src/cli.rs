//! The `ctxhooks` command line: the subcommands, each defined beside its capability.

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::{Parser, Subcommand};

use super::archives::cli::{ArchivesAction, PruneArgs, RestoreArgs, VerifyArgs};
use super::gauge::{cli_gauge, cli_statusline};
use super::provenance::{cli_ledger_input, cli_mark_interrupt, cli_provenance};
use super::sessions::resolve::{Unknown, resolve_session};
use super::usage::{cli_report, cli_usage};
use super::{
    archives, compactions, doctor, export, history, install, mcp, output, recall, search,
    search_binary, sessions, view,
};
use ctxhooks_shared::store::io_kind::is_io_kind;
use ctxhooks_shared::store::state_dir::StateDir;

/// Keep Claude Code transcripts and bring them back, log context usage per request, and record
/// who really interrupted a tool call.
#[derive(Debug, Parser)]
#[command(
    name = "ctxhooks",
    version,
    about = "Keep Claude Code transcripts and bring them back (restore, recall after compaction), \
             log context usage per request, and record who really interrupted a tool call",
    max_term_width = 100
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Every `ctxhooks` subcommand.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Register the ctxhooks hooks in a Claude Code settings file.
    Install(install::cli::InstallArgs),
    /// Remove exactly the hook entries `install` added.
    Uninstall(install::cli::TargetArgs),
    /// Check the installation, the state folder and Claude Code's retention; show recent hook errors.
    Doctor(doctor::cli::DoctorArgs),
    /// Every session ctxhooks knows, newest first: project, activity, size, whether Claude Code
    /// still has its transcript.
    Sessions(sessions::cli::SessionsArgs),
    /// List, verify or prune transcript snapshots; restore a kept transcript for `--resume`.
    Archives(archives::cli::ArchivesArgs),
    /// Print what a session said, from its kept transcript (also what compaction summarized away).
    Recall(recall::cli::RecallArgs),
    /// What each compaction's summary named, kept word for word or left out: files, commands,
    /// errors, prompts.
    Compactions(compactions::cli::CompactionsArgs),
    /// Find anything said in any session, kept or live: ranked matches and how to go on from each.
    Search(search::cli::SearchArgs),
    /// Show one session's per-request context usage rows.
    Usage(cli_usage::UsageArgs),
    /// Explain context drops, compactions, trigger estimate, headroom and warnings.
    Report(cli_report::ReportArgs),
    /// How close a session is to its auto-compact trigger now (for a runtime: `--json`).
    Gauge(cli_gauge::GaugeArgs),
    /// Serve the MCP tools `search`, `recall`, `sessions` and `gauge` over stdio, for Claude Code.
    Mcp(mcp::server::McpArgs),
    /// Print a status line segment from the JSON Claude Code pipes to a status line command.
    Statusline(cli_statusline::StatuslineArgs),
    /// Every past session in the projects folders: compactions, peaks, drops, T; per day and project.
    History(history::cli::HistoryArgs),
    /// Flat JSON Lines for a fleet: requests, compactions, drops, snapshots, tool events, verdicts.
    Export(export::cli::ExportArgs),
    /// Record that the runtime (not the user) is about to call `interrupt()`.
    MarkInterrupt(cli_mark_interrupt::MarkInterruptArgs),
    /// Verdicts for tool calls that did not complete: runtime, user, permission denied or unknown.
    Provenance(cli_provenance::ProvenanceArgs),
    /// Print a transcript for a ledger extractor, with runtime interrupts relabelled.
    LedgerInput(cli_ledger_input::LedgerInputArgs),
    /// Write a session as one self-contained HTML page (facts, context curve, conversation,
    /// compactions), or every session's and an index with `--all`.
    View(view::cli::ViewArgs),
}

/// Parses the arguments and runs the command.
pub fn run() -> Result<ExitCode> {
    let mut all = std::env::args_os();
    let name = all.next();
    let arguments: Vec<std::ffi::OsString> = all.collect();
    // `mcp` is parsed by `ctxhooks-search`, with this same parser.
    if search_binary::is_for_search_binary(&arguments)
        && let Some(handed) = search_binary::hand_over_early(name.as_deref(), &arguments)
    {
        return handed;
    }
    // The status line runs after every update: its plain arguments skip the full parser.
    if arguments.first().is_some_and(|first| first == "statusline")
        && let Some(args) = cli_statusline::StatuslineArgs::quick(&arguments[1..])
    {
        return cli_statusline::run(&args);
    }
    if arguments.first().is_some_and(|first| first == "search")
        && let Some(args) = search::cli::SearchArgs::quick(&arguments[1..])
    {
        return search::cli::run(&args);
    }
    let mut cli = Cli::parse();
    resolve_session_arguments(&mut cli.command)?;
    match cli.command {
        Command::Search(args) => search::cli::run(&args),
        Command::Mcp(_) => search_binary::forward(&arguments),
        Command::Install(args) => install::cli::run_install(&args),
        Command::Uninstall(args) => install::cli::run_uninstall(&args),
        Command::Doctor(args) => doctor::cli::run(&args),
        Command::Sessions(args) => sessions::cli::run(&args),
        Command::Archives(args) => archives::cli::run(&args),
        Command::Recall(args) => recall::cli::run(&args),
        Command::Compactions(args) => compactions::cli::run(&args),
        Command::Usage(args) => cli_usage::run(&args),
        Command::Report(args) => cli_report::run(&args),
        Command::Gauge(args) => cli_gauge::run(&args),
        Command::Statusline(args) => cli_statusline::run(&args),
        Command::History(args) => history::cli::run(&args),
        Command::Export(args) => export::cli::run(&args),
        Command::MarkInterrupt(args) => cli_mark_interrupt::run(&args),
        Command::Provenance(args) => cli_provenance::run(&args),
        Command::LedgerInput(args) => cli_ledger_input::run(&args),
        Command::View(args) => view::cli::run(&args),
    }
}

/// The exit status of a command's `result`: its own, or a failure once the error is said on
/// stderr (a closed pipe, as in `ctxhooks usage | head`, is no error worth saying).
pub fn exit_code(result: Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(error) if is_io_kind(error.as_ref(), &[std::io::ErrorKind::BrokenPipe]) => {
            ExitCode::SUCCESS
        }
        Err(error) => {
            output::note(&format!("ctxhooks: error: {error:#}"));
            ExitCode::FAILURE
        }
    }
}

/// `ctxhooks-search`'s own entry: the same arguments as `ctxhooks`, of which it runs `search` and
/// `mcp` (see `search_binary.rs`).
pub fn run_search() -> Result<ExitCode> {
    match Cli::parse().command {
        Command::Search(args) => search::cli::run(&args),
        Command::Mcp(args) => mcp::server::run(&args),
        _ => bail!("ctxhooks-search runs `search` and `mcp` only: run `ctxhooks` for the rest"),
    }
}

/// Replaces every `--session` argument with the full id it names: an id, `last`, or the start
/// of exactly one id ctxhooks knows (see `sessions/resolve.rs`), once for every command.
fn resolve_session_arguments(command: &mut Command) -> Result<()> {
    let (session, unknown) = match command {
        Command::Archives(args) => match &mut args.action {
            None => (args.session.as_mut(), Unknown::Refuse),
            Some(
                ArchivesAction::Verify(VerifyArgs { session, .. })
                | ArchivesAction::Prune(PruneArgs { session, .. })
                | ArchivesAction::Restore(RestoreArgs { session, .. }),
            ) => (session.as_mut(), Unknown::Refuse),
        },
        Command::Recall(args) => (Some(&mut args.session), Unknown::Refuse),
        Command::Compactions(args) => (args.input.session.as_mut(), Unknown::Refuse),
        Command::Usage(args) => (args.session.as_mut(), Unknown::Refuse),
        Command::Report(args) => (args.session.as_mut(), Unknown::Refuse),
        Command::Gauge(args) => (Some(&mut args.session), Unknown::Refuse),
        // A runtime marks the interrupt of a session that may have no folder yet.
        Command::MarkInterrupt(args) => (Some(&mut args.session), Unknown::Allow),
        // The session may be one ctxhooks never saw (a transcript named, an SDK runtime's
        // session): the command then says what it is missing.
        Command::Provenance(args) => (args.session.as_mut(), Unknown::Allow),
        Command::LedgerInput(args) => (args.session.as_mut(), Unknown::Allow),
        Command::View(args) => (args.session.as_mut(), Unknown::Refuse),
        Command::Install(_)
        | Command::Uninstall(_)
        | Command::Doctor(_)
        | Command::Sessions(_)
        | Command::Search(_)
        | Command::Statusline(_)
        | Command::Mcp(_)
        | Command::History(_)
        | Command::Export(_) => (None, Unknown::Refuse),
    };
    if let Some(session) = session {
        let state = StateDir::locate()?;
        *session = resolve_session(&state, session, unknown)?.to_string();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the whole parser makes of `ctxhooks search ARGS`: the search's arguments, or `None`
    /// when it refuses them (or answers them with help).
    fn whole(arguments: &[&str]) -> Option<String> {
        let all = ["ctxhooks", "search"].iter().chain(arguments);
        match Cli::try_parse_from(all).ok()?.command {
            Command::Search(args) => Some(format!("{args:?}")),
            _ => None,
        }
    }

    fn quick(arguments: &[&str]) -> Option<String> {
        let arguments: Vec<std::ffi::OsString> = arguments.iter().map(Into::into).collect();
        search::cli::SearchArgs::quick(&arguments).map(|args| format!("{args:?}"))
    }

    #[test]
    fn the_quick_search_parser_reads_what_the_whole_parser_reads_and_nothing_else() {
        let cases: &[&[&str]] = &[
            &["compaction"],
            &["run", "the", "tests"],
            &["\"a phrase\"", "OR", "word*"],
            &["--json", "x"],
            &["x", "--json"],
            &["--limit", "5", "x"],
            &["--limit=5", "x"],
            &["--limit", "0", "x"],
            &["--role", "user", "x"],
            &["--role", "assistant", "--session", "last", "x"],
            &[
                "--project",
                "app",
                "--since",
                "2026-01-01",
                "--until",
                "2026-02-01",
                "x",
            ],
            &["--projects", "/p", "--projects", "/q", "x"],
            &["--", "--json"],
            &["-x"],
            &[],
            &["-h"],
            &["--help"],
            &["--version"],
            &["--limit"],
            &["--limit", "many", "x"],
            &["--role", "nobody", "x"],
            &["--bogus", "x"],
            &["--json", "--json", "x"],
        ];
        let mut taken = 0;
        for arguments in cases {
            let whole = whole(arguments);
            // The quick parser takes exactly what the whole one reads as a search, as it reads it.
            assert_eq!(quick(arguments), whole, "ctxhooks search {arguments:?}");
            taken += usize::from(whole.is_some());
        }
        assert!(taken >= 12, "the cases read as a search: {taken}");
    }
}
