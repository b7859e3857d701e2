//! The auto-compact threshold T the way Claude Code computes it, per version: from the window W
//! (configured, or the model's), the output the CLI reserves, and a fixed buffer. Read from the
//! CLIs' own code and confirmed by their debug logs (the captures in `tests/fixtures/cli-captures/compaction/`): at windows of
//! 100,000 / 200,000 / 500,000, CLI 2.1.332 logs 67,000 / 167,000 / 467,000.

use std::path::{Path, PathBuf};

use std::fmt;

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::settings_file::read_settings_bytes;
use crate::version::ClaudeVersion;

/// What every version keeps free below the effective window (W minus the reserved output).
pub const COMPACTION_BUFFER: u64 = 13_000;

/// How far below T the CLI's warning level lies; CLIs up to 2.1.42 also clear old tool results
/// (micro-compaction) from there on.
pub const WARNING_MARGIN: u64 = 20_000;

/// From 2.1.21 on, the reserved output is at most this.
pub const OUTPUT_RESERVE_CAP: u64 = 20_000;

/// Before 2.1.21: the output reserved unless `CLAUDE_CODE_MAX_OUTPUT_TOKENS` says otherwise.
pub const DEFAULT_OUTPUT_RESERVE: u64 = 32_000;

/// A configured window below this is ignored (settings) or raised to it (environment, 2.1.89
/// on).
pub const MINIMUM_CONFIGURED_WINDOW: u64 = 100_000;

/// The window of most models.
pub const STANDARD_WINDOW: u64 = 200_000;

/// The window of `[1m]` models (and, in 2.1.332, of its default and unknown models).
pub const MILLION_WINDOW: u64 = 1_000_000;

/// The environment variable that configures the window (2.1.75 on).
pub const WINDOW_VARIABLE: &str = "CLAUDE_CODE_AUTO_COMPACT_WINDOW";

/// The environment variable that caps the output tokens.
pub const MAX_OUTPUT_VARIABLE: &str = "CLAUDE_CODE_MAX_OUTPUT_TOKENS";

/// The environment variable that sets T as a percentage of the effective window.
pub const PERCENT_VARIABLE: &str = "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE";

/// The environment variable that turns 2.1.332's 1,000,000-token default windows off.
pub const DISABLE_MILLION_VARIABLE: &str = "CLAUDE_CODE_DISABLE_1M_CONTEXT";

/// The versions the rule changes at.
impl ClaudeVersion {
    /// The first version that caps the reserved output at 20,000.
    pub const CAPPED_OUTPUT: Self = Self(2, 1, 21);
    /// The first version that reads `CLAUDE_CODE_AUTO_COMPACT_WINDOW`.
    pub const WINDOW_VARIABLE: Self = Self(2, 1, 75);
    /// The first version that reads `autoCompactWindow` (and raises a small env value).
    pub const WINDOW_SETTING: Self = Self(2, 1, 89);
    /// The first version checked that has per-model windows, `modelSettings`, compaction only
    /// on refusal for some models, and sends every earlier thinking block (`keep: "all"`), with
    /// no client-side micro-compaction.
    pub const CURRENT: Self = Self(2, 1, 332);
}

/// The environment variables of the rule, as the report's own process sees them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThresholdEnvironment {
    /// `CLAUDE_CODE_AUTO_COMPACT_WINDOW`.
    pub window: Option<u64>,
    /// `CLAUDE_CODE_MAX_OUTPUT_TOKENS`.
    pub max_output_tokens: Option<u64>,
    /// `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`, when in 1..=100.
    pub percent_override: Option<u64>,
    /// `CLAUDE_CODE_DISABLE_1M_CONTEXT` is set (to anything but empty or `0`).
    pub disable_million_window: bool,
}

impl ThresholdEnvironment {
    /// Reads the variables from a lookup (the process environment in the CLI).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let number = |name: &str| lookup(name).and_then(|value| value.trim().parse::<u64>().ok());
        Self {
            window: number(WINDOW_VARIABLE).filter(|window| *window > 0),
            max_output_tokens: number(MAX_OUTPUT_VARIABLE).filter(|tokens| *tokens > 0),
            percent_override: number(PERCENT_VARIABLE)
                .filter(|percent| (1..=100).contains(percent)),
            disable_million_window: lookup(DISABLE_MILLION_VARIABLE)
                .is_some_and(|value| !value.is_empty() && value != "0"),
        }
    }

    /// The process's own environment.
    pub fn of_process() -> Self {
        Self::from_lookup(|name| std::env::var(name).ok())
    }
}

/// The window keys of one settings file (at `path`).
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct SettingsWindows {
    pub path: PathBuf,
    /// `autoCompactWindow` (a number, `"auto"`, or anything else, as written).
    pub window: Option<Value>,
    /// `modelSettings.<model>.autoCompactWindow`, per model key.
    pub model_windows: Vec<(String, Value)>,
}

impl SettingsWindows {
    /// Reads the window keys of `path` (`None` when it is missing, unreadable or holds none).
    pub fn read(path: &Path) -> Option<Self> {
        let bytes = read_settings_bytes(path).ok().flatten()?;
        let settings: Value = serde_json::from_slice(&bytes).ok()?;
        let window = settings.get("autoCompactWindow").cloned();
        let model_windows: Vec<(String, Value)> = settings
            .get("modelSettings")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(model, entry)| {
                Some((model.clone(), entry.get("autoCompactWindow")?.clone()))
            })
            .collect();
        (window.is_some() || !model_windows.is_empty()).then(|| Self {
            path: path.to_path_buf(),
            window,
            model_windows,
        })
    }

    /// The settings files of a project and a user, highest precedence first (local, project,
    /// user: `<cwd>/.claude/settings.local.json`, `<cwd>/.claude/settings.json`,
    /// `${CLAUDE_CONFIG_DIR:-~/.claude}/settings.json`), those that hold a window key.
    pub fn find(cwd: Option<&Path>, user_config_dir: Option<&Path>) -> Vec<Self> {
        let project = cwd.map(|cwd| cwd.join(".claude"));
        let candidates = [
            (project.as_deref(), "settings.local.json"),
            (project.as_deref(), "settings.json"),
            (user_config_dir, "settings.json"),
        ];
        candidates
            .into_iter()
            .filter_map(|(folder, name)| Self::read(&folder?.join(name)))
            .collect()
    }
}

/// What the report knows besides the usage log: the flag, the environment, the settings files.
#[derive(Debug, Clone, Default, PartialEq)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct ThresholdInputs {
    /// `--cap`: the window, stated by the person running the report.
    pub explicit_window: Option<u64>,
    /// The model's window the status line's input gave for the session, with the model it was
    /// for (`model.id`): used for that model in place of the table's.
    pub status_line_window: Option<(u64, String)>,
    pub environment: ThresholdEnvironment,
    /// The settings files that hold a window key, highest precedence first.
    pub settings: Vec<SettingsWindows>,
}

/// Where the window W came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(
    missing_docs,
    reason = "plain variant fields, named for what they hold"
)]
pub enum WindowSource {
    /// `--cap`.
    Flag,
    /// `CLAUDE_CODE_AUTO_COMPACT_WINDOW` in the report's environment.
    Environment,
    /// `modelSettings.<model>.autoCompactWindow` in a settings file.
    ModelSetting { path: PathBuf, model: String },
    /// `autoCompactWindow` in a settings file.
    Setting(PathBuf),
    /// The model's own window (nothing configured, or a configured window above it), from
    /// [`MODEL_WINDOWS`].
    Model,
    /// The model's window the status line's input gave (`context_window.context_window_size`,
    /// recorded by `ctxhooks statusline` for the session and this model).
    StatusLine,
    /// No window is known: a model [`MODEL_WINDOWS`] does not know, with nothing configured and
    /// no status line's window (the window's tokens are then 0 and T is unknown).
    Unknown,
}

impl fmt::Display for WindowSource {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Flag => formatter.write_str("flag"),
            Self::Environment => write!(formatter, "env:{WINDOW_VARIABLE}"),
            Self::ModelSetting { path, model } => write!(
                formatter,
                "settings:{}#modelSettings.{model}.autoCompactWindow",
                path.display()
            ),
            Self::Setting(path) => write!(formatter, "settings:{}", path.display()),
            Self::Model => formatter.write_str("model"),
            Self::StatusLine => formatter.write_str("status_line"),
            Self::Unknown => formatter.write_str("unknown"),
        }
    }
}

impl Serialize for WindowSource {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// The window compaction is measured against (the report's "cap").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct Window {
    pub tokens: u64,
    pub source: WindowSource,
}

/// Where the reserved output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReserveSource {
    /// The `max_tokens` the CLI's own `api-request` record asked for (2.1.332).
    Request,
    /// `CLAUDE_CODE_MAX_OUTPUT_TOKENS` in the report's environment.
    Environment,
    /// The version's default for the model.
    Default,
}

/// Something the rule took for granted because the log does not say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(
    missing_docs,
    reason = "plain variant fields, named for what they hold"
)]
pub enum Assumption {
    /// No request names its CLI version: the rule of the newest version checked is used.
    VersionUnknown { assumed: ClaudeVersion },
    /// The version lies between two versions whose code was read: the rule of the older one.
    VersionUnchecked {
        /// The version of the log.
        version: ClaudeVersion,
        /// The version whose rule is used.
        rule_of: ClaudeVersion,
    },
    /// No request names its model.
    ModelUnknown,
    /// The environment variables are read from the report's process, not the session's.
    EnvironmentOfReport,
}

/// T as the CLI's rule gives it for one version and model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct RuleTrigger {
    /// T in tokens; `None` when this CLI does not compact this model before the API refuses a
    /// prompt (2.1.332 with nothing configured for `claude-sonnet-4-5`, `claude-haiku-4-5`,
    /// `claude-opus-4-5` and `[1m]` names).
    pub tokens: Option<u64>,
    /// The version the rule is for.
    pub version: Option<String>,
    pub model: Option<String>,
    /// The window W.
    pub window: Window,
    /// The model's own window.
    pub model_window: u64,
    /// The output the CLI reserves below W.
    pub reserved_output: u64,
    pub reserve_source: ReserveSource,
    /// The buffer below W minus the reserved output (13,000 in every version).
    pub buffer: u64,
    /// `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`, when set.
    pub percent_override: Option<u64>,
    pub assumptions: Vec<Assumption>,
}

impl RuleTrigger {
    /// The warning level, T − 20,000 (where CLIs up to 2.1.42 clear old tool results).
    pub fn warning_level(&self) -> Option<u64> {
        self.tokens
            .map(|tokens| tokens.saturating_sub(WARNING_MARGIN))
    }
}

/// Returns true if and only if `model` is `family` or a dated name of it
/// (`claude-opus-4-5-20251101`: eight digits, so that `claude-opus-4-8` is no `claude-opus-4`).
fn is_family(model: &str, family: &str) -> bool {
    model == family
        || model
            .strip_prefix(family)
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|date| date.len() == 8 && date.chars().all(|c| c.is_ascii_digit()))
}

/// The window of every model ctxhooks knows, by family (a name, or a dated name of it). Source:
/// the model catalog of Claude Code 2.1.332 (`context.window` of each row; read from the pinned
/// CLI's binary, `@anthropic-ai/claude-code-linux-x64`), which also names the advisor models
/// (`claude-fable-5*`, `advisor_rank`); the 1,000,000 windows of `claude-opus-5` and
/// `claude-sonnet-5` are confirmed by real 2.1.2xx sessions that reached 559,279 and 328,852
/// tokens without compacting and compacted at 998,659 (issue 22). `claude-sonnet-4` and
/// `claude-opus-4` are the dated names transcripts write for the catalog's `claude-sonnet-4-0`
/// and `claude-opus-4-0` (`claude-sonnet-4-20250514`). A `[1m]` name has 1,000,000 whatever its
/// family. A model not here has no window until evidence gives one.
pub const MODEL_WINDOWS: [(&str, u64); 26] = [
    ("claude-3-5-haiku", STANDARD_WINDOW),
    ("claude-3-5-sonnet", STANDARD_WINDOW),
    ("claude-3-7-sonnet", STANDARD_WINDOW),
    ("claude-haiku-4-5", STANDARD_WINDOW),
    ("claude-haiku-5-5", MILLION_WINDOW),
    ("claude-sonnet-4", STANDARD_WINDOW),
    ("claude-sonnet-4-0", STANDARD_WINDOW),
    ("claude-sonnet-4-5", STANDARD_WINDOW),
    ("claude-sonnet-4-6", STANDARD_WINDOW),
    ("claude-sonnet-5", MILLION_WINDOW),
    ("claude-sonnet-5-5", MILLION_WINDOW),
    ("claude-opus-4", STANDARD_WINDOW),
    ("claude-opus-4-0", STANDARD_WINDOW),
    ("claude-opus-4-1", STANDARD_WINDOW),
    ("claude-opus-4-5", STANDARD_WINDOW),
    ("claude-opus-4-6", STANDARD_WINDOW),
    ("claude-opus-4-7", MILLION_WINDOW),
    ("claude-opus-4-8", MILLION_WINDOW),
    ("claude-opus-5", MILLION_WINDOW),
    ("claude-opus-5-5", MILLION_WINDOW),
    ("claude-fable-5", MILLION_WINDOW),
    ("claude-fable-5-1", MILLION_WINDOW),
    ("claude-fable-5-2", MILLION_WINDOW),
    ("claude-mythos-5", MILLION_WINDOW),
    ("claude-mythos-5-1", MILLION_WINDOW),
    ("claude-mythos-5-2", MILLION_WINDOW),
];

/// The models 2.1.332 gives a 200,000 window whose source is "auto": it compacts them only
/// after the API refuses a prompt, unless a window is configured.
const REACTIVE_ONLY_MODELS: [&str; 3] =
    ["claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-5"];

/// A model's window under `version`, and whether the CLI compacts it only on refusal when
/// nothing is configured; `None` for a model [`MODEL_WINDOWS`] does not know (an empty name,
/// a log that names no model, keeps the version's default).
fn model_window(
    version: ClaudeVersion,
    model: &str,
    environment: &ThresholdEnvironment,
) -> Option<(u64, bool)> {
    let model = model.trim();
    // The window the table gives the model, when it knows it.
    let known = if model.contains("[1m]") {
        Some(MILLION_WINDOW)
    } else {
        MODEL_WINDOWS
            .iter()
            .find(|(family, _)| is_family(model, family))
            .map(|(_, window)| *window)
    };
    Some(match known {
        None if !model.is_empty() => return None,
        // An unnamed model keeps the version's default.
        _ if version < ClaudeVersion::CURRENT => (known.unwrap_or(STANDARD_WINDOW), false),
        _ if model.contains("[1m]") => (MILLION_WINDOW, true),
        _ if REACTIVE_ONLY_MODELS
            .iter()
            .any(|family| is_family(model, family)) =>
        {
            (STANDARD_WINDOW, true)
        }
        _ if environment.disable_million_window => (STANDARD_WINDOW, false),
        // The table's window (the 200,000 models, `claude-sonnet-4-6` and `claude-opus-4-6`
        // among them, compacted proactively), or the default model's 1,000,000.
        _ => (known.unwrap_or(MILLION_WINDOW), false),
    })
}

/// The output a CLI before 2.1.21 reserves for `model`: the model's limit, or the environment's
/// / the 32,000 default when lower (1.0.x: 8,192 for 3.5 and haiku models).
fn old_reserve(
    version: ClaudeVersion,
    model: &str,
    environment: &ThresholdEnvironment,
) -> (u64, ReserveSource) {
    let small_model = model.contains("3-5") || model.contains("haiku");
    if version < ClaudeVersion(2, 0, 0) && small_model {
        return (8_192, ReserveSource::Default);
    }
    let newer_opus_4 = ["claude-opus-4-5", "claude-opus-4-6", "claude-opus-4-7"];
    let model_limit = match model {
        _ if model.contains("3-5") => 8_192,
        _ if model.starts_with("claude-opus-4")
            && !newer_opus_4.iter().any(|family| model.starts_with(family)) =>
        {
            32_000
        }
        _ => 64_000,
    };
    let (reserve, source) = match environment.max_output_tokens {
        Some(tokens) => (tokens.min(64_000), ReserveSource::Environment),
        None => (DEFAULT_OUTPUT_RESERVE, ReserveSource::Default),
    };
    (reserve.min(model_limit), source)
}

/// A configured window value as the CLI reads a setting: a number of at least 100,000.
fn setting_tokens(value: &Value) -> Option<u64> {
    value
        .as_u64()
        .filter(|tokens| *tokens >= MINIMUM_CONFIGURED_WINDOW)
}

/// The configured window for `model` under `version`, with its source.
fn configured_window(
    version: ClaudeVersion,
    model: &str,
    inputs: &ThresholdInputs,
) -> Option<(u64, WindowSource)> {
    if let Some(tokens) = inputs.explicit_window {
        return Some((tokens, WindowSource::Flag));
    }
    if version >= ClaudeVersion::WINDOW_VARIABLE
        && let Some(tokens) = inputs.environment.window
    {
        let tokens = if version >= ClaudeVersion::WINDOW_SETTING {
            tokens.max(MINIMUM_CONFIGURED_WINDOW)
        } else {
            tokens
        };
        return Some((tokens, WindowSource::Environment));
    }
    if version < ClaudeVersion::WINDOW_SETTING {
        return None;
    }
    if version >= ClaudeVersion::CURRENT {
        for file in &inputs.settings {
            for (key, value) in &file.model_windows {
                if (key == model || is_family(model, key))
                    && let Some(tokens) = setting_tokens(value)
                {
                    return Some((
                        tokens,
                        WindowSource::ModelSetting {
                            path: file.path.clone(),
                            model: key.clone(),
                        },
                    ));
                }
            }
        }
    }
    inputs.settings.iter().find_map(|file| {
        let tokens = file.window.as_ref().and_then(setting_tokens)?;
        Some((tokens, WindowSource::Setting(file.path.clone())))
    })
}

/// T under the rule of `version` for `model` (the output limit `requested_output` of its
/// `api-request`, when known), with the report's `inputs`.
pub fn rule_trigger(
    version: Option<&str>,
    model: Option<&str>,
    requested_output: Option<u64>,
    inputs: &ThresholdInputs,
) -> RuleTrigger {
    let mut assumptions = Vec::new();
    let parsed = version.and_then(ClaudeVersion::find_in);
    let version_used = parsed.unwrap_or(ClaudeVersion::CURRENT);
    // The newest version read before the current one.
    let last_read = ClaudeVersion(2, 1, 100);
    let rule_of = match parsed {
        Some(version) if version > ClaudeVersion::CURRENT => Some(ClaudeVersion::CURRENT),
        Some(version) if version > last_read && version < ClaudeVersion::CURRENT => Some(last_read),
        _ => None,
    };
    if parsed.is_none() {
        assumptions.push(Assumption::VersionUnknown {
            assumed: ClaudeVersion::CURRENT,
        });
    }
    if let Some(rule_of) = rule_of {
        let version = version_used;
        assumptions.push(Assumption::VersionUnchecked { version, rule_of });
    }
    let model_name = model.unwrap_or_else(|| {
        assumptions.push(Assumption::ModelUnknown);
        ""
    });
    let environment = &inputs.environment;
    if *environment != ThresholdEnvironment::default() {
        assumptions.push(Assumption::EnvironmentOfReport);
    }
    let status_line = inputs
        .status_line_window
        .as_ref()
        .filter(|(_, model)| model.trim() == model_name.trim() && !model.trim().is_empty())
        .map(|(tokens, _)| *tokens);
    let (model_tokens, reactive_only, model_source) = match (
        status_line,
        model_window(version_used, model_name, environment),
    ) {
        (Some(tokens), known) => (
            tokens,
            known.is_some_and(|(_, reactive)| reactive),
            WindowSource::StatusLine,
        ),
        (None, Some((tokens, reactive))) => (tokens, reactive, WindowSource::Model),
        (None, None) => (0, false, WindowSource::Unknown),
    };
    let configured = configured_window(version_used, model_name, inputs);
    let nothing_configured = configured.is_none();
    // A configured window counts when it is smaller than the model's, given by `--cap`, or the
    // only one known.
    let (tokens, source) = configured
        .filter(|(tokens, source)| {
            *tokens < model_tokens
                || *source == WindowSource::Flag
                || model_source == WindowSource::Unknown
        })
        .unwrap_or((model_tokens, model_source));
    let window = Window { tokens, source };
    let (reserved_output, reserve_source) = if version_used < ClaudeVersion::CAPPED_OUTPUT {
        old_reserve(version_used, model_name, environment)
    } else if let Some(limit) = requested_output {
        (limit.min(OUTPUT_RESERVE_CAP), ReserveSource::Request)
    } else if let Some(limit) = environment.max_output_tokens {
        (limit.min(OUTPUT_RESERVE_CAP), ReserveSource::Environment)
    } else {
        (OUTPUT_RESERVE_CAP, ReserveSource::Default)
    };
    let effective = window.tokens.saturating_sub(reserved_output);
    let plain = effective.saturating_sub(COMPACTION_BUFFER);
    let percent = |percent: u64| (effective * percent / 100).min(plain);
    let has_trigger =
        !(reactive_only && nothing_configured) && window.source != WindowSource::Unknown;
    let tokens = has_trigger.then(|| environment.percent_override.map_or(plain, percent));
    RuleTrigger {
        tokens,
        version: version.map(ToOwned::to_owned),
        model: model.map(ToOwned::to_owned),
        window,
        model_window: model_tokens,
        reserved_output,
        reserve_source,
        buffer: COMPACTION_BUFFER,
        percent_override: environment.percent_override,
        assumptions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs_with_setting(window: u64) -> ThresholdInputs {
        ThresholdInputs {
            settings: vec![SettingsWindows {
                path: PathBuf::from("/p/.claude/settings.json"),
                window: Some(Value::from(window)),
                model_windows: Vec::new(),
            }],
            ..ThresholdInputs::default()
        }
    }

    fn tokens(version: &str, model: &str, inputs: &ThresholdInputs) -> Option<u64> {
        rule_trigger(Some(version), Some(model), None, inputs).tokens
    }

    #[test]
    fn the_logged_thresholds_of_2_1_332_come_out_exactly() {
        // The CLI's debug log at each window (`thresholdSource=settings`): 67,000 / 167,000 / 467,000 for the setting and the env.
        for (window, expected) in [(100_000, 67_000), (200_000, 167_000), (500_000, 467_000)] {
            assert_eq!(
                tokens("2.1.332", "claude-opus-5-5", &inputs_with_setting(window)),
                Some(expected)
            );
            let env = ThresholdInputs {
                environment: ThresholdEnvironment {
                    window: Some(window),
                    ..ThresholdEnvironment::default()
                },
                ..ThresholdInputs::default()
            };
            assert_eq!(tokens("2.1.332", "claude-opus-5-5", &env), Some(expected));
        }
        // Nothing configured: the model decides.
        let none = ThresholdInputs::default();
        assert_eq!(tokens("2.1.332", "claude-opus-5-5", &none), Some(967_000));
        // A model the table does not know gets no T (the CLI itself gives it 1,000,000).
        assert_eq!(tokens("2.1.332", "research-model-x", &none), None);
        assert_eq!(tokens("2.1.332", "claude-sonnet-4-6", &none), Some(167_000));
        assert_eq!(tokens("2.1.332", "claude-sonnet-4-5", &none), None);
        assert_eq!(tokens("2.1.332", "claude-sonnet-4-5-20250929", &none), None);
        // A setting below the minimum is ignored; a 200k model caps a larger setting.
        assert_eq!(
            tokens("2.1.332", "claude-opus-5-5", &inputs_with_setting(50_000)),
            Some(967_000)
        );
        assert_eq!(
            tokens(
                "2.1.332",
                "claude-sonnet-4-5",
                &inputs_with_setting(500_000)
            ),
            Some(167_000)
        );
        // The env beats the setting; a lower output limit and a percentage change T.
        let mut both = inputs_with_setting(100_000);
        both.environment.window = Some(300_000);
        assert_eq!(tokens("2.1.332", "claude-opus-5-5", &both), Some(267_000));
        let mut small_output = inputs_with_setting(200_000);
        small_output.environment.max_output_tokens = Some(8_000);
        assert_eq!(
            tokens("2.1.332", "claude-opus-5-5", &small_output),
            Some(179_000)
        );
        let mut percent = inputs_with_setting(200_000);
        percent.environment.percent_override = Some(50);
        assert_eq!(tokens("2.1.332", "claude-opus-5-5", &percent), Some(90_000));
        percent.environment.percent_override = Some(95);
        assert_eq!(
            tokens("2.1.332", "claude-opus-5-5", &percent),
            Some(167_000)
        );
    }

    #[test]
    fn model_settings_and_precedence_between_files() {
        let inputs = ThresholdInputs {
            settings: vec![SettingsWindows {
                path: PathBuf::from("/p/.claude/settings.json"),
                window: Some(Value::from(400_000)),
                model_windows: vec![("claude-opus-5-5".into(), Value::from(150_000))],
            }],
            ..ThresholdInputs::default()
        };
        let rule = rule_trigger(Some("2.1.332"), Some("claude-opus-5-5"), None, &inputs);
        assert_eq!(rule.tokens, Some(117_000));
        assert!(matches!(
            rule.window.source,
            WindowSource::ModelSetting { .. }
        ));
        // Local over project over user: the first file in the list wins.
        let layered = ThresholdInputs {
            settings: vec![
                SettingsWindows {
                    path: PathBuf::from("/p/.claude/settings.local.json"),
                    window: Some(Value::from(150_000)),
                    model_windows: Vec::new(),
                },
                SettingsWindows {
                    path: PathBuf::from("/p/.claude/settings.json"),
                    window: Some(Value::from(300_000)),
                    model_windows: Vec::new(),
                },
            ],
            ..ThresholdInputs::default()
        };
        assert_eq!(
            tokens("2.1.332", "claude-opus-5-5", &layered),
            Some(117_000)
        );
        // "auto" is no number: the model decides.
        let auto = ThresholdInputs {
            settings: vec![SettingsWindows {
                path: PathBuf::from("/p/.claude/settings.json"),
                window: Some(Value::from("auto")),
                model_windows: Vec::new(),
            }],
            ..ThresholdInputs::default()
        };
        assert_eq!(tokens("2.1.332", "claude-opus-5-5", &auto), Some(967_000));
    }

    #[test]
    fn older_versions_follow_their_own_rule() {
        let none = ThresholdInputs::default();
        // Before 2.1.21: 32,000 reserved; 1.0.x reserves 8,192 for haiku and 3.5 models.
        assert_eq!(
            tokens("2.0.76", "claude-opus-4-5-20251101", &none),
            Some(155_000)
        );
        assert_eq!(
            tokens("2.1.12", "claude-sonnet-4-5-20250929", &none),
            Some(155_000)
        );
        assert_eq!(
            tokens("1.0.108", "claude-3-5-haiku-20241022", &none),
            Some(178_808)
        );
        assert_eq!(
            tokens("2.1.42", "claude-sonnet-4-5-20250929", &none),
            Some(167_000)
        );
        assert_eq!(
            tokens("2.1.42", "claude-sonnet-4-5[1m]", &none),
            Some(967_000)
        );
        // A setting means nothing before 2.1.89, the env nothing before 2.1.75.
        assert_eq!(
            tokens("2.1.42", "claude-sonnet-4-5", &inputs_with_setting(100_000)),
            Some(167_000)
        );
        assert_eq!(
            tokens(
                "2.1.100",
                "claude-sonnet-4-5",
                &inputs_with_setting(100_000)
            ),
            Some(67_000)
        );
        let env = ThresholdInputs {
            environment: ThresholdEnvironment {
                window: Some(50_000),
                ..ThresholdEnvironment::default()
            },
            ..ThresholdInputs::default()
        };
        assert_eq!(tokens("2.1.80", "claude-sonnet-4-5", &env), Some(17_000));
        assert_eq!(tokens("2.1.90", "claude-sonnet-4-5", &env), Some(67_000));
        assert_eq!(tokens("2.1.70", "claude-sonnet-4-5", &env), Some(167_000));
        // The warning level, where old CLIs clear tool results.
        let rule = rule_trigger(Some("2.1.42"), Some("claude-sonnet-4-5"), None, &none);
        assert_eq!(rule.warning_level(), Some(147_000));
    }

    #[test]
    fn the_model_table_the_status_line_and_settings_give_the_window() {
        let none = ThresholdInputs::default();
        // Issue 22: claude-opus-5 / claude-sonnet-5 on 2.1.2xx were given 200,000 (T 167,000);
        // their window is 1,000,000.
        for model in [
            "claude-opus-5",
            "claude-sonnet-5",
            "claude-opus-4-8",
            "claude-fable-5",
        ] {
            assert_eq!(tokens("2.1.237", model, &none), Some(967_000), "{model}");
        }
        assert_eq!(tokens("2.1.237", "claude-opus-4-6", &none), Some(167_000));
        assert_eq!(
            tokens("2.1.237", "claude-haiku-4-5-20251001", &none),
            Some(167_000)
        );
        assert_eq!(
            tokens("2.1.38", "claude-sonnet-4-20250514", &none),
            Some(167_000)
        );
        // Unknown: no T, and the window says so.
        let rule = rule_trigger(Some("2.1.237"), Some("claude-nova-7"), None, &none);
        assert_eq!(
            (rule.tokens, &rule.window.source),
            (None, &WindowSource::Unknown)
        );
        // The status line's window for that model gives one; for another model it does not.
        let status = ThresholdInputs {
            status_line_window: Some((500_000, "claude-nova-7".into())),
            ..ThresholdInputs::default()
        };
        let rule = rule_trigger(Some("2.1.237"), Some("claude-nova-7"), None, &status);
        assert_eq!(
            (rule.tokens, &rule.window.source),
            (Some(467_000), &WindowSource::StatusLine)
        );
        assert_eq!(tokens("2.1.237", "claude-nova-8", &status), None);
        // A configured window gives one too, even above 200,000.
        assert_eq!(
            tokens("2.1.237", "claude-nova-7", &inputs_with_setting(300_000)),
            Some(267_000)
        );
    }

    #[test]
    fn an_unknown_version_or_model_is_said() {
        let rule = rule_trigger(None, None, None, &ThresholdInputs::default());
        assert!(rule.assumptions.contains(&Assumption::ModelUnknown));
        assert!(matches!(
            rule.assumptions[0],
            Assumption::VersionUnknown { .. }
        ));
        let rule = rule_trigger(
            Some("2.1.200"),
            Some("claude-opus-4-6"),
            None,
            &ThresholdInputs::default(),
        );
        assert!(matches!(
            rule.assumptions[0],
            Assumption::VersionUnchecked { .. }
        ));
        assert_eq!(rule.tokens, Some(167_000));
        // The api-request's max_tokens, when lower than 20,000, is the reserve.
        let rule = rule_trigger(
            Some("2.1.332"),
            Some("claude-opus-5-5"),
            Some(8_000),
            &inputs_with_setting(200_000),
        );
        assert_eq!(
            (rule.tokens, rule.reserve_source),
            (Some(179_000), ReserveSource::Request)
        );
    }

    #[test]
    fn the_environment_is_read_with_its_limits() {
        let environment = ThresholdEnvironment::from_lookup(|name| match name {
            WINDOW_VARIABLE => Some("200000".into()),
            PERCENT_VARIABLE => Some("150".into()),
            DISABLE_MILLION_VARIABLE => Some("0".into()),
            _ => None,
        });
        assert_eq!(environment.window, Some(200_000));
        assert_eq!(environment.percent_override, None);
        assert!(!environment.disable_million_window);
    }
}
