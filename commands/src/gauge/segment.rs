//! The status line segment as facts: the context now, the trigger T, the percent of T, the room
//! left, the compactions so far and how near T it is. Built in constant time from the status
//! line's JSON (the freshest context: Claude Code updates it after every response, tool loops
//! included) and the session's gauge file (T as the Stop hook derived it, the compactions
//! counted); `text.rs` puts it in words.

use std::path::Path;

use super::status_input::StatusInput;
use crate::facts::tally::CostTally;
use ctxhooks_shared::model_name::{self, RequestModel};
use ctxhooks_shared::store::gauge::{Gauge, TriggerDerivation, percent_and_room};
use ctxhooks_shared::usage::threshold::{
    SettingsWindows, ThresholdEnvironment, ThresholdInputs, rule_trigger,
};

/// From this share of T on (in percent) the segment shows the context as near the trigger.
pub const NEAR_PERCENT: f64 = 75.0;

/// How near the trigger the context is, for colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Below [`NEAR_PERCENT`] of T.
    Calm,
    /// From [`NEAR_PERCENT`] to the warning share.
    Near,
    /// From the warning share to T.
    Warn,
    /// At or past T: the next turn compacts.
    Past,
    /// No context or no T.
    Unknown,
}

/// The segment's facts.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// The context now, in tokens: the status line's, else the gauge's.
    pub context_tokens: Option<u64>,
    /// True when that is the gauge's word on what the last compaction left, no request since.
    pub after_compaction: bool,
    /// The auto-compact trigger T.
    pub trigger_tokens: Option<u64>,
    /// The window W T is computed from.
    pub window_tokens: Option<u64>,
    /// The context as a percentage of T.
    pub percent: Option<f64>,
    /// T − context.
    pub room_left: Option<i64>,
    /// Full compactions so far.
    pub compactions: u64,
    /// How near T (the colours follow the Stop hook's warning share).
    pub level: Level,
    pub model: Option<String>,
    /// The session's title: the status line's `session_name`, else the one the Stop hook read
    /// in the transcript (the gauge's).
    pub title: Option<String>,
    /// What the session's requests cost, from its usage log: read only for a template that
    /// shows `{cost}` (`None` otherwise, and without a log).
    pub cost: Option<CostTally>,
}

/// T and W by the rule for what the status line says (version, model, the project's settings,
/// the environment), for a session whose gauge does not say (yet) or says it for another model.
pub fn rule_for_status(input: &StatusInput, user_config_dir: Option<&Path>) -> Option<(u64, u64)> {
    input.model.as_ref()?;
    let inputs = ThresholdInputs {
        explicit_window: None,
        status_line_windows: input
            .model_window
            .zip(input.model.clone())
            .into_iter()
            .collect(),
        environment: ThresholdEnvironment::of_process(),
        settings: SettingsWindows::find(
            input.project_dir.as_deref().map(Path::new),
            user_config_dir,
        ),
    };
    // The status line's id is the CLI's own name of the model, `[1m]` and all.
    let model = RequestModel {
        api: None,
        requested: input.model.as_deref(),
    };
    let rule = rule_trigger(input.version.as_deref(), model, None, &inputs);
    rule.tokens.map(|tokens| (tokens, rule.window.tokens))
}

impl Segment {
    /// The segment from the status line's input and the session's gauge (if any); `rule`
    /// computes T and W by the rule when the gauge cannot give them, and is called only then.
    pub fn build(
        input: &StatusInput,
        gauge: Option<&Gauge>,
        default_warn_at: u8,
        rule: impl FnOnce() -> Option<(u64, u64)>,
    ) -> Self {
        // The status line's context is the freshest; else the gauge's: the latest request the
        // Stop hook read, or what the last compaction left (even when that is not known yet).
        let (context_tokens, after_compaction) = match (input.context_tokens, gauge) {
            (Some(tokens), _) => (Some(tokens), false),
            (None, Some(gauge)) => (gauge.context_tokens, gauge.after_compaction),
            (None, None) => (None, false),
        };
        // The gauge's T holds while the model is the one it was derived for; so does its word
        // that the session contradicts the rule (then there may be no T, and the rule's must not
        // stand in for it).
        let from_gauge = gauge
            .filter(|gauge| {
                gauge.trigger_tokens.is_some()
                    || gauge.trigger.derivation == TriggerDerivation::RuleContradicted
            })
            .filter(|gauge| match (&input.model, &gauge.trigger.model) {
                (Some(now), Some(then)) => model_name::same_window_model(now, then),
                _ => true,
            })
            .map(|gauge| (gauge.trigger_tokens, gauge.trigger.window_tokens));
        let (trigger_tokens, window_tokens) = from_gauge.unwrap_or_else(|| rule().unzip());
        let (percent, room_left) = percent_and_room(context_tokens, trigger_tokens);
        let warn_at_percent = gauge
            .and_then(|gauge| gauge.warn_at_percent)
            .unwrap_or(default_warn_at);
        let level = match percent {
            None => Level::Unknown,
            Some(percent) if percent >= 100.0 => Level::Past,
            Some(percent) if percent >= f64::from(warn_at_percent) => Level::Warn,
            Some(percent) if percent >= NEAR_PERCENT => Level::Near,
            Some(_) => Level::Calm,
        };
        Self {
            context_tokens,
            after_compaction,
            trigger_tokens,
            window_tokens,
            percent,
            room_left,
            compactions: gauge.map_or(0, |gauge| gauge.compactions),
            level,
            model: input
                .model
                .clone()
                .or_else(|| gauge.and_then(|gauge| gauge.trigger.model.clone())),
            title: input
                .session_name
                .clone()
                .or_else(|| gauge.and_then(|gauge| gauge.title.clone())),
            cost: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxhooks_shared::test_support::sample_gauge;

    /// The sample gauge at 120,000 tokens.
    fn gauge() -> Gauge {
        Gauge {
            context_tokens: Some(120_000),
            ..sample_gauge()
        }
    }

    #[test]
    fn the_status_lines_context_is_fresher_than_the_gauge() {
        let input = StatusInput {
            model: Some("claude-opus-4-6".into()),
            context_tokens: Some(142_503),
            ..StatusInput::default()
        };
        let segment = Segment::build(&input, Some(&gauge()), 90, || panic!("not needed"));
        assert_eq!(segment.context_tokens, Some(142_503));
        assert_eq!(
            (segment.percent, segment.room_left, segment.compactions),
            (Some(85.3), Some(24_497), 2)
        );
        assert_eq!(segment.level, Level::Near);
        let quiet = Segment::build(&StatusInput::default(), Some(&gauge()), 90, || None);
        assert_eq!(
            (quiet.context_tokens, quiet.level),
            (Some(120_000), Level::Calm)
        );
    }

    #[test]
    fn a_gauge_that_contradicts_the_rule_is_never_replaced_by_the_rule() {
        // The Stop hook saw the session go on past the rule's T without compacting: no T, and
        // the status line must not take the rule's (it would say "past the trigger").
        let mut contradicted = gauge();
        contradicted.trigger_tokens = None;
        contradicted.trigger.derivation = TriggerDerivation::RuleContradicted;
        let input = StatusInput {
            model: Some("claude-opus-4-6".into()),
            context_tokens: Some(320_000),
            ..StatusInput::default()
        };
        let segment = Segment::build(&input, Some(&contradicted), 90, || Some((167_000, 200_000)));
        assert_eq!(
            (segment.trigger_tokens, segment.percent, segment.level),
            (None, None, Level::Unknown)
        );
    }

    #[test]
    fn another_model_or_no_gauge_takes_the_rule() {
        let input = StatusInput {
            model: Some("claude-opus-5-5".into()),
            context_tokens: Some(970_000),
            ..StatusInput::default()
        };
        let segment = Segment::build(&input, Some(&gauge()), 90, || Some((967_000, 1_000_000)));
        assert_eq!(segment.trigger_tokens, Some(967_000));
        assert_eq!(segment.level, Level::Past);
        assert_eq!(segment.room_left, Some(-3_000));
        let nothing = Segment::build(&StatusInput::default(), None, 90, || None);
        assert_eq!(
            (nothing.context_tokens, nothing.level, nothing.compactions),
            (None, Level::Unknown, 0)
        );
    }
}
