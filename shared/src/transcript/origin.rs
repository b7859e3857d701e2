//! Whose transcript a file is: a session's, or a sub-agent's own (which its file name or the
//! `SubagentStop` payload tells), for the rows read from it and the name it is kept under.

use std::path::Path;

/// Who wrote the transcript being read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The transcript's path, as stored in each record.
    pub transcript: String,
    /// Set for a sub-agent's own transcript: every row is a sidechain row with this id.
    pub agent_id: Option<String>,
    /// True for a sub-agent's own transcript.
    pub is_agent_file: bool,
}

impl Origin {
    /// A transcript whose kind its file name tells: `agent-<id>.jsonl` is a sub-agent's own
    /// transcript (the 2.0.x flat layout and the 2.1.x `subagents/` folder both name them so),
    /// anything else a session's.
    pub fn from_file_name(transcript: &Path) -> Self {
        let agent_id = agent_id_in_file_name(transcript).filter(|_| {
            transcript
                .extension()
                .is_some_and(|extension| extension == "jsonl")
        });
        Self {
            transcript: transcript.to_string_lossy().into_owned(),
            is_agent_file: agent_id.is_some(),
            agent_id,
        }
    }

    /// A sub-agent's own transcript (`SubagentStop`'s `agent_transcript_path`): its id is the
    /// payload's, else the file name's, else `unknown`.
    pub fn sub_agent(transcript: &Path, agent_id: Option<&str>) -> Self {
        let agent_id = agent_id
            .filter(|id| !id.is_empty())
            .map(ToOwned::to_owned)
            .or_else(|| agent_id_in_file_name(transcript))
            .unwrap_or_else(|| "unknown".to_owned());
        Self {
            transcript: transcript.to_string_lossy().into_owned(),
            agent_id: Some(agent_id),
            is_agent_file: true,
        }
    }
}

/// The `<id>` of a file named `agent-<id>.<extension>`.
fn agent_id_in_file_name(transcript: &Path) -> Option<String> {
    transcript
        .file_stem()?
        .to_str()?
        .strip_prefix("agent-")
        .filter(|id| !id.is_empty())
        .map(ToOwned::to_owned)
}
