//! One session's report: requests, peak context, drops with their class and evidence,
//! compactions matched with snapshots, the estimates, and warnings.

use std::path::PathBuf;

use serde::Serialize;

use super::compactions::{Compaction, attempted_compactions, compactions_of};
use super::drops::{ContextDrop, MainChain, Thresholds, classify_drops, compaction_threshold};
use super::estimates::{Cap, Estimates, estimate, find_cap, floors, median};
use super::log::SessionLog;
use super::snapshots::{
    CompactionPoint, DEFAULT_MATCH_AFTER_SECONDS, DEFAULT_MATCH_BEFORE_SECONDS, SnapshotCheck,
    match_snapshots,
};
use super::warnings::{Warning, find_warnings};
use crate::command::archives::catalog::SnapshotEntry;
use crate::store::usage_record::{SkippedLinesRow, UsageRow};

/// Version of the report's JSON layout.
pub const REPORT_SCHEMA: u32 = 1;

/// What the report is asked to assume.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// Drop thresholds.
    pub thresholds: Thresholds,
    /// An explicit cap (else settings, else the model's window).
    pub cap: Option<u64>,
    /// Claude Code's user configuration folder, for `settings.json`.
    pub user_config_dir: Option<PathBuf>,
    /// How long before a compaction its snapshot may have been taken (seconds).
    pub match_before_seconds: i64,
    /// How long after (seconds).
    pub match_after_seconds: i64,
}

impl Default for ReportOptions {
    fn default() -> Self {
        Self {
            thresholds: Thresholds::default(),
            cap: None,
            user_config_dir: None,
            match_before_seconds: DEFAULT_MATCH_BEFORE_SECONDS,
            match_after_seconds: DEFAULT_MATCH_AFTER_SECONDS,
        }
    }
}

/// Token sums over every request (main chain and sub-agents).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Uncached input.
    pub input_tokens: u64,
    /// Cache writes.
    pub cache_creation_input_tokens: u64,
    /// Cache reads.
    pub cache_read_input_tokens: u64,
    /// Output (largest per request).
    pub output_tokens: u64,
}

/// The largest main-chain context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Peak {
    /// Tokens.
    pub context_tokens: u64,
    /// The request's index among main-chain requests.
    pub index: usize,
    /// Its time.
    pub time: Option<String>,
}

/// Everything `ctxhooks report` says about one session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionReport {
    /// [`REPORT_SCHEMA`].
    pub schema: u32,
    /// The session, when read from the state folder.
    pub session_id: Option<String>,
    /// The transcripts the rows came from.
    pub transcripts: Vec<String>,
    /// Requests (main chain and sub-agents).
    pub requests: usize,
    /// Main-chain requests.
    pub main_requests: usize,
    /// Sub-agent requests.
    pub sidechain_requests: usize,
    /// Token sums.
    pub totals: Totals,
    /// The largest main-chain context.
    pub peak: Option<Peak>,
    /// Main-chain context per request, in order (for charts).
    pub contexts: Vec<u64>,
    /// Drops and boundaries between main-chain requests.
    pub drops: Vec<ContextDrop>,
    /// Compactions.
    pub compactions: Vec<Compaction>,
    /// The snapshot cross-check.
    pub snapshots: SnapshotCheck,
    /// T, cap, floor, headroom, largest turns.
    pub estimates: Estimates,
    /// Thresholds used (the compaction threshold as applied).
    pub thresholds: AppliedThresholds,
    /// Warnings.
    pub warnings: Vec<Warning>,
    /// Transcript lines that could not be read and were skipped, per transcript.
    pub skipped_lines: Vec<SkippedLinesRow>,
}

/// The thresholds as applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AppliedThresholds {
    /// Cache write at or above which a drop without a boundary is a compaction.
    pub compaction_cache_write: u64,
    /// Cache write at or below which it is an advisor round trip.
    pub advisor_cache_write: u64,
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
    let rows = log.rows();
    let chain = MainChain::of(log);
    // First pass: the floor from structural compactions feeds the relative threshold.
    let structural_floor = median(&floors(&classify_drops(
        &chain,
        &Thresholds {
            compaction_cache_write: Some(u64::MAX),
            ..options.thresholds
        },
        None,
    )));
    let drops = classify_drops(&chain, &options.thresholds, structural_floor);
    let compaction_write = compaction_threshold(&options.thresholds, structural_floor);
    let main_source = log
        .sources
        .iter()
        .find(|source| {
            rows.iter()
                .any(|row| !row.sidechain && row.transcript == source.transcript)
        })
        .or(log.sources.first());
    let cwd = main_source
        .and_then(|source| source.cwd.as_deref())
        .map(PathBuf::from);
    let model = chain
        .requests
        .iter()
        .rev()
        .find_map(|row| row.model.as_deref());
    let cap: Cap = find_cap(
        options.cap,
        cwd.as_deref(),
        options.user_config_dir.as_deref(),
        model,
    );
    let mut compactions = compactions_of(&chain, &drops);
    let points: Vec<CompactionPoint> = compactions
        .iter()
        .map(|compaction| CompactionPoint {
            time: compaction.time.clone(),
            trigger: compaction.trigger.clone(),
        })
        .collect();
    let check = match_snapshots(
        &points,
        snapshots,
        options.match_before_seconds,
        options.match_after_seconds,
    );
    for found in &check.matched {
        compactions[found.compaction].snapshot = Some(found.snapshot.clone());
    }
    // An automatic snapshot with no compaction is a PreCompact that fired and a compaction that
    // then gave up (Claude Code 2.1.332 does so when it finds nothing to summarize): the
    // trigger was reached after the request before it.
    let attempts = attempted_compactions(&chain, snapshots, &check.snapshots_without_compaction);
    let estimates = estimate(&chain, &drops, cap, &attempts);
    let warnings = find_warnings(&chain, &compactions, &check, &estimates);
    let mut transcripts: Vec<String> = Vec::new();
    for row in &rows {
        if !transcripts.contains(&row.transcript) {
            transcripts.push(row.transcript.clone());
        }
    }
    let peak = chain
        .requests
        .iter()
        .enumerate()
        .max_by_key(|(index, row)| (row.context_tokens, std::cmp::Reverse(*index)))
        .map(|(index, row)| Peak {
            context_tokens: row.context_tokens,
            index,
            time: row.time.clone(),
        });
    SessionReport {
        schema: REPORT_SCHEMA,
        session_id: session_id.map(ToOwned::to_owned),
        transcripts,
        requests: rows.len(),
        main_requests: chain.requests.len(),
        sidechain_requests: rows.len() - chain.requests.len(),
        totals: totals(&rows),
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
            compaction_cache_write: compaction_write,
            advisor_cache_write: options.thresholds.advisor_cache_write,
            min_drop: options.thresholds.min_drop,
        },
        warnings,
        skipped_lines: log.skipped.clone(),
    }
}

fn totals(rows: &[UsageRow]) -> Totals {
    let mut totals = Totals::default();
    for row in rows {
        // Saturating: a sum past u64 stays at its largest value instead of wrapping.
        totals.input_tokens = totals.input_tokens.saturating_add(row.input_tokens);
        totals.cache_creation_input_tokens = totals
            .cache_creation_input_tokens
            .saturating_add(row.cache_creation_input_tokens);
        totals.cache_read_input_tokens = totals
            .cache_read_input_tokens
            .saturating_add(row.cache_read_input_tokens);
        totals.output_tokens = totals.output_tokens.saturating_add(row.output_tokens);
    }
    totals
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::usage::drops::{Basis, DropClass, DropEvidence};
    use crate::store::trigger::Trigger;
    use crate::store::usage_record::{BoundaryRow, UsageRecord};

    /// A main-chain request with `context` tokens, `cache_write` of them written to the cache.
    fn request(key: &str, context: u64, cache_write: u64) -> UsageRecord {
        UsageRecord::Request(UsageRow {
            time: Some(format!("2026-01-01T00:00:{:02}Z", key.len())),
            transcript: "t".into(),
            key: key.into(),
            request_id: None,
            message_id: None,
            model: None,
            input_tokens: 0,
            cache_creation_input_tokens: cache_write,
            cache_read_input_tokens: context - cache_write,
            output_tokens: 0,
            context_tokens: context,
            sidechain: false,
            agent_id: None,
            advisor: false,
            tool_result_bytes: 0,
            largest_tool_result: None,
            turn_start: false,
        })
    }

    fn boundary(uuid: &str, trigger: &str, pre_tokens: u64) -> UsageRecord {
        UsageRecord::CompactBoundary(BoundaryRow {
            time: None,
            transcript: "t".into(),
            uuid: Some(uuid.into()),
            trigger: Some(Trigger::from_text(trigger)),
            pre_tokens: Some(pre_tokens),
            post_tokens: None,
            tokens_saved: None,
            sidechain: false,
            agent_id: None,
        })
    }

    fn kinds(report: &SessionReport) -> Vec<&str> {
        report.warnings.iter().map(Warning::kind).collect()
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
        let report = report_of(vec![
            request("a", 100_000, 0),
            boundary("b1", "auto", 100_000),
            request("bb", 120_000, 120_000),
            request("ccc", 121_000, 1_000),
            request("dddd", 122_000, 1_000),
            request("eeeee", 125_000, 3_000),
        ]);
        assert_eq!(report.estimates.headroom, Some(-20_000));
        assert_eq!(kinds(&report), ["floor_above_trigger"]);
        // The chart keeps the sign: -20,000, not 20,000.
        let svg = crate::command::usage::chart::render_svg(&report);
        assert!(svg.contains("headroom -20,000"), "{svg}");
    }

    #[test]
    fn a_trigger_bounded_only_from_above_is_at_most_high_with_no_band() {
        // The only request before the automatic compaction is the first: nothing says where
        // compaction did not fire, so T is "at most 100,000", not "0 .. 100,000".
        let report = report_of(vec![
            request("a", 100_000, 0),
            boundary("b1", "auto", 100_000),
            request("bb", 30_000, 30_000),
        ]);
        let trigger = report.estimates.trigger.as_ref().unwrap();
        assert_eq!((trigger.low, trigger.high), (None, 100_000));
        let json = serde_json::to_value(&report).unwrap();
        assert!(json["estimates"]["trigger"]["low"].is_null());
        let text = crate::command::usage::text::report_text(&report);
        assert!(text.contains("at most 100,000"), "{text}");
        assert!(!text.contains("range 0"), "{text}");
        let svg = crate::command::usage::chart::render_svg(&report);
        assert!(!svg.contains(r#"fill-opacity="0.15""#), "{svg}");
    }

    #[test]
    fn a_resume_artifact_is_no_turn_and_no_headroom_warning() {
        // T about 100,000 (not fired at 90,000, fired at preTokens 110,000: middle 100,000),
        // floor 40,000, headroom 60,000. Then a zero-context row (a resume artifact) and the
        // conversation back at 70,000: measured against the zero row that is a fake +70,000
        // turn, above the headroom; measured against 40,000 it is +30,000.
        let report = report_of(vec![
            request("a", 90_000, 0),
            request("bb", 110_000, 20_000),
            boundary("b1", "auto", 110_000),
            request("ccc", 40_000, 40_000),
            request("dddd", 0, 0),
            request("eeeee", 70_000, 30_000),
        ]);
        assert_eq!(report.estimates.headroom, Some(60_000));
        let turns: Vec<(usize, u64)> = report
            .estimates
            .largest_turns
            .iter()
            .map(|turn| (turn.index, turn.added_tokens))
            .collect();
        // Request 4 (+30,000 over request 2) and request 1 (+20,000 over request 0).
        assert_eq!(turns, [(4, 30_000), (1, 20_000)]);
        assert!(
            !kinds(&report).contains(&"turn_exceeds_headroom"),
            "{:?}",
            kinds(&report)
        );
    }

    /// `request` that starts a turn (the first request after a typed prompt).
    fn turn(key: &str, context: u64, cache_write: u64) -> UsageRecord {
        let UsageRecord::Request(mut row) = request(key, context, cache_write) else {
            unreachable!()
        };
        row.turn_start = true;
        UsageRecord::Request(row)
    }

    #[test]
    fn a_compaction_loop_counts_turns_between_automatic_compactions() {
        // Two automatic compactions four requests apart, but the four are one turn and its
        // tool loop: a loop (counting requests, 4 >= 3, it was missed).
        let report = report_of(vec![
            turn("a", 150_000, 0),
            boundary("b1", "auto", 160_000),
            turn("b", 150_000, 150_000),
            request("c", 155_000, 5_000),
            request("d", 158_000, 3_000),
            request("e", 159_000, 1_000),
            boundary("b2", "auto", 160_000),
            turn("f", 150_000, 150_000),
        ]);
        let turns: Vec<Option<usize>> = report
            .compactions
            .iter()
            .map(|compaction| compaction.turns_since_previous_automatic)
            .collect();
        assert_eq!(turns, [None, Some(1)]);
        assert_eq!(kinds(&report), ["compaction_loop"]);
        // A manual compaction one request after an automatic one is no loop: only automatic
        // compactions count (counting every compaction by requests, 1 < 3, it was one).
        let report = report_of(vec![
            turn("a", 150_000, 0),
            boundary("b1", "auto", 160_000),
            turn("b", 150_000, 150_000),
            boundary("b2", "manual", 150_000),
            turn("c", 30_000, 30_000),
        ]);
        assert!(
            !kinds(&report).contains(&"compaction_loop"),
            "{:?}",
            kinds(&report)
        );
        // Three turns between two automatic compactions: no loop.
        let report = report_of(vec![
            turn("a", 150_000, 0),
            boundary("b1", "auto", 160_000),
            turn("b", 50_000, 50_000),
            turn("c", 100_000, 50_000),
            request("cc", 110_000, 10_000),
            turn("d", 155_000, 45_000),
            boundary("b2", "auto", 160_000),
            turn("e", 50_000, 50_000),
        ]);
        assert_eq!(
            report.compactions[1].turns_since_previous_automatic,
            Some(3)
        );
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
        let UsageRecord::Request(mut agent_row) = request("agent", 5_000, 5_000) else {
            unreachable!()
        };
        agent_row.sidechain = true;
        let records = vec![
            request("a", 10_000, 10_000),
            UsageRecord::Request(agent_row),
            request("bb", 12_000, 2_000),
        ];
        let text = crate::command::usage::text::report_text(&report_of(records.clone()));
        assert!(
            text.contains("peak context: 12,000 (main-chain request 2"),
            "{text}"
        );
        let main_only: Vec<UsageRecord> = records
            .into_iter()
            .filter(|record| !matches!(record, UsageRecord::Request(row) if row.sidechain))
            .collect();
        let text = crate::command::usage::text::report_text(&report_of(main_only));
        assert!(text.contains("peak context: 12,000 (request 2"), "{text}");
    }

    #[test]
    fn a_big_turn_and_an_advisor_call_near_the_trigger_are_warned_about() {
        // T about 100,000 (did not fire at 90,000, fired at preTokens 110,000), floor 40,000,
        // headroom 60,000. The advisor call at request 5 follows 50,000 of context:
        // x2.2 = 110,000 >= 100,000. Request 6 then adds 65,000 (> 60,000).
        let UsageRecord::Request(mut advisor) = request("eeeee", 55_000, 5_000) else {
            unreachable!()
        };
        advisor.advisor = true;
        let report = report_of(vec![
            request("a", 90_000, 0),
            request("bb", 110_000, 20_000),
            boundary("b1", "auto", 110_000),
            request("ccc", 40_000, 40_000),
            request("dddd", 50_000, 10_000),
            UsageRecord::Request(advisor),
            request("ffffff", 120_000, 65_000),
        ]);
        assert_eq!(report.estimates.headroom, Some(60_000));
        assert_eq!(
            kinds(&report),
            ["turn_exceeds_headroom", "advisor_crosses_trigger"]
        );
        assert!(matches!(
            report.warnings[0],
            Warning::TurnExceedsHeadroom {
                request: 5,
                added_tokens: 65_000,
                headroom: 60_000,
                ..
            }
        ));
        assert!(matches!(
            report.warnings[1],
            Warning::AdvisorCrossesTrigger {
                request: 4,
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
        let metadata = crate::store::snapshot_metadata::SnapshotMetadata {
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
        let snapshots = [SnapshotEntry {
            path: PathBuf::from("unused"),
            metadata,
        }];
        let UsageRecord::CompactBoundary(mut row) = boundary("b1", "auto", 150_000) else {
            unreachable!()
        };
        row.time = Some("2026-01-01T00:00:00.000Z".into());
        let log = SessionLog::from_records(vec![
            request("a", 150_000, 0),
            UsageRecord::CompactBoundary(row),
            request("bb", 30_000, 30_000),
        ]);
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
        let trigger = report.estimates.trigger.as_ref().unwrap();
        assert_eq!((trigger.low, trigger.high), (None, 30_000));
        assert_eq!(
            report.snapshots.snapshots_without_compaction,
            ["20260101T010000.000000Z-auto"]
        );
    }

    #[test]
    fn a_microcompact_boundary_is_a_structural_micro_compaction_not_a_compaction() {
        let micro = UsageRecord::MicrocompactBoundary(BoundaryRow {
            time: None,
            transcript: "t".into(),
            uuid: Some("m1".into()),
            trigger: Some(Trigger::Auto),
            pre_tokens: Some(120_000),
            post_tokens: None,
            tokens_saved: Some(40_000),
            sidechain: false,
            agent_id: None,
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
}
