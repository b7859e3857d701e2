//! The auto-compact threshold T the way Claude Code computes it, per version: from the window W
//! (configured, or the model's), the output the CLI reserves, and a fixed buffer. Read from the
//! CLIs' own code and confirmed by their debug logs (the captures in `tests/fixtures/cli-captures/compaction/`): at windows of
//! 100,000 / 200,000 / 500,000, CLI 2.1.332 logs 67,000 / 167,000 / 467,000.

use std::path::{Path, PathBuf};

use std::fmt;

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::model_name::{self, RequestModel, is_family};
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

/// The environment variable that selects the CLI's model (over a settings file's `model`).
pub const MODEL_VARIABLE: &str = "ANTHROPIC_MODEL";

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
    /// `ANTHROPIC_MODEL`, when not empty: the model the CLI was told to run (`sonnet[1m]`).
    pub model: Option<String>,
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
            model: lookup(MODEL_VARIABLE)
                .map(|model| model.trim().to_owned())
                .filter(|model| !model.is_empty()),
        }
    }

    /// The process's own environment.
    pub fn of_process() -> Self {
        Self::from_lookup(|name| std::env::var(name).ok())
    }
}

/// The keys of one settings file (at `path`) that decide a window.
#[derive(Debug, Clone, Default, PartialEq)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct SettingsWindows {
    pub path: PathBuf,
    /// `autoCompactWindow` (a number, `"auto"`, or anything else, as written).
    pub window: Option<Value>,
    /// `modelSettings.<model>.autoCompactWindow`, per model key.
    pub model_windows: Vec<(String, Value)>,
    /// `model`: the model the CLI runs unless told otherwise (`claude-sonnet-4-5[1m]`,
    /// `sonnet[1m]`); `/model` writes it to the user's settings.
    pub model: Option<String>,
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
        let model = settings
            .get("model")
            .and_then(Value::as_str)
            .map(|model| model.trim().to_owned())
            .filter(|model| !model.is_empty());
        (window.is_some() || !model_windows.is_empty() || model.is_some()).then(|| Self {
            path: path.to_path_buf(),
            window,
            model_windows,
            model,
        })
    }

    /// The settings files of a project and a user, highest precedence first (local, project,
    /// user: `<cwd>/.claude/settings.local.json`, `<cwd>/.claude/settings.json`,
    /// `${CLAUDE_CONFIG_DIR:-~/.claude}/settings.json`), those that hold a window key or a
    /// model.
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
    /// The models' windows the status line's input gave for the session, each with the model
    /// it was for (`model.id`, `[1m]` and all), the newest last: used for that model in place
    /// of the table's.
    pub status_line_windows: Vec<(u64, String)>,
    pub environment: ThresholdEnvironment,
    /// The settings files that hold a window key or a model, highest precedence first.
    pub settings: Vec<SettingsWindows>,
}

impl ThresholdInputs {
    /// The model the person selected where the CLI reads it, and where: `ANTHROPIC_MODEL`, else
    /// the `model` of the settings file of highest precedence that has one. (`--model` and
    /// `/model` leave no trace here but the status line's and the transcript's names.)
    fn selected_model(&self) -> Option<(&str, ModelSelection)> {
        if let Some(model) = &self.environment.model {
            return Some((model, ModelSelection::Environment));
        }
        self.settings.iter().find_map(|file| {
            Some((
                file.model.as_deref()?,
                ModelSelection::Setting(file.path.clone()),
            ))
        })
    }

    /// The window the status line gave for `model` (a name as [`window_model`] resolves it):
    /// the newest one for the same model with the same window selection.
    fn status_line_window(&self, model: &str) -> Option<u64> {
        self.status_line_windows
            .iter()
            .rev()
            .find(|(_, named)| model_name::same_window_model(named, model))
            .map(|(tokens, _)| *tokens)
    }
}

/// Where the model that selected a 1,000,000-token window was named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelSelection {
    /// `ANTHROPIC_MODEL` in the environment.
    Environment,
    /// `model` in a settings file.
    Setting(PathBuf),
}

/// The name the window of a request is decided by, and what gave its `[1m]` when the
/// transcript does not: the CLI's own name when it wrote one for the same model
/// (`requestedModel`); else the API's name with the window selection the status line gave for
/// that model (its newest word), else with the `[1m]` of the model the person selected for it
/// (`ANTHROPIC_MODEL`, a settings file's `model`, an alias included: `sonnet[1m]`).
fn window_model(
    model: RequestModel<'_>,
    inputs: &ThresholdInputs,
) -> (String, Option<ModelSelection>) {
    let api = model.api.map(str::trim).unwrap_or_default();
    if let Some(requested) = model
        .requested
        .map(str::trim)
        .filter(|requested| api.is_empty() || model_name::same_model(requested, api))
    {
        return (requested.to_owned(), None);
    }
    if api.is_empty() || model_name::selects_million(api) {
        return (api.to_owned(), None);
    }
    if let Some((_, named)) = inputs
        .status_line_windows
        .iter()
        .rev()
        .find(|(_, named)| model_name::same_model(named, api))
    {
        let name = if model_name::selects_million(named) {
            model_name::with_million(api)
        } else {
            api.to_owned()
        };
        return (name, None);
    }
    match inputs.selected_model() {
        Some((selected, source))
            if model_name::selects_million(selected) && model_name::may_select(selected, api) =>
        {
            (model_name::with_million(api), Some(source))
        }
        _ => (api.to_owned(), None),
    }
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
    /// The 1,000,000-token window the person selected for the model with `[1m]` where the
    /// transcript and the status line do not say (`ANTHROPIC_MODEL`, a settings file's `model`).
    SelectedModel(ModelSelection),
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
            Self::SelectedModel(ModelSelection::Environment) => {
                write!(formatter, "selected_model:env:{MODEL_VARIABLE}")
            }
            Self::SelectedModel(ModelSelection::Setting(path)) => {
                write!(
                    formatter,
                    "selected_model:settings:{}#model",
                    path.display()
                )
            }
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
    /// The name the window was decided by: the CLI's own (`claude-sonnet-4-5-20250929[1m]`),
    /// else the API's with the `[1m]` the evidence gave it (see [`WindowSource`]).
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
    let million = model_name::selects_million(model);
    let known = if million {
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
        _ if million => (MILLION_WINDOW, true),
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
                if (key == model || is_family(model_name::base(model), key))
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
    model: RequestModel<'_>,
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
    let named = model.api.or(model.requested).is_some();
    if !named {
        assumptions.push(Assumption::ModelUnknown);
    }
    let (window_name, selection) = window_model(model, inputs);
    let model_name = window_name.as_str();
    let environment = &inputs.environment;
    if *environment != ThresholdEnvironment::default() {
        assumptions.push(Assumption::EnvironmentOfReport);
    }
    let status_line = inputs.status_line_window(model_name);
    let (model_tokens, reactive_only, model_source) = match (
        status_line,
        model_window(version_used, model_name, environment),
    ) {
        (Some(tokens), known) => (
            tokens,
            known.is_some_and(|(_, reactive)| reactive),
            WindowSource::StatusLine,
        ),
        (None, Some((tokens, reactive))) => (
            tokens,
            reactive,
            selection.map_or(WindowSource::Model, WindowSource::SelectedModel),
        ),
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
        model: named.then_some(window_name),
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
                model: None,
            }],
            ..ThresholdInputs::default()
        }
    }

    fn tokens(version: &str, model: &str, inputs: &ThresholdInputs) -> Option<u64> {
        rule_trigger(Some(version), RequestModel::api(Some(model)), None, inputs).tokens
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
                model: None,
            }],
            ..ThresholdInputs::default()
        };
        let rule = rule_trigger(
            Some("2.1.332"),
            RequestModel::api(Some("claude-opus-5-5")),
            None,
            &inputs,
        );
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
                    model: None,
                },
                SettingsWindows {
                    path: PathBuf::from("/p/.claude/settings.json"),
                    window: Some(Value::from(300_000)),
                    model_windows: Vec::new(),
                    model: None,
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
                model: None,
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
        let rule = rule_trigger(
            Some("2.1.42"),
            RequestModel::api(Some("claude-sonnet-4-5")),
            None,
            &none,
        );
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
        let rule = rule_trigger(
            Some("2.1.237"),
            RequestModel::api(Some("claude-nova-7")),
            None,
            &none,
        );
        assert_eq!(
            (rule.tokens, &rule.window.source),
            (None, &WindowSource::Unknown)
        );
        // The status line's window for that model gives one; for another model it does not.
        let status = ThresholdInputs {
            status_line_windows: vec![(500_000, "claude-nova-7".into())],
            ..ThresholdInputs::default()
        };
        let rule = rule_trigger(
            Some("2.1.237"),
            RequestModel::api(Some("claude-nova-7")),
            None,
            &status,
        );
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

    /// A session run with `--model 'claude-sonnet-4-5-20250929[1m]'`: the transcript's
    /// `message.model` has no `[1m]`; 2.1.332's `requestedModel` and the status line's id do.
    const API_NAME: &str = "claude-sonnet-4-5-20250929";
    const CLI_NAME: &str = "claude-sonnet-4-5-20250929[1m]";

    fn window_of(model: RequestModel<'_>, inputs: &ThresholdInputs) -> (u64, Option<u64>, String) {
        let rule = rule_trigger(Some("2.1.332"), model, None, inputs);
        (
            rule.window.tokens,
            rule.tokens,
            rule.window.source.to_string(),
        )
    }

    #[test]
    fn the_cli_s_own_name_of_a_request_decides_its_window() {
        // The project configures a window of 1,000,000: the CLI compacts the [1m] model at
        // 967,000 (its debug log: effectiveWindow=980000), the plain one at 167,000.
        let configured = inputs_with_setting(1_000_000);
        let million = RequestModel {
            api: Some(API_NAME),
            requested: Some(CLI_NAME),
        };
        assert_eq!(window_of(million, &configured).1, Some(967_000));
        let plain = RequestModel {
            api: Some(API_NAME),
            requested: Some(API_NAME),
        };
        assert_eq!(window_of(plain, &configured).1, Some(167_000));
        // Nothing configured: 2.1.332 compacts a [1m] model only on a refusal, at its window.
        assert_eq!(
            window_of(million, &ThresholdInputs::default()),
            (MILLION_WINDOW, None, "model".to_owned())
        );
        // A requested name of another model (the API answered with another) is not taken.
        let other = RequestModel {
            api: Some("claude-opus-4-6"),
            requested: Some(CLI_NAME),
        };
        assert_eq!(window_of(other, &configured).0, STANDARD_WINDOW);
    }

    #[test]
    fn the_status_line_s_window_applies_to_its_model_whatever_its_suffix() {
        // An older CLI writes no requestedModel: the status line's word decides, by model.
        let status = ThresholdInputs {
            status_line_windows: vec![(MILLION_WINDOW, CLI_NAME.to_owned())],
            ..inputs_with_setting(1_000_000)
        };
        let api_only = RequestModel::api(Some(API_NAME));
        assert_eq!(
            window_of(api_only, &status),
            (MILLION_WINDOW, Some(967_000), "status_line".to_owned())
        );
        // Undated and dated names of one model.
        let undated = ThresholdInputs {
            status_line_windows: vec![(MILLION_WINDOW, "claude-sonnet-4-5[1m]".to_owned())],
            ..inputs_with_setting(1_000_000)
        };
        assert_eq!(window_of(api_only, &undated).1, Some(967_000));
        // Not for another model.
        assert_eq!(
            window_of(RequestModel::api(Some("claude-sonnet-4-6")), &status).1,
            Some(167_000)
        );
        // A switch to the plain model, said by the CLI, is not given the [1m] window.
        let plain = RequestModel {
            api: Some(API_NAME),
            requested: Some(API_NAME),
        };
        assert_eq!(window_of(plain, &status).1, Some(167_000));
        // The status line's newest word on the model wins: a switch back to 200,000.
        let switched = ThresholdInputs {
            status_line_windows: vec![
                (MILLION_WINDOW, CLI_NAME.to_owned()),
                (STANDARD_WINDOW, API_NAME.to_owned()),
            ],
            ..inputs_with_setting(1_000_000)
        };
        assert_eq!(window_of(api_only, &switched).1, Some(167_000));
    }

    #[test]
    fn a_model_selected_in_settings_or_the_environment_is_evidence_where_nothing_else_says() {
        let with_model = |model: &str| ThresholdInputs {
            settings: vec![SettingsWindows {
                path: PathBuf::from("/home/me/.claude/settings.json"),
                window: Some(Value::from(1_000_000)),
                model_windows: Vec::new(),
                model: Some(model.to_owned()),
            }],
            ..ThresholdInputs::default()
        };
        let api_only = RequestModel::api(Some(API_NAME));
        for selected in [CLI_NAME, "sonnet[1m]", "claude-sonnet-4-5[1m]"] {
            assert_eq!(
                window_of(api_only, &with_model(selected)),
                (
                    MILLION_WINDOW,
                    Some(967_000),
                    "selected_model:settings:/home/me/.claude/settings.json#model".to_owned()
                ),
                "{selected}"
            );
        }
        // A selection of another model, or without [1m], says nothing of this one.
        for selected in ["opus[1m]", "sonnet", "claude-sonnet-4-6[1m]"] {
            assert_eq!(
                window_of(api_only, &with_model(selected)).1,
                Some(167_000),
                "{selected}"
            );
        }
        // The environment before the settings, as the CLI reads them.
        let mut both = with_model("sonnet");
        both.environment.model = Some("sonnet[1m]".to_owned());
        assert_eq!(
            window_of(api_only, &both).2,
            format!("selected_model:env:{MODEL_VARIABLE}")
        );
        // The CLI's own name beats a selection: the request says which window it had.
        let plain = RequestModel {
            api: Some(API_NAME),
            requested: Some(API_NAME),
        };
        assert_eq!(window_of(plain, &with_model(CLI_NAME)).1, Some(167_000));
    }

    #[test]
    fn an_unknown_version_or_model_is_said() {
        let rule = rule_trigger(
            None,
            RequestModel::default(),
            None,
            &ThresholdInputs::default(),
        );
        assert!(rule.assumptions.contains(&Assumption::ModelUnknown));
        assert!(matches!(
            rule.assumptions[0],
            Assumption::VersionUnknown { .. }
        ));
        let rule = rule_trigger(
            Some("2.1.200"),
            RequestModel::api(Some("claude-opus-4-6")),
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
            RequestModel::api(Some("claude-opus-5-5")),
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
        assert_eq!(environment.model, None);
        assert_eq!(environment.percent_override, None);
        assert!(!environment.disable_million_window);
    }
}
