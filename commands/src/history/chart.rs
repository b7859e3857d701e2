//! An SVG overview of the history: every session's peak context at the time of its peak (a
//! dot; a ring when the peak reached 90 % of its trigger T, with T as a short orange tick), and
//! every compaction as a red mark at its time and the context before it. Written as text.

use chrono::DateTime;

use super::model::History;
use crate::render::html::escape;
use crate::render::numbers::short_tokens_rounded;
use crate::render::svg::{Svg, tick_step};
use crate::time::Time;

const WIDTH: f64 = 1100.0;
const HEIGHT: f64 = 520.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 190.0;
const TOP: f64 = 70.0;
const BOTTOM: f64 = 80.0;

const SESSION_COLOR: &str = "#2563eb";
const COMPACTION_COLOR: &str = "#dc2626";
const TRIGGER_COLOR: &str = "#ea580c";
const GRID_COLOR: &str = "#e5e7eb";
const TEXT_COLOR: &str = "#111827";
const MUTED_COLOR: &str = "#6b7280";

fn seconds(time: Option<&Time>) -> Option<f64> {
    #[expect(clippy::cast_precision_loss, reason = "seconds since 1970 fit in f64")]
    time.and_then(Time::instant)
        .map(|time| time.timestamp_millis() as f64 / 1000.0)
}

/// The overview as SVG text.
#[expect(clippy::cast_precision_loss, reason = "token counts and times, drawn")]
pub fn render_svg(history: &History) -> String {
    struct Point {
        at: f64,
        tokens: f64,
        trigger: Option<f64>,
        near: bool,
        label: String,
    }
    let mut sessions = Vec::new();
    let mut compactions = Vec::new();
    for session in &history.sessions {
        let (summary, report) = (&session.summary, &session.report);
        let Some(peak) = &report.peak else { continue };
        let Some(at) = seconds(peak.time.as_ref()).or(seconds(summary.first_time.as_ref())) else {
            continue;
        };
        sessions.push(Point {
            at,
            tokens: peak.context_tokens as f64,
            trigger: (report.estimates.trigger.tokens).map(|trigger| trigger as f64),
            near: report.runs_near_trigger(),
            label: format!(
                "{} {} peak {} ({} compactions)",
                session.project,
                summary.session_id,
                peak.context_tokens,
                report.compactions.len()
            ),
        });
        let marks = report.compactions.iter().filter_map(|compaction| {
            Some((
                seconds(compaction.time.as_ref())?,
                compaction.context_before? as f64,
            ))
        });
        compactions.extend(marks);
    }
    let plot_width = WIDTH - LEFT - RIGHT;
    let plot_height = HEIGHT - TOP - BOTTOM;
    let times = sessions.iter().map(|point| point.at);
    let start = times.clone().fold(f64::INFINITY, f64::min);
    let end = times.fold(f64::NEG_INFINITY, f64::max);
    let span = if end > start { end - start } else { 1.0 };
    let highest = sessions
        .iter()
        .map(|point| point.tokens.max(point.trigger.unwrap_or(0.0)))
        .fold(1.0, f64::max)
        * 1.05;
    let step = tick_step(highest);
    let top = (highest / step).ceil() * step;
    let x = |at: f64| LEFT + (at - start) / span * plot_width;
    let y = |tokens: f64| TOP + plot_height - tokens / top * plot_height;
    // The frame, the title and the key, one element a line.
    let mut svg = Svg(format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">
<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>
<text x="{LEFT}" y="28" font-size="16" fill="{TEXT_COLOR}">Peak context per session over time: {} sessions, {} compactions</text>
<text x="{LEFT}" y="48" fill="{MUTED_COLOR}">dot: a session's largest main-chain context at its time; ring: at or above 90% of its trigger T (orange tick); red: a compaction, at the context before it</text>
"#,
        history.totals.tally.sessions, history.totals.tally.compactions
    ));
    // The grid: a line and its tokens at each step.
    let (right, label_x) = (LEFT + plot_width, LEFT - 6.0);
    let mut tokens = 0.0;
    while tokens <= top {
        let (level, label_y) = (y(tokens), y(tokens) + 4.0);
        svg.put(format_args!(
            r#"<line x1="{LEFT}" y1="{level:.1}" x2="{right:.1}" y2="{level:.1}" stroke="{GRID_COLOR}"/><text x="{label_x:.1}" y="{label_y:.1}" text-anchor="end" fill="{MUTED_COLOR}">{}</text>"#,
            short_tokens_rounded(tokens)
        ));
        tokens += step;
    }
    if !sessions.is_empty() {
        for step in 0..=4 {
            let at = start + span / 4.0 * f64::from(step);
            #[expect(clippy::cast_possible_truncation, reason = "seconds since 1970")]
            let label = DateTime::from_timestamp(at as i64, 0)
                .map(|time| time.format("%Y-%m-%d").to_string())
                .unwrap_or_default();
            svg.put(format_args!(
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="{MUTED_COLOR}">{label}</text>"#,
                x(at),
                TOP + plot_height + 20.0
            ));
        }
    }
    for point in &sessions {
        let (cx, cy) = (x(point.at), y(point.tokens));
        if let Some(trigger) = point.trigger {
            let (from, to, level) = (cx - 5.0, cx + 5.0, y(trigger));
            svg.put(format_args!(
                r#"<line x1="{from:.1}" y1="{level:.1}" x2="{to:.1}" y2="{level:.1}" stroke="{TRIGGER_COLOR}" stroke-width="2"/>"#
            ));
        }
        let (fill, stroke) = if point.near {
            ("white", 2.5)
        } else {
            (SESSION_COLOR, 1.0)
        };
        svg.put(format_args!(
            r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="4" fill="{fill}" stroke="{SESSION_COLOR}" stroke-width="{stroke}"><title>{}</title></circle>"#,
            escape(&point.label)
        ));
    }
    for (at, before) in &compactions {
        // A triangle pointing down at the point.
        let (cx, cy) = (x(*at), y(*before));
        let (left, right, top, bottom) = (cx - 4.0, cx + 4.0, cy - 3.0, cy + 5.0);
        svg.put(format_args!(
            r#"<path d="M {cx:.1} {bottom:.1} L {left:.1} {top:.1} L {right:.1} {top:.1} Z" fill="{COMPACTION_COLOR}"/>"#
        ));
    }
    let legend = right + 20.0;
    let keys = [
        (SESSION_COLOR, "session peak"),
        (TRIGGER_COLOR, "its trigger T"),
        (COMPACTION_COLOR, "compaction"),
    ];
    for (row, (color, text)) in keys.into_iter().enumerate() {
        let top_of_row = TOP + 20.0 * row as f64;
        svg.put(format_args!(
            r#"<rect x="{legend}" y="{top_of_row}" width="12" height="12" fill="{color}"/><text x="{:.1}" y="{:.1}" fill="{TEXT_COLOR}">{text}</text>"#,
            legend + 18.0,
            top_of_row + 10.0
        ));
    }
    svg.finish()
}
