//! A session's conversation, in reading order: the messages of its kept main transcript (its
//! newest generation), then those the live transcript holds past the kept copy's end when it
//! still continues it, each with the number of compactions before it; a session whose id has
//! transcripts in other project folders too (resumed from another folder) has theirs first
//! (`snapshots/parts.rs`).

use std::io::{Read, Seek as _, SeekFrom};

use anyhow::{Context, Result, bail};

use crate::snapshots::parts::{JoinedLines, earlier_parts};
use crate::snapshots::passed_over::PassedOver;
use ctxhooks_shared::keep::still_continues;
use ctxhooks_shared::store::kept::{self, GenerationIndex, KeptName};
use ctxhooks_shared::store::kept_check::{Depth, newest_whole};
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::transcript::conversation::{Entry, Part, Speaker, read_entry_with_thinking};
use ctxhooks_shared::transcript::file::TranscriptFile;
use ctxhooks_shared::transcript::lines::{MAX_LINE_BYTES, split_lines};

/// A message of the conversation, in the parts `recall` shows.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Message {
    /// Its place in the conversation, from 1.
    pub number: usize,
    /// How many compactions came before it.
    pub compactions_before: usize,
    pub speaker: Speaker,
    pub time: Option<String>,
    pub parts: Vec<Part>,
    /// The model's `message.id` of an answer, which its request's usage row names too (for
    /// `view`'s links from the context curve); not written with the rest.
    #[serde(skip)]
    pub message_id: Option<String>,
}

impl Message {
    /// Returns true if and only if some part holds `needle` (already folded by
    /// [`super::matching::fold`]), ignoring case.
    pub fn contains(&self, needle: &str) -> bool {
        self.parts
            .iter()
            .any(|part| super::matching::contains(&part.searchable(), needle))
    }
}

/// A conversation read back.
#[derive(Debug, Clone)]
pub struct Conversation {
    /// Its messages, in order.
    pub messages: Vec<Message>,
    /// How many compactions it went through.
    pub compactions: usize,
    /// Earlier generations of the kept copy not read (the transcript was rewritten or cut).
    pub earlier_generations: u32,
    /// Newer generations passed over because they keep nothing or are damaged, each said in a
    /// sentence (`archives verify` reports them too).
    pub passed_over: Vec<PassedOver>,
}

/// Reads the conversation of `session`.
pub fn read_conversation(state: &StateDir, session: &SessionId) -> Result<Conversation> {
    read_conversation_with(state, session, false)
}

/// [`read_conversation`], each answer with the model's thinking too when `thinking` is true
/// (numbered the same: `recall --thinking`).
pub fn read_conversation_with(
    state: &StateDir,
    session: &SessionId,
    thinking: bool,
) -> Result<Conversation> {
    let mut messages = Vec::new();
    let read = each_message(state, session, thinking, &mut |message| {
        messages.push(message);
        Ok(())
    })?;
    Ok(Conversation {
        messages,
        compactions: read.compactions,
        earlier_generations: read.earlier_generations,
        passed_over: read.passed_over,
    })
}

/// What [`each_message`] read besides the messages it handed on.
#[derive(Debug, Clone)]
pub struct ConversationRead {
    /// How many messages it handed on.
    pub messages: usize,
    /// How many compactions the conversation went through.
    pub compactions: usize,
    /// As [`Conversation::earlier_generations`].
    pub earlier_generations: u32,
    /// As [`Conversation::passed_over`].
    pub passed_over: Vec<PassedOver>,
}

/// Reads the conversation of `session` as [`read_conversation`] does, numbered the same, and
/// hands each message to `on_message` once it is whole, holding none but the last: a view of a
/// long session never holds it all (`ctxhooks view`). With `thinking`, an answer carries the
/// model's thinking too (a response that is thinking alone is no message, so that the numbers
/// stay `recall`'s).
pub fn each_message(
    state: &StateDir,
    session: &SessionId,
    thinking: bool,
    on_message: &mut dyn FnMut(Message) -> Result<()>,
) -> Result<ConversationRead> {
    let kept_dir = state.kept_dir(session);
    let name = KeptName::main();
    // The newest generation that keeps something readable: a newer one that keeps nothing
    // (a start cut short) or is damaged is passed over, and said.
    let newest = newest_whole(&kept_dir, &name, Depth::Files)?;
    let passed_over: Vec<PassedOver> = newest.passed_over.iter().map(PassedOver::of).collect();
    let Some(index) = newest.chosen.and_then(|chosen| chosen.index) else {
        if passed_over.is_empty() {
            bail!(
                "nothing of session {session}'s transcript is kept (the Stop, PreCompact and \
                 SessionEnd hooks keep it; `ctxhooks doctor` checks they are installed)"
            );
        }
        bail!(
            "no generation of session {session}'s kept transcript can be read: {}",
            PassedOver::list(&passed_over)
        );
    };
    // The session's other transcripts first (resumed from another folder), each as kept and
    // as its live file went on.
    let parts = earlier_parts(&kept_dir, &name, &index);
    let mut readers: Vec<Box<dyn Read>> = Vec::new();
    for part in parts.iter().chain([&index]) {
        let kept_reader = kept::open_generation(&kept_dir, &name, part, part.length())?;
        readers.push(match live_tail(part) {
            Some(tail) => Box::new(kept_reader.chain(tail)),
            None => Box::new(kept_reader),
        });
    }
    let reader: Box<dyn Read> = match readers.len() {
        1 => readers.remove(0),
        _ => Box::new(JoinedLines::new(readers)),
    };
    let (messages, compactions) = each_message_in(reader, thinking, on_message)
        .context("failed to read the kept transcript")?;
    let parts = u32::try_from(parts.len()).unwrap_or(u32::MAX);
    Ok(ConversationRead {
        messages,
        compactions,
        earlier_generations: (index.header.generation - 1).saturating_sub(parts),
        passed_over,
    })
}

/// Reads the transcript `reader` holds from its start, handing each message to `on_message`
/// as [`each_message`] does: how many messages, and how many compactions.
pub fn each_message_in(
    reader: impl Read,
    thinking: bool,
    on_message: &mut dyn FnMut(Message) -> Result<()>,
) -> Result<(usize, usize)> {
    each_message_of(reader, false, thinking, on_message)
}

/// [`each_message_in`] for a sub-agent's own transcript (`subagent`), whose every record is a
/// sidechain record: read as its conversation rather than passed over.
pub fn each_message_of(
    reader: impl Read,
    subagent: bool,
    thinking: bool,
    on_message: &mut dyn FnMut(Message) -> Result<()>,
) -> Result<(usize, usize)> {
    let mut reading = Reading {
        thinking,
        subagent,
        ..Reading::default()
    };
    let mut failed = None;
    split_lines(reader, 0, true, MAX_LINE_BYTES, |line| {
        if let Some(bytes) = line.bytes
            && let Some(whole) = reading.feed(bytes)
            && let Err(error) = on_message(whole)
        {
            failed = Some(error);
            return std::ops::ControlFlow::Break(());
        }
        std::ops::ControlFlow::Continue(())
    })?;
    if let Some(error) = failed {
        return Err(error);
    }
    if let Some(last) = reading.pending.take().and_then(|last| reading.number(last)) {
        on_message(last)?;
    }
    Ok((reading.count, reading.compactions))
}

/// The live transcript past the kept copy's end, when it is still there and still continues the
/// kept copy (the bytes before the end are the same).
fn live_tail(index: &GenerationIndex) -> Option<impl Read + use<>> {
    let last = index.chunks.last()?;
    let mut live = TranscriptFile::open(std::path::Path::new(&index.header.source)).ok()?;
    if live.size() <= last.end() || !still_continues(live.file_mut(), last).ok()? {
        return None;
    }
    live.file_mut().seek(SeekFrom::Start(last.end())).ok()?;
    let size = live.size();
    Some(live.into_file().take(size - last.end()))
}

/// Messages gathered line by line: the last one held until the next begins (one response is
/// written as one record per block).
#[derive(Debug, Default)]
struct Reading {
    /// The message being gathered.
    pending: Option<Message>,
    /// Messages closed so far.
    count: usize,
    /// Whether the model's thinking is read.
    thinking: bool,
    /// Whether the lines are a sub-agent's own (sidechain records read, not passed over).
    subagent: bool,
    compactions: usize,
    /// The last message's model `message.id`, to join the records of one response.
    last_message_id: Option<String>,
}

impl Reading {
    /// Reads one line; returns the message it closed, if any.
    fn feed(&mut self, line: &[u8]) -> Option<Message> {
        match read_entry_with_thinking(line, self.subagent, self.thinking) {
            Some(Entry::Compaction) => {
                self.compactions += 1;
                self.last_message_id = None;
                None
            }
            Some(Entry::Message {
                speaker,
                time,
                message_id,
                parts,
            }) => {
                let same_response = speaker == Speaker::Assistant
                    && message_id.is_some()
                    && message_id == self.last_message_id;
                if same_response && let Some(previous) = self.pending.as_mut() {
                    previous.parts.extend(parts);
                    return None;
                }
                self.last_message_id = message_id.filter(|_| speaker == Speaker::Assistant);
                let closed = self.pending.replace(Message {
                    number: 0,
                    compactions_before: self.compactions,
                    speaker,
                    time,
                    parts,
                    message_id: self.last_message_id.clone(),
                });
                closed.and_then(|closed| self.number(closed))
            }
            None => None,
        }
    }

    /// Numbers a closed message, the next from 1; a response that is thinking alone is none
    /// (without thinking it would have no part), so the numbers are the same either way.
    fn number(&mut self, mut message: Message) -> Option<Message> {
        if (message.parts.iter()).all(|part| matches!(part, Part::Thinking { .. })) {
            return None;
        }
        self.count += 1;
        message.number = self.count;
        Some(message)
    }
}
