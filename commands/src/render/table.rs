//! Tables in plain text: each line a row of cells, each cell padded to its column. A table is its
//! columns, written once as data beside the command that shows it; [`write_cells`] writes its
//! header and each of its rows. The tables of `sessions`, `archives` and `usage` set their
//! columns two spaces apart; `history`'s, one space apart after an indent of two.

use std::fmt::{Display, Write as _};

/// How a cell sits in its column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A column of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// What comes before its cell on the line: the indent for the first column, the gap for the
    /// others.
    pub before: &'static str,
    /// The width its cells are padded to, in characters; a longer cell is written whole (0: the
    /// cell as it is, for the last column).
    pub width: usize,
    pub align: Align,
}

impl Column {
    /// A column whose cells are padded on their right.
    pub const fn left(before: &'static str, width: usize) -> Self {
        Self {
            before,
            width,
            align: Align::Left,
        }
    }

    /// A column whose cells are padded on their left.
    pub const fn right(before: &'static str, width: usize) -> Self {
        Self {
            before,
            width,
            align: Align::Right,
        }
    }
}

/// Writes `cells`, one per column, on `text` (no newline: a row may go on after its last cell).
pub fn write_cells(
    text: &mut String,
    columns: &[Column],
    cells: impl IntoIterator<Item = impl Display>,
) {
    for (column, cell) in columns.iter().zip(cells) {
        let (before, width) = (column.before, column.width);
        let _ = match column.align {
            Align::Left => write!(text, "{before}{cell:<width$}"),
            Align::Right => write!(text, "{before}{cell:>width$}"),
        };
    }
}

/// `text` cut to `width` characters, `…` marking the cut: at its start (a path's end says the
/// most), or with `keep_start` at its end (a title's start says the most).
pub fn cut(text: &str, width: usize, keep_start: bool) -> String {
    let count = text.chars().count();
    if count <= width {
        return text.to_owned();
    }
    let kept = width.saturating_sub(1);
    if keep_start {
        format!("{}…", text.chars().take(kept).collect::<String>())
    } else {
        format!("…{}", text.chars().skip(count - kept).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_padded_to_their_columns_and_a_long_one_is_written_whole() {
        let columns = [
            Column::left("  ", 4),
            Column::right(" ", 5),
            Column::left("  ", 0),
        ];
        let mut text = String::new();
        write_cells(&mut text, &columns, ["ab", "12", "rest"]);
        assert_eq!(text, "  ab      12  rest");
        text.clear();
        write_cells(&mut text, &columns, ["abcdef", "123456", ""]);
        assert_eq!(text, "  abcdef 123456  ");
    }

    #[test]
    fn a_cut_keeps_the_end_or_the_start() {
        assert_eq!(cut("/home/me/projects/app", 8, false), "…cts/app");
        assert_eq!(cut("a long title", 6, true), "a lon…");
        assert_eq!(cut("short", 8, false), "short");
    }
}
