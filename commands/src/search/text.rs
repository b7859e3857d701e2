//! A search's results in words: one block per result, its match marked (bold on a terminal,
//! `[…]` otherwise), and the commands that go on from there.

use std::fmt::Write as _;

use super::engine::{Found, Outcome};
use super::snippet::Snippet;
use crate::render::text::controls_as_spaces;
use crate::render::time::readable_time;

/// How a match is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marking {
    /// Bold (a terminal).
    Bold,
    /// `[` and `]` (a pipe, a file, the model).
    Brackets,
}

/// The results, for people (and for the model, with [`Marking::Brackets`]).
pub fn render(outcome: &Outcome, marking: Marking) -> String {
    let mut text = String::new();
    if let Some(reason) = &outcome.rebuilt {
        let _ = writeln!(text, "note: the search index was rebuilt: {reason}");
    }
    let query = controls_as_spaces(&outcome.query);
    if outcome.results.is_empty() {
        let _ = match &outcome.widened {
            Some(widened) if widened.ran => writeln!(
                text,
                "nothing found for `{query}`, nor for any of its words or the words they begin \
                 (searched as `{}`)",
                controls_as_spaces(&widened.query)
            ),
            Some(widened) => writeln!(
                text,
                "nothing found for `{query}`; its words without operators or quotes would find \
                 more: `{}`",
                controls_as_spaces(&widened.query)
            ),
            None => writeln!(text, "nothing found for `{query}`"),
        };
        return text;
    }
    if let Some(widened) = outcome.widened.as_ref().filter(|widened| widened.ran) {
        let _ = writeln!(
            text,
            "nothing matched all the words of `{query}`; these match any of them or the words \
             they begin (searched as `{}`)\n",
            controls_as_spaces(&widened.query)
        );
    }
    // A heading before each tier (and each step of `any`).
    let mut tier = None;
    for (number, found) in outcome.results.iter().enumerate() {
        if tier != Some((found.tier, &found.why)) {
            tier = Some((found.tier, &found.why));
            let _ = writeln!(
                text,
                "{}: {}",
                found.tier.name(),
                controls_as_spaces(&found.why)
            );
        }
        render_one(&mut text, number + 1, found, marking);
    }
    let _ = writeln!(
        text,
        "{} result(s) for `{query}`, best first (by how they match, then prompts and answers \
         before tools' calls and output, then BM25, then the newest)",
        outcome.results.len(),
    );
    text
}

fn render_one(text: &mut String, number: usize, found: &Found, marking: Marking) {
    let time = readable_time(found.time.as_ref());
    let who = match &found.subagent {
        Some(name) => format!(
            "{} (sub-agent {})",
            found.role.name(),
            controls_as_spaces(name)
        ),
        None => found.role.name().to_owned(),
    };
    let _ = writeln!(
        text,
        "{number}. {}  {time}  {who}  {}",
        found.short_session,
        found
            .project
            .as_deref()
            .map_or_else(|| "?".to_owned(), controls_as_spaces)
    );
    if found.snippet.text.is_empty() {
        let _ = writeln!(
            text,
            "   (its text changed since it was indexed; search again)"
        );
    } else {
        let _ = writeln!(text, "   {}", marked(&found.snippet, marking));
    }
    for command in &found.next {
        let _ = writeln!(text, "   > {}", controls_as_spaces(command));
    }
    text.push('\n');
}

/// The snippet with its matches marked.
pub fn marked(snippet: &Snippet, marking: Marking) -> String {
    let (open, close) = match marking {
        Marking::Bold => ("\x1b[1m", "\x1b[22m"),
        Marking::Brackets => ("[", "]"),
    };
    let characters: Vec<char> = snippet.text.chars().collect();
    let mut out = String::with_capacity(snippet.text.len() + 8 * snippet.matches.len());
    let mut position = 0;
    for &(start, end) in &snippet.matches {
        if start < position || start > end || end > characters.len() {
            continue;
        }
        out.extend(&characters[position..start]);
        out.push_str(open);
        out.extend(&characters[start..end]);
        out.push_str(close);
        position = end;
    }
    out.extend(&characters[position..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_each_match() {
        let snippet = Snippet {
            text: "the needle in the hay".into(),
            matches: vec![(4, 10), (18, 21)],
        };
        assert_eq!(
            marked(&snippet, Marking::Brackets),
            "the [needle] in the [hay]"
        );
    }
}
