//! A session's sub-agents for its page: their transcripts (live beside the session's, else the
//! kept copies), and which tool call started each, so that each is drawn folded under its call.
//!
//! A `Task`/`Agent` call is tied to its sub-agent by what the transcripts say: the call's result
//! names the agent (`toolUseResult.agentId`, 2.1.x), a progress line names both (`data.agentId`
//! and `parentToolUseID`), the agent's `agent-<id>.meta.json` names the call (`toolUseId`), or,
//! failing those (2.0.x), the call's `prompt` is the sub-agent's first prompt.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::Value;

use crate::recall::conversation::each_message_of;
use crate::snapshots::catalog::stays_inside;
use ctxhooks_shared::keep::subagents::find_subagent_files;
use ctxhooks_shared::store::kept::{self, GenerationIndex, KeptName};
use ctxhooks_shared::store::kept_check::{Depth, newest_whole};
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::snapshot_metadata::{FileRole, SnapshotFile};
use ctxhooks_shared::transcript::conversation::{Part, Speaker};
use ctxhooks_shared::transcript::file::TranscriptFile;
use ctxhooks_shared::transcript::lines::{MAX_LINE_BYTES, split_lines};

/// The most bytes of an inline sub-agent's lines (1.0.x) held to draw it: far more than the
/// page shows of one.
const INLINE_BYTES: usize = 4 * 1024 * 1024;

/// The most bytes of a sub-agent's `meta.json` read.
const META_BYTES: u64 = 64 * 1024;

/// Where a sub-agent's transcript is read from.
#[derive(Debug, Clone)]
enum Origin {
    /// The live file Claude Code wrote.
    Live(PathBuf),
    /// The kept copy's newest readable generation (the live file is gone).
    Kept { dir: PathBuf, name: KeptName },
    /// Sidechain lines written inline in the main transcript (1.0.x), gathered in memory (at
    /// most [`INLINE_BYTES`] of each sub-agent).
    Inline(std::sync::Arc<Vec<u8>>),
    /// A file a compaction's snapshot holds.
    Snapshot {
        kept_dir: PathBuf,
        folder: PathBuf,
        file: SnapshotFile,
    },
}

/// One sub-agent's transcript.
#[derive(Debug, Clone)]
pub struct Agent {
    /// Its id, from its file's name (`agent-<id>.jsonl`).
    pub id: String,
    /// Where it is, for people.
    pub shown: String,
    /// Its transcript's bytes, which bound what the page shows of it.
    pub bytes: u64,
    origin: Origin,
    /// Its first prompt, to tie it to a call that names no agent.
    prompt: Option<String>,
}

impl Agent {
    /// Hands each message of the sub-agent's conversation to `on_message`, numbered from 1.
    pub fn each_message(
        &self,
        on_message: &mut dyn FnMut(crate::recall::conversation::Message) -> Result<()>,
    ) -> Result<usize> {
        let (messages, _) = each_message_of(self.open()?, true, true, on_message)
            .with_context(|| format!("failed to read the sub-agent `{}`", self.shown))?;
        Ok(messages)
    }

    fn open(&self) -> Result<Box<dyn Read>> {
        match &self.origin {
            Origin::Live(path) => Ok(Box::new(TranscriptFile::open(path)?.into_file())),
            Origin::Kept { dir, name } => {
                let index = newest_whole(dir, name, Depth::Files)?
                    .chosen
                    .and_then(|chosen| chosen.index)
                    .with_context(|| format!("no generation of `{name}` can be read"))?;
                Ok(Box::new(kept::open_generation(
                    dir,
                    name,
                    &index,
                    index.length(),
                )?))
            }
            Origin::Inline(lines) => Ok(Box::new(std::io::Cursor::new(lines.as_ref().clone()))),
            Origin::Snapshot {
                kept_dir,
                folder,
                file,
            } => open_snapshot_file(kept_dir, folder, file),
        }
    }
}

/// The bytes of a file a snapshot holds, read where they are: the first `size` bytes of the
/// kept generation it names (schema 2), or its own copy in the snapshot's folder (schema 1).
pub fn open_snapshot_file(
    kept_dir: &Path,
    folder: &Path,
    file: &SnapshotFile,
) -> Result<Box<dyn Read>> {
    if let Some(reference) = &file.kept {
        let name = KeptName::parse(&reference.name)?;
        let index = GenerationIndex::read(&name.index_path(kept_dir, reference.generation))?;
        return Ok(Box::new(kept::open_generation(
            kept_dir, &name, &index, file.size,
        )?));
    }
    if !stays_inside(&file.path) {
        anyhow::bail!("`{}` leaves the snapshot folder", file.path);
    }
    let copy = kept::open_no_follow(&folder.join(&file.path))?;
    Ok(Box::new(copy.take(file.size)))
}

/// A session's sub-agents and what tied each to the call that started it.
#[derive(Debug, Default)]
pub struct Agents {
    pub list: Vec<Agent>,
    /// The agent (its place in `list`) each tool call's id started.
    by_call: HashMap<String, usize>,
    /// Whether each agent was drawn already.
    drawn: Vec<bool>,
    /// Sub-agent files that could not be read, each said in a sentence.
    pub unreadable: Vec<String>,
}

impl Agents {
    /// The sub-agents of the transcript at `path` (session `session`), live files only.
    pub fn beside(path: &Path, session: &SessionId) -> Self {
        let mut agents = Self::default();
        agents.add_live(path, session);
        agents
    }

    /// The sub-agents of a session ctxhooks keeps: the live files beside `live` (its main
    /// transcript, when Claude Code still has it), and the kept copies in `kept_dir` of those
    /// no longer there.
    pub fn of_session(live: Option<&Path>, session: &SessionId, kept_dir: &Path) -> Self {
        let mut agents = Self::default();
        if let Some(live) = live {
            agents.add_live(live, session);
        }
        match kept::list_kept(kept_dir) {
            Ok(names) => {
                for (name, _) in names {
                    let Some(id) = agent_id(name.as_str()) else {
                        continue;
                    };
                    if agents.list.iter().any(|agent| agent.id == id) {
                        continue;
                    }
                    let agent = Agent {
                        id: id.to_owned(),
                        shown: format!("{name} (its kept copy)"),
                        bytes: newest_whole(kept_dir, &name, Depth::Files)
                            .ok()
                            .and_then(|newest| newest.chosen)
                            .and_then(|chosen| chosen.index)
                            .map_or(0, |index| index.length()),
                        origin: Origin::Kept {
                            dir: kept_dir.to_path_buf(),
                            name,
                        },
                        prompt: None,
                    };
                    agents.push(agent);
                }
            }
            Err(error) => agents
                .unreadable
                .push(format!("the kept sub-agents could not be listed: {error}")),
        }
        agents
    }

    /// The sub-agents a compaction's snapshot holds (in `folder`; their bytes in `kept_dir`).
    pub fn of_snapshot(kept_dir: &Path, folder: &Path, files: &[SnapshotFile]) -> Self {
        let mut agents = Self::default();
        for file in files {
            if file.role != FileRole::Subagent {
                continue;
            }
            let Some(id) = agent_id(&file.path) else {
                continue;
            };
            agents.push(Agent {
                id: id.to_owned(),
                shown: format!("{} (in the snapshot)", file.path),
                bytes: file.size,
                origin: Origin::Snapshot {
                    kept_dir: kept_dir.to_path_buf(),
                    folder: folder.to_path_buf(),
                    file: file.clone(),
                },
                prompt: None,
            });
        }
        agents
    }

    fn add_live(&mut self, path: &Path, session: &SessionId) {
        let (files, skipped) = find_subagent_files(path, session);
        self.unreadable.extend(
            skipped
                .into_iter()
                .map(|skipped| format!("`{}`: {}", skipped.source, skipped.error)),
        );
        let metas: Vec<&PathBuf> = files
            .iter()
            .map(|file| &file.source)
            .filter(|source| source.to_string_lossy().ends_with(".meta.json"))
            .collect();
        for file in &files {
            // By its file name: the relative path's separator is the platform's.
            let Some(id) = file
                .relative
                .file_name()
                .and_then(|name| name.to_str())
                .and_then(agent_id)
            else {
                continue;
            };
            if same_file(&file.source, path) {
                continue;
            }
            let call = metas
                .iter()
                .find(|meta| meta.file_name() == Some(format!("agent-{id}.meta.json").as_ref()))
                .and_then(|meta| meta_tool_use_id(meta));
            let at = self.push(Agent {
                id: id.to_owned(),
                shown: file.source.display().to_string(),
                bytes: fs_err::metadata(&file.source).map_or(0, |meta| meta.len()),
                origin: Origin::Live(file.source.clone()),
                prompt: None,
            });
            if let Some(call) = call {
                self.by_call.entry(call).or_insert(at);
            }
        }
    }

    fn push(&mut self, agent: Agent) -> usize {
        self.list.push(agent);
        self.drawn.push(false);
        self.list.len() - 1
    }

    /// Reads what ties the sub-agents to their calls: the main transcript's lines that name an
    /// agent (`reader`), and each agent's first prompt. With `inline` (a 1.0.x transcript), the
    /// sidechain lines the main transcript holds are gathered into sub-agents too: a line whose
    /// parent is none of theirs starts one.
    pub fn tie(&mut self, reader: impl Read, inline: bool) -> Result<()> {
        if self.list.is_empty() && !inline {
            return Ok(());
        }
        let ids: HashMap<String, usize> = (self.list.iter().enumerate())
            .map(|(at, agent)| (agent.id.clone(), at))
            .collect();
        let mut ties = Vec::new();
        let mut groups: Vec<Vec<u8>> = Vec::new();
        let mut group_of: HashMap<String, usize> = HashMap::new();
        split_lines(reader, 0, true, MAX_LINE_BYTES, |line| {
            let Some(bytes) = line.bytes else {
                return std::ops::ControlFlow::Continue(());
            };
            if inline
                && memchr::memmem::find(bytes, b"\"isSidechain\":true").is_some()
                && let Ok(record) = serde_json::from_slice::<Value>(bytes)
                && record.get("isSidechain") == Some(&Value::Bool(true))
            {
                let text = |key| record.get(key).and_then(Value::as_str);
                let parent = text("parentUuid").and_then(|parent| group_of.get(parent));
                let group = if let Some(&group) = parent {
                    group
                } else {
                    groups.push(Vec::new());
                    groups.len() - 1
                };
                if let Some(uuid) = text("uuid") {
                    group_of.insert(uuid.to_owned(), group);
                }
                let lines = &mut groups[group];
                if lines.len() + bytes.len() < INLINE_BYTES {
                    lines.extend_from_slice(bytes);
                    lines.push(b'\n');
                }
            } else if memchr::memmem::find(bytes, b"\"agentId\"").is_some()
                && let Ok(record) = serde_json::from_slice::<Value>(bytes)
                && let Some(tie) = tie_of(&record)
            {
                ties.push(tie);
            }
            std::ops::ControlFlow::Continue(())
        })?;
        for (number, lines) in groups.into_iter().enumerate() {
            self.push(Agent {
                id: format!("sidechain-{}", number + 1),
                shown: "the main transcript's sidechain lines".to_owned(),
                bytes: lines.len() as u64,
                origin: Origin::Inline(std::sync::Arc::new(lines)),
                prompt: None,
            });
        }
        for (call, id) in ties {
            if let Some(&at) = ids.get(&id) {
                self.by_call.entry(call).or_insert(at);
            }
        }
        for agent in &mut self.list {
            agent.prompt = first_prompt(agent).ok().flatten();
        }
        Ok(())
    }

    /// The sub-agent the call `id` (tool `name`, input `input`) started, once: a call named by
    /// its agent, else a `Task`/`Agent` call whose prompt is an agent's first prompt.
    pub fn started_by(&mut self, id: Option<&str>, name: &str, input: &str) -> Option<usize> {
        let mut found = id.and_then(|id| self.by_call.get(id).copied());
        if found.is_none() && matches!(name, "Task" | "Agent") {
            let prompt = serde_json::from_str::<Value>(input).ok().and_then(|input| {
                input
                    .get("prompt")?
                    .as_str()
                    .map(str::trim)
                    .map(ToOwned::to_owned)
            });
            if let Some(prompt) = prompt {
                let tied: Vec<usize> = self.by_call.values().copied().collect();
                found = (0..self.list.len()).find(|&at| {
                    !self.drawn[at]
                        && !tied.contains(&at)
                        && self.list[at].prompt.as_deref() == Some(prompt.as_str())
                });
            }
        }
        let at = found.filter(|&at| !self.drawn[at])?;
        self.drawn[at] = true;
        Some(at)
    }

    /// The sub-agents no call was found for.
    pub fn not_drawn(&mut self) -> Vec<usize> {
        let left: Vec<usize> = (0..self.list.len()).filter(|&at| !self.drawn[at]).collect();
        for &at in &left {
            self.drawn[at] = true;
        }
        left
    }
}

/// The agent id in a file name or kept name: `agent-<id>.jsonl` (its folders aside).
fn agent_id(name: &str) -> Option<&str> {
    // Kept names are `/`-separated; a snapshot's paths or a relative path on Windows may not be.
    let file = name.rsplit(['/', '\\']).next()?;
    file.strip_prefix("agent-")?.strip_suffix(".jsonl")
}

/// Returns true if and only if both paths name one file.
fn same_file(left: &Path, right: &Path) -> bool {
    match (fs_err::canonicalize(left), fs_err::canonicalize(right)) {
        (Ok(left), Ok(right)) => left == right,
        _ => false,
    }
}

/// The call a sub-agent's `meta.json` names (`toolUseId`).
fn meta_tool_use_id(path: &Path) -> Option<String> {
    let file = TranscriptFile::open(path).ok()?.into_file();
    let mut bytes = Vec::new();
    file.take(META_BYTES).read_to_end(&mut bytes).ok()?;
    let meta: Value = serde_json::from_slice(&bytes).ok()?;
    meta.get("toolUseId")?.as_str().map(ToOwned::to_owned)
}

/// The call and the agent a main-transcript line ties together: a tool result's
/// `toolUseResult.agentId` with its `tool_use_id`, or a progress line's `data.agentId` with its
/// `parentToolUseID`.
fn tie_of(record: &Value) -> Option<(String, String)> {
    let text = |value: Option<&Value>| value?.as_str().map(ToOwned::to_owned);
    if let Some(agent) = text(record.pointer("/toolUseResult/agentId")) {
        let blocks = record.pointer("/message/content")?.as_array()?;
        let call = blocks
            .iter()
            .find_map(|block| text(block.get("tool_use_id")))?;
        return Some((call, agent));
    }
    let agent = text(record.pointer("/data/agentId"))?;
    let call = text(record.get("parentToolUseID"))?;
    Some((call, agent))
}

/// A sub-agent's first prompt, trimmed.
fn first_prompt(agent: &Agent) -> Result<Option<String>> {
    let mut prompt = None;
    let read = each_message_of(agent.open()?, true, false, &mut |message| {
        if prompt.is_none() && message.speaker == Speaker::User {
            let text: Vec<&str> = (message.parts.iter())
                .filter_map(|part| match part {
                    Part::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            prompt = Some(text.join("\n").trim().to_owned());
            // Stop at the first prompt: the rest is not needed.
            anyhow::bail!(StopReading);
        }
        Ok(())
    });
    match read {
        Ok(_) => Ok(prompt),
        Err(error) if error.is::<StopReading>() => Ok(prompt),
        Err(error) => Err(error),
    }
}

/// The first prompt is read: no need to read on.
#[derive(Debug, thiserror::Error)]
#[error("stopped at the first prompt")]
struct StopReading;
