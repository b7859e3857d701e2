//! Tables in plain text, all drawn by one [`Table`]: each line a row of cells, each cell padded
//! to its column. A table is data written once beside the command that shows it: its columns
//! (header, width, alignment) and its layout (`sessions`, `archives` and `usage` start their
//! lines at the margin and set columns two spaces apart; `history` indents by two and sets them
//! one space apart, its compactions set apart by one more).

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
    pub header: &'static str,
    /// The width its cells are padded to, in characters; a longer cell is written whole (0: the
    /// cell as it is, for the last column).
    pub width: usize,
    pub align: Align,
    /// Set apart from the column before it by one space more than the table's gap.
    pub apart: bool,
}

impl Column {
    /// A column whose cells are padded on their right.
    pub const fn left(header: &'static str, width: usize) -> Self {
        Self {
            header,
            width,
            align: Align::Left,
            apart: false,
        }
    }

    /// A column whose cells are padded on their left.
    pub const fn right(header: &'static str, width: usize) -> Self {
        Self {
            align: Align::Right,
            ..Self::left(header, width)
        }
    }

    /// This column, one space further from the one before it.
    #[must_use]
    pub const fn apart(self) -> Self {
        Self {
            apart: true,
            ..self
        }
    }
}

/// A table of `N` columns and how its lines are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table<const N: usize> {
    /// What each line starts with.
    pub indent: &'static str,
    /// What sits between two cells.
    pub gap: &'static str,
    pub columns: [Column; N],
}

impl<const N: usize> Table<N> {
    /// Writes the headers' line, with its newline.
    pub fn write_header(&self, text: &mut String) {
        self.write_row(text, self.columns.map(|column| column.header));
        text.push('\n');
    }

    /// Writes `cells`, one per column, without a newline (a row may go on after its last cell).
    pub fn write_row(&self, text: &mut String, cells: [impl Display; N]) {
        for (index, (column, cell)) in self.columns.iter().zip(cells).enumerate() {
            let before = if index == 0 { self.indent } else { self.gap };
            let apart = if column.apart { " " } else { "" };
            let width = column.width;
            let _ = match column.align {
                Align::Left => write!(text, "{before}{apart}{cell:<width$}"),
                Align::Right => write!(text, "{before}{apart}{cell:>width$}"),
            };
        }
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
        let table = Table {
            indent: "  ",
            gap: " ",
            columns: [
                Column::left("name", 4),
                Column::right("count", 5),
                Column::left("rest", 0).apart(),
            ],
        };
        let mut text = String::new();
        table.write_header(&mut text);
        table.write_row(&mut text, ["ab", "12", "rest"]);
        assert_eq!(text, "  name count  rest\n  ab      12  rest");
        text.clear();
        table.write_row(&mut text, ["abcdef", "123456", ""]);
        assert_eq!(text, "  abcdef 123456  ");
    }

    #[test]
    fn a_cut_keeps_the_end_or_the_start() {
        assert_eq!(cut("/home/me/projects/app", 8, false), "…cts/app");
        assert_eq!(cut("a long title", 6, true), "a lon…");
        assert_eq!(cut("short", 8, false), "short");
    }
}
