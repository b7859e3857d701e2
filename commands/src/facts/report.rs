//! One session's report: requests, peak context, drops with their class and evidence,
//! compactions matched with snapshots, the estimates, and warnings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::classify::classify_drops;
use super::compactions::{Compaction, attempted_compactions, compactions_of};
use super::drops::{ContextDrop, DEFAULT_MIN_DROP, MainChain};
use super::estimates::{Estimates, estimate, ratio};
use super::log::{SessionLog, SkippedLogLines, read_session_log};
use super::snapshot_check::{DEFAULT_MATCH_BEFORE_SECONDS, SnapshotCheck, match_snapshots};
use super::tally::{NEAR_TRIGGER_RATIO, Tally};
use super::warnings::{Warning, find_warnings};
use crate::prices::Prices;
use crate::snapshots::catalog::{SnapshotEntry, list_snapshots};
use crate::time::Time;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::state_dir::{StateDir, claude_config_dir};
use ctxhooks_shared::store::status_window::StatusWindow;
use ctxhooks_shared::store::usage_record::{SkippedLinesRow, SourceRow};
use ctxhooks_shared::usage::threshold::{SettingsWindows, ThresholdEnvironment, ThresholdInputs};

/// What the report is asked to assume.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// Smallest fall counted as a drop.
    pub min_drop: u64,
    /// An explicit cap: the window W (else the environment, the settings, the model's window).
    pub cap: Option<u64>,
    /// The environment variables of the CLI's threshold rule, as the report sees them.
    pub environment: ThresholdEnvironment,
    /// Claude Code's user configuration folder, for `settings.json`.
    pub user_config_dir: Option<PathBuf>,
    /// How long before a compaction its snapshot may have been taken (seconds).
    pub match_before_seconds: i64,
    /// The models' windows the status line gave for the session (its `window.json`), each with
    /// the model it was for, the newest last.
    pub status_line_windows: Vec<(u64, String)>,
    /// What each model's tokens cost (the built-in table, with `config.json`'s entries when a
    /// command loaded them: [`ReportOptions::with_prices`]).
    pub prices: Prices,
}

impl Default for ReportOptions {
    fn default() -> Self {
        Self {
            min_drop: DEFAULT_MIN_DROP,
            cap: None,
            environment: ThresholdEnvironment::default(),
            user_config_dir: None,
            match_before_seconds: DEFAULT_MATCH_BEFORE_SECONDS,
            status_line_windows: Vec::new(),
            prices: Prices::built_in(),
        }
    }
}

impl ReportOptions {
    /// The options a command gives: the cap and the smallest drop it was given, this process's
    /// environment and the user's settings, the default snapshot matching.
    pub fn of_process(cap: Option<u64>, min_drop: u64) -> Self {
        Self {
            min_drop,
            cap,
            environment: ThresholdEnvironment::of_process(),
            user_config_dir: claude_config_dir().ok(),
            ..Self::default()
        }
    }

    /// These options pricing with `prices`.
    #[must_use]
    pub fn with_prices(self, prices: Prices) -> Self {
        Self { prices, ..self }
    }

    /// These options with the models' windows the status line recorded for `session` in
    /// `state` (its `window.json`), the CLI's own word on them, when it has any.
    #[must_use]
    pub fn with_status_line_of(&self, state: Option<&StateDir>, session: &str) -> Self {
        let windows = state
            .zip(SessionId::parse(session).ok())
            .and_then(|(state, session)| StatusWindow::read(&state.status_window_file(&session)))
            .map(|window| window.evidence())
            .unwrap_or_default();
        Self {
            status_line_windows: windows,
            ..self.clone()
        }
    }
}

/// The largest main-chain context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Peak {
    pub context_tokens: u64,
    /// The request, numbered from 1 among main-chain requests.
    pub request: usize,
    pub time: Option<Time>,
}

/// Everything `ctxhooks report` says about one session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionReport {
    /// The session, when read from the state folder.
    pub session_id: Option<String>,
    /// The transcripts the rows came from.
    pub transcripts: Vec<String>,
    /// Its requests and their tokens, its compactions, and whether it ran near its trigger.
    #[serde(flatten)]
    pub tally: Tally,
    /// The largest main-chain context.
    pub peak: Option<Peak>,
    /// Main-chain context per request, in order (for charts).
    pub contexts: Vec<u64>,
    /// Falls of at least the minimum between main-chain requests.
    pub drops: Vec<ContextDrop>,
    pub compactions: Vec<Compaction>,
    /// The snapshot cross-check.
    pub snapshots: SnapshotCheck,
    /// T, cap, floor, headroom, room left, largest requests.
    pub estimates: Estimates,
    /// Thresholds used.
    pub thresholds: AppliedThresholds,
    pub warnings: Vec<Warning>,
    /// Transcript lines that could not be read and were skipped, per transcript.
    pub skipped_lines: Vec<SkippedLinesRow>,
    /// Lines of the session's usage log that are no record, skipped (`null` when none).
    pub skipped_log_lines: Option<SkippedLogLines>,
}

/// The thresholds as applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AppliedThresholds {
    /// Smallest fall counted as a drop.
    pub min_drop: u64,
}

/// Builds the report of one session log. `snapshots` is `None` when there is no state folder
/// to cross-check against.
pub fn build_report(
    session_id: Option<&str>,
    log: &SessionLog,
    snapshots: Option<&[SnapshotEntry]>,
    options: &ReportOptions,
) -> SessionReport {
    let chain = MainChain::of(log);
    let chained = |source: &&SourceRow| {
        chain
            .requests
            .iter()
            .any(|row| row.transcript == source.transcript)
    };
    let main_source = log.sources.iter().find(chained).or(log.sources.first());
    let cwd = main_source.and_then(|source| source.cwd.as_deref());
    let inputs = ThresholdInputs {
        explicit_window: options.cap,
        status_line_windows: options.status_line_windows.clone(),
        environment: options.environment.clone(),
        settings: SettingsWindows::find(cwd.map(Path::new), options.user_config_dir.as_deref()),
    };
    let drops = classify_drops(&chain, options.min_drop, &inputs);
    let mut compactions = compactions_of(&chain, &drops);
    let check = match_snapshots(&compactions, snapshots, options.match_before_seconds);
    for found in &check.matched {
        compactions[found.compaction - 1].snapshot = Some(found.snapshot.clone());
    }
    // An automatic snapshot with no compaction is a PreCompact that fired and a compaction that
    // then gave up (Claude Code 2.1.332 does so when it finds nothing to summarize): the
    // trigger was reached after the request before it.
    let attempts = attempted_compactions(&chain, snapshots, &check.snapshots_without_compaction);
    let estimates = estimate(&chain, &compactions, &inputs, &attempts);
    let warnings = find_warnings(&chain, &compactions, &check, &estimates);
    let mut transcripts: Vec<String> = Vec::new();
    let mut tally = Tally {
        sessions: 1,
        compactions: compactions.len(),
        sessions_with_compaction: usize::from(!compactions.is_empty()),
        ..Tally::default()
    };
    for row in log.requests() {
        if !transcripts.contains(&row.transcript) {
            transcripts.push(row.transcript.clone());
        }
        tally.add(row, &options.prices);
    }
    let peak = chain
        .requests
        .iter()
        .enumerate()
        .max_by_key(|(index, row)| (row.context_tokens, std::cmp::Reverse(*index)))
        .map(|(index, row)| Peak {
            context_tokens: row.context_tokens,
            request: index + 1,
            time: chain.times[index].clone(),
        });
    let mut report = SessionReport {
        session_id: session_id.map(ToOwned::to_owned),
        transcripts,
        tally,
        peak,
        contexts: chain
            .requests
            .iter()
            .map(|row| row.context_tokens)
            .collect(),
        drops,
        compactions,
        snapshots: check,
        estimates,
        thresholds: AppliedThresholds {
            min_drop: options.min_drop,
        },
        warnings,
        skipped_lines: log.skipped.clone(),
        skipped_log_lines: log.skipped_log_lines.clone(),
    };
    report.tally.sessions_near_trigger = usize::from(report.runs_near_trigger());
    report
}

/// The report of a session the state folder logs (its snapshots checked, with the window its
/// status line recorded), with its log.
pub fn session_report(
    state: &StateDir,
    session: &SessionId,
    options: &ReportOptions,
) -> anyhow::Result<(SessionLog, SessionReport)> {
    let log = read_session_log(state, session)?;
    let snapshots = list_snapshots(state, Some(session))?;
    let options = options.with_status_line_of(Some(state), session.as_str());
    let report = build_report(Some(session.as_str()), &log, Some(&snapshots), &options);
    Ok((log, report))
}

impl SessionReport {
    /// The peak as a share of T, when both are known.
    pub fn peak_to_trigger(&self) -> Option<f64> {
        ratio(
            self.peak.as_ref()?.context_tokens,
            self.estimates.trigger.tokens?,
        )
    }

    /// Returns true if and only if the peak reached [`NEAR_TRIGGER_RATIO`] of T.
    pub fn runs_near_trigger(&self) -> bool {
        self.peak_to_trigger()
            .is_some_and(|ratio| ratio >= NEAR_TRIGGER_RATIO)
    }

    /// The drops per class (by its name) and per basis (`structural`, `heuristic`, `none`).
    pub fn drops_by_class_and_basis(&self) -> [BTreeMap<&'static str, usize>; 2] {
        let (mut classes, mut bases) = (BTreeMap::new(), BTreeMap::new());
        for drop in &self.drops {
            *classes.entry(drop.class.into()).or_insert(0) += 1;
            *bases.entry(drop.basis.into()).or_insert(0) += 1;
        }
        [classes, bases]
    }

    /// The context added by adjacent main-chain requests that both reported tokens and where it
    /// rose with no compaction between them, and how many such steps there were.
    pub fn growth(&self) -> Growth {
        let mut growth = Growth::default();
        for (index, pair) in self.contexts.windows(2).enumerate() {
            // `next_request` numbers from 1: the request after the pair's first is `index + 2`.
            let compacted = self
                .compactions
                .iter()
                .any(|compaction| compaction.next_request == index + 2);
            if pair[0] > 0 && pair[1] > pair[0] && !compacted {
                growth.tokens += pair[1] - pair[0];
                growth.steps += 1;
            }
        }
        growth
    }
}

/// How fast a session's main chain filled its context between compactions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Growth {
    /// The context added by the main-chain requests that added some.
    pub tokens: u64,
    /// How many main-chain requests added context.
    pub steps: u64,
}

impl Growth {
    /// Tokens added per request that added some (mean).
    pub fn per_request(self) -> Option<f64> {
        ratio(self.tokens, self.steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::drops::{Basis, DropClass, DropEvidence};
    use crate::test_support::usage_row;
    use ctxhooks_shared::store::trigger::Trigger;
    use ctxhooks_shared::store::usage_record::{Boundary, BoundaryRow, UsageRecord};

    /// A main-chain request with `context` tokens, `cache_write` of them written to the cache.
    fn request(key: &str, context: u64, cache_write: u64) -> UsageRecord {
        let time = format!("2026-01-01T00:00:{:02}Z", key.len());
        UsageRecord::Request(usage_row(
            key,
            Some(time),
            cache_write,
            context - cache_write,
        ))
    }

    fn boundary(uuid: &str, trigger: &str, pre_tokens: u64) -> UsageRecord {
        UsageRecord::CompactBoundary(BoundaryRow {
            transcript: "t".into(),
            sidechain: false,
            agent_id: None,
            boundary: Boundary {
                uuid: Some(uuid.into()),
                trigger: Some(Trigger::from_text(trigger)),
                pre_tokens: Some(pre_tokens),
                ..Boundary::default()
            },
        })
    }

    fn kinds(report: &SessionReport) -> Vec<&str> {
        report.warnings.iter().map(<&str>::from).collect()
    }

    /// The records a scenario names, comma-separated: `KEY CONTEXT/CACHE_WRITE` is a main-chain
    /// request (`k`: a thousand tokens), followed by `turn` when it starts a turn, `advisor` when
    /// it called the advisor, `sidechain` for a sub-agent's, `@HH:MM:SS` for its time on
    /// 2026-01-01; `UUID TRIGGER@PRE_TOKENS` is a compaction boundary, `@HH:MM:SS` its time.
    fn scenario(text: &str) -> Vec<UsageRecord> {
        let tokens = |text: &str| match text.strip_suffix('k') {
            Some(thousands) => thousands.parse::<u64>().unwrap() * 1_000,
            None => text.parse().unwrap(),
        };
        let items = text.split(", ").map(|item| {
            let words: Vec<&str> = item.split(' ').collect();
            let time = words.iter().find_map(|word| word.strip_prefix('@'));
            let time = time.map(|time| format!("2026-01-01T{time}Z"));
            if let Some((trigger, pre_tokens)) = words[1].split_once('@') {
                let UsageRecord::CompactBoundary(mut row) =
                    boundary(words[0], trigger, tokens(pre_tokens))
                else {
                    unreachable!()
                };
                row.boundary.time = time;
                return UsageRecord::CompactBoundary(row);
            }
            let (context, cache_write) = words[1].split_once('/').unwrap();
            let UsageRecord::Request(mut row) =
                request(words[0], tokens(context), tokens(cache_write))
            else {
                unreachable!()
            };
            row.turn_start = words.contains(&"turn");
            row.advisor = words.contains(&"advisor");
            row.sidechain = words.contains(&"sidechain");
            row.time = time.or(row.time);
            UsageRecord::Request(row)
        });
        items.collect()
    }

    fn report_of(records: Vec<UsageRecord>) -> SessionReport {
        build_report(
            None,
            &SessionLog::from_records(records),
            None,
            &ReportOptions::default(),
        )
    }

    #[test]
    fn a_floor_above_the_trigger_is_one_warning_not_one_per_turn() {
        // T is at most 100,000 (preTokens; nothing says where it did not fire, so the
        // estimate is 100,000); the context after it is 120,000: headroom -20,000. Every
        // later growth would exceed that.
        let report = report_of(scenario(
            "a 100k/0, b1 auto@100k, bb 120k/120k, ccc 121k/1k, dddd 122k/1k, eeeee 125k/3k",
        ));
        assert_eq!(report.estimates.headroom, Some(-20_000));
        assert_eq!(kinds(&report), ["floor_above_trigger"]);
        // The chart keeps the sign: -20,000, not 20,000.
        let svg = crate::usage::chart::render_svg(&report);
        assert!(svg.contains("headroom -20,000"), "{svg}");
    }

    #[test]
    fn a_trigger_bounded_only_from_above_is_at_most_high_with_no_band() {
        // The only request before the automatic compaction is the first: nothing says where
        // compaction did not fire, so T is "at most 100,000", not "0 .. 100,000".
        let report = report_of(scenario("a 100k/0, b1 auto@100k, bb 30k/30k"));
        let trigger = report.estimates.trigger.observed.as_ref().unwrap();
        assert_eq!((trigger.low, trigger.high), (None, 100_000));
        let json = serde_json::to_value(&report).unwrap();
        assert!(json["estimates"]["trigger"]["observed"]["low"].is_null());
        let text = crate::usage::text::report_text(&report);
        assert!(text.contains("at most 100,000"), "{text}");
        assert!(!text.contains("range 0"), "{text}");
        let svg = crate::usage::chart::render_svg(&report);
        assert!(!svg.contains(r#"fill-opacity="0.15""#), "{svg}");
    }

    #[test]
    fn a_row_without_usage_is_no_state_of_the_conversation() {
        // T about 100,000 (not fired at 90,000, fired at preTokens 110,000: middle 100,000),
        // floor 40,000, headroom 60,000. Then a row that reports no tokens and the conversation
        // back at 70,000: measured against the zero row that is a fake +70,000 request, above
        // the headroom; measured against 40,000 it is +30,000.
        let report = report_of(scenario(
            "a 90k/0, bb 110k/20k, b1 auto@110k, ccc 40k/40k, dddd 0/0, eeeee 70k/30k",
        ));
        assert_eq!(report.estimates.headroom, Some(60_000));
        let requests: Vec<(usize, u64)> = report
            .estimates
            .largest_requests
            .iter()
            .map(|request| (request.request, request.added_tokens))
            .collect();
        // Request 5 (+30,000 over request 3) and request 2 (+20,000 over request 1).
        assert_eq!(requests, [(5, 30_000), (2, 20_000)]);
        // The zero row is listed as what it is, and the next request is measured against the
        // last one that reported tokens.
        let classes: Vec<DropClass> = report.drops.iter().map(|drop| drop.class).collect();
        assert_eq!(classes, [DropClass::Compaction, DropClass::NoUsage]);
        assert!(
            !kinds(&report).contains(&"request_exceeds_headroom"),
            "{:?}",
            kinds(&report)
        );
    }

    #[test]
    fn a_compaction_loop_is_judged_on_requests_and_time_not_on_prompts() {
        // Two automatic compactions four requests and seconds apart, the four one turn and its
        // tool loop: a loop.
        let report = report_of(scenario(
            "a 150k/0 turn, b1 auto@160k, b 150k/150k turn, c 155k/5k, d 158k/3k, e 159k/1k, b2 auto@160k, f 150k/150k turn",
        ));
        let between: Vec<(Option<usize>, Option<usize>)> = report
            .compactions
            .iter()
            .map(|compaction| {
                (
                    compaction.requests_since_previous_automatic,
                    compaction.turns_since_previous_automatic,
                )
            })
            .collect();
        assert_eq!(between, [(None, None), (Some(4), Some(1))]);
        assert_eq!(kinds(&report), ["compaction_loop"]);
        // A manual compaction one request after an automatic one is no loop: only automatic
        // compactions count.
        let report = report_of(scenario(
            "a 150k/0 turn, b1 auto@160k, b 150k/150k turn, b2 manual@150k, c 30k/30k turn",
        ));
        assert!(
            !kinds(&report).contains(&"compaction_loop"),
            "{:?}",
            kinds(&report)
        );
        // The misfire of the old rule: one long autonomous turn (no typed prompt) growing
        // steadily over 83 requests and 71 minutes between two automatic compactions. Zero
        // prompts, but no loop.
        let mut steps = vec!["a 150k/0 @00:00:00, b1 auto@160k".to_owned()];
        for step in 0..83_u64 {
            let (minute, second) = ((step * 51) / 60, (step * 51) % 60);
            let context = 40_000 + step * 1_500;
            steps.push(format!(
                "r{step} {context}/1500 @00:{minute:02}:{second:02}"
            ));
        }
        steps.push("b2 auto@165k, z 40k/40k @01:11:00".to_owned());
        let report = report_of(scenario(&steps.join(", ")));
        let last = report.compactions.last().unwrap();
        assert_eq!(
            (
                last.requests_since_previous_automatic,
                last.turns_since_previous_automatic
            ),
            (Some(83), Some(0))
        );
        assert!(
            !kinds(&report).contains(&"compaction_loop"),
            "{:?}",
            kinds(&report)
        );
        // Few requests but an hour apart (a person back with one large paste) is no loop either.
        let report = report_of(scenario(
            "a 150k/0 @00:00:00, b1 auto@160k, b 40k/40k @00:00:05, c 165k/125k @01:00:00, b2 auto@166k, d 40k/40k @01:00:30",
        ));
        assert!(
            !kinds(&report).contains(&"compaction_loop"),
            "{:?}",
            kinds(&report)
        );
    }

    #[test]
    fn with_sub_agent_rows_the_text_says_main_chain_request() {
        // A sub-agent row makes `usage`'s row numbers differ from the main chain's: the text
        // must say which numbering it uses.
        let records = scenario("a 10k/10k, agent 5k/5k sidechain, bb 12k/2k");
        let text = crate::usage::text::report_text(&report_of(records.clone()));
        assert!(
            text.contains("peak context: 12,000 (main-chain request 2"),
            "{text}"
        );
        let main_only: Vec<UsageRecord> = records
            .into_iter()
            .filter(|record| !matches!(record, UsageRecord::Request(row) if row.sidechain))
            .collect();
        let text = crate::usage::text::report_text(&report_of(main_only));
        assert!(text.contains("peak context: 12,000 (request 2"), "{text}");
    }

    #[test]
    fn a_big_turn_and_an_advisor_call_near_the_trigger_are_warned_about() {
        // T about 100,000 (did not fire at 90,000, fired at preTokens 110,000), floor 40,000,
        // headroom 60,000. The advisor call at request 5 follows 50,000 of context:
        // x2.2 = 110,000 >= 100,000. Request 6 then adds 65,000 (> 60,000).
        let report = report_of(scenario(
            "a 90k/0, bb 110k/20k, b1 auto@110k, ccc 40k/40k, dddd 50k/10k, eeeee 55k/5k advisor, \
             ffffff 120k/65k",
        ));
        assert_eq!(report.estimates.headroom, Some(60_000));
        assert_eq!(
            kinds(&report),
            ["request_exceeds_headroom", "advisor_crosses_trigger"]
        );
        assert!(matches!(
            report.warnings[0],
            Warning::RequestExceedsHeadroom {
                request: 6,
                added_tokens: 65_000,
                headroom: 60_000,
                ..
            }
        ));
        assert!(matches!(
            report.warnings[1],
            Warning::AdvisorCrossesTrigger {
                request: 5,
                context_before: 50_000,
                inflated: 110_000,
                trigger: 100_000,
                ..
            }
        ));
    }

    #[test]
    fn a_snapshot_with_no_compaction_is_reported() {
        // A PreCompact snapshot an hour away from the only compaction matches nothing.
        let metadata = ctxhooks_shared::store::snapshot_metadata::SnapshotMetadata {
            schema: 1,
            name: "20260101T010000.000000Z-auto".into(),
            session_id: "s".into(),
            trigger: Trigger::Auto,
            custom_instructions: None,
            created_at: "2026-01-01T01:00:00.000000Z".into(),
            source_path: "t".into(),
            size: 0,
            sha256: String::new(),
            files: Vec::new(),
            skipped: Vec::new(),
        };
        let snapshots = [SnapshotEntry::new(PathBuf::from("unused"), metadata)];
        let log =
            SessionLog::from_records(scenario("a 150k/0, b1 auto@150k @00:00:00.000, bb 30k/30k"));
        let report = build_report(None, &log, Some(&snapshots), &ReportOptions::default());
        // The automatic snapshot after the 30,000 request, with no compaction, says PreCompact
        // fired there: the trigger was reached at 30,000, which is also the floor.
        assert_eq!(
            kinds(&report),
            [
                "compaction_without_snapshot",
                "snapshot_without_compaction",
                "floor_above_trigger"
            ]
        );
        let trigger = report.estimates.trigger.observed.as_ref().unwrap();
        assert_eq!((trigger.low, trigger.high), (None, 30_000));
        assert_eq!(
            report.snapshots.snapshots_without_compaction,
            ["20260101T010000.000000Z-auto"]
        );
    }

    #[test]
    fn a_microcompact_boundary_is_a_structural_micro_compaction_not_a_compaction() {
        let micro = UsageRecord::MicrocompactBoundary(BoundaryRow {
            transcript: "t".into(),
            sidechain: false,
            agent_id: None,
            boundary: Boundary {
                uuid: Some("m1".into()),
                trigger: Some(Trigger::Auto),
                pre_tokens: Some(120_000),
                tokens_saved: Some(40_000),
                ..Boundary::default()
            },
        });
        let report = report_of(vec![
            request("a", 120_000, 0),
            micro,
            request("bb", 80_000, 2_000),
        ]);
        assert_eq!(report.drops.len(), 1);
        assert_eq!(
            (report.drops[0].class, report.drops[0].basis),
            (DropClass::MicroCompaction, Basis::Structural)
        );
        assert!(matches!(
            report.drops[0].evidence,
            DropEvidence::MicrocompactBoundary {
                tokens_saved: Some(40_000),
                ..
            }
        ));
        // Not a compaction: no floor, no trigger observation.
        assert!(report.compactions.is_empty());
        assert_eq!(report.estimates.floor, None);
    }

    #[test]
    fn the_printed_json_is_the_model_in_its_order_with_the_words_beside() {
        // A drop, the trigger and a warning (a floor above T): the printed layout lists the
        // model's fields itself, so one the model gains and the layout lacks would go missing
        // unseen; this compares it with the model's own serialisation and the words added.
        use crate::usage::json::PrintedReport;
        use crate::usage::text::{drop_evidence_text, request_label, trigger_text, warning_text};
        let report = report_of(scenario(
            "a 150k/0, b1 auto@100k, bb 120k/120k, ccc 121k/1k",
        ));
        assert!(
            !report.drops.is_empty() && !report.warnings.is_empty(),
            "{report:?}"
        );
        let mut expected = serde_json::to_value(&report).unwrap();
        let drops = expected["drops"].as_array_mut().unwrap();
        for (drop, model) in drops.iter_mut().zip(&report.drops) {
            drop["evidence_detail"] = drop["evidence"].take();
            drop["evidence"] = drop_evidence_text(&model.evidence, model.fall()).into();
        }
        expected["estimates"]["trigger"]["text"] = trigger_text(&report.estimates.trigger).into();
        let label = request_label(&report);
        let warnings = report.warnings.iter().map(|warning| {
            serde_json::json!({"kind": <&str>::from(warning), "message": warning_text(warning, label)})
        });
        expected["warnings"] = warnings.collect();
        let printed = serde_json::to_string(&PrintedReport(&report)).unwrap();
        assert_eq!(printed, expected.to_string());
    }
}
