//! A Claude Code model name, compared one way wherever one is written: a transcript's
//! `message.model` (the API's name), its `requestedModel` (the CLI's own, 2.1.332), the status
//! line's `model.id`, a settings file's `model` and `ANTHROPIC_MODEL`.
//!
//! The CLI selects a model's 1,000,000-token window with a `[1m]` suffix
//! (`--model 'claude-sonnet-4-5-20250929[1m]'`; the status line then says `"id":
//! "claude-sonnet-4-5-20250929[1m]", "display_name": "Sonnet 4.5 (1M context)"`) and asks the API
//! for the model without it, with the `context-1m` beta: `message.model` never carries it, while
//! 2.1.332's `requestedModel` on the same record does. Observed with the pinned CLI 2.1.332
//! (`tests/fixtures/cli-captures/million-window/`).

/// The suffix with which Claude Code selects a model's 1,000,000-token window.
pub const MILLION_SUFFIX: &str = "[1m]";

/// Returns true if and only if `name` selects the 1,000,000-token window (`[1m]`, any case).
pub fn selects_million(name: &str) -> bool {
    contains_ignoring_case(name, MILLION_SUFFIX)
}

/// Returns true if and only if a status line's `model.display_name` says the window is the
/// 1,000,000-token one (`Sonnet 4.5 (1M context)`).
pub fn display_says_million(display_name: &str) -> bool {
    contains_ignoring_case(display_name, "(1m context)")
}

/// Returns true if and only if `text` holds `needle`, ASCII letters compared ignoring case (no
/// allocation: the status line asks on every update).
fn contains_ignoring_case(text: &str, needle: &str) -> bool {
    text.as_bytes()
        .windows(needle.len())
        .any(|window| window.eq_ignore_ascii_case(needle.as_bytes()))
}

/// The model without its bracketed suffix, trimmed: `claude-sonnet-4-5-20250929` for
/// `claude-sonnet-4-5-20250929[1m]`.
pub fn base(name: &str) -> &str {
    let name = name.trim();
    name.find('[').map_or(name, |at| name[..at].trim_end())
}

/// `name` with the 1,000,000-token window selected: `claude-sonnet-4-5[1m]`.
pub fn with_million(name: &str) -> String {
    format!("{}{MILLION_SUFFIX}", base(name))
}

/// Returns true if and only if `model` is `family` or a dated name of it
/// (`claude-opus-4-5-20251101`: eight digits, so that `claude-opus-4-8` is no `claude-opus-4`).
pub fn is_family(model: &str, family: &str) -> bool {
    model == family
        || model
            .strip_prefix(family)
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|date| date.len() == 8 && date.chars().all(|c| c.is_ascii_digit()))
}

/// Returns true if and only if `a` and `b` name one model whatever suffix each carries: the
/// same base, or one a dated name of the other (`claude-sonnet-4-5` and
/// `claude-sonnet-4-5-20250929`). Empty names name no model.
pub fn same_model(a: &str, b: &str) -> bool {
    let (a, b) = (base(a), base(b));
    !a.is_empty() && !b.is_empty() && (is_family(a, b) || is_family(b, a))
}

/// Returns true if and only if `a` and `b` name one model with one window: [`same_model`], and
/// both or neither select the 1,000,000-token window.
pub fn same_window_model(a: &str, b: &str) -> bool {
    same_model(a, b) && selects_million(a) == selects_million(b)
}

/// The aliases Claude Code resolves to the newest model of a family (`--model sonnet[1m]`).
const FAMILY_ALIASES: [&str; 3] = ["sonnet", "opus", "haiku"];

/// Returns true if and only if `selected` (a settings file's `model`, `ANTHROPIC_MODEL`: a name
/// or an alias, `sonnet[1m]`) may be what made the CLI run `model`: the same model, or an alias
/// of its family (`sonnet` for `claude-sonnet-4-5-20250929`).
pub fn may_select(selected: &str, model: &str) -> bool {
    let alias = base(selected).to_ascii_lowercase();
    same_model(selected, model)
        || (FAMILY_ALIASES.contains(&alias.as_str())
            && base(model)
                .to_ascii_lowercase()
                .split('-')
                .any(|word| word == alias))
}

/// The model a request was for, as a transcript names it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RequestModel<'a> {
    /// `message.model`: the API's name, never with `[1m]`.
    pub api: Option<&'a str>,
    /// `requestedModel` (2.1.332): the CLI's own name, `[1m]` included.
    pub requested: Option<&'a str>,
}

impl<'a> RequestModel<'a> {
    /// A request known by its API name alone.
    pub fn api(model: Option<&'a str>) -> Self {
        Self {
            api: model,
            requested: None,
        }
    }

    /// The CLI's name of the model where it wrote one, else the API's: two requests with the
    /// same name had the same model and window.
    pub fn as_named(self) -> Option<&'a str> {
        self.requested.or(self.api)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_million_suffix_is_told_apart_from_the_model() {
        assert!(selects_million("claude-sonnet-4-5-20250929[1m]"));
        assert!(selects_million("claude-opus-4-6[1M]"));
        assert!(!selects_million("claude-sonnet-4-5-20250929"));
        assert_eq!(
            base(" claude-sonnet-4-5-20250929[1m] "),
            "claude-sonnet-4-5-20250929"
        );
        assert_eq!(base("claude-opus-5"), "claude-opus-5");
        assert_eq!(with_million("claude-opus-4-6"), "claude-opus-4-6[1m]");
        assert_eq!(with_million("claude-opus-4-6[1m]"), "claude-opus-4-6[1m]");
        assert!(display_says_million("Sonnet 4.5 (1M context)"));
        assert!(!display_says_million("Sonnet 4.5"));
    }

    #[test]
    fn one_model_under_its_names() {
        // The status line's id and the transcript's message.model.
        assert!(same_model(
            "claude-sonnet-4-5-20250929[1m]",
            "claude-sonnet-4-5-20250929"
        ));
        // An undated name and a dated one.
        assert!(same_model(
            "claude-sonnet-4-5[1m]",
            "claude-sonnet-4-5-20250929"
        ));
        assert!(same_model(
            "claude-sonnet-4-5-20250929",
            "claude-sonnet-4-5"
        ));
        // Other models, however alike.
        assert!(!same_model("claude-sonnet-4-5", "claude-sonnet-4-6"));
        assert!(!same_model("claude-opus-4", "claude-opus-4-8"));
        assert!(!same_model("", ""));
        // One model, two windows.
        assert!(!same_window_model(
            "claude-sonnet-4-6[1m]",
            "claude-sonnet-4-6"
        ));
        assert!(same_window_model(
            "claude-sonnet-4-6[1m]",
            "claude-sonnet-4-6[1m]"
        ));
    }

    #[test]
    fn an_alias_may_select_a_model_of_its_family() {
        assert!(may_select("sonnet[1m]", "claude-sonnet-4-5-20250929"));
        assert!(may_select("Opus[1m]", "claude-opus-4-6"));
        assert!(may_select(
            "claude-sonnet-4-5[1m]",
            "claude-sonnet-4-5-20250929"
        ));
        assert!(!may_select("sonnet[1m]", "claude-opus-4-6"));
        assert!(!may_select("son[1m]", "claude-sonnet-4-5"));
        assert!(!may_select("claude-sonnet-4-6[1m]", "claude-sonnet-4-5"));
    }
}
