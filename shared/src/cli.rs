//! The `ctxhooks` command line: one subcommand per file under `cli/`.

pub mod archives;
pub mod doctor;
pub mod install;
pub mod ledger_input;
pub mod mark_interrupt;
pub mod output;
pub mod provenance;
pub mod report;
pub mod usage;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

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
    Install(install::InstallArgs),
    /// Remove exactly the hook entries `install` added.
    Uninstall(install::InstallArgs),
    /// Check the installation, the state folder and Claude Code's retention; show recent hook errors.
    Doctor(doctor::DoctorArgs),
    /// List, verify or prune transcript snapshots taken before compactions.
    Archives(archives::ArchivesArgs),
    /// Show one session's per-request context usage rows.
    Usage(usage::UsageArgs),
    /// Explain context drops, compactions, trigger estimate, headroom and warnings.
    Report(report::ReportArgs),
    /// Record that the runtime (not the user) is about to call `interrupt()`.
    MarkInterrupt(mark_interrupt::MarkInterruptArgs),
    /// Verdicts for tool calls that did not complete: runtime, user, permission denied or unknown.
    Provenance(provenance::ProvenanceArgs),
    /// Print a transcript for a ledger extractor, with runtime interrupts relabelled.
    LedgerInput(ledger_input::LedgerInputArgs),
}

/// Parses the arguments and runs the command.
pub fn run() -> Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Install(args) => install::run_install(&args),
        Command::Uninstall(args) => install::run_uninstall(&args),
        Command::Doctor(args) => doctor::run(&args),
        Command::Archives(args) => archives::run(&args),
        Command::Usage(args) => usage::run(&args),
        Command::Report(args) => report::run(&args),
        Command::MarkInterrupt(args) => mark_interrupt::run(&args),
        Command::Provenance(args) => provenance::run(&args),
        Command::LedgerInput(args) => ledger_input::run(&args),
    }
}
