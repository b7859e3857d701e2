//! One session of the history: the report `ctxhooks report` would give for its transcripts
//! (read into one log by `projects/session.rs`), summarized.

use std::collections::BTreeMap;

use chrono::NaiveDate;

use serde::Serialize;

use crate::facts::compactions::Compaction;
use crate::facts::drops::{Basis, Confidence};
use crate::facts::estimates::{Derivation, ratio};
use crate::facts::log::SessionLog;
use crate::facts::report::{Peak, ReportOptions, SessionReport, build_report};
use crate::facts::tally::Tally;
use crate::projects::cache::Cache;
use crate::projects::discover::{Problem, SessionFiles};
use crate::projects::session::{LoadedSession, TranscriptSummary, load_session};
use crate::projects::window::TimeWindow;
use crate::time::Time;
use ctxhooks_shared::store::trigger::Trigger;
use ctxhooks_shared::store::usage_record::SourceRow;

/// What the history says about one session: the report's facts, summarized.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionSummary {
    pub session_id: String,
    pub project: String,
    /// The projects folder it was found in.
    pub projects_folder: String,
    /// The folder it ran in: the last folder the CLI moved it to (a `relocated` record), else
    /// the first `cwd` its main transcript names.
    pub cwd: Option<String>,
    /// Its title: the name a person gave it (`/rename`), else the CLI's own title.
    pub title: Option<String>,
    /// The kind of session the CLI wrote (`bg` for a background session), when it wrote one.
    pub session_kind: Option<String>,
    /// What started the CLI (`cli`, `claude-desktop`, `sdk-cli`, `sdk-ts`, ...), when written.
    pub entrypoint: Option<String>,
    /// The CLI version of its latest main-chain request.
    pub version: Option<String>,
    pub transcripts: Vec<TranscriptSummary>,
    /// The time of its first request.
    pub first_time: Option<Time>,
    /// The time of its last request.
    pub last_time: Option<Time>,
    /// Its requests and their tokens, its compactions, and whether it ran near its trigger.
    #[serde(flatten)]
    pub tally: Tally,
    /// The largest main-chain context.
    pub peak: Option<Peak>,
    /// Compactions by what they rest on.
    pub compaction_counts: CompactionCounts,
    /// Every compaction, in order.
    pub compactions: Vec<CompactionMark>,
    /// Drops (falls of at least the report's minimum).
    pub drops: usize,
    /// Drops per class (the report's classes).
    pub drops_by_class: BTreeMap<&'static str, usize>,
    /// Drops per basis (`structural`, `heuristic`, `none`).
    pub drops_by_basis: BTreeMap<&'static str, usize>,
    /// T, when the report has one.
    pub trigger: Option<u64>,
    /// How T was derived.
    pub trigger_derivation: Derivation,
    /// The cap W.
    pub cap: u64,
    /// Where the cap came from.
    pub cap_source: String,
    /// The floor (median context right after trustworthy compactions).
    pub floor: Option<u64>,
    /// T − floor.
    pub headroom: Option<i64>,
    /// Peak / T: how close the session ran to the trigger.
    pub peak_to_trigger: Option<f64>,
    /// Tokens added per main-chain request that added some (mean), over the whole session.
    pub growth_per_request: Option<f64>,
    /// The context added by main-chain requests that added some, in total.
    pub growth_tokens: u64,
    /// How many main-chain requests added context.
    pub growth_steps: u64,
    /// The report's warning kinds, in order.
    pub warnings: Vec<&'static str>,
    /// Lines that could not be read, over the session's transcripts.
    pub unreadable_lines: u64,
    /// Lines longer than the reader's limit, over the session's transcripts.
    pub overlong_lines: u64,
}

/// Compactions by what they rest on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CompactionCounts {
    /// All of them.
    pub total: usize,
    /// Proven by a record.
    pub structural: usize,
    /// The shape of one, from the CLI's compaction zone.
    pub heuristic_high: usize,
    /// The shape of one, far below the zone.
    pub heuristic_low: usize,
    /// Trigger `auto`.
    pub automatic: usize,
    /// Trigger `manual`.
    pub manual: usize,
}

/// One compaction, for the totals and the chart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompactionMark {
    pub time: Option<Time>,
    pub basis: Basis,
    /// For a heuristic one.
    pub confidence: Option<Confidence>,
    /// `auto`, `manual`, ...
    pub trigger: Option<Trigger>,
    /// The main-chain context before it.
    pub context_before: Option<u64>,
    /// The main-chain context after it.
    pub context_after: Option<u64>,
}

/// One UTC day's requests and compactions, of one session or (merged) of every session with a
/// request that day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Day {
    pub date: NaiveDate,
    pub tally: Tally,
}

/// What one session gives the history.
#[derive(Debug, Clone, Default)]
pub struct SessionOutcome {
    /// Its summary, when it has requests (in the time window).
    pub summary: Option<SessionSummary>,
    /// Its requests and compactions per day, within the time window.
    pub days: Vec<Day>,
    /// What could not be read.
    pub problems: Vec<Problem>,
    /// Transcripts read, and their bytes.
    pub transcripts: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Lines the ingest was not fed.
    pub passed_lines: u64,
    /// Transcripts the cache served.
    pub cached: usize,
}

/// Reads, reports and summarizes one session.
pub fn summarize_session(
    files: &SessionFiles,
    options: &ReportOptions,
    window: &TimeWindow,
    cache: Option<&Cache>,
) -> SessionOutcome {
    let loaded = load_session(files, cache);
    let mut outcome = SessionOutcome {
        problems: loaded.problems.clone(),
        transcripts: loaded.transcripts.len(),
        bytes: files.bytes,
        passed_lines: loaded.passed_lines,
        cached: loaded.cached,
        ..SessionOutcome::default()
    };
    // Each request's time, read once.
    let times: Vec<Option<Time>> = loaded
        .log
        .requests()
        .map(|row| Time::of(row.time.as_deref()))
        .collect();
    // Nothing to report: no request and no compaction boundary, or no request in the window.
    let outside = !window.is_open() && !times.iter().flatten().any(|time| window.contains(time));
    if loaded.log.timeline.is_empty() || outside {
        return outcome;
    }
    let report = build_report(Some(&files.session_id), &loaded.log, None, options);
    outcome.days = days_of(&loaded.log, &times, &report, window);
    outcome.summary = Some(summary_of(files, &loaded, &report));
    outcome
}

/// The summary of a session's report.
pub fn summary_of(
    files: &SessionFiles,
    loaded: &LoadedSession,
    report: &SessionReport,
) -> SessionSummary {
    let mut counts = CompactionCounts::default();
    for compaction in &report.compactions {
        counts.total += 1;
        match (compaction.basis, compaction.confidence) {
            (Basis::Structural, _) => counts.structural += 1,
            (_, Some(Confidence::High)) => counts.heuristic_high += 1,
            _ => counts.heuristic_low += 1,
        }
        match compaction.trigger {
            Some(Trigger::Auto) => counts.automatic += 1,
            Some(Trigger::Manual) => counts.manual += 1,
            _ => {}
        }
    }
    let mut drops_by_class = BTreeMap::new();
    let mut drops_by_basis = BTreeMap::new();
    for drop in &report.drops {
        *drops_by_class.entry(drop.class.into()).or_insert(0) += 1;
        *drops_by_basis.entry(drop.basis.into()).or_insert(0) += 1;
    }
    let (growth_tokens, growth_steps) = growth(report);
    let main = files.main.as_ref().map(|main| main.display().to_string());
    // The folder it ran in, by the main transcript's source (else the first source's).
    let sources = &loaded.log.sources;
    let is_main = |source: &&SourceRow| Some(&source.transcript) == main.as_ref();
    let main_source = sources.iter().find(is_main).or(sources.first());
    let source_cwd = main_source.and_then(|source| source.cwd.clone());
    let facts = &loaded.log.session;
    SessionSummary {
        session_id: files.session_id.clone(),
        project: files.project.clone(),
        projects_folder: files.projects_folder.display().to_string(),
        cwd: facts.relocated_cwd.clone().or(source_cwd),
        title: facts.title().map(ToOwned::to_owned),
        session_kind: facts.session_kind.clone(),
        entrypoint: facts.entrypoint.clone(),
        version: loaded.log.main_version(),
        transcripts: loaded.transcripts.clone(),
        first_time: loaded.log.first_time(),
        last_time: loaded.log.last_time(),
        tally: report.tally.clone(),
        peak: report.peak.clone(),
        compaction_counts: counts,
        compactions: report.compactions.iter().map(mark_of).collect(),
        drops: report.drops.len(),
        drops_by_class,
        drops_by_basis,
        trigger: report.estimates.trigger.tokens,
        trigger_derivation: report.estimates.trigger.derivation,
        cap: report.estimates.cap.tokens,
        cap_source: report.estimates.cap.source.to_string(),
        floor: report.estimates.floor,
        headroom: report.estimates.headroom,
        peak_to_trigger: report.peak_to_trigger(),
        growth_per_request: ratio(growth_tokens, growth_steps),
        growth_tokens,
        growth_steps,
        warnings: report.warnings.iter().map(<&str>::from).collect(),
        unreadable_lines: report.skipped_lines.iter().map(|row| row.unreadable).sum(),
        overlong_lines: report.skipped_lines.iter().map(|row| row.overlong).sum(),
    }
}

fn mark_of(compaction: &Compaction) -> CompactionMark {
    CompactionMark {
        time: compaction.time.clone(),
        basis: compaction.basis,
        confidence: compaction.confidence,
        trigger: compaction.trigger.clone(),
        context_before: compaction.context_before,
        context_after: compaction.context_after,
    }
}

/// The context added by adjacent main-chain requests that both reported tokens and where it
/// rose, with no compaction between them; and how many such steps there were.
fn growth(report: &SessionReport) -> (u64, u64) {
    let mut tokens = 0;
    let mut steps = 0;
    for (index, pair) in report.contexts.windows(2).enumerate() {
        // `next_request` numbers from 1: the request after the pair's first is `index + 2`.
        let compacted = report
            .compactions
            .iter()
            .any(|compaction| compaction.next_request == index + 2);
        if pair[0] > 0 && pair[1] > pair[0] && !compacted {
            tokens += pair[1] - pair[0];
            steps += 1;
        }
    }
    (tokens, steps)
}

/// The session's requests and compactions per UTC day, within the window.
fn days_of(
    log: &SessionLog,
    times: &[Option<Time>],
    report: &SessionReport,
    window: &TimeWindow,
) -> Vec<Day> {
    let mut days: BTreeMap<NaiveDate, Tally> = BTreeMap::new();
    let day_of = |time: &Option<Time>| window.day_of(time.as_ref()?);
    let one_session = || Tally {
        sessions: 1,
        ..Tally::default()
    };
    for (row, time) in log.requests().zip(times) {
        if let Some(day) = day_of(time) {
            days.entry(day).or_insert_with(one_session).add(row);
        }
    }
    for compaction in &report.compactions {
        if let Some(day) = day_of(&compaction.time) {
            days.entry(day).or_insert_with(one_session).compactions += 1;
        }
    }
    days.into_iter()
        .map(|(date, tally)| Day { date, tally })
        .collect()
}
