//! `ctxhooks statusline`: the command Claude Code runs for its status line (`statusLine` in a
//! settings file), or that a status line tool runs as a custom command. Reads the JSON Claude
//! Code pipes to it and the session's gauge, prints one line, and exits 0 whatever it was given:
//! a status line has no one to report an error to.

use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::segment::{Segment, rule_for_status};
use super::status_input::{DEFAULT_STDIN_WAIT, StatusInput, read_stdin_object};
use super::text::{PLACEHOLDERS, Template, coloured, default_segment};
use crate::facts::log::read_session_log;
use crate::facts::tally::{CostTally, Tally};
use crate::output;
use crate::prices::Prices;
use ctxhooks_shared::causes::Causes;
use ctxhooks_shared::gauge::warn_at_from;
use ctxhooks_shared::model_name;
use ctxhooks_shared::store::env_vars;
use ctxhooks_shared::store::gauge::Gauge;
use ctxhooks_shared::store::rotation;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::{StateDir, claude_config_dir};
use ctxhooks_shared::store::status_window::StatusWindow;
use ctxhooks_shared::usage::threshold;

/// Arguments of `ctxhooks statusline`.
#[derive(Debug, Default, Args)]
#[command(after_help = format_help())]
pub struct StatuslineArgs {
    /// Print this template instead of the default segment, e.g. `'{percent} of {trigger}'`
    /// (placeholders below; `{{` and `}}` are braces).
    #[arg(long, value_name = "TEMPLATE")]
    pub format: Option<String>,
    /// No colour: for a tool that embeds the output (ccstatusline's Custom Command) or colours
    /// it itself. `NO_COLOR` set in the environment means the same.
    #[arg(long)]
    pub plain: bool,
}

impl StatuslineArgs {
    /// The arguments of `ctxhooks statusline ARGS` read without clap, when they are only
    /// `--plain` and `--format TEMPLATE` (or `--format=TEMPLATE`): the status line runs after
    /// every update, and building the whole command line's parser costs more than the segment
    /// itself. Anything else (`--help`, a typo) is `None`, for clap to answer.
    pub fn quick(arguments: &[std::ffi::OsString]) -> Option<Self> {
        let mut parsed = Self::default();
        let mut rest = arguments.iter();
        while let Some(argument) = rest.next() {
            match argument.to_str()? {
                "--plain" if !parsed.plain => parsed.plain = true,
                "--format" if parsed.format.is_none() => {
                    parsed.format = Some(rest.next()?.to_str()?.to_owned());
                }
                text => {
                    let template = text.strip_prefix("--format=")?;
                    if parsed.format.is_some() {
                        return None;
                    }
                    parsed.format = Some(template.to_owned());
                }
            }
        }
        Some(parsed)
    }
}

fn format_help() -> String {
    let mut text = String::from(
        "Reads the JSON Claude Code pipes to a status line command on stdin and prints one \
         line, e.g. `ctx 142k / 167k (85%) · 25k left · 2 compactions`: the context now, the \
         auto-compact trigger T (Claude Code's own rule for the session's version, model and \
         window), the context as a share of T, what is left before Claude Code compacts, and \
         the compactions so far. Green below 75% of T, yellow to the warning share \
         (CTXHOOKS_WARN_AT, default 90%), red from there, bold red past T.\n\nPlaceholders for \
         --format:\n",
    );
    for (name, meaning) in PLACEHOLDERS {
        let placeholder = format!("{{{name}}}");
        let _ = writeln!(text, "  {placeholder:<18} {meaning}");
    }
    text
}

/// Prints the segment for the JSON on stdin; a bad `--format` or odd input is said on the
/// status line itself (exit 0, since nothing reads a status line's stderr); exit 2 when stdin
/// is a terminal, so no status line feeds it.
pub fn run(args: &StatuslineArgs) -> Result<ExitCode> {
    let template = match args.format.as_deref().map(Template::parse).transpose() {
        Ok(template) => template,
        // Said where the person looks: on the status line itself.
        Err(problem) => {
            output::println(&format!("ctxhooks statusline --format: {problem}"))?;
            return Ok(ExitCode::SUCCESS);
        }
    };
    if std::io::stdin().is_terminal() {
        output::note(
            "ctxhooks statusline reads the JSON Claude Code pipes to a status line command; \
             set it as `statusLine` (`ctxhooks install --statusline`) or see --help",
        );
        return Ok(ExitCode::from(2));
    }
    let wait = env_vars::number(env_vars::CTXHOOKS_STDIN_TIMEOUT_MS)
        .map_or(DEFAULT_STDIN_WAIT, std::time::Duration::from_millis);
    // Bad input is a line with less in it, never an error: nothing reads a status line's stderr.
    let input = read_stdin_object(wait)
        .ok()
        .and_then(|bytes| StatusInput::parse(&bytes))
        .unwrap_or_default();
    let place = session_of(&input);
    // The model's window the input gives (`context_window.context_window_size`, for `model.id`;
    // a `[1m]` name without one: 1,000,000), recorded in the session's `window.json` for the
    // gauge and the report: the CLI's own word on the window. Only for a session ctxhooks knows
    // (a hook made its folder) or whose transcript is there, named for it: any other id would
    // leave a folder of nothing behind. A failure is not the status line's to report (the next
    // update tries again).
    if let Some((state, session)) = &place
        && let Some(model) = input.model.as_deref()
        && let Some(window_tokens) = input
            .model_window
            .or_else(|| model_name::selects_million(model).then_some(threshold::MILLION_WINDOW))
    {
        let _ = StatusWindow::record(
            &state.status_window_file(session),
            model,
            window_tokens,
            || is_known_session(state, session, input.transcript_path.as_deref()),
        );
    }
    // A folder or FIFO in the gauge's place is refused at once and read as no gauge.
    let gauge = place
        .as_ref()
        .and_then(|(state, session)| Gauge::read(&state.gauge_file(session)).ok().flatten());
    let (warn_at, _) = warn_at_from(std::env::var(env_vars::CTXHOOKS_WARN_AT).ok().as_deref());
    let mut segment = Segment::build(
        &input,
        gauge.as_ref(),
        warn_at.unwrap_or(ctxhooks_shared::gauge::DEFAULT_WARN_AT_PERCENT),
        || rule_for_status(&input, claude_config_dir().ok().as_deref()),
    );
    // The cost reads the session's usage log: only for a template that shows it.
    if template
        .as_ref()
        .is_some_and(|template| template.uses("cost"))
        && let Some((state, session)) = &place
    {
        match Prices::load(Some(state)) {
            Ok(prices) => segment.cost = session_cost(state, session, &prices),
            // A bad price is said where the person looks, as a bad `--format` is.
            Err(problem) => {
                output::println(&format!("ctxhooks statusline: {}", Causes(&problem)))?;
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
    let text = template.map_or_else(
        || default_segment(&segment),
        |template| template.render(&segment),
    );
    let plain = args.plain || env_vars::non_empty("NO_COLOR").is_some();
    let line = if plain {
        text
    } else {
        coloured(segment.level, &text)
    };
    output::println(&line)?;
    Ok(ExitCode::SUCCESS)
}

/// Returns true if and only if `session` has a folder in the state folder, or `transcript` (the
/// input's `transcript_path`) is a file named for it, as Claude Code names a session's
/// transcript (`<session id>.jsonl`).
fn is_known_session(state: &StateDir, session: &SessionId, transcript: Option<&str>) -> bool {
    if state.session_dir(session).is_dir() {
        return true;
    }
    transcript.map(Path::new).is_some_and(|path| {
        path.file_stem().and_then(|stem| stem.to_str()) == Some(session.as_str())
            && path
                .extension()
                .is_some_and(|extension| extension == "jsonl")
            && path.is_file()
    })
}

/// What the requests of `session`'s usage log cost, by `prices` (`None` without a log).
fn session_cost(state: &StateDir, session: &SessionId, prices: &Prices) -> Option<CostTally> {
    if !rotation::log_exists(&state.usage_log(session)) {
        return None;
    }
    let log = read_session_log(state, session).ok()?;
    let mut tally = Tally::default();
    for row in log.requests() {
        tally.add(row, prices);
    }
    Some(tally.cost)
}

/// The session the input names and the state folder, when there are both.
fn session_of(input: &StatusInput) -> Option<(StateDir, SessionId)> {
    let session = SessionId::parse(input.session_id.as_deref()?).ok()?;
    Some((StateDir::locate().ok()?, session))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quick(arguments: &[&str]) -> Option<(Option<String>, bool)> {
        let arguments: Vec<std::ffi::OsString> = arguments.iter().map(Into::into).collect();
        StatuslineArgs::quick(&arguments).map(|args| (args.format, args.plain))
    }

    #[test]
    fn the_quick_reader_takes_only_what_it_knows() {
        assert_eq!(quick(&[]), Some((None, false)));
        assert_eq!(
            quick(&["--plain", "--format", "{context}"]),
            Some((Some("{context}".into()), true))
        );
        assert_eq!(
            quick(&["--format={left}"]),
            Some((Some("{left}".into()), false))
        );
        assert_eq!(quick(&["--help"]), None);
        assert_eq!(quick(&["--format"]), None);
        assert_eq!(quick(&["--plain", "--plain"]), None);
        assert_eq!(quick(&["--format=a", "--format=b"]), None);
    }
}
