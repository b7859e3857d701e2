//! A small unified-style line diff, to show what `--dry-run` would change (the lines aligned by
//! `similar`'s longest common subsequence).

use std::fmt::Write as _;

use similar::DiffTag;
use similar::algorithms::{Capture, lcs};

/// Lines of unchanged context shown around each change.
const CONTEXT_LINES: usize = 2;

/// Above this many line pairs the diff shows the whole changed middle instead of aligning lines.
const MAX_TABLE_CELLS: usize = 4_000_000;

/// A unified-style diff of `old` to `new` (`---`/`+++` headers named `label`, hunks with two
/// lines of context); empty when they are equal.
pub fn unified_diff(label: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    // Each line with its sign: ' ' the same, '-' removed, '+' added.
    let lines = align(&old_lines, &new_lines);
    let mut text = format!("--- {label}\n+++ {label} (new)\n");
    let changed: Vec<usize> = (0..lines.len())
        .filter(|index| lines[*index].0 != ' ')
        .collect();
    let mut index = 0;
    while index < changed.len() {
        let start = changed[index].saturating_sub(CONTEXT_LINES);
        let mut end = changed[index];
        while index < changed.len() && changed[index] <= end + 2 * CONTEXT_LINES {
            end = changed[index];
            index += 1;
        }
        let end = (end + CONTEXT_LINES + 1).min(lines.len());
        text.push_str("@@\n");
        for (sign, line) in &lines[start..end] {
            let _ = writeln!(text, "{sign}{line}");
        }
    }
    if old.ends_with('\n') != new.ends_with('\n') {
        text.push_str("(the final newline differs)\n");
    }
    text
}

/// The lines of both texts aligned by a longest common subsequence (`similar`'s), past their
/// common start and end; a changed middle too large for the table is shown removed, then added.
/// `similar` is given the middle alone: its table ignores where a range starts, and its own
/// fallback past a deadline removes the old lines twice.
fn align<'text>(old: &[&'text str], new: &[&'text str]) -> Vec<(char, &'text str)> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (old_middle, new_middle) = (
        &old[prefix..old.len() - suffix],
        &new[prefix..new.len() - suffix],
    );
    let mut lines: Vec<(char, &str)> = old[..prefix].iter().map(|line| (' ', *line)).collect();
    let mut push = |sign, text: &[&'text str]| lines.extend(text.iter().map(|line| (sign, *line)));
    if old_middle.len().saturating_mul(new_middle.len()) > MAX_TABLE_CELLS {
        push('-', old_middle);
        push('+', new_middle);
    } else {
        let mut capture = Capture::new();
        let (old_all, new_all) = (0..old_middle.len(), 0..new_middle.len());
        let Ok(()) = lcs::diff(&mut capture, old_middle, old_all, new_middle, new_all);
        for op in capture.into_ops() {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            match tag {
                DiffTag::Equal => push(' ', &old_middle[old_range]),
                DiffTag::Delete => push('-', &old_middle[old_range]),
                DiffTag::Insert => push('+', &new_middle[new_range]),
                DiffTag::Replace => {
                    push('-', &old_middle[old_range]);
                    push('+', &new_middle[new_range]);
                }
            }
        }
    }
    lines.extend(old[old.len() - suffix..].iter().map(|line| (' ', *line)));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_changes_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nX\ne\nf\ng\nh\nY\n";
        assert_eq!(
            unified_diff("s.json", old, new),
            "--- s.json\n+++ s.json (new)\n@@\n b\n c\n-d\n+X\n e\n f\n@@\n g\n h\n+Y\n"
        );
        assert_eq!(unified_diff("s.json", old, old), "");
    }
}
