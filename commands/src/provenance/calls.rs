//! The transcript's tool calls, one entry per `tool_use` id: what the reports say about a call
//! (name, summary, where and when it was issued) and whether any `tool_result` answers it.

use std::collections::HashMap;

use ctxhooks_shared::transcript::content::ToolUse;

/// A tool call as the transcript shows it, by its id: where and when it was issued.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolCall {
    /// The call's id.
    pub id: String,
    /// The tool's name, from its last `tool_use` block.
    pub name: Option<String>,
    /// A short summary of its last `tool_use` block's input.
    pub summary: Option<String>,
    /// The 0-based transcript line of its last `tool_use` block.
    pub line: usize,
    /// The timestamp of that line.
    pub time_ms: Option<u64>,
    /// The earliest timestamp of any of its `tool_use` blocks.
    pub earliest_ms: Option<u64>,
    /// Whether some `tool_use` block has its id (false when only a result names it).
    pub issued: bool,
    /// Whether a `tool_result` anywhere in the transcript answers it.
    pub answered: bool,
}

/// Every tool call of a transcript.
#[derive(Debug, Clone, Default)]
pub struct ToolCalls {
    calls: Vec<ToolCall>,
    by_id: HashMap<String, usize>,
}

impl ToolCalls {
    fn entry(&mut self, id: &str) -> usize {
        let calls = &mut self.calls;
        *self.by_id.entry(id.to_owned()).or_insert_with(|| {
            calls.push(ToolCall {
                id: id.to_owned(),
                ..ToolCall::default()
            });
            calls.len() - 1
        })
    }

    /// Notes a `tool_use` block on 0-based line `line` and returns the call's index.
    pub fn issued(
        &mut self,
        id: &str,
        tool_use: &ToolUse,
        line: usize,
        time_ms: Option<u64>,
    ) -> usize {
        let index = self.entry(id);
        let call = &mut self.calls[index];
        let name = tool_use.name.text();
        call.summary = name
            .zip(tool_use.input.get())
            .and_then(|(name, input)| input.summary(name));
        call.name = name.map(str::to_owned);
        call.line = line;
        call.time_ms = time_ms;
        call.earliest_ms = call.earliest_ms.into_iter().chain(time_ms).min();
        call.issued = true;
        index
    }

    /// Notes a `tool_result` answering `id`.
    pub fn answered(&mut self, id: &str) {
        let index = self.entry(id);
        self.calls[index].answered = true;
    }

    /// The call with this id.
    pub fn get(&self, id: &str) -> Option<&ToolCall> {
        self.by_id.get(id).map(|index| &self.calls[*index])
    }

    /// The call at `index` (see [`Self::issued`]).
    pub fn at(&self, index: usize) -> &ToolCall {
        &self.calls[index]
    }

    /// The calls some `tool_use` block issued, in the order their ids first appeared.
    pub fn issued_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.calls.iter().filter(|call| call.issued)
    }
}
