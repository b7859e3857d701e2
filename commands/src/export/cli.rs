//! `ctxhooks export`: flat, versioned JSON Lines for a fleet, one record per request,
//! compaction, drop, session, snapshot, tool event and provenance verdict.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;

use super::collect::{ExportQuery, export};
use crate::facts::drops::DEFAULT_MIN_DROP;
use crate::facts::report::ReportOptions;
use crate::output;
use crate::output_file::write_output_file;
use crate::prices::Prices;
use crate::projects::window::TimeWindow;
use crate::projects::{ProjectsArgs, nothing_read_text, transcript_cache};
use ctxhooks_shared::platform::host::machine_name;
use ctxhooks_shared::store::state_dir::StateDir;

/// Arguments of `ctxhooks export`.
///
/// Every record carries `schema`, `kind`, `id`, `host`, `project`, `session`, `time` and
/// `source`; their JSON Schemas are in docs/schema/, and docs/fleet.md shows how to ship the
/// files and query many hosts' exports with `DuckDB`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub projects: ProjectsArgs,
    /// The machine's name in every record (default: the kernel's host name, as `uname -n` gives
    /// it).
    #[arg(long, value_name = "NAME")]
    pub host: Option<String>,
    /// Only records whose time is at or after this (`YYYY-MM-DD` or RFC 3339), for incremental
    /// shipping; records with no time are left out then.
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Write to this file instead of stdout: a regular file (or none) is replaced atomically,
    /// mode 0600, and through a symbolic link the file it leads to (the link stays); a FIFO or a
    /// character device (or a link to one, such as `/dev/stdout`) is written into, never
    /// replaced.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Read every transcript, even those the cache of the last run still describes.
    #[arg(long)]
    pub no_cache: bool,
}

pub fn run(args: &ExportArgs) -> Result<ExitCode> {
    let window = TimeWindow::parse(args.since.as_deref(), None)?;
    // The state folder, when there is one: something in its place that is no folder is said.
    let mut problems = Vec::new();
    let state = StateDir::locate().ok().filter(|state| {
        let root = state.root();
        let is_folder = root.is_dir();
        if !is_folder && fs_err::symlink_metadata(root).is_ok() {
            problems.push(format!(
                "the state folder {} is not a folder: nothing of it is exported",
                root.display()
            ));
        }
        is_folder
    });
    let query = ExportQuery {
        folders: args.projects.folders()?,
        state,
        host: args.host.clone().unwrap_or_else(machine_name),
        since: window.since,
        cache: transcript_cache(args.no_cache),
    };
    let prices = Prices::load(query.state.as_ref())?;
    let options = ReportOptions::of_process(None, DEFAULT_MIN_DROP).with_prices(prices);
    let mut export = export(&query, &options);
    problems.append(&mut export.problems);
    export.problems = problems;
    // Nothing at all could be read: an error, not an empty export. A state folder read is
    // something (the usage logs of sessions whose transcripts are gone, snapshots, tool events).
    if export.folders_read == 0 && !export.state_read {
        bail!(nothing_read_text(&export.problems));
    }
    for problem in &export.problems {
        output::note(&format!("export: {problem}"));
    }
    match &args.out {
        Some(path) => {
            write_output_file(path, &export.lines)
                .with_context(|| format!("failed to write `{}`", path.display()))?;
            output::note(&format!(
                "wrote {} record(s) for host {} to {}",
                export.records,
                query.host,
                path.display()
            ));
        }
        None => output::print_with(|stdout| Ok(stdout.write_all(&export.lines)?))?,
    }
    // The rest is written; a record that could not be (named above) fails the run, so that a
    // shipment that lacks it is not taken for whole.
    if export.unwritten > 0 {
        bail!(
            "{} record(s) could not be written (named above); the other {} were",
            export.unwritten,
            export.records
        );
    }
    Ok(ExitCode::SUCCESS)
}
