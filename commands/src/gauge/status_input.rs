//! The JSON Claude Code pipes to a status line command, read leniently: only the fields the
//! segment needs, each taken when it has the type Claude Code writes and ignored otherwise.
//!
//! What 2.1.332 sends (captured from the pinned CLI, run interactively in tmux with a status
//! line command that logged its stdin; `tests/fixtures/cli-captures/statusline/`): `session_id`,
//! `transcript_path`, `cwd`, `model {id, display_name}`, `workspace {current_dir, project_dir,
//! added_dirs}`, `version`, `output_style`, `cost`, `context_window {total_input_tokens,
//! total_output_tokens, context_window_size, current_usage {input_tokens, output_tokens,
//! cache_creation_input_tokens, cache_read_input_tokens} | null, used_percentage,
//! remaining_percentage}`, `exceeds_200k_tokens`, `prompt_cache`, `fast_mode`, `thinking`,
//! `effort`, `prompt_id`. `context_window_size` is the model's window (1,000,000 for the
//! default model even with `autoCompactWindow: 200000`), and `used_percentage` is measured
//! against it, not against the auto-compact trigger; `current_usage` is `null` before the first
//! response of a process, and all zeros after an interactive `/compact` until the next response.

use std::io::BufReader;
use std::time::{Duration, Instant};

use anyhow::Result;
use serde::Deserialize;
use serde::de::MapAccess;
use serde_json::Value;

use ctxhooks_shared::hook::payload::read_first_object;
use ctxhooks_shared::lenient::{Field, Lenient, Text, struct_from_map};
use ctxhooks_shared::model_name;
use ctxhooks_shared::platform::stdin::DeadlineStdin;

/// What the segment uses of the status line's JSON.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusInput {
    /// `session_id`.
    pub session_id: Option<String>,
    /// `model.id`, with `[1m]` when `model.display_name` says `(1M context)` and the id does
    /// not: the model and its window as the CLI names them.
    pub model: Option<String>,
    /// `transcript_path`.
    pub transcript_path: Option<String>,
    /// `version`: the Claude Code version.
    pub version: Option<String>,
    /// `workspace.project_dir`, else `cwd`: where the project's settings are.
    pub project_dir: Option<String>,
    /// `context_window.current_usage`: input + cache write + cache read of the latest response,
    /// when Claude Code sent one.
    pub context_tokens: Option<u64>,
    /// `context_window.context_window_size`: the model's window.
    pub model_window: Option<u64>,
    /// `session_name`: the session's name, when it has one (2.1.332 sends the name a person
    /// gave it, `/rename` or `--name`).
    pub session_name: Option<String>,
}

impl StatusInput {
    /// Parses the bytes of one JSON object: straight into the few fields the segment reads
    /// (everything else is skipped unread, and a field of another type is set aside), and only
    /// when the bytes are no such object for serde (a key written twice), through a generic JSON
    /// value. `None` when they are no JSON object (the status line then shows less).
    pub fn parse(bytes: &[u8]) -> Option<Self> {
        if bytes.trim_ascii_start().first() != Some(&b'{') {
            return None;
        }
        if let Ok(typed) = serde_json::from_slice::<Typed<'_>>(bytes) {
            return Some(typed.into_input());
        }
        let value: Value = serde_json::from_slice(bytes).ok()?;
        Typed::deserialize(&value).ok().map(Typed::into_input)
    }
}

/// The status line's JSON as Claude Code writes it: only the fields the segment reads, each a
/// [`Field`] (a leaf of another type is set aside, not fatal).
#[derive(Debug, Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'input"))]
struct Typed<'input> {
    session_id: Text<'input>,
    transcript_path: Text<'input>,
    session_name: Text<'input>,
    version: Text<'input>,
    cwd: Text<'input>,
    model: Field<Object<TypedModel<'input>>>,
    workspace: Field<Object<TypedWorkspace<'input>>>,
    context_window: Field<Object<TypedWindow>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'input"))]
struct TypedModel<'input> {
    id: Text<'input>,
    display_name: Text<'input>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'input"))]
struct TypedWorkspace<'input> {
    project_dir: Text<'input>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct TypedWindow {
    context_window_size: Field<u64>,
    current_usage: Field<Object<TypedUsage>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
#[expect(
    clippy::struct_field_names,
    reason = "the names are Claude Code's JSON keys"
)]
struct TypedUsage {
    input_tokens: Field<u64>,
    cache_creation_input_tokens: Field<u64>,
    cache_read_input_tokens: Field<u64>,
}

/// A nested object, read into its fields; one of another type is set aside.
#[derive(Debug, Default)]
struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Lenient<'de> for Object<T> {
    const EXPECTED: &'static str = "an object";

    fn from_map<A: MapAccess<'de>>(map: A) -> Result<Option<Self>, A::Error> {
        Ok(struct_from_map(map)?.map(Self))
    }
}

impl Typed<'_> {
    fn into_input(self) -> StatusInput {
        let owned = |text: &Text<'_>| text.non_empty().map(ToOwned::to_owned);
        let window = self.context_window.get().map(|window| &window.0);
        // The sum of the counts that are there (saturating); none when none is, or when all are
        // 0: after an interactive `/compact`, 2.1.332 sends a `current_usage` of zeros until the
        // next response (seen in the end-to-end test), and a context is never 0.
        let usage = window.and_then(|window| window.current_usage.get().map(|usage| &usage.0));
        let context_tokens = usage.and_then(|usage| {
            let counts = [
                &usage.input_tokens,
                &usage.cache_creation_input_tokens,
                &usage.cache_read_input_tokens,
            ];
            let present = counts.into_iter().filter_map(Field::get);
            let sum = present.fold(0u64, |sum, count| sum.saturating_add(*count));
            (sum > 0).then_some(sum)
        });
        StatusInput {
            session_id: owned(&self.session_id),
            model: self.model.get().and_then(|model| {
                let id = model.0.id.non_empty()?;
                let million = model
                    .0
                    .display_name
                    .non_empty()
                    .is_some_and(model_name::display_says_million);
                Some(if million && !model_name::selects_million(id) {
                    model_name::with_million(id)
                } else {
                    id.to_owned()
                })
            }),
            transcript_path: owned(&self.transcript_path),
            version: owned(&self.version),
            project_dir: self
                .workspace
                .get()
                .and_then(|workspace| owned(&workspace.0.project_dir))
                .or_else(|| owned(&self.cwd)),
            context_tokens,
            model_window: window
                .and_then(|window| window.context_window_size.get().copied())
                .filter(|size| *size > 0),
            session_name: owned(&self.session_name),
        }
    }
}

/// How long the status line waits for its JSON. Claude Code writes it at once; a pipe that
/// never delivers a whole object must not hold the status line up.
pub const DEFAULT_STDIN_WAIT: Duration = Duration::from_secs(1);

/// Reads the first JSON object on stdin, waiting at most `wait` in all (`platform/stdin.rs`:
/// nothing blocks past the deadline).
pub fn read_stdin_object(wait: Duration) -> Result<Vec<u8>> {
    let deadline = Instant::now() + wait;
    // 4 KiB: Claude Code's JSON is 1-4 KiB, and the buffer is zeroed before its first read.
    let reader = BufReader::with_capacity(4 * 1024, DeadlineStdin::new(deadline));
    Ok(read_first_object(reader, |_| {})?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_are_read_leniently() {
        let input = StatusInput::parse(
            br#"{"session_id":"s1","model":{"id":"claude-opus-5-5"},"version":"2.1.332",
               "cwd":"/p","workspace":{"project_dir":"/root"},
               "context_window":{"context_window_size":1000000,
                 "current_usage":{"input_tokens":3,"output_tokens":40,
                   "cache_creation_input_tokens":500,"cache_read_input_tokens":142000}}}"#,
        )
        .unwrap();
        assert_eq!(input.session_id.as_deref(), Some("s1"));
        assert_eq!(input.project_dir.as_deref(), Some("/root"));
        assert_eq!(input.context_tokens, Some(142_503));
        assert_eq!(input.model_window, Some(1_000_000));
        let odd = StatusInput::parse(
            br#"{"session_id":7,"model":"x","context_window":{"current_usage":null}}"#,
        )
        .unwrap();
        assert_eq!(odd, StatusInput::default());
        // One odd leaf costs only itself, on either path.
        let leaf = StatusInput::parse(
            br#"{"session_id":"s2","version":2,"context_window":{"current_usage":{"input_tokens":"3","cache_read_input_tokens":10}}}"#,
        )
        .unwrap();
        assert_eq!(
            (
                leaf.session_id.as_deref(),
                leaf.version,
                leaf.context_tokens
            ),
            (Some("s2"), None, Some(10))
        );
        let zeros = StatusInput::parse(
            br#"{"context_window":{"current_usage":{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}"#,
        )
        .unwrap();
        assert_eq!(zeros.context_tokens, None);
        let nested = StatusInput::parse(br#"{"session_id":"s3","model":"x","cwd":"/p"}"#).unwrap();
        assert_eq!(
            (nested.session_id.as_deref(), nested.project_dir.as_deref()),
            (Some("s3"), Some("/p"))
        );
        assert!(StatusInput::parse(b"[1]").is_none());
    }

    #[test]
    fn a_million_window_is_read_from_the_id_or_the_display_name() {
        // As 2.1.332 writes it for `--model 'claude-sonnet-4-5-20250929[1m]'`.
        let model = |json: &str| StatusInput::parse(json.as_bytes()).unwrap().model;
        assert_eq!(
            model(
                r#"{"model":{"id":"claude-sonnet-4-5-20250929[1m]","display_name":"Sonnet 4.5 (1M context)"}}"#
            )
            .as_deref(),
            Some("claude-sonnet-4-5-20250929[1m]")
        );
        // A display name that says 1M where the id does not.
        assert_eq!(
            model(
                r#"{"model":{"id":"claude-sonnet-4-5","display_name":"Sonnet 4.5 (1M context)"}}"#
            )
            .as_deref(),
            Some("claude-sonnet-4-5[1m]")
        );
        assert_eq!(
            model(r#"{"model":{"id":"claude-opus-5","display_name":"Opus 5"}}"#).as_deref(),
            Some("claude-opus-5")
        );
    }
}
