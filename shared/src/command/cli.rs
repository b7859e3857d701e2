//! The `ctxhooks` command line: the subcommands, each defined beside its capability.

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

use super::provenance::{cli_ledger_input, cli_mark_interrupt, cli_provenance};
use super::usage::{cli_report, cli_usage};
use super::{archives, doctor, export, history, install};

/// Archive Claude Code transcripts before compaction, log context usage per request, and
/// record who really interrupted a tool call.
#[derive(Debug, Parser)]
#[command(
    name = "ctxhooks",
    version,
    about = "Archive Claude Code transcripts before compaction, log context usage per request, and \
             record who really interrupted a tool call",
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
    Uninstall(install::cli::InstallArgs),
    /// Check the installation, the state folder and Claude Code's retention; show recent hook errors.
    Doctor(doctor::cli::DoctorArgs),
    /// List, verify or prune transcript snapshots taken before compactions.
    Archives(archives::cli::ArchivesArgs),
    /// Show one session's per-request context usage rows.
    Usage(cli_usage::UsageArgs),
    /// Explain context drops, compactions, trigger estimate, headroom and warnings.
    Report(cli_report::ReportArgs),
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
}

/// Parses the arguments and runs the command.
pub fn run() -> Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Install(args) => install::cli::run_install(&args),
        Command::Uninstall(args) => install::cli::run_uninstall(&args),
        Command::Doctor(args) => doctor::cli::run(&args),
        Command::Archives(args) => archives::cli::run(&args),
        Command::Usage(args) => cli_usage::run(&args),
        Command::Report(args) => cli_report::run(&args),
        Command::History(args) => history::cli::run(&args),
        Command::Export(args) => export::cli::run(&args),
        Command::MarkInterrupt(args) => cli_mark_interrupt::run(&args),
        Command::Provenance(args) => cli_provenance::run(&args),
        Command::LedgerInput(args) => cli_ledger_input::run(&args),
    }
}
