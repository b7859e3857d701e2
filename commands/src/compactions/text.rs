//! The compaction ledger in words: per compaction its trigger, tokens before and after, how long
//! it took, its summary, and each item the conversation before it held with what became of it.

use std::fmt::Write as _;

use super::ledger::{CompactionEntry, Judged, Ledger, Summary};
use crate::render::numbers::thousands;
use crate::render::text::controls_as_spaces;
use crate::render::time::readable_time;
use ctxhooks_shared::compaction::items::{
    CommandItem, CommandStatus, ErrorItem, FileItem, PromptItem,
};
use ctxhooks_shared::compaction::verdict::Verdict;
use ctxhooks_shared::store::trigger::Trigger;

/// The ledger of the transcript `title` names.
pub fn ledger_text(title: &str, ledger: &Ledger) -> String {
    let mut text = format!("{title}\n");
    if ledger.compactions.is_empty() {
        text.push_str("  no compaction: the transcript holds no compaction boundary\n");
    }
    for entry in &ledger.compactions {
        text.push_str(&entry_text(entry, ledger.compactions.len()));
    }
    if ledger.since_last.items > 0 {
        let _ = writeln!(
            text,
            "\n  since the last compaction: {} item(s), in no summary yet",
            ledger.since_last.items
        );
    }
    if ledger.unreadable_lines > 0 || ledger.overlong_lines > 0 {
        let _ = writeln!(
            text,
            "\n  passed over: {} line(s) that are no JSON object, {} line(s) too long to read \
             (what they held is in no list above)",
            ledger.unreadable_lines, ledger.overlong_lines
        );
    }
    text
}

/// A compaction in one line: when, its trigger, tokens before and after (`arrow` between
/// them), how long it took; what the CLI wrote as its trigger with its control characters as
/// spaces.
pub fn at_a_glance(entry: &CompactionEntry, arrow: &str) -> String {
    let boundary = &entry.boundary;
    let trigger = match &boundary.trigger {
        Some(Trigger::Auto) => "automatic".to_owned(),
        Some(Trigger::Manual) => "manual".to_owned(),
        Some(other) => format!("trigger {}", controls_as_spaces(other.as_str())),
        None => "trigger unknown".to_owned(),
    };
    let [before, after] = [boundary.pre_tokens, boundary.post_tokens]
        .map(|tokens| tokens.map_or_else(|| "?".to_owned(), thousands));
    let duration = boundary.details.duration_ms.map_or_else(
        || "duration unknown".to_owned(),
        |ms| format!("took {} ms", thousands(ms)),
    );
    format!(
        "{}, {trigger}, {before} {arrow} {after} tokens, {duration}",
        readable_time(entry.time.as_ref())
    )
}

fn entry_text(entry: &CompactionEntry, of: usize) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "\n  compaction {} of {of}: {}",
        entry.number,
        at_a_glance(entry, "->"),
    );
    match &entry.summary {
        Summary::Read { text: summary } => {
            let _ = writeln!(
                text,
                "    summary ({} characters):",
                summary.chars().count()
            );
            for line in summary.lines() {
                let _ = writeln!(text, "      | {}", controls_as_spaces(line));
            }
        }
        Summary::Missing => text.push_str(
            "    summary: missing (no summary record follows the boundary): whether it names \
             each item is not known\n",
        ),
        Summary::Unreadable => text.push_str(
            "    summary: unreadable (its record is damaged): whether it names each item is not \
             known\n",
        ),
    }
    if entry.preserved.messages > 0 {
        let _ = writeln!(
            text,
            "    kept word for word: {} message(s)",
            entry.preserved.messages
        );
    } else if entry.preserved.unlisted {
        text.push_str(
            "    kept word for word: messages the boundary does not list (items among them may \
             show as left out)\n",
        );
    }
    let _ = writeln!(text, "    {}", counts_text(entry));
    let items = &entry.items;
    kind_text(&mut text, "files edited", &items.edited, file_text);
    kind_text(&mut text, "files read", &items.read, file_text);
    kind_text(&mut text, "commands", &items.commands, command_text);
    kind_text(&mut text, "errors", &items.errors, error_text);
    kind_text(&mut text, "prompts", &items.prompts, prompt_text);
    if !items.without_result.is_empty() {
        let _ = writeln!(
            text,
            "    calls without a result: {}",
            items
                .without_result
                .iter()
                .map(|call| match &call.subject {
                    Some(subject) => format!("{} {}", call.tool, controls_as_spaces(subject)),
                    None => call.tool.clone(),
                })
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    text
}

fn counts_text(entry: &CompactionEntry) -> String {
    let counts = &entry.counts;
    if !entry.before_in_transcript {
        return "this transcript holds nothing from before it (the conversation it compacted is \
                in another file, or was not kept): what that conversation held is not known"
            .to_owned();
    }
    if counts.items == 0 {
        return "the conversation before it held no file, command, error or prompt".to_owned();
    }
    let mut parts = vec![format!("{} item(s)", counts.items)];
    for (count, label) in [
        (counts.left_out, "left out"),
        (counts.named, "named by the summary"),
        (counts.kept_verbatim, "kept word for word"),
        (counts.not_checked, "not checked"),
    ] {
        if count > 0 {
            parts.push(format!("{count} {label}"));
        }
    }
    parts.join(", ")
}

fn kind_text<T>(text: &mut String, label: &str, items: &[Judged<T>], show: impl Fn(&T) -> String) {
    if items.is_empty() {
        return;
    }
    let _ = writeln!(text, "    {label} ({}):", items.len());
    for judged in items {
        let _ = writeln!(
            text,
            "      {:<12} {}",
            verdict_word(judged.verdict),
            controls_as_spaces(&show(&judged.item))
        );
    }
}

fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Named => "named",
        Verdict::KeptVerbatim => "kept",
        Verdict::LeftOut => "LEFT OUT",
        Verdict::NotChecked => "not checked",
    }
}

fn times(count: u32) -> String {
    if count > 1 {
        format!(" ({count} times)")
    } else {
        String::new()
    }
}

/// An item in the words of the text and `view`'s dividers.
pub(crate) fn file_text(item: &FileItem) -> String {
    format!("{}{}", item.path, times(item.times))
}

/// An item in the words of the text and `view`'s dividers.
pub(crate) fn command_text(item: &CommandItem) -> String {
    let status = match (item.status, item.exit_code) {
        (CommandStatus::Failed, Some(code)) => format!("exit {code}"),
        (CommandStatus::Failed, None) => "failed".to_owned(),
        (CommandStatus::Ok, _) => "ok".to_owned(),
        (CommandStatus::Refused, _) => "refused".to_owned(),
        (CommandStatus::NoResult, _) => "no result".to_owned(),
    };
    format!("{}  ({status}){}", item.command, times(item.times))
}

/// An item in the words of the text and `view`'s dividers.
pub(crate) fn prompt_text(item: &PromptItem) -> String {
    format!("\"{}\"", item.text)
}

/// An item in the words of the text and `view`'s dividers.
pub(crate) fn error_text(item: &ErrorItem) -> String {
    match &item.subject {
        Some(subject) => format!("{} {subject}: {}", item.tool, item.message),
        None => format!("{}: {}", item.tool, item.message),
    }
}
