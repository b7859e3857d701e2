//! The `ctxhooks-session` hook's work, one binary for three events:
//!
//! - `SessionStart` with `source: "compact"`: keeps what the transcript gained since the
//!   compaction's snapshot and adds a short note to the model's context (the protocol's
//!   `hookSpecificOutput.additionalContext`): the conversation before the compaction is kept,
//!   the exact command that searches it, and what its summary left out (`compaction/note.rs`,
//!   from what `PreCompact` recorded). Any other source: nothing at all, not even output;
//! - `PostCompact`: records `compact_summary` beside the snapshot its compaction began with,
//!   keeps the transcript's new bytes, and brings the usage log and the gauge up to date (the
//!   compaction's boundary, what it left);
//! - `SessionEnd`: brings the kept copies of the transcript and its sub-agents' up to date,
//!   within the budget every `SessionEnd` hook shares, then the usage log, reading a last line
//!   left without its newline when it is a whole JSON object (the transcript is at rest); what
//!   it leaves, the next Stop hook of any session takes up (`hook/catch_up.rs`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chrono::{SecondsFormat, Utc};

use crate::compaction::latest::latest_compaction;
use crate::compaction::note::{ListInput, Lookup, left_out_list};
use crate::compaction::verdict::Judge;
use crate::gauge::{GaugeInputs, GaugeRole, log_usage_and_gauge, mark_compaction_pending};
use crate::hook::catch_up::{FinalBounds, ingest_finished, log_final_usage};
use crate::hook::context::HookContext;
use crate::hook::payload::{CommonFields as _, hook_payload};
use crate::keep::catch_up::{self, EndedSession};
use crate::keep::{Check, KeepError, KeptEnd, LOCK_WAIT, keep_path};
use crate::lenient::Text;
use crate::mcp_registration::{SERVER_NAME, registered_for_user};
use crate::notes::{Notes as _, note_failed};
use crate::platform::program::{names_a_program, shell_path};
use crate::shell_word::shell_word;
use crate::store::files;
use crate::store::kept::{self, KeptName};
use crate::store::kept_check::{Depth, newest_whole};
use crate::store::session_id::SessionId;
use crate::store::snapshot_metadata::{COMPACT_SUMMARY_FILE_NAME, CompactSummary, newest_snapshot};
use crate::store::trigger::Trigger;
use crate::transcript::file::TranscriptFile;
use crate::usage::log::IngestOptions;

hook_payload! {
    /// The `SessionStart`, `PostCompact` and `SessionEnd` payloads.
    pub SessionInput<'payload> reports [cwd] {
        /// `SessionStart`: `startup`, `resume`, `clear`, `compact` or `fork`.
        source: Text<'payload>,
        /// `PostCompact`: `manual` or `auto`.
        trigger: Text<'payload>,
        /// `PostCompact`: the summary the compaction produced.
        compact_summary: Text<'payload>,
        /// `SessionEnd`: why the session ended.
        reason: Text<'payload>,
    }
}

/// What `SessionStart` and `PostCompact` keep of their budget for what follows their keep (the
/// note; the usage log and the gauge): they stop keeping new bytes this long before it ends
/// (0.4 s into the run with the 0.9 s budget), as they run while the user waits; what is left
/// is kept by the next run.
const AFTER_KEEP: Duration = Duration::from_millis(500);

/// What `SessionEnd` keeps of its budget for the member it is writing when it stops and what
/// follows (0.6 s into the run with the 0.9 s budget, itself below Claude Code's 1 s timeout):
/// what is left is kept by the next Stop hook (`keep/catch_up.rs`).
const AFTER_END_KEEP: Duration = Duration::from_millis(300);

/// Handles one `SessionStart`, `PostCompact` or `SessionEnd` payload.
pub fn handle(context: &HookContext) -> Result<()> {
    let input: SessionInput = context.payload()?;
    match input.hook_event_name.required("hook_event_name")? {
        "SessionStart" => session_start(context, &input),
        "PostCompact" => post_compact(context, &input),
        "SessionEnd" => session_end(context, &input),
        other => bail!(
            "`{}` is not an event ctxhooks-session serves",
            other.escape_debug()
        ),
    }
}

fn session_start(context: &HookContext, input: &SessionInput<'_>) -> Result<()> {
    // Only after a compaction; every other start costs the payload's parse and nothing else.
    if input.source.non_empty() != Some("compact") {
        return Ok(());
    }
    let session = input.session()?;
    let transcript = input.transcript()?;
    // PreCompact kept the conversation up to the compaction just before (with a budget of its
    // own), and the next Stop keeps what came since: when a copy exists, the note is true and
    // this hook, which runs while the person waits with Claude Code's 1 s timeout, writes
    // nothing. A keep here takes the kept copies' lock and syncs a member to disk, and under a
    // loaded disk one `fdatasync` alone outlasted the 0.9 s budget.
    // (A transcript that is not there is not this session's compaction: nothing is said.)
    // The copy must still take the bytes the compaction added, or the next Stop would fail to
    // keep them as this hook does: that is checked by opening its files for writing (no byte
    // written, nothing synced), and said like any problem (the error log, else stderr).
    let transcript_there = fs_err::symlink_metadata(transcript).is_ok_and(|found| found.is_file());
    let kept_dir = context.state.kept_dir(&session);
    if transcript_there
        && let Ok(generation) = kept::latest_generation(&kept_dir, &KeptName::main())
        && generation > 0
    {
        if let Err(error) = kept::check_appendable(&kept_dir, &KeptName::main(), generation) {
            let what = "the transcript's bytes since the last kept ones cannot be kept after the \
                        compaction";
            note_failed(context, error, what);
        }
        return say_kept(context, &session, transcript, input.cwd.non_empty());
    }
    let kept = keep_main(
        context,
        &session,
        transcript,
        context.deadline_less(AFTER_KEEP),
    );
    // Said only when it is true: something of this session is kept whole (by this run, or
    // before it when this run could not add to it).
    let kept_before = || {
        newest_whole(
            &context.state.kept_dir(&session),
            &KeptName::main(),
            Depth::Files,
        )
        .is_ok_and(|newest| newest.chosen.is_some())
    };
    let something_kept = match kept {
        // No transcript at the path: nothing of this conversation to point to.
        Ok(None) => false,
        Ok(Some(kept)) => kept.length > 0 || kept_before(),
        Err(error) => {
            let what = "failed to keep the transcript after the compaction";
            note_failed(context, error, what);
            kept_before()
        }
    };
    if !something_kept {
        return Ok(());
    }
    say_kept(context, &session, transcript, input.cwd.non_empty())
}

/// Answers `SessionStart` with the note that the conversation before the compaction is kept,
/// and what its summary left out when that can be told.
fn say_kept(
    context: &HookContext,
    session: &SessionId,
    transcript: &Path,
    cwd: Option<&str>,
) -> Result<()> {
    // The MCP tool when the server is registered: by the plugin that runs this hook (its
    // server's tools are `mcp__plugin_ctxhooks_ctxhooks__…`), or in the user scope (a bounded
    // read of `.claude.json`, and only after a compaction); else the Bash command.
    let server = plugin_server().or_else(|| registered_for_user().then(|| SERVER_NAME.to_owned()));
    let (mut note, lookup) = if let Some(server) = server {
        (mcp_recall_note(session, &server), Lookup::Mcp { server })
    } else {
        let ctxhooks = ctxhooks_command();
        (recall_note(session, &ctxhooks), Lookup::Bash { ctxhooks })
    };
    match latest_compaction(&context.state, session, transcript) {
        Ok(Some(latest)) => {
            let list = left_out_list(&ListInput {
                session,
                lookup: &lookup,
                items: &latest.items,
                judge: Judge {
                    summary: latest.summary.as_ref(),
                    preserved: &latest.preserved,
                },
                cwd,
            });
            if let Some(list) = list {
                note.push('\n');
                note.push_str(list.trim_end());
            }
        }
        Ok(None) => {}
        Err(error) => {
            let what = "failed to tell what the compaction left out";
            note_failed(context, error, what);
        }
    }
    let output = serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": note,
        }
    });
    context.respond(&serde_json::to_vec(&output)?)
}

/// The note the model reads after a compaction: short, with the exact command.
pub fn recall_note(session: &SessionId, ctxhooks: &str) -> String {
    format!(
        "ctxhooks keeps this session's whole conversation from before the compaction, word for \
         word. When you need something the summary left out (an exact message, a command, a \
         file name, a number), search it with Bash: {ctxhooks} recall --session {session} \
         --before-compaction last 'WORDS' (case-insensitive; add --last 20 for the last 20 \
         messages before the compaction, or leave out 'WORDS')."
    )
}

/// The MCP server's name as Claude Code prefixes its tools when this hook runs from the
/// ctxhooks plugin (Claude Code sets `CLAUDE_PLUGIN_ROOT` for a plugin's hooks; the plugin's
/// `.mcp.json` registers the server as `plugin:ctxhooks:ctxhooks`).
fn plugin_server() -> Option<String> {
    let root = crate::store::env_vars::non_empty("CLAUDE_PLUGIN_ROOT")?;
    let manifest = Path::new(&root).join(".mcp.json");
    let bytes = crate::settings_file::read_settings_bytes(&manifest).ok()??;
    let servers: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    servers
        .get("mcpServers")?
        .get(SERVER_NAME)
        .is_some()
        .then(|| format!("plugin_{SERVER_NAME}_{SERVER_NAME}"))
}

/// The note when `ctxhooks mcp` is registered (as `server`, in the tools' names): the MCP tools
/// by the names Claude Code gives them, so that a session whose permissions refuse Bash can
/// still recall.
pub fn mcp_recall_note(session: &SessionId, server: &str) -> String {
    format!(
        "ctxhooks keeps this session's whole conversation from before the compaction, word for \
         word. When you need something the summary left out (an exact message, a command, a \
         file name, a number), call the MCP tool mcp__{server}__recall with session \
         \"{session}\", before_compaction \"last\" and pattern \"WORDS\" (case-insensitive; \
         leave out pattern for the last 20 messages before the compaction), or \
         mcp__{server}__search to search every session."
    )
}

/// How to run `ctxhooks` from the model's Bash: the binary beside this hook, quoted for the
/// shell, else `ctxhooks` from `PATH`.
fn ctxhooks_command() -> String {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|folder| folder.join("ctxhooks")))
        .filter(|path| names_a_program(path));
    beside.map_or_else(
        || "ctxhooks".to_owned(),
        |path| shell_word(&shell_path(&path)),
    )
}

fn post_compact(context: &HookContext, input: &SessionInput<'_>) -> Result<()> {
    let session = input.session()?;
    let trigger = input
        .trigger
        .non_empty()
        .map_or(Trigger::Unknown, Trigger::from_text);
    if let Some(summary) = input.compact_summary.non_empty()
        && let Err(error) = record_summary(context, &session, trigger, summary)
    {
        context.note(error.into());
    }
    let transcript = input.transcript()?;
    keep_main(
        context,
        &session,
        transcript,
        context.deadline_less(AFTER_KEEP),
    )
    .context("failed to keep the transcript after the compaction")?;
    // The gauge counts the compaction at once: the status line shows it before the next turn's
    // Stop (an interactive `/compact` has none, and Claude Code's own status line input then
    // says 0). The usage log and gauge are brought up to date first (little to read: what came
    // since PreCompact's ingest; a backlog past 4 MiB waits for the next Stop); 2.1.332 writes
    // the compaction's boundary only after its hooks ran, so when it is not there yet the
    // compaction is counted as pending, the context it left unknown until the boundary is read.
    let (gauge_inputs, _) = GaugeInputs::of_hook(input.cwd.non_empty(), GaugeRole::Quiet);
    let mut file = TranscriptFile::open(transcript)?.checked()?;
    let options = IngestOptions {
        max_bytes: Some(POST_COMPACT_INGEST_BYTES),
        ..IngestOptions::default()
    };
    let ingested = log_usage_and_gauge(
        &context.state,
        context,
        &session,
        &mut file,
        &gauge_inputs,
        options,
    )
    .context("failed to log the usage after the compaction")?;
    if ingested.outcome.main_compactions_read == 0 {
        mark_compaction_pending(&context.state, &session)
            .context("failed to count the compaction in the gauge")?;
    }
    Ok(())
}

/// The most `PostCompact` reads of a transcript for its usage log and gauge (about 70 ms at the
/// 56 MB/s measured on this project's machines), well inside its 0.9 s budget.
const POST_COMPACT_INGEST_BYTES: u64 = 4 * 1024 * 1024;

/// Writes `compact-summary.json` into the newest snapshot of the session that has none yet.
fn record_summary(
    context: &HookContext,
    session: &SessionId,
    trigger: Trigger,
    summary: &str,
) -> Result<()> {
    let folder = newest_snapshot_without_summary(context, session)
        .context("failed to record the compaction's summary; it is still in the transcript")?
        .context(
            "PostCompact found no snapshot of this compaction to record its summary beside \
             (did PreCompact run?); the summary is still in the transcript",
        )?;
    let record = CompactSummary {
        recorded_at: Utc::now().to_rfc3339_opts(SecondsFormat::Micros, true),
        trigger,
        compact_summary: summary.to_owned(),
    };
    files::write_atomic(
        &folder.join(COMPACT_SUMMARY_FILE_NAME),
        &serde_json::to_vec_pretty(&record)?,
        files::PRIVATE_FILE_MODE,
    )
    .context("failed to record the compaction's summary")
}

/// The session's newest finished snapshot folder, if it has no summary; `None` when there is
/// none, or the newest has one. A folder that cannot be listed or looked at is an error that
/// names why (permission denied is not "no snapshot").
fn newest_snapshot_without_summary(
    context: &HookContext,
    session: &SessionId,
) -> Result<Option<PathBuf>> {
    let Some(newest) = newest_snapshot(&context.state.archive_dir(session))? else {
        return Ok(None);
    };
    let summary = newest.join(COMPACT_SUMMARY_FILE_NAME);
    let found = files::present(fs_err::symlink_metadata(summary))
        .context("failed to look at the newest snapshot")?;
    Ok(found.is_none().then_some(newest))
}

/// Brings the kept copy of the session's transcript up to date, stopping by `deadline`; `None`
/// when nothing is at `transcript`.
fn keep_main(
    context: &HookContext,
    session: &SessionId,
    transcript: &Path,
    deadline: Instant,
) -> Result<Option<KeptEnd>, KeepError> {
    keep_path(
        &context.state,
        session,
        &KeptName::main(),
        transcript,
        Check::Tail,
        Some(deadline),
    )
}

/// Brings the kept copies of the session and its usage log up to date at its end. The session is
/// recorded for the next Stop hook first, and the record removed once nothing was left: a run
/// whose time runs out, whose ingest stops at its byte limit or finds another ingest of the
/// session holding the lock, or that Claude Code or the watchdog ends at any point, leaves it,
/// and the next Stop hook, of any session, keeps the rest and logs the usage left
/// (`hook/catch_up.rs`).
fn session_end(context: &HookContext, input: &SessionInput<'_>) -> Result<()> {
    let session = input.session()?;
    let transcript = input.transcript()?;
    let (gauge_inputs, _) = GaugeInputs::of_hook(input.cwd.non_empty(), GaugeRole::Quiet);
    let ended = EndedSession {
        session: &session,
        transcript,
        project_dir: gauge_inputs.project_dir.as_deref(),
    };
    let record = catch_up::record(&context.state, &ended);
    let kept = catch_up::keep_session(
        &context.state,
        context,
        &session,
        transcript,
        (context.deadline_less(AFTER_END_KEEP), LOCK_WAIT),
    );
    // Logged whatever became of the keep: the two are independent. What came since the last
    // Stop is little (an interrupted turn's lines); a backlog past the limit is left to the
    // catch-up.
    let bounds = FinalBounds {
        max_bytes: POST_COMPACT_INGEST_BYTES,
        lock_wait: None,
    };
    let logged = log_final_usage(&context.state, context, &ended, &gauge_inputs, bounds);
    let record = record?;
    if kept && ingest_finished(&logged) {
        catch_up::remove(&record)?;
    }
    logged
        .map(drop)
        .context("failed to log the usage at the session's end")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_names_the_exact_command() {
        let note = recall_note(&SessionId::parse("abc").unwrap(), "ctxhooks");
        assert!(note.contains("ctxhooks recall --session abc --before-compaction last 'WORDS'"));
        assert!(note.len() < 600);
    }
}
