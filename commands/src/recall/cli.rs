//! `ctxhooks recall --session ID [PATTERN] [--before-compaction N|last] [--last K]`, or
//! `--message N`.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;
use serde::Serialize;

use super::conversation::{Conversation, Message, read_conversation_with};
use super::matching::fold;
use super::text::render_cut;
use crate::output::{Emit, emit_ok};
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;

/// Arguments of `ctxhooks recall`.
///
/// Prints what a session said (prompts, answers, tool calls with their inputs, trimmed tool
/// results), in reading order, from its kept transcript: also what a compaction summarized
/// away. Messages are numbered and say which compaction they came before.
#[derive(Debug, Args)]
pub struct RecallArgs {
    /// The session (a full id, `last`, or the start of one).
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// Only messages holding this text (ignoring case), in a prompt, an answer, a tool call's
    /// input or a tool's result.
    #[arg(value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// Only messages from before compaction N (1 is the first; `last`, the latest).
    #[arg(long, value_name = "N")]
    pub before_compaction: Option<String>,
    /// Only the last K messages (of those that match).
    #[arg(long, value_name = "K")]
    pub last: Option<usize>,
    /// Only message N (its number in the headers), whole: no tool call's input or result cut
    /// (what `ctxhooks view` cut, it names this way).
    #[arg(long, value_name = "N", conflicts_with_all = ["pattern", "before_compaction", "last"])]
    pub message: Option<usize>,
    /// Print the model's thinking too, in the answer it came with (`[thinking]`; in JSON a
    /// part of type `thinking`); the numbers are the same. With `--message N`, whole: what
    /// `ctxhooks view` cut of a thinking, it names this way.
    #[arg(long)]
    pub thinking: bool,
    /// Print the messages as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &RecallArgs) -> Result<ExitCode> {
    let state = StateDir::locate()?;
    let session = SessionId::parse(&args.session)?;
    let conversation = read_conversation_with(&state, &session, args.thinking)?;
    // One message whole, or those the filters choose with long inputs and results cut.
    let (messages, needle, cut) = if let Some(number) = args.message {
        let Some(message) = conversation.messages.get(number.wrapping_sub(1)) else {
            bail!(
                "`--message {number}`: session {session} has {} message(s); give a number from 1",
                conversation.messages.len()
            );
        };
        (vec![message], None, false)
    } else {
        let before = args.before_compaction.as_deref();
        let (chosen, _, needle) =
            choose(&conversation, args.pattern.as_deref(), before, args.last)?;
        (chosen, needle, true)
    };
    let recalled = Recalled {
        messages,
        conversation: &conversation,
        session: &session,
        needle,
        cut,
    };
    emit_ok(args.json, &recalled)
}

/// What `recall` prints: the messages chosen, in words with how many of the session's they are
/// and what else is kept of it.
#[derive(Serialize)]
#[serde(transparent)]
struct Recalled<'a> {
    messages: Vec<&'a Message>,
    #[serde(skip)]
    conversation: &'a Conversation,
    #[serde(skip)]
    session: &'a SessionId,
    /// The pattern folded, marked in the text.
    #[serde(skip)]
    needle: Option<String>,
    /// Long inputs and results cut (all but `--message`).
    #[serde(skip)]
    cut: bool,
}

impl Emit for Recalled<'_> {
    fn text(&self) -> String {
        let (conversation, session) = (self.conversation, self.session);
        let mut text = render_cut(
            &self.messages,
            conversation.compactions,
            self.needle.as_deref(),
            self.cut,
        );
        let _ = writeln!(
            text,
            "{} message(s) shown of {} kept for session {session} ({} compaction(s))",
            self.messages.len(),
            conversation.messages.len(),
            conversation.compactions
        );
        for passed in &conversation.passed_over {
            let _ = writeln!(text, "note: passed over the newer kept {passed}");
        }
        if conversation.earlier_generations > 0 {
            let _ = writeln!(
                text,
                "note: {} earlier version(s) of this transcript are kept too (it was rewritten \
                 or cut short); `ctxhooks archives restore --session {session} --snapshot NAME` \
                 brings one back",
                conversation.earlier_generations
            );
        }
        text
    }
}

/// The messages of `conversation` that `pattern` (ignoring case), `before_compaction` (see
/// [`compaction_number`]) and `last` (the last K of those) choose, for `recall` and the MCP
/// server's `recall` tool: the messages, how many matched before `last`, and the pattern folded
/// by [`fold`] (`None` when empty).
pub fn choose<'a>(
    conversation: &'a Conversation,
    pattern: Option<&str>,
    before_compaction: Option<&str>,
    last: Option<usize>,
) -> Result<(Vec<&'a Message>, usize, Option<String>)> {
    let before = before_compaction
        .map(|text| compaction_number(text, conversation.compactions))
        .transpose()?;
    let needle = pattern.map(fold).filter(|needle| !needle.is_empty());
    let mut chosen: Vec<&Message> = conversation
        .messages
        .iter()
        .filter(|message| before.is_none_or(|number| message.compactions_before < number))
        .filter(|message| {
            needle
                .as_deref()
                .is_none_or(|needle| message.contains(needle))
        })
        .collect();
    let matching = chosen.len();
    if let Some(last) = last {
        chosen.drain(..matching.saturating_sub(last));
    }
    Ok((chosen, matching, needle))
}

/// `--before-compaction`'s value: a number from 1 to `compactions`, or `last`.
pub fn compaction_number(text: &str, compactions: usize) -> Result<usize> {
    if compactions == 0 {
        bail!("this session has not been compacted (nothing came before a compaction)");
    }
    if text == "last" {
        return Ok(compactions);
    }
    match text.parse::<usize>() {
        Ok(number) if (1..=compactions).contains(&number) => Ok(number),
        _ => {
            bail!("`--before-compaction {text}`: give a number from 1 to {compactions}, or `last`")
        }
    }
}
