//! What the note after a compaction lists: the items of the segment its summary does not name
//! (and the compaction did not keep word for word), most useful first (files edited, commands
//! that failed, files read, the person's prompts), each kind ending with the exact command that
//! finds it in the conversation before the compaction, all within [`LIST_BUDGET_CHARS`].

use std::fmt::Write as _;

use super::items::{CommandItem, FileItem, PromptItem, SegmentItems, bounded_line};
use super::naming::{Named, lookup_name};
use super::verdict::{Judge, Verdict};
use crate::shell_word::shell_word;
use crate::store::session_id::SessionId;

/// The most characters the list takes, its commands included: about 300 tokens.
pub const LIST_BUDGET_CHARS: usize = 1_200;

/// The most characters one item takes in the list (a longer path keeps its end).
const ITEM_CHARS: usize = 60;

/// How the model looks something up in the conversation before the compaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// `ctxhooks recall` through the model's Bash tool; `ctxhooks` is how to run the program
    /// there (a shell word).
    Bash {
        /// The program, as one shell word.
        ctxhooks: String,
    },
    /// The `recall` tool of the MCP server registered as `server` (Claude Code names it
    /// `mcp__<server>__recall` for the model), where a session whose permissions refuse Bash
    /// can still call it.
    Mcp {
        /// The server's name in the tools' names.
        server: String,
    },
}

impl Lookup {
    /// The exact call that finds `pattern` in the session's conversation before its latest
    /// compaction.
    pub fn recall(&self, session: &SessionId, pattern: &str) -> String {
        match self {
            Self::Bash { ctxhooks } => format!(
                "{ctxhooks} recall --session {session} --before-compaction last {}",
                shell_word(pattern)
            ),
            Self::Mcp { server } => format!(
                "mcp__{server}__recall with session \"{session}\", before_compaction \"last\" \
                 and pattern {}",
                serde_json::Value::from(pattern)
            ),
        }
    }
}

/// What the list is made from.
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct ListInput<'a> {
    pub session: &'a SessionId,
    pub lookup: &'a Lookup,
    pub items: &'a SegmentItems,
    pub judge: Judge<'a>,
    /// The session's working folder: paths under it are shown relative to it.
    pub cwd: Option<&'a str>,
}

/// The list (its lines, each ending with a newline), or `None` when the summary names
/// everything the segment held (or it held nothing).
pub fn left_out_list(input: &ListInput) -> Option<String> {
    let checked = input.judge.summary.is_some();
    let wanted = if checked {
        Verdict::LeftOut
    } else {
        Verdict::NotChecked
    };
    let keep =
        |named: Named, uuid: &Option<String>| input.judge.verdict(named, uuid.as_deref()) == wanted;
    let edited = kept_files(&input.items.edited, &keep);
    // A file edited is listed once, as edited.
    let read: Vec<&FileItem> = kept_files(&input.items.read, &keep)
        .into_iter()
        .filter(|item| !edited.iter().any(|edited| edited.path == item.path))
        .collect();
    let failed: Vec<&CommandItem> = input
        .items
        .commands
        .iter()
        .rev()
        .filter(|item| item.failed() && keep(Named::Command(&item.command), &item.uuid))
        .collect();
    let prompts: Vec<&PromptItem> = input
        .items
        .prompts
        .iter()
        .rev()
        .filter(|item| keep(Named::Prompt(&item.text), &item.uuid))
        .collect();
    let kinds: [Kind; 4] = [
        Kind::of(
            "edited",
            &edited,
            |item| shown_path(&item.path, input.cwd),
            |item| Named::File(&item.path),
        ),
        Kind::of("failed commands", &failed, command_shown, |item| {
            Named::Command(&item.command)
        }),
        Kind::of(
            "read",
            &read,
            |item| shown_path(&item.path, input.cwd),
            |item| Named::File(&item.path),
        ),
        Kind::of("prompts", &prompts, prompt_shown, |item| {
            Named::Prompt(&item.text)
        }),
    ];
    if kinds.iter().all(|kind| kind.shown.is_empty()) {
        return None;
    }
    let mut list = if checked {
        String::from(
            "Its summary does not name these (newest first; each kind ends with the exact call \
             that finds it):\n",
        )
    } else {
        String::from(
            "Its summary could not be checked yet; the conversation since the previous \
             compaction held these (newest first; each kind ends with the exact call that finds \
             it):\n",
        )
    };
    // Room for the line that counts the kinds not shown.
    let budget =
        LIST_BUDGET_CHARS.saturating_sub(chars(&list) + chars("(+99999 more not shown)\n"));
    // Every kind that fits gets its newest item first, most useful kind first; then the room
    // left goes to more items, in the same order: one long kind does not hide the others.
    let mut taken = vec![0; kinds.len()];
    let total = |taken: &[usize]| -> usize {
        kinds
            .iter()
            .zip(taken)
            .map(|(kind, count)| kind.line(input, *count).map_or(0, |line| chars(&line)))
            .sum()
    };
    for index in 0..kinds.len() {
        if kinds[index].shown.is_empty() {
            continue;
        }
        taken[index] = 1;
        if total(&taken) > budget {
            taken[index] = 0;
        }
    }
    for index in 0..kinds.len() {
        while taken[index] > 0 && taken[index] < kinds[index].shown.len() {
            taken[index] += 1;
            if total(&taken) > budget {
                taken[index] -= 1;
                break;
            }
        }
    }
    let mut not_shown = 0;
    for (kind, count) in kinds.iter().zip(&taken) {
        match kind.line(input, *count) {
            Some(line) => list.push_str(&line),
            None => not_shown += kind.shown.len(),
        }
    }
    if not_shown > 0 {
        let _ = writeln!(list, "(+{not_shown} more not shown)");
    }
    Some(list)
}

/// The files `keep` keeps, newest first.
fn kept_files<'items>(
    files: &'items [FileItem],
    keep: &dyn Fn(Named, &Option<String>) -> bool,
) -> Vec<&'items FileItem> {
    files
        .iter()
        .rev()
        .filter(|item| keep(Named::File(&item.path), &item.uuid))
        .collect()
}

/// One kind of item in the list: how each is shown and the words that find the newest.
struct Kind {
    label: &'static str,
    shown: Vec<String>,
    pattern: Option<String>,
}

impl Kind {
    fn of<'item, T>(
        label: &'static str,
        items: &[&'item T],
        show: impl Fn(&T) -> String,
        named: impl Fn(&'item T) -> Named<'item>,
    ) -> Self {
        Self {
            label,
            shown: items.iter().map(|item| show(item)).collect(),
            pattern: items.first().map(|item| lookup_name(named(item))),
        }
    }

    /// `- LABEL: ITEM, ITEM (+N more): CALL` with its first `count` items; `None` for none.
    fn line(&self, input: &ListInput, count: usize) -> Option<String> {
        if count == 0 {
            return None;
        }
        let call = input
            .lookup
            .recall(input.session, self.pattern.as_deref().unwrap_or_default());
        let count = count.min(self.shown.len());
        let left = self.shown.len() - count;
        let more = if left > 0 {
            format!(" (+{left} more)")
        } else {
            String::new()
        };
        Some(format!(
            "- {}: {}{more}: {call}\n",
            self.label,
            self.shown[..count].join(", ")
        ))
    }
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

/// A path as the list shows it: relative to the working folder when under it, its end when long.
fn shown_path(path: &str, cwd: Option<&str>) -> String {
    let relative = cwd
        .map(|cwd| cwd.trim_end_matches('/'))
        .filter(|cwd| !cwd.is_empty())
        .and_then(|cwd| path.strip_prefix(cwd)?.strip_prefix('/'))
        .unwrap_or(path);
    let count = chars(relative);
    if count <= ITEM_CHARS {
        return relative.to_owned();
    }
    let tail: String = relative.chars().skip(count - (ITEM_CHARS - 1)).collect();
    format!("…{tail}")
}

fn command_shown(item: &CommandItem) -> String {
    let status = item
        .exit_code
        .map_or_else(|| "failed".to_owned(), |code| format!("exit {code}"));
    format!("`{}` ({status})", bounded_line(&item.command, ITEM_CHARS))
}

/// A prompt by its first words only: the note points to it, the look-up gives it whole.
fn prompt_shown(item: &PromptItem) -> String {
    let words = lookup_name(Named::Prompt(&item.text));
    if words == item.text {
        format!("\"{words}\"")
    } else {
        format!("\"{words} …\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::items::{CommandStatus, SegmentItems};
    use crate::compaction::naming::SummaryText;
    use crate::compaction::verdict::Preserved;

    #[test]
    fn the_mcp_lookup_names_the_recall_tool_with_the_pattern_as_a_json_string() {
        let session = SessionId::parse("7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9").unwrap();
        let lookup = Lookup::Mcp {
            server: "plugin_ctxhooks_ctxhooks".to_owned(),
        };
        assert_eq!(
            lookup.recall(&session, "src/it's \"here\".rs"),
            "mcp__plugin_ctxhooks_ctxhooks__recall with session \
             \"7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9\", before_compaction \"last\" and pattern \
             \"src/it's \\\"here\\\".rs\""
        );
    }

    fn file(path: &str) -> FileItem {
        FileItem {
            path: path.to_owned(),
            times: 1,
            uuid: None,
        }
    }

    fn items() -> SegmentItems {
        SegmentItems {
            edited: vec![file("/p/src/named.rs"), file("/p/src/main.rs")],
            read: vec![file("/elsewhere/notes.md")],
            commands: vec![
                CommandItem {
                    command: "cargo test --workspace".to_owned(),
                    status: CommandStatus::Failed,
                    exit_code: Some(101),
                    times: 1,
                    uuid: None,
                },
                CommandItem {
                    command: "ls".to_owned(),
                    status: CommandStatus::Ok,
                    exit_code: None,
                    times: 1,
                    uuid: None,
                },
            ],
            prompts: vec![PromptItem {
                text: "the deployment password is SECRET-42; acknowledge only".to_owned(),
                uuid: Some("kept".to_owned()),
            }],
            ..SegmentItems::default()
        }
    }

    #[test]
    fn the_list_holds_what_the_summary_does_not_name_most_useful_first() {
        let session = SessionId::parse("abc").unwrap();
        let lookup = Lookup::Bash {
            ctxhooks: "ctxhooks".to_owned(),
        };
        let summary = SummaryText::new("We edited named.rs.");
        let preserved = Preserved::default();
        let items = items();
        let input = ListInput {
            session: &session,
            lookup: &lookup,
            items: &items,
            judge: Judge {
                summary: Some(&summary),
                preserved: &preserved,
            },
            cwd: Some("/p/"),
        };
        let list = left_out_list(&input).unwrap();
        let lines: Vec<&str> = list.lines().collect();
        assert_eq!(
            lines[1..],
            [
                "- edited: src/main.rs: ctxhooks recall --session abc --before-compaction last main.rs",
                "- failed commands: `cargo test --workspace` (exit 101): ctxhooks recall --session abc --before-compaction last 'cargo test --workspace'",
                "- read: /elsewhere/notes.md: ctxhooks recall --session abc --before-compaction last notes.md",
                "- prompts: \"the deployment password is …\": ctxhooks recall --session abc --before-compaction last 'the deployment password is'",
            ]
        );
        assert!(!list.contains("SECRET"), "{list}");
        // The prompt was kept word for word: not listed.
        let preserved = Preserved {
            uuids: ["kept".to_owned()].into_iter().collect(),
            unlisted: false,
        };
        let kept = ListInput {
            judge: Judge {
                summary: Some(&summary),
                preserved: &preserved,
            },
            ..input
        };
        assert!(!left_out_list(&kept).unwrap().contains("prompts"));
        // Without a summary: everything, said so.
        let unread = ListInput {
            judge: Judge {
                summary: None,
                preserved: &preserved,
            },
            ..input
        };
        let list = left_out_list(&unread).unwrap();
        assert!(
            list.starts_with("Its summary could not be checked yet"),
            "{list}"
        );
        assert!(
            list.contains("- edited: src/main.rs, src/named.rs: "),
            "{list}"
        );
        // A summary that names everything: no list.
        let everything = SummaryText::new(
            "named.rs main.rs notes.md cargo test; the deployment password is SECRET-42; acknowledge only",
        );
        let all = ListInput {
            judge: Judge {
                summary: Some(&everything),
                preserved: &Preserved::default(),
            },
            ..input
        };
        assert_eq!(left_out_list(&all), None);
    }

    #[test]
    fn the_list_stays_within_its_budget_however_many_items() {
        let session = SessionId::parse("0123abcd-0000-4000-8000-000000000000").unwrap();
        let lookup = Lookup::Bash {
            ctxhooks: "'/a folder with a long name/bin/ctxhooks'".to_owned(),
        };
        let mut items = SegmentItems::default();
        for number in 0..200 {
            items.edited.push(file(&format!(
                "/p/{}/file-{number}.rs",
                "deep/".repeat(number % 20)
            )));
            items.read.push(file(&format!("/p/read-{number}.md")));
            items.commands.push(CommandItem {
                command: format!("run step {number} {}", "x".repeat(number)),
                status: CommandStatus::Failed,
                exit_code: None,
                times: 1,
                uuid: None,
            });
            items.prompts.push(PromptItem {
                text: format!("prompt {number} with words"),
                uuid: None,
            });
        }
        let summary = SummaryText::new("nothing");
        let preserved = Preserved::default();
        let input = ListInput {
            session: &session,
            lookup: &lookup,
            items: &items,
            judge: Judge {
                summary: Some(&summary),
                preserved: &preserved,
            },
            cwd: None,
        };
        let list = left_out_list(&input).unwrap();
        assert!(chars(&list) <= LIST_BUDGET_CHARS, "{} {list}", chars(&list));
        // One long kind does not hide the others: each shows its newest item first.
        for label in [
            "- edited: ",
            "- failed commands: ",
            "- read: ",
            "- prompts: ",
        ] {
            assert!(list.contains(label), "{label} {list}");
        }
        assert!(list.contains("(+195 more)"), "{list}");
        // A call too long for every kind to have a line: the kinds that fit first, the others
        // counted.
        let long = Lookup::Bash {
            ctxhooks: format!("/{}/ctxhooks", "long".repeat(60)),
        };
        let list = left_out_list(&ListInput {
            lookup: &long,
            ..input
        })
        .unwrap();
        assert!(chars(&list) <= LIST_BUDGET_CHARS, "{} {list}", chars(&list));
        assert!(list.contains("- edited: "), "{list}");
        assert!(
            !list.contains("- read: ") && !list.contains("- prompts: "),
            "{list}"
        );
        assert!(list.contains("(+400 more not shown)"), "{list}");
    }
}
