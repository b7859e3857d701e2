//! What both SVG charts (`report --svg`, `history --svg`) need: the document written an element
//! a line, and a round step for the grid (their text is made safe by `html.rs`'s escape).

use std::fmt::{Arguments, Write as _};

/// An SVG document being written: its frame first (the `<svg>` element and what is drawn
/// before the plot), then an element (or a few) a line.
pub struct Svg(pub String);

impl Svg {
    /// Writes `element` and a newline.
    pub fn put(&mut self, element: Arguments<'_>) {
        let _ = writeln!(self.0, "{element}");
    }

    /// The document, closed.
    pub fn finish(mut self) -> String {
        self.0.push_str("</svg>\n");
        self.0
    }
}

/// A round step (1, 2, 2.5 or 5 times a power of ten) for about five grid lines up to `maximum`.
pub fn tick_step(maximum: f64) -> f64 {
    let raw = maximum / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|factor| magnitude * factor)
        .find(|step| *step >= raw)
        .unwrap_or(magnitude * 10.0)
}
