//! An SVG chart of one session: main-chain context per request, with compactions, the trigger
//! T, the floor and the headroom between them marked. Written by hand as text.

use std::fmt::{Display, Write as _};

use crate::facts::drops::{Basis, Confidence, DropClass};
use crate::facts::report::SessionReport;
use crate::render::html::escape;
use crate::render::numbers::{short_tokens_rounded, signed_thousands, thousands};
use crate::render::svg::{Svg, tick_step};

const WIDTH: f64 = 1000.0;
const HEIGHT: f64 = 480.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 170.0;
const TOP: f64 = 70.0;
const BOTTOM: f64 = 78.0;

const LINE_COLOR: &str = "#2563eb";
const AREA_COLOR: &str = "#dbeafe";
const COMPACTION_COLOR: &str = "#dc2626";
const MICRO_COLOR: &str = "#9333ea";
const TRIGGER_COLOR: &str = "#ea580c";
const FLOOR_COLOR: &str = "#16a34a";
const CAP_COLOR: &str = "#6b7280";
const GRID_COLOR: &str = "#e5e7eb";
const TEXT_COLOR: &str = "#111827";
const MUTED_COLOR: &str = "#6b7280";

/// The chart as SVG text.
#[allow(clippy::cast_precision_loss)]
pub fn render_svg(report: &SessionReport) -> String {
    let contexts = &report.contexts;
    let count = contexts.len();
    let trigger = report.estimates.trigger.tokens;
    let observed = report.estimates.trigger.observed.as_ref();
    let floor = report.estimates.floor;
    let cap = report.estimates.cap.tokens;
    let peak = contexts.iter().copied().max().unwrap_or(0);
    let mut top_value = peak
        .max(trigger.unwrap_or(0))
        .max(observed.map_or(0, |observed| observed.high)) as f64;
    // Show the cap when it is not far above everything else.
    let show_cap = (cap as f64) <= top_value * 1.6 || top_value == 0.0;
    if show_cap {
        top_value = top_value.max(cap as f64);
    }
    let step = tick_step(top_value.max(1_000.0) * 1.08);
    let y_max = (top_value.max(1_000.0) * 1.08 / step).ceil() * step;
    let plot_width = WIDTH - LEFT - RIGHT;
    let plot_height = HEIGHT - TOP - BOTTOM;
    let (middle_x, middle_y) = (LEFT + plot_width / 2.0, TOP + plot_height / 2.0);
    let (right, bottom) = (LEFT + plot_width, TOP + plot_height);
    let x_of = |index: f64| {
        if count <= 1 {
            LEFT + plot_width / 2.0
        } else {
            LEFT + plot_width * index / (count - 1) as f64
        }
    };
    let y_of = |value: f64| TOP + plot_height * (1.0 - value / y_max);

    // The frame, the title and the summary, one element a line.
    let file = report
        .transcripts
        .first()
        .and_then(|path| path.rsplit('/').next());
    let title = match &report.session_id {
        Some(id) => format!("session {id}"),
        None => file.unwrap_or("transcript").to_owned(),
    };
    let mut summary = format!(
        "{count} main-chain requests · peak {} · {} compaction(s) · cap {}{}",
        thousands(peak),
        report.compactions.len(),
        thousands(cap),
        if show_cap { "" } else { " (off scale)" }
    );
    let values = [
        ("T", trigger.map(thousands)),
        ("floor", floor.map(thousands)),
        ("headroom", report.estimates.headroom.map(signed_thousands)),
    ];
    for (name, value) in values {
        let Some(value) = value else { continue };
        let _ = write!(summary, " · {name} {value}");
    }
    let mut svg = Svg(format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="{LEFT}" y="28" font-size="18" font-weight="600" fill="{TEXT_COLOR}">Context per request — {}</text>
<text x="{LEFT}" y="50" font-size="13" fill="{MUTED_COLOR}">{}</text>
"#,
        escape(&title),
        escape(&summary)
    ));
    // Grid and y axis labels.
    let mut value = 0.0;
    while value <= y_max + 0.5 {
        let y = y_of(value);
        svg.put(format_args!(
            r#"<line x1="{LEFT}" y1="{y:.1}" x2="{right:.1}" y2="{y:.1}" stroke="{GRID_COLOR}" stroke-width="1"/>"#
        ));
        let at = (LEFT - 8.0, y + 4.0);
        muted_text(&mut svg, at, 12, "end", short_tokens_rounded(value));
        value += step;
    }
    svg.put(format_args!(
        r#"<text x="18" y="{middle_y:.1}" font-size="12" fill="{MUTED_COLOR}" transform="rotate(-90 18 {middle_y:.1})" text-anchor="middle">context tokens (input + cache read + cache write)</text>"#
    ));
    // X axis ticks: about ten request numbers.
    let x_step = (count / 10).max(1);
    for index in (0..count).step_by(x_step) {
        let x = x_of(index as f64);
        let at = (x, bottom + 18.0);
        muted_text(&mut svg, at, 12, "middle", index + 1);
    }
    let at = (middle_x, bottom + 38.0);
    muted_text(&mut svg, at, 12, "middle", "main-chain request");
    // The area under the series first, so every line stays visible on top of it.
    let points: Vec<String> = contexts
        .iter()
        .enumerate()
        .map(|(index, value)| format!("{:.1},{:.1}", x_of(index as f64), y_of(*value as f64)))
        .collect();
    if count > 0 {
        let baseline = y_of(0.0);
        svg.put(format_args!(
            r#"<polygon points="{:.1},{baseline:.1} {} {:.1},{baseline:.1}" fill="{AREA_COLOR}" fill-opacity="0.7"/>"#,
            x_of(0.0),
            points.join(" "),
            x_of((count - 1) as f64)
        ));
    }
    // Headroom band between floor and T, and the T range.
    let label_x = right + 8.0;
    // Labels right of the plot: (y, color, text, bold), spread apart before they are drawn.
    let mut labels: Vec<(f64, &'static str, String, bool)> = Vec::new();
    if let (Some(trigger), Some(floor)) = (trigger, floor) {
        let (y_top, y_bottom) = (y_of(trigger as f64), y_of(floor as f64));
        if y_bottom > y_top {
            svg.put(format_args!(
                r#"<rect x="{LEFT}" y="{y_top:.1}" width="{plot_width:.1}" height="{:.1}" fill="{FLOOR_COLOR}" fill-opacity="0.06"/>"#,
                y_bottom - y_top
            ));
            if let Some(headroom) = report.estimates.headroom {
                labels.push((
                    f64::midpoint(y_top, y_bottom) + 4.0,
                    FLOOR_COLOR,
                    format!("headroom {}", signed_thousands(headroom)),
                    false,
                ));
            }
        }
    }
    // The band where the observed compactions put T, only when something bounds it from below
    // (a request where it did not fire): "at most HIGH" is no band.
    if let Some(observed) = observed.filter(|observed| observed.consistent)
        && let Some(low) = observed.low
    {
        let (y_high, y_low) = (y_of(observed.high as f64), y_of(low as f64));
        if y_low - y_high >= 1.0 {
            svg.put(format_args!(
                r#"<rect x="{LEFT}" y="{y_high:.1}" width="{plot_width:.1}" height="{:.1}" fill="{TRIGGER_COLOR}" fill-opacity="0.15"/>"#,
                y_low - y_high
            ));
        }
    }
    // Horizontal reference lines.
    let references = [
        (show_cap.then_some(cap), CAP_COLOR, "cap", "2 4"),
        (trigger, TRIGGER_COLOR, "T", "6 4"),
        (floor, FLOOR_COLOR, "floor", "6 4"),
    ];
    for (value, color, name, dash) in references {
        let Some(value) = value else { continue };
        let y = y_of(value as f64);
        svg.put(format_args!(
            r#"<line x1="{LEFT}" y1="{y:.1}" x2="{right:.1}" y2="{y:.1}" stroke="{color}" stroke-width="1.5" stroke-dasharray="{dash}"/>"#
        ));
        labels.push((y + 4.0, color, format!("{name} {}", thousands(value)), true));
    }
    labels.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut previous = f64::MIN;
    for (y, color, text, bold) in &labels {
        let y = y.max(previous + 15.0);
        previous = y;
        svg.put(format_args!(
            r#"<text x="{label_x:.1}" y="{y:.1}" font-size="12" font-weight="{}" fill="{color}">{}</text>"#,
            if *bold { 600 } else { 400 },
            escape(text)
        ));
    }
    // Compactions and the other drops: vertical markers between the two requests (a label
    // only where it does not run into the previous one). Compactions come from the report's list
    // (a compaction after which the context rose is still one); the other drops are grey.
    let compactions = report.compactions.iter().map(|compaction| {
        let index = compaction.next_index() as f64 - 0.5;
        let (label, dash) = match (compaction.basis, compaction.confidence) {
            (Basis::Structural | Basis::None, _) => ("compaction", "none"),
            (_, Some(Confidence::High)) => ("compaction?", "4 3"),
            _ => ("compaction??", "1 3"),
        };
        (index, COMPACTION_COLOR, label, dash)
    });
    let mut markers: Vec<(f64, &'static str, &'static str, &'static str)> = compactions.collect();
    for drop in &report.drops {
        let index = (drop.request_before + drop.request_after) as f64 / 2.0 - 1.0;
        // Each class's short label; a micro-compaction in its own colour, the rest grey.
        let (label, color) = match drop.class {
            DropClass::Compaction => continue,
            DropClass::MicroCompaction => ("micro", MICRO_COLOR),
            DropClass::NoUsage => ("no usage", MUTED_COLOR),
            DropClass::ModelSwitch => ("model", MUTED_COLOR),
            DropClass::AdvisorRoundTrip => ("advisor", MUTED_COLOR),
            DropClass::Resume => ("resume", MUTED_COLOR),
            DropClass::CliUpgrade => ("upgrade", MUTED_COLOR),
            DropClass::IdleGap => ("idle", MUTED_COLOR),
            DropClass::ThinkingDropped => ("thinking", MUTED_COLOR),
            DropClass::Undecided => ("drop?", MUTED_COLOR),
        };
        markers.push((index, color, label, "2 3"));
    }
    markers.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut last_label_x = f64::MIN;
    for (index, color, label, dash) in markers {
        let x = x_of(index.max(0.0));
        svg.put(format_args!(
            r#"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{bottom:.1}" stroke="{color}" stroke-width="1.5" stroke-dasharray="{dash}"/>"#
        ));
        if x - last_label_x < 16.0 {
            continue;
        }
        last_label_x = x;
        // Written upwards from just inside the plot's top, left of the line.
        let (label_x, label_y) = (x - 4.0, TOP + 4.0);
        svg.put(format_args!(
            r#"<text x="{label_x:.1}" y="{label_y:.1}" font-size="11" fill="{color}" stroke="white" stroke-width="3" paint-order="stroke" transform="rotate(-90 {label_x:.1} {label_y:.1})" text-anchor="end">{label}</text>"#
        ));
    }
    // The series: an area and a line, dots when there is room.
    if count > 0 {
        svg.put(format_args!(
            r#"<polyline points="{}" fill="none" stroke="{LINE_COLOR}" stroke-width="2" stroke-linejoin="round"/>"#,
            points.join(" ")
        ));
        if count <= 150 {
            for (index, value) in contexts.iter().enumerate() {
                let (cx, cy) = (x_of(index as f64), y_of(*value as f64));
                svg.put(format_args!(
                    r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="3" fill="white" stroke="{LINE_COLOR}" stroke-width="1.5"><title>request {}: {} tokens</title></circle>"#,
                    index + 1,
                    thousands(*value)
                ));
            }
        }
    } else {
        let empty = "no main-chain requests logged yet";
        muted_text(&mut svg, (middle_x, middle_y), 14, "middle", empty);
    }
    // Plot frame and legend.
    svg.put(format_args!(
        r#"<rect x="{LEFT}" y="{TOP}" width="{plot_width:.1}" height="{plot_height:.1}" fill="none" stroke="{CAP_COLOR}" stroke-width="1"/>"#
    ));
    let legend_y = HEIGHT - 14.0;
    let other_drop = report
        .drops
        .iter()
        .any(|drop| drop.class != DropClass::Compaction);
    let legend = [
        (true, LINE_COLOR, "", "context per request"),
        (
            !report.compactions.is_empty(),
            COMPACTION_COLOR,
            "",
            "compaction (dashed: no record)",
        ),
        (other_drop, MUTED_COLOR, "2 3", "other drop"),
        (trigger.is_some(), TRIGGER_COLOR, "6 4", "trigger T"),
        (
            floor.is_some(),
            FLOOR_COLOR,
            "6 4",
            "floor after compaction",
        ),
        (show_cap, CAP_COLOR, "2 4", "cap"),
    ];
    let mut x = LEFT;
    for (_, color, dash, label) in legend.into_iter().filter(|(shown, ..)| *shown) {
        // A sample of the line, then its label.
        let (line_y, line_end, text_x) = (legend_y - 4.0, x + 22.0, x + 28.0);
        svg.put(format_args!(
            r#"<line x1="{x:.1}" y1="{line_y:.1}" x2="{line_end:.1}" y2="{line_y:.1}" stroke="{color}" stroke-width="2.5" stroke-dasharray="{dash}"/><text x="{text_x:.1}" y="{legend_y:.1}" font-size="12" fill="{TEXT_COLOR}">{label}</text>"#
        ));
        x += 40.0 + 6.2 * label.len() as f64;
    }
    svg.finish()
}

/// A `<text>` at (x, y) of `size`, anchored at `anchor`, in the muted color.
fn muted_text(svg: &mut Svg, (x, y): (f64, f64), size: u32, anchor: &str, text: impl Display) {
    svg.put(format_args!(
        r#"<text x="{x:.1}" y="{y:.1}" font-size="{size}" text-anchor="{anchor}" fill="{MUTED_COLOR}">{text}</text>"#
    ));
}
