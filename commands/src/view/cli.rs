//! `ctxhooks view --session ID [--snapshot NAME] | --transcript PATH | --all [--out FILE]
//! [--open] [--json]`: one session as one self-contained HTML page (or every session's and an
//! index), built from the facts the other commands read: `report`'s, `compactions`' ledger,
//! `provenance`'s verdicts, `recall`'s conversation and the session's sub-agents.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use chrono::Utc;
use clap::Args;
use serde::Serialize;

use super::agents::{Agents, open_snapshot_file};
use super::index::{IndexRow, index_page};
use super::page::{Inputs, Page, Shown, Source};
use crate::archives::restore::find_snapshot;
use crate::compactions::ledger::{Ledger, read_ledger};
use crate::facts::log::{SessionLog, log_from_reader, log_from_transcript};
use crate::facts::report::{ReportOptions, SessionReport, build_report, session_report};
use crate::facts::summary::SessionSummary;
use crate::output::{self, Emit, Format, emit};
use crate::output_file::write_output_file;
use crate::projects::discover::first_session_id;
use crate::provenance::load::load_analysis;
use crate::provenance::verdict::{CallReport, provenance_report};
use crate::recall::conversation::{each_message, each_message_of};
use crate::render::cost::cost_cell;
use crate::retention::settings::Retention;
use crate::sessions::catalog::list_sessions;
use crate::sessions::transcript::open_session_transcript;
use crate::usage::cli_report::ThresholdArgs;
use ctxhooks_shared::store::files::{self, create_private_dir_all};
use ctxhooks_shared::store::rotation;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::snapshot_metadata::FileRole;
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::transcript::file::TranscriptFile;
use ctxhooks_shared::transcript::lines::{MAX_LINE_BYTES, split_lines};
use ctxhooks_shared::transcript::record::Record;

/// Arguments of `ctxhooks view`.
///
/// Writes one self-contained HTML page of a session: its facts (title, project, times, CLI
/// versions, models, requests, tokens, cost, compactions, peak context against T), its context
/// per request drawn against T and the window with each compaction and drop linked to its place,
/// and its conversation (answers' Markdown rendered; tool calls, results and summaries folded;
/// long texts cut with the `ctxhooks recall` command that prints them whole; interrupted calls
/// with their verdict; each sub-agent's conversation folded under the call that started it),
/// each compaction a divider saying what its summary left out. No request
/// leaves the page (a Content-Security-Policy forbids it) and it reads with scripts off; the one
/// script is the filter box. Prints the path written.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("input").required(true).multiple(false))]
pub struct ViewArgs {
    /// The session (a full id, `last`, or the start of one): its kept copy and live transcript,
    /// also once Claude Code has deleted the transcript.
    #[arg(long, value_name = "ID", group = "input")]
    pub session: Option<String>,
    /// With `--session`: the page of a compaction's snapshot (NAME as `ctxhooks archives` lists
    /// it, or the unique start of one), read from the transcript copy it holds where it is.
    /// Written as `<session id>.snapshot-<NAME>.html`.
    #[arg(long, value_name = "NAME", requires = "session")]
    pub snapshot: Option<String>,
    /// A transcript file instead, no usage log needed (a sub-agent's own `agent-<id>.jsonl` too;
    /// a compaction's snapshot is `--session ID --snapshot NAME`).
    #[arg(long, value_name = "PATH", group = "input")]
    pub transcript: Option<PathBuf>,
    /// Every session ctxhooks knows: a page each, and `index.html` linking them (title, project,
    /// dates, tokens, cost, compactions, live, due or deleted).
    #[arg(long, group = "input")]
    pub all: bool,
    /// Where to write the page (with `--all`, the folder of the pages). Default: the state
    /// folder's `views/`, as `<session id>.html`.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Hand the page written to the system's browser.
    #[arg(long)]
    pub open: bool,
    /// Print what was written as JSON: `{pages: [{path, session_id, messages, ...}], index}`.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub thresholds: ThresholdArgs,
}

/// One page written.
#[derive(Debug, Serialize)]
struct Written {
    path: PathBuf,
    session_id: Option<String>,
    #[serde(flatten)]
    shown: Shown,
    /// Bytes of the page.
    bytes: u64,
}

/// What `view` prints: the pages written (and the index, with `--all`), and the sessions whose
/// page could not be made.
#[derive(Debug, Serialize)]
struct Viewed {
    pages: Vec<Written>,
    index: Option<PathBuf>,
    failed: Vec<Failed>,
}

#[derive(Debug, Serialize)]
struct Failed {
    session_id: String,
    error: String,
}

impl Emit for Viewed {
    fn text(&self) -> String {
        let mut text = String::new();
        for page in &self.pages {
            let shown = &page.shown;
            let _ = writeln!(
                text,
                "wrote {} ({} messages, {} compactions, {} tool calls, {} interrupted, {} texts cut)",
                page.path.display(),
                shown.messages,
                shown.compactions,
                shown.tool_calls,
                shown.interrupts,
                shown.cut
            );
        }
        for failed in &self.failed {
            let _ = writeln!(
                text,
                "no page for session {}: {}",
                failed.session_id, failed.error
            );
        }
        if let Some(index) = &self.index {
            let _ = writeln!(text, "wrote the index {}", index.display());
        }
        text
    }
}

pub fn run(args: &ViewArgs) -> Result<ExitCode> {
    let options = args.thresholds.options()?;
    let viewed = if args.all {
        view_all(args, &options)?
    } else {
        // The page, the name of its file, and its session's id.
        let (page, shown, name, session_id) = if let Some(path) = &args.transcript {
            let (page, shown, name) = transcript_page(path, &options)?;
            let session_id = name_if_session(&name);
            (page, shown, name, session_id)
        } else {
            let session = SessionId::parse(args.session.as_deref().unwrap_or_default())
                .context("invalid `--session`")?;
            let state = StateDir::locate()?;
            let (page, shown, name) = if let Some(name) = &args.snapshot {
                let (page, shown, name) = snapshot_page(&state, &session, name, &options)?;
                let name = format!("{session}.snapshot-{}", file_word(&name));
                (page, shown, name)
            } else {
                let (page, shown, _) = session_page(&state, &session, &options)?;
                (page, shown, session.to_string())
            };
            (page, shown, name, Some(session.to_string()))
        };
        let out = match &args.out {
            Some(out) => Destination::Named(out.clone()),
            None => {
                Destination::State(views_dir(&StateDir::locate()?)?.join(format!("{name}.html")))
            }
        };
        Viewed {
            pages: vec![write_page(&out, &page, session_id, shown)?],
            index: None,
            failed: Vec::new(),
        }
    };
    emit(Format::json_if(args.json), &viewed)?;
    if args.open {
        let target = viewed
            .index
            .as_ref()
            .or(viewed.pages.first().map(|page| &page.path));
        if let Some(target) = target {
            open_in_browser(target)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The session id a transcript's page is named by, when it is one.
fn name_if_session(name: &str) -> Option<String> {
    SessionId::parse(name).ok().map(|id| id.to_string())
}

/// `<state>/views/`, made (0700, no link below the state folder): where pages go by default.
fn views_dir(state: &StateDir) -> Result<PathBuf> {
    let folder = state.views_dir();
    state
        .ensure_real_dir(&folder)
        .context("failed to make the views folder")?;
    Ok(folder)
}

/// Where a page goes.
enum Destination {
    /// A file named on the command line: written as `export --out` writes (a link followed, a
    /// FIFO written into).
    Named(PathBuf),
    /// A file in the state folder's `views/`: replaced, never followed.
    State(PathBuf),
}

impl Destination {
    fn path(&self) -> &Path {
        match self {
            Self::Named(path) | Self::State(path) => path,
        }
    }

    /// Writes `bytes` whole or not at all (a temporary file renamed over the target, mode 0600).
    fn write(&self, bytes: &[u8]) -> Result<()> {
        match self {
            Self::Named(path) => write_output_file(path, bytes),
            Self::State(path) => {
                files::write_atomic(path, bytes, files::PRIVATE_FILE_MODE).map_err(Into::into)
            }
        }
        .with_context(|| format!("failed to write `{}`", self.path().display()))
    }
}

/// Writes a page whole or not at all.
fn write_page(
    destination: &Destination,
    page: &str,
    session_id: Option<String>,
    shown: Shown,
) -> Result<Written> {
    destination.write(page.as_bytes())?;
    Ok(Written {
        path: destination.path().to_path_buf(),
        session_id,
        shown,
        bytes: page.len() as u64,
    })
}

/// What one session's page is built from besides its conversation.
struct Facts {
    log: SessionLog,
    report: SessionReport,
    summary: SessionSummary,
    ledger: Result<Ledger, String>,
    interrupts: Result<Vec<CallReport>, String>,
}

impl Facts {
    /// The facts of the session `name` whose requests are `log`: what could not be read for
    /// the ledger or the interrupts kept as its words, which the page shows in their place.
    fn new(
        name: &str,
        log: SessionLog,
        report: SessionReport,
        ledger: Result<Ledger>,
        interrupts: Result<Vec<CallReport>>,
    ) -> Self {
        let summary = SessionSummary::of(name, &log, log.sources.first());
        Self {
            log,
            report,
            summary,
            ledger: ledger.map_err(|error| format!("{error:#}")),
            interrupts: interrupts.map_err(|error| format!("{error:#}")),
        }
    }
}

/// Ties `agents` to their calls by what the main transcript `reader` says; a transcript that
/// cannot be read for it leaves them to be tied by their prompts, and says so. A transcript of
/// a 1.0.x CLI (`version`) holds its sub-agents inline: they are gathered from it.
fn tie_agents(agents: &mut Agents, reader: Result<impl std::io::Read>, version: Option<&str>) {
    let inline = version.is_some_and(|version| version.starts_with("1."));
    if agents.list.is_empty() && !inline {
        return;
    }
    if let Err(error) = reader.and_then(|reader| agents.tie(reader, inline)) {
        agents.unreadable.push(format!(
            "what ties the sub-agents to their calls could not be read: {error:#}"
        ));
    }
}

/// A session's page: from its usage log, its transcript (live, else kept) and its sidecar.
fn session_page(
    state: &StateDir,
    session: &SessionId,
    options: &ReportOptions,
) -> Result<(String, Shown, SessionReport)> {
    let path = state.usage_log(session);
    if !rotation::log_exists(&path) {
        bail!(
            "no usage log for session {session} at `{}` (is the Stop hook installed? \
             `ctxhooks view --transcript PATH` reads a transcript directly)",
            path.display()
        );
    }
    let (log, report) = session_report(state, session, options)?;
    let mut live = None;
    let ledger = open_session_transcript(state, session).and_then(|opened| {
        if !opened.kept {
            live = Some(opened.source.clone());
        }
        read_ledger(opened.reader)
            .with_context(|| format!("failed to read `{}`", opened.source.display()))
    });
    // The transcript the tool hook recorded, else the live one the kept copy names.
    let interrupts = load_analysis(state, Some(session), None)
        .or_else(|error| match &live {
            Some(path) => load_analysis(state, Some(session), Some(path)),
            None => Err(error),
        })
        .map(|loaded| provenance_report(&loaded.analysis).calls);
    let facts = Facts::new(session.as_str(), log, report, ledger, interrupts);
    let mut agents = Agents::of_session(live.as_deref(), session, &state.kept_dir(session));
    tie_agents(
        &mut agents,
        open_session_transcript(state, session).map(|opened| opened.reader),
        facts.summary.version.as_deref(),
    );
    let id = session.as_str();
    let mut page = begin(&facts, Source::Session(id), agents);
    let read = each_message(state, session, true, &mut |message| {
        page.message(&message);
        Ok(())
    })?;
    let (html, shown) = page.finish(read.compactions);
    Ok((html, shown, facts.report))
}

/// `text` as a file name's part: letters, digits, `-`, `_` and `.` kept, anything else `-`.
fn file_word(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// A compaction's snapshot's page, drawn from the transcript copy it holds (read where it is:
/// the kept generation it names, or its own copy), with the sub-agents it holds; and the
/// snapshot's full name.
fn snapshot_page(
    state: &StateDir,
    session: &SessionId,
    name: &str,
    options: &ReportOptions,
) -> Result<(String, Shown, String)> {
    let entry = find_snapshot(state, session, name)?;
    let snapshot = entry.metadata.name.clone();
    let kept_dir = state.kept_dir(session);
    let Some(main) = (entry.metadata.files.iter()).find(|file| file.role == FileRole::Transcript)
    else {
        bail!("the snapshot `{snapshot}` of session {session} holds no transcript");
    };
    let read =
        |what: &str| format!("failed to read the snapshot `{snapshot}`'s transcript ({what})");
    let open = || open_snapshot_file(&kept_dir, &entry.path, main);
    let log = open()
        .and_then(|reader| log_from_reader(Path::new(&main.source), reader))
        .with_context(|| read("its requests"))?;
    let report = build_report(Some(session.as_str()), &log, None, options);
    let ledger = open().and_then(read_ledger);
    let interrupts = load_analysis(state, Some(session), None)
        .map(|loaded| provenance_report(&loaded.analysis).calls);
    let facts = Facts::new(session.as_str(), log, report, ledger, interrupts);
    let mut agents = Agents::of_snapshot(&kept_dir, &entry.path, &entry.metadata.files);
    tie_agents(&mut agents, open(), facts.summary.version.as_deref());
    let source = Source::Snapshot {
        session: session.as_str(),
        name: &snapshot,
    };
    let mut page = begin(&facts, source, agents);
    let (_, compactions) = each_message_of(open()?, false, true, &mut |message| {
        page.message(&message);
        Ok(())
    })
    .with_context(|| read("its messages"))?;
    let (html, shown) = page.finish(compactions);
    Ok((html, shown, snapshot))
}

/// A transcript file's page, and the name it is written by (its session's id, else its file's).
fn transcript_page(path: &Path, options: &ReportOptions) -> Result<(String, Shown, String)> {
    let read = |what: &str| {
        format!(
            "failed to read the transcript `{}` ({what})",
            path.display()
        )
    };
    let mut file = TranscriptFile::open_named(path).with_context(|| read("opening it"))?;
    let session = first_session_id(&mut file).with_context(|| read("its session"))?;
    let log = log_from_transcript(path).with_context(|| read("its requests"))?;
    let report = build_report(None, &log, None, options);
    // A sub-agent's own transcript (every record a sidechain one) is read as its conversation,
    // and named by its file (its records name the session that started it).
    let subagent = is_subagent_transcript(path).with_context(|| read("its first record"))?;
    let name = session.clone().filter(|_| !subagent).unwrap_or_else(|| {
        path.file_stem().map_or_else(
            || "transcript".to_owned(),
            |stem| stem.to_string_lossy().into_owned(),
        )
    });
    let open = || Ok::<_, anyhow::Error>(TranscriptFile::open_named(path)?.into_file());
    let ledger = open().and_then(read_ledger);
    let interrupts = StateDir::locate()
        .map_err(anyhow::Error::from)
        .and_then(|state| load_analysis(&state, None, Some(path)))
        .map(|loaded| provenance_report(&loaded.analysis).calls);
    let facts = Facts::new(&name, log, report, ledger, interrupts);
    let mut agents = Agents::default();
    if !subagent && let Some(id) = session.as_deref().and_then(|id| SessionId::parse(id).ok()) {
        agents = Agents::beside(path, &id);
        tie_agents(&mut agents, open(), facts.summary.version.as_deref());
    }
    let shown_path = path.display().to_string();
    let mut page = begin(&facts, Source::Transcript(&shown_path), agents);
    let file = TranscriptFile::open_named(path).with_context(|| read("its messages"))?;
    let (_, compactions) = each_message_of(file.into_file(), subagent, true, &mut |message| {
        page.message(&message);
        Ok(())
    })
    .with_context(|| read("its messages"))?;
    let (html, shown) = page.finish(compactions);
    Ok((html, shown, name))
}

/// Returns true if and only if the transcript at `path` is a sub-agent's own: its first record
/// is a sidechain record (a sub-agent's every record is; a session's first never is).
fn is_subagent_transcript(path: &Path) -> Result<bool> {
    let file = TranscriptFile::open_named(path)?;
    let mut first = None;
    split_lines(file.into_file(), 0, true, MAX_LINE_BYTES, |line| {
        if let Some(bytes) = line.bytes
            && let Some(record) = Record::parse(bytes)
            && matches!(record.kind(), Some("user" | "assistant"))
        {
            first = Some(record.is_sidechain());
            return std::ops::ControlFlow::Break(());
        }
        std::ops::ControlFlow::Continue(())
    })?;
    Ok(first.unwrap_or(false))
}

fn begin<'a>(facts: &'a Facts, source: Source<'a>, agents: Agents) -> Page<'a> {
    Page::begin(Inputs {
        agents,
        source,
        report: &facts.report,
        log: &facts.log,
        summary: &facts.summary,
        ledger: facts.ledger.as_ref().map_err(Clone::clone),
        interrupts: facts
            .interrupts
            .as_ref()
            .map(Vec::as_slice)
            .map_err(Clone::clone),
    })
}

/// Every session's page, and the index.
fn view_all(args: &ViewArgs, options: &ReportOptions) -> Result<Viewed> {
    let state = StateDir::locate()?;
    let folder = if let Some(folder) = &args.out {
        create_private_dir_all(folder)
            .with_context(|| format!("failed to make `{}`", folder.display()))?;
        folder.clone()
    } else {
        views_dir(&state)?
    };
    let destination = |name: &str| {
        let path = folder.join(name);
        if args.out.is_some() {
            Destination::Named(path)
        } else {
            Destination::State(path)
        }
    };
    let retention =
        Retention::read(&std::env::current_dir().context("failed to read the current folder")?);
    let sessions = list_sessions(&state, retention.days, Utc::now())?;
    let (mut pages, mut failed, mut rows) = (Vec::new(), Vec::new(), Vec::new());
    for kept in &sessions {
        let id = &kept.summary.session_id;
        let Ok(session) = SessionId::parse(id) else {
            continue;
        };
        let made = session_page(&state, &session, options);
        let (page, report) = match made {
            Ok((html, shown, report)) => {
                let file = format!("{id}.html");
                pages.push(write_page(
                    &destination(&file),
                    &html,
                    Some(id.clone()),
                    shown,
                )?);
                (Some(file), Some(report))
            }
            Err(error) => {
                failed.push(Failed {
                    session_id: id.clone(),
                    error: format!("{error:#}"),
                });
                (None, None)
            }
        };
        rows.push(IndexRow {
            kept,
            page,
            tokens: report.as_ref().map(|report| {
                let tokens = &report.tally.tokens;
                tokens.input_side().saturating_add(tokens.output_tokens)
            }),
            cost: report.as_ref().map(|report| cost_cell(&report.tally.cost)),
        });
    }
    let index = destination("index.html");
    index.write(index_page(&rows).as_bytes())?;
    Ok(Viewed {
        pages,
        index: Some(index.path().to_path_buf()),
        failed,
    })
}

/// Hands `path` to the system's browser (`xdg-open`, `open` on macOS, `start` on Windows),
/// without waiting for it.
fn open_in_browser(path: &Path) -> Result<()> {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut command = std::process::Command::new("cmd");
        command.args(["/C", "start", ""]);
        command
    } else {
        std::process::Command::new("xdg-open")
    };
    command
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .with_context(|| format!("failed to hand `{}` to the browser", path.display()))?;
    output::note(&format!("handed {} to the browser", path.display()));
    Ok(())
}
