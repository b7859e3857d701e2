//! The segment and the gauge in words: the default status line segment
//! (`ctx 142k / 167k (85%) · 25k left · 2 compactions`), a `--format` template, ANSI colour by
//! how near the trigger the context is, and `ctxhooks gauge`'s text.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::segment::{Level, Segment};
use super::status_input::StatusInput;
use crate::output::Emit;
use crate::render::cost::cost_cell;
use crate::render::numbers::short_tokens_floored;
use crate::render::text::controls_as_spaces;
use ctxhooks_shared::gauge::{DEFAULT_WARN_AT_PERCENT, whole_percent};
use ctxhooks_shared::store::gauge::{Gauge, TriggerDerivation};

/// The placeholders a `--format` template may use, with what each becomes.
pub const PLACEHOLDERS: &[(&str, &str)] = &[
    ("context", "the context now, short, rounded down (142k)"),
    ("context_tokens", "the context now, exact (142503)"),
    ("trigger", "the auto-compact trigger T, short (167k)"),
    ("trigger_tokens", "T, exact (167000)"),
    ("percent", "the context as a share of T (85%)"),
    ("percent_number", "the same without the sign (85)"),
    ("left", "T minus the context, short (25k; -3k past T)"),
    ("left_tokens", "T minus the context, exact (24497)"),
    ("compactions", "full compactions so far (2)"),
    ("window", "the window T is computed from, short (200k)"),
    ("model", "the model (claude-opus-4-6)"),
    (
        "cost",
        "the session's cost in dollars as of the hooks' last turn ($1.23; a `+` after it: a \
         model with no price is not in it; ? when none has one)",
    ),
    (
        "title",
        "the session's title: its name, else the CLI's own title (empty when it has none)",
    ),
];

/// What stands for a value nobody knows yet.
const UNKNOWN: &str = "?";

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// Text as it is.
    Literal(String),
    /// A placeholder's name.
    Value(&'static str),
}

/// A parsed `--format` template: text with `{placeholder}`s; `{{` and `}}` are braces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pieces: Vec<Piece>,
}

impl Template {
    /// Parses `text`; an unknown placeholder or an unclosed `{` is an error naming it.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(at) = rest.find(['{', '}']) {
            literal.push_str(&rest[..at]);
            let (brace, after) = rest[at..].split_at(1);
            // `{{` and `}}` are a brace, and so is a `}` alone.
            if brace == "}" || after.starts_with('{') {
                literal.push_str(brace);
                rest = after.strip_prefix(brace).unwrap_or(after);
                continue;
            }
            let Some((name, after)) = after.split_once('}') else {
                return Err(format!("`{{{after}` is not closed"));
            };
            let Some((known, _)) = PLACEHOLDERS.iter().find(|(known, _)| *known == name) else {
                return Err(format!("unknown placeholder `{{{name}}}`"));
            };
            if !literal.is_empty() {
                pieces.push(Piece::Literal(std::mem::take(&mut literal)));
            }
            pieces.push(Piece::Value(known));
            rest = after;
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            pieces.push(Piece::Literal(literal));
        }
        Ok(Self { pieces })
    }

    /// Returns true if and only if the template shows placeholder `name`.
    pub fn uses(&self, name: &str) -> bool {
        self.pieces
            .iter()
            .any(|piece| matches!(piece, Piece::Value(value) if *value == name))
    }

    /// The template with the segment's values.
    pub fn render(&self, segment: &Segment) -> String {
        let texts = self.pieces.iter().map(|piece| match piece {
            Piece::Literal(literal) => Cow::Borrowed(literal.as_str()),
            Piece::Value(name) => Cow::Owned(value(segment, name)),
        });
        texts.collect()
    }
}

/// One placeholder's value.
fn value(segment: &Segment, name: &str) -> String {
    let exact = |tokens: Option<u64>| tokens.map(|n| n.to_string());
    let known = match name {
        "context" => segment.context_tokens.map(short_tokens_floored),
        "context_tokens" => exact(segment.context_tokens),
        "trigger" => segment.trigger_tokens.map(short_tokens_floored),
        "trigger_tokens" => exact(segment.trigger_tokens),
        "percent" => segment
            .percent
            .map(|percent| format!("{}%", whole_percent(percent))),
        "percent_number" => segment.percent.map(whole_percent),
        "left" => segment.room_left.map(|left| {
            let sign = if left < 0 { "-" } else { "" };
            format!("{sign}{}", short_tokens_floored(left.unsigned_abs()))
        }),
        "left_tokens" => segment.room_left.map(|left| left.to_string()),
        "compactions" => Some(segment.compactions.to_string()),
        "window" => segment.window_tokens.map(short_tokens_floored),
        // The input's or a transcript's text, not ours: an escape in it stays text.
        "model" => segment.model.as_deref().map(controls_as_spaces),
        "cost" => segment.cost.as_ref().map(cost_cell),
        "title" => Some(
            segment
                .title
                .as_deref()
                .map(controls_as_spaces)
                .unwrap_or_default(),
        ),
        _ => None,
    };
    known.unwrap_or_else(|| UNKNOWN.to_owned())
}

/// The default segment: `ctx 142k / 167k (85%) · 25k left · 2 compactions`, leaving out what is
/// not known (`ctx 142k · 0 compactions` for a model compacted only on refusal).
pub fn default_segment(segment: &Segment) -> String {
    let mut context = format!("ctx {}", value(segment, "context"));
    if segment.after_compaction {
        context.push_str(" after compaction");
    }
    if segment.trigger_tokens.is_some() {
        let _ = write!(context, " / {}", value(segment, "trigger"));
        if segment.percent.is_some() {
            let _ = write!(context, " ({})", value(segment, "percent"));
        }
    }
    let room = segment.room_left.map_or_else(String::new, |left| {
        let room = if left < 0 { "past the trigger" } else { "left" };
        format!(" · {} {room}", short_tokens_floored(left.unsigned_abs()))
    });
    let count = segment.compactions;
    let plural = if count == 1 { "" } else { "s" };
    format!("{context}{room} · {count} compaction{plural}")
}

/// `text` in the ANSI colour of `level` (green, yellow, red, bold red), reset after it.
pub fn coloured(level: Level, text: &str) -> String {
    let code = match level {
        Level::Calm => "32",
        Level::Near => "33",
        Level::Warn => "31",
        Level::Past => "1;31",
        Level::Unknown => return text.to_owned(),
    };
    format!("\u{1b}[{code}m{text}\u{1b}[0m")
}

/// `ctxhooks gauge` prints the gauge file's JSON as it is.
impl Emit for Gauge {
    fn text(&self) -> String {
        gauge_text(self)
    }
}

/// `ctxhooks gauge`'s text (and the MCP gauge tool's): the segment the gauge alone gives, then
/// how T was found and when the gauge was written.
pub fn gauge_text(gauge: &Gauge) -> String {
    let segment = Segment::build(
        &StatusInput::default(),
        Some(gauge),
        DEFAULT_WARN_AT_PERCENT,
        || None,
    );
    let basis = &gauge.trigger;
    // Read from transcripts and settings, not written by ctxhooks: an escape in them stays text.
    let model = controls_as_spaces(basis.model.as_deref().unwrap_or("an unknown model"));
    let version = controls_as_spaces(basis.version.as_deref().unwrap_or("(version unknown)"));
    let how = match basis.derivation {
        TriggerDerivation::Rule => format!(
            "Claude Code's rule for {model} {version} (window {} from {})",
            basis
                .window_tokens
                .map_or_else(|| UNKNOWN.to_owned(), short_tokens_floored),
            controls_as_spaces(basis.window_source.as_deref().unwrap_or(UNKNOWN))
        ),
        TriggerDerivation::Observed => {
            "the context the last automatic compaction fired at (the rule gives none for this \
             model: it compacts when the API refuses a prompt)"
                .to_owned()
        }
        TriggerDerivation::RuleContradicted => format!(
            "{}: the session went on without compacting at or above the trigger Claude Code's \
             rule gives {model} {version}",
            if gauge.trigger_tokens.is_some() {
                "what the evidence allows (the middle up to the last automatic compaction)"
            } else {
                "unknown"
            },
        ),
        TriggerDerivation::None => "none yet".to_owned(),
    };
    let warning = match (gauge.warn_at_percent, gauge.warned) {
        (Some(share), true) => format!("at {share}% of the trigger; given for this crossing"),
        (Some(share), false) => format!("at {share}% of the trigger"),
        (None, _) => "off (CTXHOOKS_WARN_AT=off)".to_owned(),
    };
    let (segment, updated) = (default_segment(&segment), &gauge.updated_at);
    format!(
        "{segment}\ntrigger      {how}\nwarning      {warning}\nupdated      {updated} by the hooks\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::tally::{CostTally, ModelCost};
    use crate::prices::Cost;

    fn segment() -> Segment {
        Segment {
            context_tokens: Some(142_503),
            after_compaction: false,
            trigger_tokens: Some(167_000),
            window_tokens: Some(200_000),
            percent: Some(85.3),
            room_left: Some(24_497),
            compactions: 2,
            level: Level::Near,
            model: Some("claude-opus-4-6".into()),
            title: Some("Fix the\nparser".into()),
            cost: Some(CostTally {
                by_model: vec![model_cost("claude-opus-4-6", Some(1_234_500_000_000))],
            }),
        }
    }

    fn model_cost(model: &str, picodollars: Option<u64>) -> ModelCost {
        ModelCost {
            model: Some(model.to_owned()),
            responses: 3,
            cost: picodollars.map(Cost),
        }
    }

    #[test]
    fn the_cost_is_dollars_with_what_has_no_price_marked() {
        let template = Template::parse("{cost}").unwrap();
        assert!(template.uses("cost"));
        assert!(!Template::parse("{model}").unwrap().uses("cost"));
        // $1.2345 to the cent.
        assert_eq!(template.render(&segment()), "$1.23");
        let with = |by_model| Segment {
            cost: Some(CostTally { by_model }),
            ..segment()
        };
        let partly = with(vec![
            model_cost("claude-opus-4-6", Some(1_234_500_000_000)),
            model_cost("claude-opus-5-5", None),
        ]);
        assert_eq!(template.render(&partly), "$1.23+");
        let none = with(vec![model_cost("claude-opus-5-5", None)]);
        assert_eq!(template.render(&none), "?");
        // Below a dollar, to the hundredth of a cent: $0.0123.
        let cents = with(vec![model_cost("claude-opus-4-6", Some(12_300_000_000))]);
        assert_eq!(template.render(&cents), "$0.0123");
        // No usage log read: unknown.
        let unread = Segment {
            cost: None,
            ..segment()
        };
        assert_eq!(template.render(&unread), "?");
    }

    #[test]
    fn the_gauges_text_shows_a_transcripts_escapes_as_spaces() {
        let mut gauge = ctxhooks_shared::test_support::sample_gauge();
        gauge.trigger.derivation = TriggerDerivation::Rule;
        gauge.trigger.model = Some("claude-\u{1b}[31mevil\u{7}".into());
        gauge.trigger.version = Some("2.1\u{1b}]0;title\u{7}".into());
        gauge.trigger.window_source = Some("settings\u{1b}[2J".into());
        let text = gauge_text(&gauge);
        assert!(
            text.contains("Claude Code's rule for claude- [31mevil  2.1 ]0;title  "),
            "{text}"
        );
        assert!(text.contains("from settings [2J)"), "{text}");
        assert!(
            !text.contains(|c: char| c.is_control() && c != '\n'),
            "{text:?}"
        );
    }

    #[test]
    fn a_model_name_with_control_characters_reaches_no_terminal_raw() {
        let hostile = Segment {
            model: Some("claude-\u{1b}[31mevil\u{7}\u{1b}]0;title\u{7}\n".into()),
            ..segment()
        };
        let line = Template::parse("{model} {percent}")
            .unwrap()
            .render(&hostile);
        assert_eq!(line, "claude- [31mevil  ]0;title   85%");
        assert!(!line.contains(char::is_control), "{line:?}");
    }

    #[test]
    fn the_title_is_one_line_and_empty_when_there_is_none() {
        let template = Template::parse("{title} · {percent}").unwrap();
        assert_eq!(template.render(&segment()), "Fix the parser · 85%");
        let untitled = Segment {
            title: None,
            ..segment()
        };
        assert_eq!(template.render(&untitled), " · 85%");
    }

    #[test]
    fn the_default_segment_says_what_is_known() {
        assert_eq!(
            default_segment(&segment()),
            "ctx 142k / 167k (85%) · 24k left · 2 compactions"
        );
        let past = Segment {
            room_left: Some(-3_000),
            compactions: 1,
            ..segment()
        };
        assert!(default_segment(&past).ends_with("3k past the trigger · 1 compaction"));
        let unknown = Segment {
            context_tokens: None,
            after_compaction: false,
            trigger_tokens: None,
            percent: None,
            room_left: None,
            compactions: 0,
            ..segment()
        };
        assert_eq!(default_segment(&unknown), "ctx ? · 0 compactions");
        assert_eq!(coloured(Level::Near, "x"), "\u{1b}[33mx\u{1b}[0m");
    }

    #[test]
    fn templates_take_known_placeholders_and_braces() {
        let template = Template::parse("{percent_number}% of {trigger_tokens} {{ok}}").unwrap();
        assert_eq!(template.render(&segment()), "85% of 167000 {ok}");
        assert_eq!(
            Template::parse("{bogus}").unwrap_err(),
            "unknown placeholder `{bogus}`"
        );
        assert!(Template::parse("{context").is_err());
        let all = PLACEHOLDERS
            .iter()
            .map(|(name, _)| format!("{{{name}}}"))
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            !Template::parse(&all)
                .unwrap()
                .render(&segment())
                .contains('?')
        );
    }
}
