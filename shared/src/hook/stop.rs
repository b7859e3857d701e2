//! The Stop and `SubagentStop` hook's work: keep what the transcript (and, for `SubagentStop`,
//! the sub-agent's own transcript) gained since the last run (`keep.rs`), append it to the
//! session's usage log, then rotate the logs past their size (`store/rotation.rs`), apply the
//! configured storage limits, and keep and log what a `SessionEnd` cut short left of any session
//! (`hook/catch_up.rs`).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::gauge::{GaugeInputs, GaugeRole, log_usage_and_gauge};
use crate::hook::catch_up;
use crate::hook::context::HookContext;
use crate::hook::payload::{CommonFields as _, hook_payload};
use crate::keep::{keep_in_hook, main_name, subagent_name};
use crate::lenient::Text;
use crate::notes::{Notes as _, note_failed};
use crate::store::rotation::{self, ERRORS_LOG_LIMIT, SESSION_LOG_LIMIT, Writers};
use crate::store::session_id::SessionId;
use crate::store::{config, env_vars};
use crate::transcript::file::TranscriptFile;
use crate::transcript::origin::Origin;
use crate::usage::log::{IngestOptions, log_usage, rotate_usage_log};

hook_payload! {
    /// The Stop / `SubagentStop` payload. Only `session_id` and `transcript_path` are needed to log
    /// usage.
    pub StopInput<'payload> reports [cwd, hook_event_name] {
        /// `SubagentStop`: the sub-agent's id.
        agent_id: Text<'payload>,
        /// `SubagentStop`: the sub-agent's own transcript (`transcript_path` is the parent's).
        agent_transcript_path: Text<'payload>,
        /// The text of the response that ended the turn (2.1.47 on).
        last_assistant_message: Text<'payload>,
    }
}

/// How long the Stop hook waits for a turn's last response to reach the transcript when it has
/// not yet (it reads again as soon as the file grows), unless `CTXHOOKS_RESPONSE_WAIT_MS` says
/// otherwise (for tests).
pub const RESPONSE_LAG_WAIT: Duration = Duration::from_secs(1);

/// [`RESPONSE_LAG_WAIT`], or the wait `CTXHOOKS_RESPONSE_WAIT_MS` sets.
fn response_lag_wait() -> Duration {
    env_vars::number(env_vars::CTXHOOKS_RESPONSE_WAIT_MS)
        .map_or(RESPONSE_LAG_WAIT, Duration::from_millis)
}

/// Waits until the file at `path` is longer than `size`, looking every 20 ms, until `deadline`;
/// returns whether it grew.
fn wait_for_growth(path: &Path, size: u64, deadline: Instant) -> bool {
    loop {
        if fs_err::metadata(path).is_ok_and(|metadata| metadata.len() > size) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Handles one Stop or `SubagentStop` payload. The Stop hook's one answer, when a turn took the
/// context past the warning share of the trigger, is `{"systemMessage": ...}` (shown to the
/// person, not sent to the model); at any other time it prints nothing.
pub fn handle(context: &HookContext) -> Result<()> {
    let input: StopInput = context.payload()?;
    let session = input.session()?;
    let transcript = input.transcript()?;
    let role = if input.hook_event_name.non_empty() == Some("Stop") {
        GaugeRole::Stop
    } else {
        GaugeRole::Quiet
    };
    let (gauge_inputs, problem) = GaugeInputs::of_hook(input.cwd.non_empty(), role);
    if let Some(problem) = problem {
        context.note(Box::new(problem));
    }
    let mut crossing = None;
    // The turn ended with a response, which the transcript must hold for the gauge to be this
    // turn's: Claude Code writes the transcript asynchronously, and an interactive 2.1.332 was
    // seen to start the Stop hook before the turn's last response reached the file.
    let expected_text = input
        .last_assistant_message
        .non_empty()
        .filter(|_| role == GaugeRole::Stop);
    let lag_deadline = Instant::now() + response_lag_wait();
    // Opened and checked once: kept first (what must not be lost), then its usage logged.
    let main = (|| -> Result<()> {
        loop {
            let mut file = match TranscriptFile::open_if_present(transcript)? {
                Some(file) => file.checked()?,
                // The first turn's transcript is written asynchronously too: the real CLI
                // under load was seen to start the Stop hook before the file existed. Waited
                // for as a late response is.
                None if expected_text.is_some() && wait_for_growth(transcript, 0, lag_deadline) => {
                    continue;
                }
                // Still missing: `open` says so.
                None => TranscriptFile::open(transcript)?.checked()?,
            };
            keep_in_hook(
                &context.state,
                context,
                &session,
                main_name(&session, transcript),
                &mut file,
            );
            let ingested = log_usage_and_gauge(
                &context.state,
                context,
                &session,
                &mut file,
                &gauge_inputs,
                IngestOptions {
                    expected_text,
                    ..IngestOptions::default()
                },
            )?;
            crossing = ingested.crossing;
            // The turn's last response not read yet (not written yet, or read by an earlier
            // run: then the wait is bounded and nothing grows): read again once the file grows.
            if expected_text.is_none()
                || ingested.outcome.saw_expected_text
                || !wait_for_growth(transcript, file.size(), lag_deadline)
            {
                return Ok(());
            }
        }
    })()
    .context("failed to log the transcript's usage");
    if let Some(agent_transcript) = input.agent_transcript_path.non_empty().map(Path::new) {
        // Claude Code 2.1.332 fires SubagentStop for the compaction agent (empty `agent_type`)
        // with an `agent_transcript_path` it never writes (seen in the end-to-end tests, and in
        // 2.1.270 by a third-party probe). A path with nothing at it holds no usage to log;
        // anything else that is there (a folder, a FIFO, a link) is refused.
        let agent = (|| -> Result<()> {
            if let Some(file) = TranscriptFile::open_if_present(agent_transcript)? {
                let mut file = file.checked()?;
                let name = subagent_name(transcript, &session, agent_transcript);
                keep_in_hook(&context.state, context, &session, name, &mut file);
                let origin = Origin::sub_agent(agent_transcript, input.agent_id.non_empty());
                log_usage(&context.state, context, &session, &mut file, &origin)?;
            }
            Ok(())
        })()
        .context("failed to log the sub-agent transcript's usage");
        if let Err(error) = agent {
            context.note(error.into());
        }
    }
    if let Some(crossing) = crossing {
        context.respond(&crossing.answer()?)?;
    }
    rotate_logs(context, &session);
    // The limits a person configured on ctxhooks' own storage, once a day (none: one `lstat`).
    match config::prune_as_configured(&context.state, &session, Instant::now() + PRUNE_TIME) {
        Ok(pruned) => {
            for record in pruned.iter().filter(|record| record.only_copy) {
                context.note(
                    format!(
                        "the configured storage limit deleted the kept copies of session {}, the \
                         only copy left (Claude Code had deleted its transcript); `pruned.jsonl` \
                         records it",
                        record.session_id
                    )
                    .into(),
                );
            }
        }
        Err(error) => {
            let what = "failed to apply the configured storage limits";
            note_failed(context, error, what);
        }
    }
    // The ends of sessions a `SessionEnd` could not keep whole or log in its time (none: one
    // look at a folder that is not there).
    let catch_up_deadline =
        (Instant::now() + CATCH_UP_TIME).min(context.deadline_less(AFTER_CATCH_UP));
    catch_up::catch_up(&context.state, context, catch_up_deadline);
    main
}

/// How long the Stop hook may spend applying the configured storage limits (the rest waits for
/// the next day).
const PRUNE_TIME: Duration = Duration::from_secs(10);

/// How long the Stop hook may spend keeping and logging the ends of sessions a `SessionEnd` left
/// (the rest waits for the next run).
const CATCH_UP_TIME: Duration = Duration::from_secs(5);

/// What the catch-up leaves of the Stop hook's budget: it stops this long before the budget
/// ends, whatever the turn's own work took.
const AFTER_CATCH_UP: Duration = Duration::from_secs(5);

/// The size policy of the logs (`store/rotation.rs`), applied after the turn's work, where it
/// costs one `lstat` per log when nothing is due: the session's usage log (under the usage
/// lock), its provenance sidecar and `errors.log` (under their own locks). The tool hook, which
/// runs on every tool call, never rotates.
fn rotate_logs(context: &HookContext, session: &SessionId) {
    let state = &context.state;
    if let Err(error) = rotate_usage_log(state, session) {
        context.note(Box::new(error));
    }
    for (log, limit) in [
        (state.sidecar(session), SESSION_LOG_LIMIT),
        (state.errors_log(), ERRORS_LOG_LIMIT),
    ] {
        if let Err(error) = rotation::rotate_if_over(&log, limit, Writers::LockTheLog) {
            let what = format!("failed to rotate `{}`", log.display());
            note_failed(context, error, what);
        }
    }
}
