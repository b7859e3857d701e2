//! Keeping one session's gauge (`store/gauge.rs`) up to date after each usage ingest of its main
//! transcript, in constant time: the context and compactions the ingest counted
//! ([`ChainGauge`]), the trigger T by Claude Code's own rule (`threshold.rs`) for the session's
//! version, model, window settings and environment (the hook runs in Claude Code's), and, for
//! the Stop hook, the one warning when a turn takes the context past a share of T.

use std::path::PathBuf;

use chrono::{SecondsFormat, Utc};

use crate::notes::Notes;
use crate::store::env_vars;
use crate::store::files;
use crate::store::gauge::{
    GAUGE_SCHEMA, Gauge, GaugeError, TriggerBasis, TriggerDerivation, percent_and_room,
};
use crate::store::session_id::SessionId;
use crate::store::state_dir::{StateDir, claude_config_dir};
use crate::store::status_window::StatusWindow;
use crate::transcript::file::TranscriptFile;
use crate::transcript::origin::Origin;
use crate::usage::ingest::ChainGauge;
use crate::usage::log::{IngestError, IngestOptions, IngestOutcome, ingest_transcript_then};
use crate::usage::threshold::{
    SettingsWindows, ThresholdEnvironment, ThresholdInputs, rule_trigger,
};

/// What a hook's gauge work notes and goes past (each variant's words are the ones a person
/// reads).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GaugeProblem {
    /// `CTXHOOKS_WARN_AT` says no share: the default holds.
    #[error(
        "`{}={}` is not a percentage from 1 to 100 or `off`; warning at {}% of the trigger",
        env_vars::CTXHOOKS_WARN_AT,
        .value.escape_debug(),
        DEFAULT_WARN_AT_PERCENT
    )]
    WarnAt {
        /// The variable's value, trimmed.
        value: String,
    },
    /// The gauge could not be brought up to date after an ingest that went well.
    #[error("failed to update the session's gauge")]
    Update(#[source] GaugeError),
}

/// The share of T at which the Stop hook warns unless `CTXHOOKS_WARN_AT` says otherwise.
pub const DEFAULT_WARN_AT_PERCENT: u8 = 90;

/// Which hook updates the gauge: only the Stop hook (the main agent finished its turn, the
/// person is looking) may warn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GaugeRole {
    /// `Stop`: may warn.
    Stop,
    /// `SubagentStop` or `PreCompact`: updates the numbers, never warns, and leaves a pending
    /// warning for the next Stop.
    Quiet,
}

/// The warning share from `CTXHOOKS_WARN_AT`: a percentage of T from 1 to 100 (`90`, `90%`),
/// `off` (or `0`) for no warning; unset means [`DEFAULT_WARN_AT_PERCENT`]. Any other value is a
/// problem to note, and the default holds.
pub fn warn_at_from(value: Option<&str>) -> (Option<u8>, Option<GaugeProblem>) {
    let Some(value) = value.map(str::trim).filter(|value| !value.is_empty()) else {
        return (Some(DEFAULT_WARN_AT_PERCENT), None);
    };
    if value.eq_ignore_ascii_case("off") || value == "0" {
        return (None, None);
    }
    match value.trim_end_matches('%').trim().parse::<u8>() {
        Ok(percent) if (1..=100).contains(&percent) => (Some(percent), None),
        _ => (
            Some(DEFAULT_WARN_AT_PERCENT),
            Some(GaugeProblem::WarnAt {
                value: value.to_owned(),
            }),
        ),
    }
}

/// What the hook knows besides the ingest's counts.
#[derive(Debug, Clone)]
#[allow(missing_docs, reason = "plain fields, named for what they hold")]
pub struct GaugeInputs {
    /// The session's project folder, where its `.claude/settings*.json` are
    /// (`CLAUDE_PROJECT_DIR`, else the payload's `cwd`).
    pub project_dir: Option<PathBuf>,
    /// The warning share, in percent of T; `None`: no warning.
    pub warn_at_percent: Option<u8>,
    pub role: GaugeRole,
    /// Claude Code's configuration folder, for the user settings' window.
    pub user_config_dir: Option<PathBuf>,
    /// The rule's environment variables (the hook's are Claude Code's own).
    pub environment: ThresholdEnvironment,
    /// The model's window the status line gave for the session (`window.json`), with its model.
    pub status_line_windows: Vec<(u64, String)>,
}

impl GaugeInputs {
    /// The inputs of a hook run: the project from `CLAUDE_PROJECT_DIR` (Claude Code sets it for
    /// hooks; the payload's `cwd` follows `cd`s) or `cwd`, and the warning share from
    /// `CTXHOOKS_WARN_AT` (a value that is none is returned as a problem to note).
    pub fn of_hook(cwd: Option<&str>, role: GaugeRole) -> (Self, Option<GaugeProblem>) {
        let project_dir = env_vars::non_empty(env_vars::CLAUDE_PROJECT_DIR)
            .map(PathBuf::from)
            .or_else(|| cwd.filter(|cwd| !cwd.is_empty()).map(PathBuf::from));
        let setting = std::env::var(env_vars::CTXHOOKS_WARN_AT).ok();
        let (warn_at_percent, problem) = warn_at_from(setting.as_deref());
        (
            Self {
                project_dir,
                warn_at_percent,
                role,
                user_config_dir: claude_config_dir().ok(),
                environment: ThresholdEnvironment::of_process(),
                status_line_windows: Vec::new(),
            },
            problem,
        )
    }
}

/// A warning to show: the context went past the share of T in this turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Crossing {
    /// The gauge as written.
    pub gauge: Gauge,
}

impl Crossing {
    /// The message the person sees (the Stop hook's `systemMessage`).
    pub fn message(&self) -> String {
        let gauge = &self.gauge;
        let tokens = |value: Option<u64>| value.map_or_else(|| "?".to_owned(), short_tokens);
        let left = gauge.room_left.map_or_else(
            || "?".to_owned(),
            |left| {
                let side = if left < 0 { "past it" } else { "left" };
                format!("{} {side}", short_tokens(left.unsigned_abs()))
            },
        );
        format!(
            "ctxhooks: context is at {}% of the auto-compact trigger ({} of {} tokens, {left}). \
             Claude Code compacts when it reaches the trigger; `/compact <what to keep>` now \
             lets you choose what the summary keeps.",
            gauge.percent.map_or_else(|| "?".to_owned(), whole_percent),
            tokens(gauge.context_tokens),
            tokens(gauge.trigger_tokens),
        )
    }

    /// The Stop hook's answer: `{"systemMessage": "..."}`.
    pub fn answer(&self) -> Result<Vec<u8>, serde_json::Error> {
        serde_json::to_vec(&serde_json::json!({ "systemMessage": self.message() }))
    }
}

/// A percentage for people, rounded down: `99.9` is `99`, never `100` before T is reached.
pub fn whole_percent(percent: f64) -> String {
    format!("{:.0}", percent.floor())
}

/// Tokens for people: `950`, `24k`, `142k`, `1.2M`, rounded down (a gauge never overstates).
pub fn short_tokens(tokens: u64) -> String {
    let (millions, tenths) = (tokens / 1_000_000, tokens / 100_000 % 10);
    match tokens {
        ..1_000 => tokens.to_string(),
        1_000..1_000_000 => format!("{}k", tokens / 1_000),
        _ if tenths == 0 => format!("{millions}M"),
        _ => format!("{millions}.{tenths}M"),
    }
}

/// The gauge of `chain` (the main transcript `transcript` of `session`), with T by the rule.
pub fn compute(
    session: &SessionId,
    transcript: &str,
    chain: &ChainGauge,
    inputs: &GaugeInputs,
) -> Gauge {
    let (context_tokens, context_time, after_compaction) =
        match (&chain.compacted_since, &chain.latest) {
            (Some(compacted), _) => (compacted.post_tokens, compacted.time.clone(), true),
            (None, Some(latest)) => (Some(latest.context_tokens), latest.time.clone(), false),
            (None, None) => (None, None, false),
        };
    let (trigger_tokens, trigger) = trigger_of(chain, inputs);
    let (percent, room_left) = percent_and_room(context_tokens, trigger_tokens);
    Gauge {
        schema: GAUGE_SCHEMA,
        session_id: session.to_string(),
        transcript: transcript.to_owned(),
        updated_at: Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
        percent,
        room_left,
        context_tokens,
        context_time,
        after_compaction,
        trigger_tokens,
        trigger,
        compactions: chain.compactions,
        compaction_pending: false,
        warn_at_percent: inputs.warn_at_percent,
        warned: false,
        title: chain.title.clone(),
    }
}

/// T for the chain's latest request: the rule, else the last automatic compaction's count.
fn trigger_of(chain: &ChainGauge, inputs: &GaugeInputs) -> (Option<u64>, TriggerBasis) {
    let Some(latest) = &chain.latest else {
        return (None, TriggerBasis::default());
    };
    let threshold = ThresholdInputs {
        status_line_windows: inputs.status_line_windows.clone(),
        environment: inputs.environment.clone(),
        settings: SettingsWindows::find(
            inputs.project_dir.as_deref(),
            inputs.user_config_dir.as_deref(),
        ),
        ..ThresholdInputs::default()
    };
    let rule = rule_trigger(
        latest.version.as_deref(),
        latest.request_model(),
        latest.max_output_tokens,
        &threshold,
    );
    // As the report does (the commands crate's `usage/estimates.rs`): a context at or above the rule's T that
    // the CLI checked without compacting contradicts the rule; T is then what the evidence
    // allows, never the rule's.
    let reached = chain.reached_for(latest.request_model().as_named());
    let (tokens, derivation) = match (rule.tokens, chain.last_automatic_pre_tokens) {
        (Some(tokens), observed) if reached.is_some_and(|reached| reached >= tokens) => {
            let reached = reached.unwrap_or(tokens);
            (
                observed
                    .filter(|observed| *observed > reached)
                    .map(|observed| reached + (observed - reached) / 2),
                TriggerDerivation::RuleContradicted,
            )
        }
        (Some(tokens), _) => (Some(tokens), TriggerDerivation::Rule),
        (None, Some(observed)) => (Some(observed), TriggerDerivation::Observed),
        (None, None) => (None, TriggerDerivation::None),
    };
    (
        tokens,
        TriggerBasis {
            derivation,
            window_tokens: Some(rule.window.tokens),
            window_source: Some(rule.window.source.to_string()),
            model: rule.model,
            version: latest.version.clone(),
        },
    )
}

/// What one ingest with its gauge update found.
#[derive(Debug, Clone, PartialEq)]
pub struct GaugedIngest {
    /// The crossing to warn about, if this run saw one.
    pub crossing: Option<Crossing>,
    /// What the ingest did.
    pub outcome: IngestOutcome,
}

/// Counts a compaction Claude Code reported (`PostCompact`) whose boundary the transcript does not
/// hold yet, in the session's gauge (when it has one), under the session's usage lock: the status
/// line shows it at once, and the next ingest that reads the boundary makes the gauge exact.
pub fn mark_compaction_pending(state: &StateDir, session: &SessionId) -> Result<(), GaugeError> {
    let lock = files::open_lock_file(&state.usage_lock(session))?;
    files::lock_within(lock.file(), std::time::Duration::from_secs(2))?;
    let path = state.gauge_file(session);
    let result = Gauge::read(&path).and_then(|gauge| match gauge {
        Some(mut gauge) if !gauge.compaction_pending => {
            gauge.mark_compaction_pending(gauge.compactions);
            gauge.updated_at = Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true);
            gauge.write(&path)
        }
        _ => Ok(()),
    });
    let _ = lock.file().unlock();
    result
}

/// The usage ingest of a hook run ([`ingest_transcript_then`]) of a main transcript, then, under
/// the same lock, its gauge: what the ingest skipped and what the gauge could not do go to
/// `notes`; only a failed ingest is an error. With `options.expected_text` (the turn's
/// last response), the result says whether this run read it.
pub fn log_usage_and_gauge(
    state: &StateDir,
    notes: &dyn Notes,
    session: &SessionId,
    transcript: &mut TranscriptFile,
    inputs: &GaugeInputs,
    options: IngestOptions<'_>,
) -> Result<GaugedIngest, IngestError> {
    let origin = &Origin::from_file_name(transcript.path());
    let (outcome, gauge) = ingest_transcript_then(
        state,
        notes,
        session,
        transcript,
        origin,
        options,
        |outcome: &IngestOutcome| {
            outcome.gauge.as_ref().map(|chain| {
                if outcome.moved {
                    update_gauge(state, session, &origin.transcript, chain, inputs)
                } else {
                    // Nothing new: the gauge says all there is, but a crossing a sub-agent's stop
                    // saw may still wait for this Stop's warning.
                    deliver_waiting_warning(state, session, chain, inputs, &origin.transcript)
                }
            })
        },
    )?;
    let crossing = gauge.and_then(|gauge| {
        gauge.unwrap_or_else(|error| {
            notes.note(Box::new(GaugeProblem::Update(error)));
            None
        })
    });
    Ok(GaugedIngest { crossing, outcome })
}

/// With nothing new read: the warning a Stop owes for a crossing `SubagentStop` or `PreCompact`
/// saw first (the gauge at or past the share, not warned); the gauge is otherwise left as it is,
/// unless there is none yet.
fn deliver_waiting_warning(
    state: &StateDir,
    session: &SessionId,
    chain: &ChainGauge,
    inputs: &GaugeInputs,
    transcript: &str,
) -> Result<Option<Crossing>, GaugeError> {
    let path = state.gauge_file(session);
    let Some(mut gauge) = Gauge::read(&path)? else {
        return update_gauge(state, session, transcript, chain, inputs);
    };
    let above = at_or_above(gauge.percent, inputs.warn_at_percent);
    if inputs.role != GaugeRole::Stop || gauge.warned || !above {
        return Ok(None);
    }
    gauge.warned = true;
    gauge.warn_at_percent = inputs.warn_at_percent;
    gauge.updated_at = Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true);
    gauge.write(&path)?;
    Ok(Some(Crossing { gauge }))
}

/// Returns true if and only if both are known and `percent` is at or past the warning `share`.
fn at_or_above(percent: Option<f64>, share: Option<u8>) -> bool {
    percent
        .zip(share)
        .is_some_and(|(percent, share)| percent >= f64::from(share))
}

/// Brings the session's gauge up to date from `chain` and returns the crossing to warn about, if
/// this run (a Stop) is the first to see the context at or past the warning share since it was
/// last below it. Runs under the session's usage lock, so the warning is given once. A gauge
/// file that cannot be read (a folder or FIFO in its place) is an error, and nothing is written.
pub fn update_gauge(
    state: &StateDir,
    session: &SessionId,
    transcript: &str,
    chain: &ChainGauge,
    inputs: &GaugeInputs,
) -> Result<Option<Crossing>, GaugeError> {
    // The window the status line recorded for the session (`window.json`, one small read).
    let mut inputs = inputs.clone();
    if inputs.status_line_windows.is_empty() {
        inputs.status_line_windows = StatusWindow::read(&state.status_window_file(session))
            .map(|window| window.evidence())
            .unwrap_or_default();
    }
    let path = state.gauge_file(session);
    // A gauge that is not one (an older schema, garbage) is replaced; a folder or FIFO where it
    // belongs is refused.
    let previous = match Gauge::read(&path) {
        Ok(previous) => previous,
        Err(_) if path.is_file() => None,
        Err(error) => return Err(error),
    };
    let mut gauge = compute(session, transcript, chain, &inputs);
    // A compaction PostCompact reported stays counted until its boundary is read; the context
    // it left is unknown meanwhile, so there is nothing to warn about.
    if let Some(previous) = previous.as_ref().filter(|previous| {
        previous.compaction_pending
            && previous.transcript == gauge.transcript
            && chain.compactions < previous.compactions
    }) {
        gauge.mark_compaction_pending(previous.compactions - 1);
        if !previous.same_as(&gauge) {
            gauge.write(&path)?;
        }
        return Ok(None);
    }
    let warned_before = previous
        .as_ref()
        .is_some_and(|previous| previous.warned && previous.transcript == gauge.transcript);
    let above = at_or_above(gauge.percent, gauge.warn_at_percent);
    // The first Stop at or past the share warns; the warning holds until the context falls.
    let crossing = above && !warned_before && inputs.role == GaugeRole::Stop;
    gauge.warned = crossing || (above && warned_before);
    if previous
        .as_ref()
        .is_none_or(|previous| !previous.same_as(&gauge))
    {
        gauge.write(&path)?;
    }
    Ok(crossing.then_some(Crossing { gauge }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempFolder;
    use crate::usage::ingest::{CompactedSince, LatestRequest};

    fn chain(context: u64) -> ChainGauge {
        ChainGauge {
            compactions: 1,
            last_automatic_pre_tokens: None,
            latest: Some(LatestRequest {
                time: Some("2026-12-01T00:00:00.000Z".into()),
                context_tokens: context,
                model: Some("claude-opus-4-6".into()),
                version: Some("2.1.332".into()),
                ..LatestRequest::default()
            }),
            compacted_since: None,
            ..ChainGauge::default()
        }
    }

    fn inputs(role: GaugeRole) -> GaugeInputs {
        GaugeInputs {
            project_dir: None,
            warn_at_percent: Some(90),
            role,
            user_config_dir: None,
            environment: ThresholdEnvironment::default(),
            status_line_windows: Vec::new(),
        }
    }

    #[test]
    fn the_warning_share_is_read_with_its_limits() {
        assert_eq!(warn_at_from(None).0, Some(90));
        assert_eq!(warn_at_from(Some("85")).0, Some(85));
        assert_eq!(warn_at_from(Some(" 75% ")).0, Some(75));
        assert_eq!(warn_at_from(Some("off")).0, None);
        assert_eq!(warn_at_from(Some("0")).0, None);
        let (share, problem) = warn_at_from(Some(" 150\t"));
        assert_eq!(share, Some(90));
        assert_eq!(
            problem.map(|problem| problem.to_string()).as_deref(),
            Some(
                "`CTXHOOKS_WARN_AT=150` is not a percentage from 1 to 100 or `off`; warning at \
                 90% of the trigger"
            )
        );
        let (_, problem) = warn_at_from(Some("9\"0"));
        assert!(
            problem.is_some_and(|problem| problem
                .to_string()
                .starts_with("`CTXHOOKS_WARN_AT=9\\\"0`"))
        );
    }

    #[test]
    fn tokens_are_short_for_people() {
        assert_eq!(short_tokens(950), "950");
        assert_eq!(short_tokens(24_497), "24k");
        assert_eq!(short_tokens(142_503), "142k");
        assert_eq!(short_tokens(967_000), "967k");
        assert_eq!(short_tokens(999_600), "999k");
        assert_eq!(short_tokens(1_000_000), "1M");
        assert_eq!(short_tokens(1_250_000), "1.2M");
    }

    #[test]
    fn one_warning_per_crossing_and_again_after_a_fall() {
        let temp = TempFolder::new("gauge-hook");
        let state = StateDir::at(temp.path().to_path_buf());
        let session = SessionId::parse("s1").unwrap();
        state.ensure_session_dir(&session).unwrap();
        let update = |context: u64, role| {
            update_gauge(&state, &session, "/t.jsonl", &chain(context), &inputs(role)).unwrap()
        };
        // 167,000 is T for claude-opus-4-6 under 2.1.332 (200k window).
        assert_eq!(update(100_000, GaugeRole::Stop), None);
        // A sub-agent's stop sees the crossing first: it leaves the warning to the next Stop.
        assert_eq!(update(151_000, GaugeRole::Quiet), None);
        let crossing = update(152_000, GaugeRole::Stop).expect("the crossing warns");
        assert_eq!(crossing.gauge.percent, Some(91.0));
        assert!(
            crossing
                .message()
                .contains("91% of the auto-compact trigger")
        );
        assert!(crossing.message().contains("152k of 167k tokens, 15k left"));
        assert_eq!(update(160_000, GaugeRole::Stop), None);
        assert_eq!(update(30_000, GaugeRole::Quiet), None);
        assert!(update(155_000, GaugeRole::Stop).is_some());
        let gauge = Gauge::read(&state.gauge_file(&session)).unwrap().unwrap();
        assert_eq!(
            (gauge.trigger_tokens, gauge.room_left, gauge.warned),
            (Some(167_000), Some(12_000), true)
        );
    }

    /// A main-chain usage row of `claude-opus-4-6` with this context.
    fn request(context: u64) -> crate::store::usage_record::UsageRow {
        crate::store::usage_record::UsageRow {
            time: Some("2026-12-01T00:00:00.000Z".into()),
            transcript: "/t.jsonl".into(),
            key: format!("k{context}"),
            model: Some("claude-opus-4-6".into()),
            tokens: crate::store::usage_record::TokenUsage {
                input_tokens: context,
                output_tokens: 1,
                ..Default::default()
            },
            context_tokens: context,
            facts: crate::store::usage_record::RequestFacts {
                version: Some("2.1.332".into()),
                ..crate::store::usage_record::RequestFacts::default()
            },
            ..crate::store::usage_record::UsageRow::default()
        }
    }

    #[test]
    fn a_context_past_t_without_compaction_contradicts_the_rule_as_in_the_report() {
        // claude-opus-4-6 under 2.1.332: the rule's T is 167,000. The session went on from
        // 300,000 without compacting: the gauge must not say that compaction is near.
        let session = SessionId::parse("s1").unwrap();
        let mut chain = ChainGauge::default();
        for context in [150_000, 300_000, 310_000] {
            chain.count_request(&request(context));
        }
        assert_eq!(chain.reached_for(Some("claude-opus-4-6")), Some(300_000));
        let gauge = compute(&session, "/t.jsonl", &chain, &inputs(GaugeRole::Stop));
        assert_eq!(
            (
                gauge.trigger.derivation,
                gauge.trigger_tokens,
                gauge.percent
            ),
            (TriggerDerivation::RuleContradicted, None, None)
        );
        // An automatic compaction above what was reached bounds T: the middle of the two.
        chain.last_automatic_pre_tokens = Some(500_000);
        let gauge = compute(&session, "/t.jsonl", &chain, &inputs(GaugeRole::Stop));
        assert_eq!(gauge.trigger_tokens, Some(400_000));
        // A compaction between two requests, or a fall, is no check without compaction.
        let mut compacted = ChainGauge::default();
        compacted.count_request(&request(170_000));
        compacted.count(&crate::store::usage_record::UsageRecord::CompactBoundary(
            crate::store::usage_record::BoundaryRow {
                transcript: "/t.jsonl".into(),
                sidechain: false,
                agent_id: None,
                boundary: crate::store::usage_record::Boundary {
                    uuid: Some("b".into()),
                    trigger: Some(crate::store::trigger::Trigger::Auto),
                    pre_tokens: Some(170_000),
                    post_tokens: Some(20_000),
                    ..Default::default()
                },
            },
        ));
        compacted.count_request(&request(180_000));
        compacted.count_request(&request(90_000));
        assert_eq!(compacted.reached_for(Some("claude-opus-4-6")), None);
        let gauge = compute(&session, "/t.jsonl", &compacted, &inputs(GaugeRole::Stop));
        assert_eq!(
            (gauge.trigger.derivation, gauge.trigger_tokens),
            (TriggerDerivation::Rule, Some(167_000))
        );
    }

    #[test]
    fn after_a_compaction_the_gauge_shows_what_it_left() {
        let mut compacted = chain(160_000);
        compacted.compactions = 2;
        compacted.compacted_since = Some(CompactedSince {
            time: Some("2026-12-01T00:01:00.000Z".into()),
            post_tokens: Some(12_000),
        });
        let session = SessionId::parse("s1").unwrap();
        let gauge = compute(&session, "/t.jsonl", &compacted, &inputs(GaugeRole::Stop));
        assert_eq!(
            (
                gauge.context_tokens,
                gauge.after_compaction,
                gauge.compactions
            ),
            (Some(12_000), true, 2)
        );
        let reactive = ChainGauge {
            last_automatic_pre_tokens: Some(185_000),
            latest: Some(LatestRequest {
                model: Some("claude-sonnet-4-5".into()),
                ..chain(100_000).latest.unwrap()
            }),
            ..ChainGauge::default()
        };
        let gauge = compute(&session, "/t.jsonl", &reactive, &inputs(GaugeRole::Stop));
        assert_eq!(
            (gauge.trigger_tokens, gauge.trigger.derivation),
            (Some(185_000), TriggerDerivation::Observed)
        );
    }
}
