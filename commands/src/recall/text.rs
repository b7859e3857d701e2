//! Messages in words, in reading order: a header line per message (its number, who, when,
//! where it stands among the compactions), then its text, its tool calls with their input and
//! its tool results, long inputs and results trimmed (around the first match when searching).

use std::fmt::Write as _;

use super::conversation::Message;
use super::matching::find;
use ctxhooks_shared::transcript::conversation::Part;

/// The most characters of a tool call's input shown.
pub const INPUT_CHARACTERS: usize = 2000;

/// The most characters of a tool result shown.
pub const RESULT_CHARACTERS: usize = 1500;

/// Renders `messages` of a conversation that went through `compactions` compactions; `needle`
/// (folded by [`super::matching::fold`]) is what was searched for, if anything.
pub fn render(messages: &[&Message], compactions: usize, needle: Option<&str>) -> String {
    render_cut(messages, compactions, needle, true)
}

/// [`render`], with long inputs and results cut (`cut`) or whole (`recall --message N`, the
/// rest of what `ctxhooks view` cut).
pub fn render_cut(
    messages: &[&Message],
    compactions: usize,
    needle: Option<&str>,
    cut: bool,
) -> String {
    let limit = |characters| if cut { characters } else { usize::MAX };
    let mut text = String::new();
    for message in messages {
        let place = if compactions == 0 {
            String::new()
        } else if message.compactions_before < compactions {
            format!(" · before compaction {}", message.compactions_before + 1)
        } else {
            format!(" · after compaction {compactions}")
        };
        let time = message.time.as_deref().map(|time| format!(" · {time}"));
        let _ = writeln!(
            text,
            "── #{} {}{}{place} ──",
            message.number,
            message.speaker.label(),
            time.unwrap_or_default(),
        );
        for part in &message.parts {
            let _ = match part {
                Part::Text { text: said } => writeln!(text, "{}", said.trim_end()),
                Part::Thinking { text: thought } => {
                    let thought = trimmed(thought, limit(RESULT_CHARACTERS), needle);
                    writeln!(text, "[thinking] {}", thought.trim_end())
                }
                Part::ToolCall { name, input, .. } => {
                    let input = trimmed(input, limit(INPUT_CHARACTERS), needle);
                    writeln!(text, "[tool call: {name}] {input}")
                }
                Part::ToolResult {
                    text: result,
                    is_error,
                } => {
                    let label = if *is_error { ", error" } else { "" };
                    let result = trimmed(result, limit(RESULT_CHARACTERS), needle);
                    writeln!(text, "[tool result{label}] {}", result.trim_end())
                }
            };
        }
        text.push('\n');
    }
    text
}

/// `text` cut to about `limit` characters: its start, or the part around the first match of
/// `needle` when that lies further on; what is left out is said.
pub fn trimmed(text: &str, limit: usize, needle: Option<&str>) -> String {
    let total = text.chars().count();
    if total <= limit {
        return text.to_owned();
    }
    // Where the match is, in characters of `text` itself.
    let found = needle.and_then(|needle| find(text, needle)).map(|bytes| {
        (
            text[..bytes.start].chars().count(),
            text[..bytes.end].chars().count(),
        )
    });
    let start = match found {
        Some((position, end)) if end > limit => position.saturating_sub(limit / 3),
        _ => 0,
    };
    let end = (start + limit).min(total);
    let shown: String = text.chars().skip(start).take(end - start).collect();
    let mut out = String::new();
    if start > 0 {
        let _ = write!(out, "[… {start} characters …] ");
    }
    out.push_str(&shown);
    if end < total {
        let _ = write!(out, " [… {} more characters]", total - end);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_trimmed_around_the_match() {
        let text = format!("{}NEEDLE{}", "a".repeat(5000), "b".repeat(5000));
        let shown = trimmed(&text, 100, Some("needle"));
        assert!(shown.contains("NEEDLE"), "{shown}");
        assert!(shown.starts_with("[… 4967 characters …] "), "{shown}");
        assert!(shown.ends_with("more characters]"));
        assert_eq!(trimmed("short", 100, None), "short");
        assert!(trimmed(&text, 100, None).starts_with("aaaa"));
    }

    // See: issue 17 (the excerpt missed the match when the text before it held characters whose
    // lower case has another byte length: an offset into the lowercased text was used on the
    // original).
    #[test]
    fn the_excerpt_holds_the_match_after_characters_whose_lower_case_is_longer_or_shorter() {
        for before in ["İ", "\u{212a}", "ẞ"] {
            let text = format!("{}NEEDLE{}", before.repeat(3000), "b".repeat(3000));
            let shown = trimmed(&text, 100, Some("needle"));
            assert!(shown.contains("NEEDLE"), "after {before}: {shown}");
            assert!(shown.starts_with("[… 2967 characters …] "), "{shown}");
        }
    }
}
