//! A small unified-style line diff, to show what `--dry-run` would change.

use std::fmt::Write as _;

/// Lines of unchanged context shown around each change.
const CONTEXT_LINES: usize = 2;

/// Above this many line pairs the diff shows the whole changed middle instead of aligning lines.
const MAX_TABLE_CELLS: usize = 4_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line<'text> {
    Same(&'text str),
    Removed(&'text str),
    Added(&'text str),
}

/// A unified-style diff of `old` to `new` (`---`/`+++` headers named `label`, hunks with two
/// lines of context); empty when they are equal.
pub fn unified_diff(label: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let lines = align(&old_lines, &new_lines);
    let mut text = format!("--- {label}\n+++ {label} (new)\n");
    let changed: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| !matches!(line, Line::Same(_)))
        .map(|(index, _)| index)
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
        for line in &lines[start..end] {
            let _ = match line {
                Line::Same(line) => writeln!(text, " {line}"),
                Line::Removed(line) => writeln!(text, "-{line}"),
                Line::Added(line) => writeln!(text, "+{line}"),
            };
        }
    }
    if old.ends_with('\n') != new.ends_with('\n') {
        text.push_str("(the final newline differs)\n");
    }
    text
}

/// The lines of both texts aligned by a longest common subsequence.
fn align<'text>(old: &[&'text str], new: &[&'text str]) -> Vec<Line<'text>> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let old_middle = &old[prefix..old.len() - suffix];
    let new_middle = &new[prefix..new.len() - suffix];
    let mut lines: Vec<Line<'text>> = old[..prefix].iter().map(|line| Line::Same(line)).collect();
    if old_middle.len().saturating_mul(new_middle.len()) > MAX_TABLE_CELLS {
        lines.extend(old_middle.iter().map(|line| Line::Removed(line)));
        lines.extend(new_middle.iter().map(|line| Line::Added(line)));
    } else {
        lines.extend(lcs_lines(old_middle, new_middle));
    }
    lines.extend(
        old[old.len() - suffix..]
            .iter()
            .map(|line| Line::Same(line)),
    );
    lines
}

fn lcs_lines<'text>(old: &[&'text str], new: &[&'text str]) -> Vec<Line<'text>> {
    let width = new.len() + 1;
    let mut table = vec![0usize; (old.len() + 1) * width];
    for row in (0..old.len()).rev() {
        for column in (0..new.len()).rev() {
            table[row * width + column] = if old[row] == new[column] {
                table[(row + 1) * width + column + 1] + 1
            } else {
                table[(row + 1) * width + column].max(table[row * width + column + 1])
            };
        }
    }
    let (mut row, mut column) = (0, 0);
    let mut lines = Vec::new();
    while row < old.len() && column < new.len() {
        if old[row] == new[column] {
            lines.push(Line::Same(old[row]));
            row += 1;
            column += 1;
        } else if table[(row + 1) * width + column] >= table[row * width + column + 1] {
            lines.push(Line::Removed(old[row]));
            row += 1;
        } else {
            lines.push(Line::Added(new[column]));
            column += 1;
        }
    }
    lines.extend(old[row..].iter().map(|line| Line::Removed(line)));
    lines.extend(new[column..].iter().map(|line| Line::Added(line)));
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
