//! What one stretch of a conversation between two compactions (a segment) held: the files read,
//! the files edited or written, the commands run with how they ended, the errors met and the
//! person's prompts, gathered record by record from the main chain. The Stop hook's ingest keeps
//! a bounded list in the cursor's state; `ctxhooks compactions` gathers the same items, one
//! function for both ([`SegmentItems::observe`]), with a larger bound.

use serde::{Deserialize, Serialize};

use crate::transcript::content::{ToolResult, ToolUse};
use crate::transcript::record::{REJECTION_PREFIX, Record};

/// How much a list may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most items of one kind; past it the oldest goes (a successful command before a
    /// failed one) and is counted in [`Omitted`].
    pub per_kind: usize,
    /// The most calls waiting for their result.
    pub pending: usize,
    /// The most characters of a path, a command, a prompt or an error kept.
    pub text_chars: usize,
}

/// The hooks' bound: the list is saved with the cursor at every Stop, so it stays a few
/// kilobytes however long the segment; the note after a compaction shows fewer anyway.
pub const HOOK_LIMITS: Limits = Limits {
    per_kind: 16,
    pending: 32,
    text_chars: 200,
};

/// The command's bound: every item of a segment (the calls waiting for a result are bounded by
/// what one response can hold).
pub const LEDGER_LIMITS: Limits = Limits {
    per_kind: usize::MAX,
    pending: 4_096,
    text_chars: 400,
};

/// The items of one segment, each kind in the order last seen.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentItems {
    /// Files edited or written (`Edit`, `MultiEdit`, `Write`, `NotebookEdit`) whose call
    /// succeeded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edited: Vec<FileItem>,
    /// Files read (`Read`, `NotebookRead`) whose call succeeded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read: Vec<FileItem>,
    /// Commands run (`Bash`, `PowerShell`), one entry per distinct command.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<CommandItem>,
    /// Tool results marked `is_error`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ErrorItem>,
    /// What the person typed (see [`Record::is_real_prompt`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<PromptItem>,
    /// Items that did not fit the bound.
    #[serde(default, skip_serializing_if = "Omitted::is_zero")]
    pub omitted: Omitted,
    /// Calls whose result has not been read yet.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<PendingCall>,
}

/// A file and how often it came up.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileItem {
    /// The path as the call gave it.
    pub path: String,
    /// How many successful calls named it.
    #[serde(default = "one")]
    pub times: u32,
    /// The `uuid` of the record that made the latest call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
}

/// A command and how its latest run ended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandItem {
    /// The command as the call gave it (at most the bound's characters).
    pub command: String,
    /// How its latest run ended.
    pub status: CommandStatus,
    /// The exit status, when the transcript says it (an error result's `Exit code N` line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// How many times it was run.
    #[serde(default = "one")]
    pub times: u32,
    /// The `uuid` of the record that made the latest call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
}

impl CommandItem {
    /// Returns true if and only if its latest run failed (an error result, not a refusal).
    pub fn failed(&self) -> bool {
        self.status == CommandStatus::Failed
    }
}

/// How a command's latest run ended, as its result says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandStatus {
    /// No result was read (yet).
    #[default]
    NoResult,
    /// A result not marked `is_error` (Claude Code marks a non-zero exit as an error).
    Ok,
    /// A result marked `is_error`: a non-zero exit (with its code when the result's first line
    /// says `Exit code N`), or another failure.
    Failed,
    /// Refused before or while it ran (a permission denial or a person's rejection:
    /// `toolDenialKind`, or the rejection's wording).
    Refused,
}

/// A tool result marked `is_error`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorItem {
    /// The tool's name (`unknown` when the call was not read).
    pub tool: String,
    /// What the call was about: a path, a command's start, a pattern.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// The error's first line that says something (an `Exit code N` line is passed over).
    pub message: String,
    /// The `uuid` of the record that made the call (else of the result's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
}

/// A prompt the person typed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptItem {
    /// Its text, on one line (at most the bound's characters).
    pub text: String,
    /// Its record's `uuid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
}

/// How many items of each kind did not fit the bound.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[allow(
    missing_docs,
    reason = "one count per kind of item, named as the lists"
)]
pub struct Omitted {
    pub edited: u64,
    pub read: u64,
    pub commands: u64,
    pub errors: u64,
    pub prompts: u64,
}

impl Omitted {
    /// Returns true if and only if nothing was left out.
    pub fn is_zero(&self) -> bool {
        *self == Self::default()
    }
}

/// A call whose result is still to come.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingCall {
    /// The `tool_use` block's id.
    pub id: String,
    /// The tool's name.
    pub tool: String,
    /// The path, the command or another input that says what the call does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// The `uuid` of the record that made it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
}

fn one() -> u32 {
    1
}

/// What kind of call a tool makes, for the segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallKind {
    Read,
    Edit,
    Command,
    Other,
}

fn call_kind(tool: &str) -> CallKind {
    match tool {
        "Read" | "NotebookRead" => CallKind::Read,
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => CallKind::Edit,
        "Bash" | "PowerShell" => CallKind::Command,
        _ => CallKind::Other,
    }
}

impl SegmentItems {
    /// Returns true if and only if the segment holds nothing yet.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Reads one main-chain record (the caller passes sidechain records by, and starts a new
    /// segment at a compaction's boundary): an assistant record's `tool_use` blocks, a user
    /// record's `tool_result` blocks, or a prompt the person typed.
    pub fn observe(&mut self, record: &Record, limits: &Limits) {
        match record.kind() {
            Some("assistant") => {
                for (id, tool_use) in record.tool_uses() {
                    self.call(id, tool_use, record.uuid.text(), limits);
                }
            }
            Some("user") => {
                let mut results = record.tool_results().peekable();
                if results.peek().is_some() {
                    for result in results {
                        self.result(record, result, limits);
                    }
                } else if record.is_real_prompt()
                    && let Some(text) = record.first_text()
                {
                    let prompt = PromptItem {
                        text: bounded_line(text, limits.text_chars),
                        uuid: record.uuid.owned(),
                    };
                    push_bounded(
                        &mut self.prompts,
                        prompt,
                        limits.per_kind,
                        &mut self.omitted.prompts,
                    );
                }
            }
            _ => {}
        }
    }

    /// A `tool_use` block: a command is listed at once (its end comes with its result); every
    /// call waits for its result.
    fn call(&mut self, id: &str, tool_use: &ToolUse, uuid: Option<&str>, limits: &Limits) {
        let tool = tool_use.name.text().unwrap_or_default();
        let input = tool_use.input.get();
        let field = |name: &str| input.and_then(|input| input.text(name));
        let subject = match call_kind(tool) {
            CallKind::Read | CallKind::Edit => {
                field("file_path").or_else(|| field("notebook_path"))
            }
            CallKind::Command => field("command"),
            CallKind::Other => None,
        }
        .map(|text| bounded_line(&text, limits.text_chars))
        .or_else(|| input.and_then(|input| input.summary(tool)));
        if call_kind(tool) == CallKind::Command
            && let Some(command) = &subject
        {
            self.ran(command, uuid, limits);
        }
        if self.pending.len() >= limits.pending {
            self.pending.remove(0);
        }
        self.pending.push(PendingCall {
            id: id.to_owned(),
            tool: tool.to_owned(),
            subject,
            uuid: uuid.map(ToOwned::to_owned),
        });
    }

    /// A command was called: listed (or moved last, when it ran before) with no result yet.
    fn ran(&mut self, command: &str, uuid: Option<&str>, limits: &Limits) {
        let times = match self
            .commands
            .iter()
            .rposition(|item| item.command == command)
        {
            Some(position) => self.commands.remove(position).times.saturating_add(1),
            None => 1,
        };
        if times == 1 && self.commands.len() >= limits.per_kind {
            // A failed command says more than one that went well: the oldest that did not fail
            // goes first.
            let position = self
                .commands
                .iter()
                .position(|item| !item.failed())
                .unwrap_or(0);
            self.commands.remove(position);
            self.omitted.commands += 1;
        }
        self.commands.push(CommandItem {
            command: command.to_owned(),
            status: CommandStatus::NoResult,
            exit_code: None,
            times,
            uuid: uuid.map(ToOwned::to_owned),
        });
    }

    /// A `tool_result` block of `record`: the call it answers is done.
    fn result(&mut self, record: &Record, result: &ToolResult, limits: &Limits) {
        let id = result.answered_id();
        let call = self
            .pending
            .iter()
            .rposition(|call| call.id == id)
            .map(|position| self.pending.remove(position));
        let kind = call
            .as_ref()
            .map_or(CallKind::Other, |call| call_kind(&call.tool));
        let subject = call.as_ref().and_then(|call| call.subject.clone());
        let uuid = call
            .as_ref()
            .and_then(|call| call.uuid.clone())
            .or_else(|| record.uuid.owned());
        if !result.is_error.is_true() {
            match (kind, subject) {
                (CallKind::Read, Some(path)) => {
                    note_file(&mut self.read, path, uuid, limits, &mut self.omitted.read);
                }
                (CallKind::Edit, Some(path)) => {
                    note_file(
                        &mut self.edited,
                        path,
                        uuid,
                        limits,
                        &mut self.omitted.edited,
                    );
                }
                (CallKind::Command, Some(command)) => {
                    self.ended(&command, CommandStatus::Ok, None);
                }
                _ => {}
            }
            return;
        }
        let text = result.text();
        let refused = record.tool_denial_kind.get().is_some()
            || text.trim_start().starts_with(REJECTION_PREFIX);
        if kind == CallKind::Command
            && let Some(command) = &subject
        {
            if refused {
                self.ended(command, CommandStatus::Refused, None);
            } else {
                self.ended(command, CommandStatus::Failed, exit_code(&text));
            }
        }
        let error = ErrorItem {
            tool: call.map_or_else(|| "unknown".to_owned(), |call| call.tool),
            subject,
            message: error_message(&text, limits.text_chars),
            uuid,
        };
        push_bounded(
            &mut self.errors,
            error,
            limits.per_kind,
            &mut self.omitted.errors,
        );
    }

    /// The latest run of `command` ended so.
    fn ended(&mut self, command: &str, status: CommandStatus, exit_code: Option<i64>) {
        if let Some(item) = self
            .commands
            .iter_mut()
            .rev()
            .find(|item| item.command == command)
        {
            item.status = status;
            item.exit_code = exit_code;
        }
    }
}

/// Lists a file whose call succeeded (moved last when it was listed before).
fn note_file(
    files: &mut Vec<FileItem>,
    path: String,
    uuid: Option<String>,
    limits: &Limits,
    omitted: &mut u64,
) {
    let times = match files.iter().rposition(|item| item.path == path) {
        Some(position) => files.remove(position).times.saturating_add(1),
        None => 1,
    };
    let item = FileItem { path, times, uuid };
    if times == 1 {
        push_bounded(files, item, limits.per_kind, omitted);
    } else {
        files.push(item);
    }
}

/// Appends `item`, removing the oldest first when the list is full.
fn push_bounded<T>(list: &mut Vec<T>, item: T, limit: usize, omitted: &mut u64) {
    if list.len() >= limit {
        list.remove(0);
        *omitted += 1;
    }
    list.push(item);
}

/// The exit status an error result's first line gives (`Exit code 2`).
fn exit_code(text: &str) -> Option<i64> {
    let first = text.trim_start().lines().next()?;
    first.trim().strip_prefix("Exit code ")?.trim().parse().ok()
}

/// The first line of an error that says something: not blank, not the `Exit code N` line, the
/// `<tool_use_error>` tags Claude Code wraps some errors in left out.
fn error_message(text: &str, chars: usize) -> String {
    let line = text
        .lines()
        .map(|line| {
            line.trim()
                .trim_start_matches("<tool_use_error>")
                .trim_end_matches("</tool_use_error>")
                .trim()
        })
        .find(|line| !line.is_empty() && exit_code(line).is_none())
        .unwrap_or_default();
    bounded_line(line, chars)
}

/// `text` on one line (white space runs made one space), at most `chars` characters, an
/// ellipsis ending what was cut.
pub fn bounded_line(text: &str, chars: usize) -> String {
    let mut line = String::with_capacity(text.len().min(chars.saturating_mul(4)));
    let mut count = 0;
    for word in text.split_whitespace() {
        if count > 0 {
            if count >= chars {
                line.push('…');
                return line;
            }
            line.push(' ');
            count += 1;
        }
        for character in word.chars() {
            if count >= chars {
                line.push('…');
                return line;
            }
            line.push(character);
            count += 1;
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observe_all(lines: &[&str], limits: &Limits) -> SegmentItems {
        let mut items = SegmentItems::default();
        for line in lines {
            items.observe(&Record::parse(line.as_bytes()).unwrap(), limits);
        }
        items
    }

    const EDIT: &str = r#"{"type":"assistant","uuid":"a1","message":{"content":[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/p/src/main.rs","old_string":"x","new_string":"y"}},{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"cargo   test\n--workspace"}}]}}"#;
    const EDIT_DONE: &str = r#"{"type":"user","uuid":"u1","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"The file /p/src/main.rs has been updated."},{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"Exit code 101\nerror[E0425]: cannot find value `z`"}]}}"#;

    #[test]
    fn calls_are_listed_by_kind_with_how_they_ended() {
        let items = observe_all(
            &[
                r#"{"type":"user","uuid":"p1","message":{"content":"fix the   build\nplease"}}"#,
                EDIT,
                EDIT_DONE,
                r#"{"type":"assistant","uuid":"a2","message":{"content":[{"type":"tool_use","id":"t3","name":"Read","input":{"file_path":"/p/README.md"}},{"type":"tool_use","id":"t4","name":"Read","input":{"file_path":"/p/missing.md"}},{"type":"tool_use","id":"t5","name":"Bash","input":{"command":"ls"}}]}}"#,
                r#"{"type":"user","uuid":"u2","message":{"content":[{"type":"tool_result","tool_use_id":"t3","content":"text"},{"type":"tool_result","tool_use_id":"t4","is_error":true,"content":"<tool_use_error>File does not exist.</tool_use_error>"}]}}"#,
            ],
            &HOOK_LIMITS,
        );
        assert_eq!(items.prompts[0].text, "fix the build please");
        assert_eq!(items.prompts[0].uuid.as_deref(), Some("p1"));
        assert_eq!(items.edited[0].path, "/p/src/main.rs");
        assert_eq!(items.edited[0].uuid.as_deref(), Some("a1"));
        assert_eq!(
            items.read.len(),
            1,
            "a read that failed is an error: {items:?}"
        );
        assert_eq!(items.read[0].path, "/p/README.md");
        let commands: Vec<(&str, CommandStatus, Option<i64>)> = items
            .commands
            .iter()
            .map(|item| (item.command.as_str(), item.status, item.exit_code))
            .collect();
        assert_eq!(
            commands,
            [
                ("cargo test --workspace", CommandStatus::Failed, Some(101)),
                ("ls", CommandStatus::NoResult, None),
            ]
        );
        let errors: Vec<(&str, Option<&str>, &str)> = items
            .errors
            .iter()
            .map(|error| {
                (
                    error.tool.as_str(),
                    error.subject.as_deref(),
                    error.message.as_str(),
                )
            })
            .collect();
        assert_eq!(
            errors,
            [
                (
                    "Bash",
                    Some("cargo test --workspace"),
                    "error[E0425]: cannot find value `z`"
                ),
                ("Read", Some("/p/missing.md"), "File does not exist."),
            ]
        );
        // Only the call without its result still waits.
        assert_eq!(items.pending.len(), 1);
        assert_eq!(items.pending[0].id, "t5");
    }

    #[test]
    fn a_refusal_is_not_a_failure_and_a_later_success_counts() {
        let items = observe_all(
            &[
                r#"{"type":"assistant","uuid":"a1","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"rm -rf build"}}]}}"#,
                r#"{"type":"user","uuid":"u1","toolDenialKind":"user-rejected","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"The user doesn't want to proceed with this tool use. The tool use was rejected"}]}}"#,
                r#"{"type":"assistant","uuid":"a2","message":{"content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"make"}}]}}"#,
                r#"{"type":"user","uuid":"u2","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"make: *** No rule"}]}}"#,
                r#"{"type":"assistant","uuid":"a3","message":{"content":[{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"make"}}]}}"#,
                r#"{"type":"user","uuid":"u3","message":{"content":[{"type":"tool_result","tool_use_id":"t3","content":"ok"}]}}"#,
            ],
            &HOOK_LIMITS,
        );
        let commands: Vec<(&str, CommandStatus, u32)> = items
            .commands
            .iter()
            .map(|item| (item.command.as_str(), item.status, item.times))
            .collect();
        assert_eq!(
            commands,
            [
                ("rm -rf build", CommandStatus::Refused, 1),
                ("make", CommandStatus::Ok, 2),
            ]
        );
        assert_eq!(items.errors.len(), 2);
        assert_eq!(items.commands[1].uuid.as_deref(), Some("a3"));
    }

    #[test]
    fn the_bound_keeps_the_newest_and_failed_commands_and_counts_the_rest() {
        let limits = Limits {
            per_kind: 2,
            pending: 2,
            text_chars: 8,
        };
        let mut lines = Vec::new();
        for (number, failed) in [(1, true), (2, false), (3, false), (4, false)] {
            lines.push(format!(
                r#"{{"type":"assistant","message":{{"content":[{{"type":"tool_use","id":"t{number}","name":"Bash","input":{{"command":"step {number}"}}}},{{"type":"tool_use","id":"r{number}","name":"Read","input":{{"file_path":"/r/{number}"}}}}]}}}}"#
            ));
            lines.push(format!(
                r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"t{number}","is_error":{failed},"content":"x"}},{{"type":"tool_result","tool_use_id":"r{number}","content":"x"}}]}}}}"#
            ));
        }
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let items = observe_all(&lines, &limits);
        let commands: Vec<&str> = items
            .commands
            .iter()
            .map(|item| item.command.as_str())
            .collect();
        assert_eq!(commands, ["step 1", "step 4"]);
        assert_eq!(items.omitted.commands, 2);
        let read: Vec<&str> = items.read.iter().map(|item| item.path.as_str()).collect();
        assert_eq!(read, ["/r/3", "/r/4"]);
        assert_eq!(items.omitted.read, 2);
        assert!(items.pending.is_empty());
    }

    #[test]
    fn lines_are_bounded_in_characters_not_bytes() {
        assert_eq!(bounded_line("  a \n\t b  ", 10), "a b");
        assert_eq!(bounded_line("ééé ééé", 5), "ééé é…");
        assert_eq!(bounded_line("abc", 3), "abc");
        assert_eq!(bounded_line("abc d", 3), "abc…");
    }
}
