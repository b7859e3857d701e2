//! The report on real transcripts written by real CLIs (2.0.76, 2.1.12, 2.1.42, 2.1.332; the
//! captures in `tests/fixtures/cli-captures/`, see `tests/fixtures/PROVENANCE.md`, and the real
//! fixtures of `tests/fixtures/transcripts`): every class from evidence, the trigger from the CLI's rule
//! checked against the compactions observed, the floor from structural records only. Where no
//! real run shows a fall of a kind, the real rows are read for the facts and one number is then
//! changed by hand, which the test says.

use std::borrow::Cow;
use std::path::Path;

use serde_json::Value;

use ctxhooks_commands::facts::classify::classify_drops;
use ctxhooks_commands::facts::drops::{
    Basis, Confidence, DEFAULT_MIN_DROP, DropClass, DropEvidence, FallCause, MainChain, Opening,
    UndecidedReason,
};
use ctxhooks_commands::facts::estimates::Derivation;
use ctxhooks_commands::facts::log::{SessionLog, log_from_transcript};
use ctxhooks_commands::facts::report::{ReportOptions, SessionReport, build_report};
use ctxhooks_shared::store::usage_record::{CacheTtl, RequestMarker};
use ctxhooks_shared::usage::threshold::{ThresholdInputs, WindowSource};

use crate::support::{
    World, all_transcript_fixtures, cli_capture, project_fixture, transcript_fixture,
};

fn log_of(path: &Path) -> SessionLog {
    log_from_transcript(path).unwrap()
}

fn report_of(log: &SessionLog) -> SessionReport {
    build_report(None, log, None, &ReportOptions::default())
}

fn classes(report: &SessionReport) -> Vec<(DropClass, Basis)> {
    report
        .drops
        .iter()
        .map(|drop| (drop.class, drop.basis))
        .collect()
}

#[test]
fn every_fall_of_every_real_capture_and_fixture_has_its_evidence() {
    let scratch = World::new("truth-all");
    use Basis::{Heuristic, Structural};
    use DropClass::{Compaction, MicroCompaction, ModelSwitch};
    // research8 findings §5: the falls each run shows, and what they are.
    let expected: [(&str, &[(DropClass, Basis)]); 14] = [
        (
            "compaction/auto-manual.jsonl.gz",
            &[(Compaction, Structural)],
        ),
        ("compaction/reactive.jsonl.gz", &[(Compaction, Structural)]),
        (
            "microcompact/p-2.0.76.jsonl.gz",
            &[(MicroCompaction, Heuristic), (MicroCompaction, Heuristic)],
        ),
        (
            "microcompact/p-2.1.12.jsonl.gz",
            &[(MicroCompaction, Heuristic), (MicroCompaction, Heuristic)],
        ),
        (
            "microcompact/p-2.1.42.jsonl.gz",
            &[(MicroCompaction, Heuristic)],
        ),
        (
            "microcompact/tui-2.1.42.jsonl.gz",
            &[(MicroCompaction, Structural)],
        ),
        (
            "model-switch-upgrade/resume-switch.jsonl.gz",
            &[(ModelSwitch, Structural)],
        ),
        ("model-switch-upgrade/upgrade.jsonl.gz", &[]),
        ("resume-interactive/2.1.42.jsonl", &[]),
        ("resume-interactive/2.1.332.jsonl.gz", &[]),
        ("idle-gap/resumed-after-3h.jsonl.gz", &[]),
        ("permission-headless/outside-project.jsonl.gz", &[]),
        ("permission-interactive/no.jsonl.gz", &[]),
        ("permission-headless/allowed-echo.jsonl.gz", &[]),
    ];
    for (relative, classes_expected) in expected {
        let report = report_of(&log_of(&cli_capture(scratch.root(), relative)));
        assert_eq!(classes(&report), classes_expected, "{relative}");
        for drop in &report.drops {
            // A class that claims the fall carries the evidence that explains it.
            assert!(drop.explains_fall, "{relative}: {drop:?}");
        }
    }
    // The real fixtures: one fall of at least 1,000 (a structural compaction); no heuristic
    // compaction and no undecided class anywhere.
    let mut falls = Vec::new();
    for path in all_transcript_fixtures() {
        let report = report_of(&log_of(&path));
        for drop in &report.drops {
            falls.push((path.clone(), drop.class, drop.basis));
        }
        assert!(
            report
                .compactions
                .iter()
                .all(|compaction| compaction.basis == Structural),
            "{}",
            path.display()
        );
    }
    assert_eq!(falls.len(), 1, "{falls:?}");
    assert_eq!((falls[0].1, falls[0].2), (Compaction, Structural));
    assert!(
        falls[0]
            .0
            .ends_with("entireio__cli/a6/e4c2a0fbd1/0/full.jsonl")
    );
}

#[test]
fn the_trigger_and_the_floor_come_from_the_rule_and_the_structural_record() {
    // 2.1.332 with autoCompactWindow 200,000 (the run's project settings): the rule gives
    // 167,000, the CLI logged effectiveWindow 180,000, did not compact after 166,800 and compacted
    // at preTokens 167,011. The report finds the settings beside the transcript's cwd; here the
    // cwd is pointed at a copy of the run's settings file.
    let scratch = World::new("truth-trigger");
    let mut log = log_of(&cli_capture(
        scratch.root(),
        "compaction/auto-manual.jsonl.gz",
    ));
    let project = scratch.join("project");
    fs_err::create_dir_all(project.join(".claude")).unwrap();
    fs_err::copy(
        project_fixture("cli-captures/compaction/auto-manual-project-settings.json"),
        project.join(".claude/settings.json"),
    )
    .unwrap();
    let debug = fs_err::read_to_string(project_fixture(
        "cli-captures/compaction/auto-manual-debug-excerpt.txt",
    ))
    .unwrap();
    assert!(debug.contains("effectiveWindow=180000"), "{debug}");
    for source in &mut log.sources {
        source.cwd = Some(project.to_string_lossy().into_owned());
    }
    let report = report_of(&log);
    let trigger = &report.estimates.trigger;
    assert_eq!(trigger.tokens, Some(167_000));
    assert_eq!(trigger.derivation, Derivation::RuleConfirmed);
    assert_eq!(trigger.rule.window.tokens, 200_000);
    assert!(matches!(
        trigger.rule.window.source,
        WindowSource::Setting(_)
    ));
    let observed = trigger.observed.as_ref().unwrap();
    assert_eq!((observed.low, observed.high), (Some(166_800), 167_011));
    // The floor from the two structural compactions (automatic: 22,003; manual: 22,703).
    let floors: Vec<u64> = report
        .estimates
        .floors
        .iter()
        .map(|floor| floor.tokens)
        .collect();
    assert_eq!(floors, [22_003, 22_703]);
    assert_eq!(report.estimates.floor, Some(22_003));
    assert_eq!(report.estimates.headroom, Some(167_000 - 22_003));
    assert_eq!(report.estimates.room_left, Some(167_000 - 22_703));
    // Without the settings (cwd where there are none): the model's window of 1,000,000 gives
    // 967,000, which the compaction observed contradicts. The report says so and uses what it
    // saw.
    let mut log = log_of(&cli_capture(
        scratch.root(),
        "compaction/auto-manual.jsonl.gz",
    ));
    for source in &mut log.sources {
        source.cwd = Some(scratch.join("elsewhere").to_string_lossy().into_owned());
    }
    let report = report_of(&log);
    let trigger = &report.estimates.trigger;
    assert_eq!(trigger.rule.tokens, Some(967_000));
    assert_eq!(trigger.derivation, Derivation::ObservedAgainstRule);
    assert_eq!(trigger.tokens, Some(166_800 + (167_011 - 166_800) / 2));
}

#[test]
fn a_model_compacted_only_on_refusal_has_no_rule_trigger() {
    // claude-sonnet-4-5 with nothing configured: 2.1.332 never compacts it before the API
    // refuses; the compaction after the refusal is the only evidence of where it happens.
    let scratch = World::new("truth-reactive");
    let report = report_of(&log_of(&cli_capture(
        scratch.root(),
        "compaction/reactive.jsonl.gz",
    )));
    let trigger = &report.estimates.trigger;
    assert_eq!(trigger.rule.tokens, None);
    assert_eq!(trigger.derivation, Derivation::Observed);
    assert_eq!(trigger.tokens, Some(196_076));
    assert_eq!(report.estimates.floor, Some(21_003));
}

#[test]
fn only_sub_agents_requests_give_no_trigger() {
    // A session of which only a sub-agent's transcript exists (the compaction agent's here):
    // its requests are not the session's context, and nothing says which version or model the
    // session ran with, so no T is claimed.
    let report = report_of(&log_of(&transcript_fixture(
        "marot__spotter/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl",
    )));
    assert_eq!(
        (
            report.tally.main_requests,
            report.tally.sidechain_requests()
        ),
        (0, 1)
    );
    assert_eq!(report.estimates.trigger.derivation, Derivation::NoMainChain);
    assert_eq!(report.estimates.trigger.tokens, None);
    assert_eq!(report.estimates.room_left, None);
    // The same CLI's main transcript does get the rule's T.
    let main = report_of(&log_of(&transcript_fixture("marot__spotter/short.jsonl")));
    assert_eq!(main.estimates.trigger.derivation, Derivation::Rule);
    assert!(main.estimates.trigger.tokens.is_some());
}

#[test]
fn unlogged_micro_compactions_are_heuristic_at_the_versions_warning_level() {
    let scratch = World::new("truth-micro");
    for (relative, version, warning_level) in [
        ("microcompact/p-2.0.76.jsonl.gz", "2.0.76", 135_000),
        ("microcompact/p-2.1.12.jsonl.gz", "2.1.12", 135_000),
        ("microcompact/p-2.1.42.jsonl.gz", "2.1.42", 147_000),
    ] {
        let report = report_of(&log_of(&cli_capture(scratch.root(), relative)));
        for drop in &report.drops {
            assert_eq!(
                drop.evidence,
                DropEvidence::UnloggedMicroCompaction {
                    version: version.to_owned(),
                    warning_level,
                },
                "{relative}"
            );
            assert_eq!(drop.facts.opened_by, Opening::ToolResults);
        }
        // No compaction, no floor, and T from the rule alone.
        assert!(report.compactions.is_empty());
        assert_eq!(report.estimates.floor, None);
        assert_eq!(report.estimates.trigger.derivation, Derivation::Rule);
        assert_eq!(
            report.estimates.trigger.tokens,
            Some(warning_level + 20_000)
        );
    }
    // The same fall written down by the interactive 2.1.42 is structural; its preTokens is the
    // cleared results' estimate, not the context.
    let report = report_of(&log_of(&cli_capture(
        scratch.root(),
        "microcompact/tui-2.1.42.jsonl.gz",
    )));
    assert!(matches!(
        report.drops[0].evidence,
        DropEvidence::MicrocompactBoundary {
            pre_tokens: Some(79_453),
            tokens_saved: Some(43_338),
            ..
        }
    ));
    // Below the warning level, the same fall mid loop stays undecided (the real rows, with the
    // context before lowered by hand to 140,000 under 2.1.42's 147,000).
    let mut log = log_of(&cli_capture(
        scratch.root(),
        "microcompact/p-2.1.42.jsonl.gz",
    ));
    let chain = MainChain::of(&log);
    let before = report_of(&log).drops[0].request_before - 1;
    let key = chain.requests[before].key.clone();
    set_context(&mut log, &key, 140_000, 139_000);
    let report = report_of(&log);
    assert_eq!(
        report.drops[0].evidence,
        DropEvidence::Undecided(UndecidedReason::MidLoopBelowWarningLevel {
            warning_level: 147_000
        })
    );
}

/// Sets the context of the request `key` to `tokens`, `read` of them read from the cache (the
/// rest written, but the uncached input).
fn set_context(log: &mut SessionLog, key: &str, tokens: u64, read: u64) {
    use ctxhooks_commands::facts::log::TimelineItem;
    for item in &mut log.timeline {
        if let TimelineItem::Request(request) = item
            && request.row.key == key
        {
            let row = &mut request.row;
            row.context_tokens = tokens;
            row.tokens.cache_read_input_tokens = read;
            row.tokens.cache_creation_input_tokens = tokens - read - row.tokens.input_tokens;
        }
    }
}

#[test]
fn a_model_switch_is_explained_by_the_thinking_of_the_other_model() {
    // 2.1.332 sends no thinking another model wrote: 49,342 -> 19,370 at the switch to
    // claude-sonnet-4-6, every earlier response having a ~12,000-character thinking block.
    let scratch = World::new("truth-switch");
    let report = report_of(&log_of(&cli_capture(
        scratch.root(),
        "model-switch-upgrade/resume-switch.jsonl.gz",
    )));
    let drop = &report.drops[0];
    assert_eq!((drop.context_before, drop.context_after), (49_342, 19_370));
    let DropEvidence::ModelSwitch {
        from,
        to,
        other_model_thinking,
        strips_other_thinking,
    } = &drop.evidence
    else {
        panic!("{drop:?}")
    };
    assert_eq!(
        (from.as_str(), to.as_str()),
        ("claude-opus-5-5", "claude-sonnet-4-6")
    );
    assert!(*other_model_thinking >= drop.fall(), "{drop:?}");
    assert!(*strips_other_thinking);
    // Each -p process is a resume (cost-state records), and none of them made the context fall.
    let log = log_of(&cli_capture(
        scratch.root(),
        "model-switch-upgrade/resume-switch.jsonl.gz",
    ));
    let resumed = log
        .rows()
        .iter()
        .filter(|row| row.facts.markers.contains(&RequestMarker::CostState))
        .count();
    assert_eq!(resumed, 4);
}

#[test]
fn resume_records_of_every_version_are_read_and_a_resume_does_not_explain_a_fall() {
    let scratch = World::new("truth-resume");
    // 2.1.42 interactive: each resumed prompt follows the /exit records and the synthetic "No
    // response requested."; 2.1.332 interactive: only cost-state records.
    let old = log_of(&cli_capture(
        scratch.root(),
        "resume-interactive/2.1.42.jsonl",
    ));
    let marked: Vec<Vec<RequestMarker>> = old
        .rows()
        .iter()
        .map(|row| row.facts.markers.clone())
        .filter(|markers| !markers.is_empty())
        .collect();
    assert_eq!(
        marked,
        [
            vec![
                RequestMarker::ExitCommand,
                RequestMarker::SyntheticNoResponse
            ],
            vec![
                RequestMarker::ExitCommand,
                RequestMarker::SyntheticNoResponse
            ]
        ]
    );
    let current = log_of(&cli_capture(
        scratch.root(),
        "resume-interactive/2.1.332.jsonl.gz",
    ));
    let resumed = current
        .rows()
        .iter()
        .filter(|row| row.facts.markers == [RequestMarker::CostState])
        .count();
    assert_eq!(resumed, 2);
    // The old heuristic called a fall at such a resume a compaction when the next request
    // rewrote the cache. Lower the first resumed request of 2.1.42 by hand (22,603 -> 20,000,
    // cold): it is a resume, and the report does not claim to know why it fell.
    let mut log = old;
    let key = log.rows()[2].key.clone();
    set_context(&mut log, &key, 20_000, 0);
    let report = report_of(&log);
    assert_eq!(classes(&report), [(DropClass::Resume, Basis::Structural)]);
    assert!(!report.drops[0].explains_fall);
    assert!(matches!(
        report.drops[0].evidence,
        DropEvidence::Resume {
            cause: FallCause::Unknown,
            ..
        }
    ));
    assert!(report.compactions.is_empty());
    assert_eq!(report.estimates.floor, None);
}

#[test]
fn an_idle_gap_is_the_time_past_the_cache_lifetime_and_a_cold_read() {
    // The real 2.0.76 fixture: a prompt 22.6 minutes after the request before, read 0 from the
    // cache, 5-minute writes. Its context rose there (154,796 -> 154,992); lowered by hand to
    // 140,000 it is an idle gap whose cause the report does not claim to know.
    let path = transcript_fixture("entireio__cli/a6/e4c2a0fbd1/0/full.jsonl");
    let mut log = log_of(&path);
    let rows = log.rows();
    assert_eq!(rows[5].context_tokens, 154_992);
    assert_eq!(rows[5].tokens.cache_read_input_tokens, 0);
    assert_eq!(rows[4].facts.cache_ttl, Some(CacheTtl::FiveMinutes));
    let key = rows[5].key.clone();
    set_context(&mut log, &key, 140_000, 0);
    let report = report_of(&log);
    let drop = &report.drops[0];
    assert_eq!((drop.request_before, drop.request_after), (5, 6));
    assert_eq!(drop.facts.opened_by, Opening::Prompt);
    let DropEvidence::IdleGap {
        gap_seconds,
        ttl,
        ttl_known,
        cause,
    } = &drop.evidence
    else {
        panic!("{drop:?}")
    };
    assert_eq!(
        (*gap_seconds, *ttl, *ttl_known, *cause),
        (1_358, CacheTtl::FiveMinutes, true, FallCause::Unknown)
    );
    // The 2.1.332 capture of a resume after 3 hours: the pause is a time gap and a cold read;
    // the process boundary (cost-state) is there too.
    let scratch = World::new("truth-idle");
    let log = log_of(&cli_capture(
        scratch.root(),
        "idle-gap/resumed-after-3h.jsonl.gz",
    ));
    let rows = log.rows();
    let resumed = rows
        .iter()
        .position(|row| {
            row.tokens.cache_read_input_tokens == 0
                && row.turn_start
                && row.facts.markers.contains(&RequestMarker::CostState)
        })
        .expect("the resumed request");
    assert_eq!(rows[resumed].facts.cache_ttl, Some(CacheTtl::FiveMinutes));
}

#[test]
fn earlier_thinking_covers_a_fall_at_a_prompt_only_before_2_1_332() {
    // The real 2.1.42 -> 2.1.332 run: every response carries a ~12,000-character thinking block
    // (about 3,000 tokens at 4 bytes per token). Its context never fell; two numbers are changed
    // by hand to put a fall at a prompt under each CLI.
    let scratch = World::new("truth-thinking");
    let log = log_of(&cli_capture(
        scratch.root(),
        "model-switch-upgrade/upgrade.jsonl.gz",
    ));
    let rows = log.rows();
    assert!(rows.iter().all(|row| row.facts.thinking_bytes == 12_150));
    assert_eq!(rows[0].facts.version.as_deref(), Some("2.1.42"));
    assert_eq!(rows[5].facts.version.as_deref(), Some("2.1.332"));
    let inputs = ThresholdInputs::default();
    // A 2.1.42 prompt after the five-request turn (5 x ~3,037 thinking tokens) falling by
    // 10,000 with a warm cache: thinking dropped.
    let mut chain = MainChain::of(&log);
    let mut prompt = chain.requests[4].clone().into_owned();
    prompt.key = "hand-made".into();
    prompt.turn_start = true;
    prompt.facts.carries_tool_results = false;
    prompt.context_tokens = chain.requests[4].context_tokens - 10_000;
    prompt.tokens.cache_read_input_tokens = prompt.context_tokens - 3;
    prompt.tokens.cache_creation_input_tokens = 0;
    prompt.tokens.input_tokens = 3;
    chain.requests.insert(5, Cow::Owned(prompt.clone()));
    chain.boundaries.insert(5, Vec::new());
    let drops = classify_drops(&chain, DEFAULT_MIN_DROP, &inputs);
    assert_eq!(drops[0].class, DropClass::ThinkingDropped, "{:?}", drops[0]);
    // The real upgrade right after it is the CLI changing (a rise, no drop here).
    // Under 2.1.332, which sends every earlier thinking block, the same fall is undecided.
    let mut chain = MainChain::of(&log);
    for row in &mut chain.requests {
        row.to_mut().facts.version = Some("2.1.332".into());
    }
    prompt.facts.version = Some("2.1.332".into());
    chain.requests.insert(5, Cow::Owned(prompt));
    chain.boundaries.insert(5, Vec::new());
    let drops = classify_drops(&chain, DEFAULT_MIN_DROP, &inputs);
    assert_eq!(
        drops[0].evidence,
        DropEvidence::Undecided(UndecidedReason::ThinkingKept {
            version: "2.1.332".into()
        })
    );
}

/// `ctxhooks ARGUMENTS` in `world` (whose configuration folder holds no settings); its stdout
/// and stderr.
fn run(world: &World, arguments: &[&str]) -> (String, String) {
    let outcome = world.ctxhooks(arguments).success();
    (outcome.stdout_text(), outcome.stderr_text())
}

#[test]
fn text_and_json_number_requests_alike_and_read_without_a_glossary() {
    let scratch = World::new("truth-text");
    let path = transcript_fixture("entireio__cli/a6/e4c2a0fbd1/0/full.jsonl");
    let path = path.to_str().unwrap();
    let chart = scratch.join("chart.svg");
    let (json, note) = run(
        &scratch,
        &[
            "report",
            "--transcript",
            path,
            "--json",
            "--svg",
            chart.to_str().unwrap(),
        ],
    );
    assert!(
        note.contains(&format!("wrote the chart to {}", chart.display())),
        "{note}"
    );
    let report: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["schema"], 3);
    assert_eq!(report["peak"]["request"], 6);
    assert_eq!(report["drops"][0]["request_before"], 6);
    assert_eq!(report["drops"][0]["request_after"], 7);
    assert_eq!(report["compactions"][0]["next_request"], 7);
    assert_eq!(report["estimates"]["largest_requests"][0]["request"], 8);
    assert_eq!(
        report["estimates"]["trigger"]["derivation"],
        "rule_confirmed"
    );
    assert_eq!(report["estimates"]["trigger"]["tokens"], 155_000);
    let (text, _) = run(&scratch, &["report", "--transcript", path]);
    for expected in [
        "peak context: 154,992 (request 6, 2026-01-07 12:35:05 UTC)",
        "request 6 -> 7 (2026-01-07 12:36:14 UTC): 154,992 -> 49,761",
        "1 min 8 s between the requests",
        "requests that added the most context",
        "request 8 (2026-01-07 12:36:39 UTC): +14,177",
        "trigger T (where the CLI compacts): 155,000 — CLI 2.0.76's rule: W 200,000 - reserved output 32,000 - buffer 13,000",
        "room left (T - the latest context, 67,275 at request 12): 87,725",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    assert!(!text.contains("turns that added"), "{text}");
    // A rise is never listed as a drop: the 2.1.332 manual compaction raised the context.
    let (text, _) = run(
        &scratch,
        &[
            "report",
            "--transcript",
            cli_capture(scratch.root(), "compaction/auto-manual.jsonl.gz")
                .to_str()
                .unwrap(),
        ],
    );
    assert!(text.contains("between requests (1):"), "{text}");
    assert!(
        text.contains("2. 2026-12-01 04:48:19 UTC  manual (structural)"),
        "{text}"
    );
    // Every term of art is explained once in --help.
    let (help, _) = run(&scratch, &["report", "--help"]);
    for term in [
        "main chain",
        "structural",
        "heuristic",
        "undecided",
        "cap ",
        "trigger T",
        "floor",
        "headroom",
        "room left",
    ] {
        assert!(help.contains(term), "--help lacks {term:?}:\n{help}");
    }
}

#[test]
fn a_heuristic_compaction_needs_the_shape_and_only_a_confident_one_counts() {
    // The real 2.1.42 micro-compaction run, its fall deepened by hand to a third (148,173 ->
    // 40,000): a compaction's shape at the CLI's compaction zone is a heuristic compaction of
    // high confidence, used for the floor; the same shape far below it is low and unused.
    let scratch = World::new("truth-shape");
    let mut log = log_of(&cli_capture(
        scratch.root(),
        "microcompact/p-2.1.42.jsonl.gz",
    ));
    let after = report_of(&log).drops[0].request_after - 1;
    let key = log.rows()[after].key.clone();
    set_context(&mut log, &key, 40_000, 10_000);
    let report = report_of(&log);
    assert_eq!(
        (report.drops[0].class, report.drops[0].confidence),
        (DropClass::Compaction, Some(Confidence::High))
    );
    assert_eq!(report.estimates.floor, Some(40_000));
    let before = report.drops[0].request_before - 1;
    let key = log.rows()[before].key.clone();
    set_context(&mut log, &key, 130_000, 129_000);
    let report = report_of(&log);
    let drop = report
        .drops
        .iter()
        .find(|drop| drop.request_after == after + 1)
        .unwrap();
    assert_eq!(
        (drop.class, drop.confidence),
        (DropClass::Compaction, Some(Confidence::Low))
    );
    assert_eq!(report.estimates.floor, None);
}
