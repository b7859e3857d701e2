//! Plain-text tables of rows and reports, for people (programs use `--json`): every number with
//! its unit and source, times in UTC, durations in words, requests numbered from 1.

use std::fmt::Write as _;

use crate::facts::compactions::Compaction;
use crate::facts::drops::{
    Basis, Confidence, ContextDrop, DropEvidence, DropFacts, FallCause, Opening, UndecidedReason,
};
use crate::facts::estimates::{ADVISOR_FACTOR, Derivation, ObservedTrigger, TriggerEstimate};
use crate::facts::log::{SessionLog, SkippedLogLines, TimelineItem};
use crate::facts::report::SessionReport;
use crate::facts::tally::Tally;
use crate::facts::warnings::Warning;
use crate::render::cost::cost_lines;
use crate::render::numbers::{signed_thousands, thousands, thousands_or};
use crate::render::shell::shell_word;
use crate::render::table::{Column, Table};
use crate::render::time::{duration, readable_time};
use crate::time::Time;
use ctxhooks_shared::store::trigger::Trigger;
use ctxhooks_shared::store::usage_record::{
    Boundary, ModelUsage, RequestMarker, SkippedLinesRow, TokenUsage, UsageRow,
};
use ctxhooks_shared::transcript::lines::MAX_LINE_BYTES;
use ctxhooks_shared::usage::threshold::{
    Assumption, MODEL_VARIABLE, ModelSelection, ReserveSource, RuleTrigger, WINDOW_VARIABLE,
    WindowSource,
};

/// How the report names a request by its number: "main-chain request" when sub-agent rows make
/// that numbering differ from the rows of `ctxhooks usage`, else "request".
pub fn request_label(report: &SessionReport) -> &'static str {
    if report.tally.sidechain_requests() > 0 {
        "main-chain request"
    } else {
        "request"
    }
}

/// Token counts in words, `between` each: `input 3, cache write 1,200, cache read 45,000, output
/// 310` (`, `).
pub fn tokens_text(tokens: &TokenUsage, between: &str) -> String {
    format!(
        "input {}{between}cache write {}{between}cache read {}{between}output {}",
        thousands(tokens.input_tokens),
        thousands(tokens.cache_creation_input_tokens),
        thousands(tokens.cache_read_input_tokens),
        thousands(tokens.output_tokens),
    )
}

/// What the table says after a request that called the advisor: the advisor's own tokens, by
/// model, when the response wrote them.
fn advisor_suffix(row: &UsageRow) -> String {
    if !row.advisor {
        return String::new();
    }
    let models = row
        .advisor_usage
        .iter()
        .map(|usage| format!(" {}", model_text(usage, ": ")));
    format!("  advisor{}", models.collect::<String>())
}

/// Another model's name (the advisor's), `between`, and its tokens in words.
fn model_text(usage: &ModelUsage, between: &str) -> String {
    let name = usage.model.as_deref().unwrap_or("(model unnamed)");
    format!("{name}{between}{}", tokens_text(&usage.tokens, ", "))
}

/// The token line of `tally`, then one line per model of the advisor's own tokens (another
/// model than the session's spent them, so the token line does not count them), then the cost
/// line ([`cost_lines`]), each line starting with `indent`.
pub fn totals_lines(tally: &Tally, indent: &str) -> String {
    let mut text = format!("{indent}tokens: {}\n", tokens_text(&tally.tokens, ", "));
    for usage in &tally.advisor {
        let advisor = model_text(usage, " (not in the tokens above): ");
        let _ = writeln!(text, "{indent}advisor {advisor}");
    }
    text.push_str(&cost_lines(&tally.cost, indent));
    text
}

/// The table of rows: number, time, model, the four token counts, the context, and the chain
/// (main, or which sub-agent's).
const ROWS: Table<9> = Table {
    indent: "",
    gap: "  ",
    columns: [
        Column::right("#", 4),
        Column::left("time", 23),
        Column::left("model", 26),
        Column::right("input", 8),
        Column::right("cache write", 11),
        Column::right("cache read", 11),
        Column::right("output", 7),
        Column::right("context", 10),
        Column::left("chain", 0),
    ],
};

/// The rows of a log as a table, with compaction boundaries between them.
pub fn rows_table(log: &SessionLog) -> String {
    let mut text = String::new();
    ROWS.write_header(&mut text);
    let mut number = 0;
    for item in &log.timeline {
        let (name, boundary) = match item {
            TimelineItem::Request(request) => {
                let row = &request.row;
                number += 1;
                let chain = match (row.sidechain, row.agent_id.as_deref()) {
                    (true, agent) => format!("agent {}", agent.unwrap_or("(inline)")),
                    (false, _) => "main".to_owned(),
                };
                let cells = [
                    number.to_string(),
                    readable_time(request.time.as_ref()),
                    row.model.as_deref().unwrap_or("-").to_owned(),
                    thousands(row.tokens.input_tokens),
                    thousands(row.tokens.cache_creation_input_tokens),
                    thousands(row.tokens.cache_read_input_tokens),
                    thousands(row.tokens.output_tokens),
                    thousands(row.context_tokens),
                    chain,
                ];
                ROWS.write_row(&mut text, cells);
                let iterations = if row.facts.counts_from_iterations {
                    "  counts from its iterations (top level 0)"
                } else {
                    ""
                };
                let _ = writeln!(text, "{iterations}{}", advisor_suffix(row));
                continue;
            }
            TimelineItem::Compaction(boundary) => ("compaction", boundary),
            TimelineItem::MicroCompaction(boundary) => ("micro-compaction", boundary),
        };
        let (time, row) = (&boundary.time, &boundary.row);
        let details = compaction_details(&row.boundary);
        let details: String = details.iter().flat_map(|detail| [", ", detail]).collect();
        let agent = if row.sidechain { " (sub-agent)" } else { "" };
        let _ = writeln!(
            text,
            "      ---- {name}{agent} at {} (trigger {}, preTokens {}{details}) ----",
            readable_time(time.as_ref()),
            trigger_name(row.boundary.trigger.as_ref()),
            thousands_or(row.boundary.pre_tokens, "unknown"),
        );
    }
    let _ = writeln!(text, "{number} request(s)");
    let log_lines = log.skipped_log_lines.iter().map(skipped_log_text);
    for skipped in log.skipped.iter().map(skipped_text).chain(log_lines) {
        let _ = writeln!(text, "{skipped}");
    }
    text
}

/// Lines of the usage log that are no record, in words.
pub fn skipped_log_text(skipped: &SkippedLogLines) -> String {
    format!(
        "skipped in the usage log `{}`: {} unreadable line(s) (not a usage record this version \
         reads; the first is line {})",
        skipped.usage_log,
        thousands(skipped.unreadable),
        thousands(skipped.first_line)
    )
}

/// Lines of a transcript that could not be read, in words.
pub fn skipped_text(skipped: &SkippedLinesRow) -> String {
    let mut parts = Vec::new();
    if skipped.unreadable > 0 {
        parts.push(format!(
            "{} unreadable line(s) (not a JSON object, or usage fields of the wrong type)",
            thousands(skipped.unreadable)
        ));
    }
    if skipped.overlong > 0 {
        parts.push(format!(
            "{} line(s) longer than {} MiB",
            thousands(skipped.overlong),
            MAX_LINE_BYTES / (1024 * 1024)
        ));
    }
    let parts = parts.join(" and ");
    format!("skipped in `{}`: {parts}", skipped.transcript)
}

/// A report as readable text.
pub fn report_text(report: &SessionReport) -> String {
    let label = request_label(report);
    let title = report.session_id.as_deref().map_or_else(
        || report.transcripts.first().cloned().unwrap_or_default(),
        |id| format!("session {id}"),
    );
    let mut text = format!(
        "{title}\n  requests: {} ({} main chain, {} sub-agent)\n{}",
        report.tally.requests,
        report.tally.main_requests,
        report.tally.sidechain_requests(),
        totals_lines(&report.tally, "  ")
    );
    let transcript_lines = report.skipped_lines.iter().map(skipped_text);
    let log_lines = report.skipped_log_lines.iter().map(skipped_log_text);
    for skipped in transcript_lines.chain(log_lines) {
        let _ = writeln!(text, "  {skipped}");
    }
    if let Some(peak) = &report.peak {
        let _ = writeln!(
            text,
            "  peak context: {} ({label} {}, {})",
            thousands(peak.context_tokens),
            peak.request,
            readable_time(peak.time.as_ref())
        );
    }
    let min_drop = thousands(report.thresholds.min_drop);
    let drops = report.drops.iter().map(|drop| drop_text(drop, label));
    let title = format!("context falls of at least {min_drop} tokens between {label}s");
    section(&mut text, &title, drops.collect());
    compactions_text(report, &mut text);
    text.push_str(&estimates_text(report, label));
    let warnings = report.warnings.iter().map(|warning| {
        let kind: &str = warning.into();
        format!("    [{kind}] {}\n", warning_text(warning, label))
    });
    section(&mut text, "warnings", warnings.collect());
    text
}

/// A section of the report: `title (count):`, then each item's lines, or `none`.
fn section(text: &mut String, title: &str, items: Vec<String>) {
    let _ = writeln!(text, "\n  {title} ({}):", items.len());
    if items.is_empty() {
        text.push_str("    none\n");
    }
    text.extend(items);
}

/// One fall: where, how much, its class with its evidence, and the other facts.
fn drop_text(drop: &ContextDrop, label: &str) -> String {
    let fall = drop.fall();
    // Wide enough for any count a transcript may hold (a fall times 100 is past u64 above
    // 184 quadrillion tokens); the share itself is at most 100.
    let percent = u128::from(fall) * 100 / u128::from(drop.context_before.max(1));
    let class = match drop.basis {
        Basis::None => drop.class.to_string(),
        basis => format!("{} ({})", drop.class, basis_text(basis, drop.confidence)),
    };
    // The facts around it always say at least what the cache did.
    format!(
        "    {label} {} -> {} ({}): {} -> {} (-{}, -{percent} %)\n      {class}: {}\n      \
         around it: {}\n",
        drop.request_before,
        drop.request_after,
        readable_time(drop.time.as_ref()),
        thousands(drop.context_before),
        thousands(drop.context_after),
        thousands(fall),
        drop_evidence_text(&drop.evidence, fall),
        facts_text(&drop.facts),
    )
}

/// What a class rests on, in words: `structural`, `heuristic`, `heuristic, high confidence`,
/// `heuristic, low confidence: not used for estimates`.
fn basis_text(basis: Basis, confidence: Option<Confidence>) -> String {
    let confidence = match confidence {
        Some(Confidence::High) => ", high confidence",
        Some(Confidence::Low) => ", low confidence: not used for estimates",
        None => "",
    };
    format!("{basis}{confidence}")
}

/// The compactions, each with its snapshot, then where to read their summaries and the snapshot
/// check's counts.
fn compactions_text(report: &SessionReport, text: &mut String) {
    let snapshots = &report.snapshots;
    let lines = report
        .compactions
        .iter()
        .enumerate()
        .map(|(index, compaction)| {
            let snapshot = match (&compaction.snapshot, snapshots.checked) {
                (Some(name), _) => format!("snapshot {name}"),
                (None, true) if compaction.is_trusted() => "NO SNAPSHOT".to_owned(),
                (None, true) => "snapshots not checked for it".to_owned(),
                (None, false) => "snapshots not checked".to_owned(),
            };
            let time = readable_time(compaction.time.as_ref());
            let summary = compaction_summary(compaction);
            format!("    {}. {time}  {summary}; {snapshot}\n", index + 1)
        });
    section(text, "compactions", lines.collect());
    if let Some(command) = ledger_command(report) {
        let _ = writeln!(text, "    what each summary named or left out: {command}");
    }
    if snapshots.checked {
        let _ = writeln!(
            text,
            "    snapshots: {} matched, {} compaction(s) without, {} snapshot(s) without a compaction",
            snapshots.matched.len(),
            snapshots.compactions_without_snapshot.len(),
            snapshots.snapshots_without_compaction.len(),
        );
    }
}

/// The command that shows the compaction ledger of the report's session or transcript, when a
/// compaction has a boundary (the ledger reads boundaries and their summaries).
fn ledger_command(report: &SessionReport) -> Option<String> {
    let compactions = &report.compactions;
    let structural = compactions
        .iter()
        .any(|compaction| compaction.basis == Basis::Structural);
    let flag = match (&report.session_id, report.transcripts.first()) {
        _ if !structural => return None,
        (Some(session), _) => format!("--session {session}"),
        (None, Some(transcript)) => format!("--transcript {}", shell_word(transcript)),
        (None, None) => return None,
    };
    Some(format!("ctxhooks compactions {flag}"))
}

fn compaction_summary(compaction: &Compaction) -> String {
    let trigger = match &compaction.boundary.trigger {
        Some(Trigger::Auto) => "automatic".to_owned(),
        Some(Trigger::Manual) => "manual".to_owned(),
        other => format!("trigger {}", trigger_name(other.as_ref())),
    };
    let basis = basis_text(compaction.basis, compaction.confidence);
    let mut parts = vec![format!("{trigger} ({basis})")];
    parts.extend(
        (compaction.boundary.pre_tokens).map(|pre| format!("preTokens {}", thousands(pre))),
    );
    parts.extend(compaction_details(&compaction.boundary));
    parts.push(format!(
        "context {} before, {} after (request {})",
        thousands_or(compaction.context_before, "-"),
        thousands_or(compaction.context_after, "-"),
        compaction.next_request
    ));
    if let Some(requests) = compaction.requests_since_previous_automatic {
        let time = compaction
            .seconds_since_previous_automatic
            .map(|seconds| format!(", {}", duration(seconds)))
            .unwrap_or_default();
        parts.push(format!(
            "{requests} request(s) and {} prompt(s) after the previous automatic one{time}",
            compaction.turns_since_previous_automatic.unwrap_or(0)
        ));
    }
    parts.join(", ")
}

/// The estimates: cap, T, floor, headroom, room left, and the requests that added the most.
fn estimates_text(report: &SessionReport, label: &str) -> String {
    let estimates = &report.estimates;
    let heuristic = estimates
        .floors
        .iter()
        .filter(|floor| floor.confidence.is_some())
        .count();
    let count = estimates.floors.len();
    let median_of = match heuristic {
        0 => format!("{count} structural compaction(s)"),
        _ => format!("{count} compaction(s), {heuristic} of them heuristic of high confidence"),
    };
    let floor = estimates.floor.map_or_else(
        || "unknown (no compaction with a record or of high confidence yet)".to_owned(),
        |floor| format!("{} (median of {median_of})", thousands(floor)),
    );
    let ratio = estimates
        .trigger_ratio
        .map(|ratio| format!("      T is {ratio:.2} x the cap\n"));
    let mut text = format!(
        "\n  estimates:\n    cap (the window W compaction is measured against): {} ({})\n    \
         trigger T (where the CLI compacts): {}\n{}    floor (the context right after a \
         compaction): {floor}\n",
        thousands(estimates.cap.tokens),
        window_source_text(&estimates.cap.source, &estimates.trigger.rule),
        trigger_text(&estimates.trigger),
        ratio.unwrap_or_default()
    );
    if let Some(headroom) = estimates.headroom {
        let _ = writeln!(
            text,
            "    headroom (T - floor: what a session adds after a compaction before the next): {}",
            signed_thousands(headroom)
        );
    }
    if let (Some(room), Some(latest)) = (estimates.room_left, &estimates.latest_context) {
        let _ = writeln!(
            text,
            "    room left (T - the latest context, {} at {label} {}): {}",
            thousands(latest.tokens),
            latest.request,
            signed_thousands(room)
        );
    }
    if !estimates.largest_requests.is_empty() {
        let _ = writeln!(
            text,
            "    {label}s that added the most context (tool results they sent: bytes, ~tokens at 4 bytes/token):"
        );
    }
    for request in &estimates.largest_requests {
        let tool = request
            .largest_tool_result
            .as_ref()
            .map_or_else(String::new, |note| {
                let name = note.tool_name.as_deref().unwrap_or("(tool)");
                format!("; largest result {name} {} bytes", thousands(note.bytes))
            });
        let _ = writeln!(
            text,
            "      {label} {} ({}): +{}  tool results {} bytes ~{} tokens{tool}",
            request.request,
            readable_time(request.time.as_ref()),
            thousands(request.added_tokens),
            thousands(request.tool_result_bytes),
            thousands(request.tool_result_tokens_estimate),
        );
    }
    text
}

/// Where the window came from, in words.
pub fn window_source_text(source: &WindowSource, rule: &RuleTrigger) -> String {
    let model = rule.model.as_deref();
    let the_model = model.unwrap_or("the model");
    match source {
        WindowSource::Flag => "--cap".to_owned(),
        WindowSource::Environment => format!("{WINDOW_VARIABLE} in this environment"),
        WindowSource::ModelSetting { path, model } => format!(
            "modelSettings.{model}.autoCompactWindow in {}",
            path.display()
        ),
        WindowSource::Setting(path) => format!("autoCompactWindow in {}", path.display()),
        WindowSource::StatusLine => format!("the window the status line gave for {the_model}"),
        WindowSource::SelectedModel(selection) => format!(
            "the window of {the_model}, the model {} selects",
            match selection {
                ModelSelection::Environment => format!("{MODEL_VARIABLE} in this environment"),
                ModelSelection::Setting(path) => format!("`model` in {}", path.display()),
            }
        ),
        WindowSource::Unknown => format!(
            "no window: ctxhooks does not know {the_model}, and no status line, setting or \
             compaction gave one"
        ),
        WindowSource::Model => format!(
            "the window of {}{}",
            model.unwrap_or("an unknown model"),
            rule.version
                .as_deref()
                .map(|version| format!(" under CLI {version}"))
                .unwrap_or_default()
        ),
    }
}

/// The CLI the rule is for: `CLI 2.1.332`, or `the CLI` when no request named its version.
fn cli_name(rule: &RuleTrigger) -> String {
    rule.version
        .as_deref()
        .map_or_else(|| "the CLI".to_owned(), |version| format!("CLI {version}"))
}

/// A compaction's trigger as the record spells it (`auto`, `manual`), or `unknown`.
fn trigger_name(trigger: Option<&Trigger>) -> &str {
    trigger.map_or("unknown", Trigger::as_str)
}

/// The CLI's rule in words: `CLI 2.1.332's rule: W 200,000 - reserved output 20,000 - buffer
/// 13,000`.
pub fn rule_text(rule: &RuleTrigger) -> String {
    let cli = cli_name(rule);
    let reserve = match rule.reserve_source {
        ReserveSource::Request => " (the max_tokens the CLI asked for)",
        ReserveSource::Environment => " (CLAUDE_CODE_MAX_OUTPUT_TOKENS)",
        ReserveSource::Default => "",
    };
    let mut text = format!(
        "{cli}'s rule: W {} - reserved output {}{reserve} - buffer {}",
        thousands(rule.window.tokens),
        thousands(rule.reserved_output),
        thousands(rule.buffer)
    );
    if let Some(percent) = rule.percent_override {
        let _ = write!(text, ", at most {percent} % of W - reserved output");
    }
    for assumption in &rule.assumptions {
        let said = match assumption {
            Assumption::VersionUnknown { assumed } => {
                format!("no request names its CLI version, so {assumed}'s rule is assumed")
            }
            Assumption::VersionUnchecked { version, rule_of } => {
                format!("{version}'s code was not read; {rule_of}'s rule is used")
            }
            Assumption::ModelUnknown => "no request names its model".to_owned(),
            Assumption::EnvironmentOfReport => {
                "the environment variables are this shell's, not necessarily the session's"
                    .to_owned()
            }
        };
        let _ = write!(text, "; {said}");
    }
    text
}

/// What the observations say, in words: `1 automatic compaction observed (did not fire at
/// 154,796, fired at 155,250)`.
fn observed_text(observed: &ObservedTrigger) -> String {
    let count = observed.observations.len();
    let high = thousands(observed.high);
    let range = match observed.low {
        Some(low) => format!("did not fire at {}, fired at {high}", thousands(low)),
        None => format!("T is at most {high}; nothing says where it did not fire"),
    };
    let agreement = if observed.consistent {
        ""
    } else {
        "; they disagree among themselves, the widest range is shown"
    };
    let plural = if count == 1 { "" } else { "s" };
    format!("{count} automatic compaction{plural} observed ({range}{agreement})")
}

/// T and its derivation in words.
pub fn trigger_text(trigger: &TriggerEstimate) -> String {
    let rule = &trigger.rule;
    let tokens = thousands_or(trigger.tokens, "none");
    let model = rule.model.as_deref();
    let reactive = format!(
        "{} compacts {} only when the API refuses a prompt (at about its window of {})",
        cli_name(rule),
        model.unwrap_or("this model"),
        thousands(rule.model_window)
    );
    let the_model = model.unwrap_or("the model");
    let window_unknown = format!("ctxhooks does not know the window of {the_model}");
    let rule_says = rule_text(rule);
    let rule_gives = format!("{rule_says} gives {}", thousands_or(rule.tokens, "none"));
    let observed = trigger.observed.as_ref().map(observed_text);
    match (&trigger.derivation, observed) {
        (Derivation::RuleConfirmed, Some(observed)) => {
            format!("{tokens} — {rule_says}; it agrees with the {observed}")
        }
        (Derivation::Rule, _) => {
            format!("{tokens} — {rule_says}; no automatic compaction observed yet to check it")
        }
        (Derivation::ObservedAgainstRule, Some(observed)) => format!(
            "about {tokens} — from {observed}; {rule_gives}, which they contradict: the session \
             ran with another window or version than this report can see"
        ),
        (Derivation::Observed, Some(observed)) => {
            let why = if rule.window.source == WindowSource::Unknown {
                window_unknown
            } else {
                reactive
            };
            format!("about {tokens} — from {observed}; {why}")
        }
        (Derivation::RuleContradicted, _) => {
            let reached = thousands(trigger.reached_without_compaction.unwrap_or_default());
            let (estimate, bound) = match trigger.tokens {
                Some(tokens) => (
                    format!("about {}", thousands(tokens)),
                    "T lies between that and the lowest automatic compaction above it",
                ),
                None => (
                    "unknown".to_owned(),
                    "T is above it, and nothing observed bounds it from above",
                ),
            };
            format!(
                "{estimate} — {rule_gives}, which this session contradicts (the context reached \
                 {reached} with no compaction after it): {bound}"
            )
        }
        (Derivation::WindowUnknown, _) => format!(
            "unknown — {window_unknown}, and no status line (`ctxhooks statusline` records the \
             window Claude Code gives it), setting or automatic compaction gave one{}",
            trigger
                .reached_without_compaction
                .map(|reached| {
                    let reached = thousands(reached);
                    format!("; T is above {reached}, reached with no compaction after it")
                })
                .unwrap_or_default()
        ),
        (Derivation::NoMainChain, _) => format!(
            "{tokens} — no main-chain request: the version and the model the session ran with \
             are unknown"
        ),
        _ => format!("{tokens} — {reactive}"),
    }
}

/// The facts around a fall that its evidence did not already say, in words.
pub fn facts_text(facts: &DropFacts) -> String {
    let mut parts = Vec::new();
    match facts.opened_by {
        Opening::Prompt => parts.push("a typed prompt came before the request after".to_owned()),
        Opening::ToolResults => parts
            .push("the request after continues a tool loop (tool results, no prompt)".to_owned()),
        Opening::Other => {}
    }
    if let Some(seconds) = facts.gap_seconds {
        parts.push(format!("{} between the requests", duration(seconds)));
    }
    parts.push(format!(
        "cache read {} and written {} by the request after{}",
        thousands(facts.cache_read_after),
        thousands(facts.cache_write_after),
        if facts.cache_cold_after {
            " (cold: less than half read from the cache)"
        } else {
            ""
        }
    ));
    match (&facts.version_before, &facts.version_after) {
        (Some(before), Some(after)) if before == after => parts.push(format!("CLI {before}")),
        (Some(before), Some(after)) => parts.push(format!("CLI {before} -> {after}")),
        _ => {}
    }
    if !facts.markers.is_empty() {
        parts.push(format!("records between: {}", markers_text(&facts.markers)));
    }
    if facts.thinking_before > 0 {
        let thinking = thousands(facts.thinking_before);
        parts.push(format!("thinking of the turn before ~{thinking} tokens"));
    }
    parts.join("; ")
}

/// Marker records in words, joined by commas.
fn markers_text(markers: &[RequestMarker]) -> String {
    let words = markers.iter().map(|marker| match marker {
        RequestMarker::CompactSummary => "a compact summary",
        RequestMarker::SyntheticNoResponse => {
            "the synthetic \"No response requested.\" of a resumed session"
        }
        RequestMarker::CostState => "a cost-state record (a process ended)",
        RequestMarker::ExitCommand => "the /exit command",
        RequestMarker::SessionStartResume => "a SessionStart:resume hook",
        RequestMarker::QueueOperation => "queue-operation records (a queued or -p prompt)",
    });
    words.collect::<Vec<_>>().join(", ")
}

fn cause_text(cause: FallCause) -> String {
    match cause {
        FallCause::Unknown => {
            "this does not explain the fall (a resumed or upgraded CLI sends the same messages, \
             and an expired cache removes nothing); its cause is unknown: the transcript does not \
             record what was sent"
                .to_owned()
        }
        FallCause::ThinkingLikely { thinking_tokens } => format!(
            "this does not explain the fall by itself; the thinking of the turn before (~{} \
             tokens) covers it, and this CLI does not send earlier thinking: likely the API no \
             longer counting it",
            thousands(thinking_tokens)
        ),
    }
}

/// A drop's evidence in words; `fall` is the tokens that fell.
pub fn drop_evidence_text(evidence: &DropEvidence, fall: u64) -> String {
    let fall = thousands(fall);
    let or_unknown = |tokens: Option<u64>| thousands_or(tokens, "unknown");
    match evidence {
        DropEvidence::CompactBoundary {
            time,
            trigger,
            pre_tokens,
        } => format!(
            "a compact_boundary record{} (trigger {}, preTokens {}) lies between the two requests",
            time.as_ref()
                .map(|time| format!(" at {}", readable_time(Some(time))))
                .unwrap_or_default(),
            trigger_name(trigger.as_ref()),
            or_unknown(*pre_tokens),
        ),
        DropEvidence::CompactSummary => {
            "a compact summary (isCompactSummary) came before the request after".to_owned()
        }
        DropEvidence::MicrocompactBoundary {
            trigger,
            pre_tokens,
            tokens_saved,
        } => format!(
            "a microcompact_boundary record (trigger {}, tool results estimated at {}, tokensSaved {}) lies between the two requests",
            trigger_name(trigger.as_ref()),
            or_unknown(*pre_tokens),
            or_unknown(*tokens_saved),
        ),
        DropEvidence::NoUsage => {
            "the request after reports no tokens at all: no measurement, so no real fall".to_owned()
        }
        DropEvidence::ModelSwitch {
            from,
            to,
            other_model_thinking,
            strips_other_thinking,
        } => format!(
            "the model changed from {from} to {to}: the new model counts the conversation with \
             its own tokenizer{}; ~{} tokens of thinking by other models since the last \
             compaction, by estimate, against a fall of {fall}",
            if *strips_other_thinking {
                ", and this CLI sends it no thinking another model wrote"
            } else {
                " (whether this CLI still sent the other model's thinking is not recorded)"
            },
            thousands(*other_model_thinking),
        ),
        DropEvidence::AdvisorCall => {
            "the request before called the advisor (advisor blocks or an advisor iteration): its \
             round trip inflated that request"
                .to_owned()
        }
        DropEvidence::UnloggedMicroCompaction {
            version,
            warning_level,
        } => format!(
            "no record, but mid tool loop, same model and CLI {version}, from at least its \
             warning level {} (T - 20,000), a fall of at least 20,000: CLI {version} clears old \
             tool results there without a record in this mode",
            thousands(*warning_level)
        ),
        DropEvidence::CompactionShape { warning_level } => {
            let level = match warning_level {
                Some(level) => format!(
                    "; the CLI's compaction zone starts at {} (T - 20,000)",
                    thousands(*level)
                ),
                None => "; the CLI's trigger is unknown".to_owned(),
            };
            format!(
                "no record, but the context fell to a third or less, the shape of a conversation \
                 replaced by its summary{level}"
            )
        }
        DropEvidence::CliUpgrade { from, to, cause } => format!(
            "the CLI changed from {from} to {to} here (a new process, with its own system prompt \
             and tools); {}",
            cause_text(*cause)
        ),
        DropEvidence::Resume { markers, cause } => format!(
            "a new Claude Code process resumed the session here ({}); {}",
            markers_text(markers),
            cause_text(*cause)
        ),
        DropEvidence::IdleGap {
            gap_seconds,
            ttl,
            ttl_known,
            cause,
        } => format!(
            "{} passed between the requests, longer than the cache lifetime of {}{}, and the \
             request after read little from the cache: the cache had expired; {}",
            duration(*gap_seconds),
            ttl.as_str(),
            if *ttl_known {
                ""
            } else {
                " (the log does not say it; the API's default)"
            },
            cause_text(*cause)
        ),
        DropEvidence::ThinkingDropped { thinking_tokens } => format!(
            "a new prompt, the same model and CLI, a warm cache; the thinking of the turn before \
             (~{} tokens by estimate) covers the fall of {fall}: the API stops counting earlier \
             turns' thinking (this CLI does not send it with keep \"all\")",
            thousands(*thinking_tokens),
        ),
        DropEvidence::Undecided(reason) => undecided_text(reason, &fall),
    }
}

/// Why a fall stays undecided, in words; `fall` is the tokens that fell, in figures.
fn undecided_text(reason: &UndecidedReason, fall: &str) -> String {
    match reason {
        UndecidedReason::MidLoopBelowWarningLevel { warning_level } => format!(
            "mid tool loop, but the context before was below the CLI's warning level {} \
             (T - 20,000), where it clears old tool results; no record says what fell",
            thousands(*warning_level)
        ),
        UndecidedReason::MidLoopTooSmall => format!(
            "mid tool loop; a fall of {fall} is less than any micro-compaction (20,000) and no \
             record says what fell"
        ),
        UndecidedReason::MidLoopNoMicroCompaction { version } => format!(
            "mid tool loop, from CLI {version}, which clears tool results only on the API's \
             request (no record in the transcript); nothing says what fell"
        ),
        UndecidedReason::VersionUnknown => {
            "the log does not say which CLI version sent the requests, so what it does here \
             (clear old tool results, send earlier thinking) is unknown, and no record says what \
             fell"
                .to_owned()
        }
        UndecidedReason::MidLoopNoProactiveCompaction => {
            "mid tool loop, with a model this CLI compacts only on refusal; nothing says what fell"
                .to_owned()
        }
        UndecidedReason::ThinkingDoesNotCover { thinking_tokens } => format!(
            "at a new prompt; the thinking of the turn before (~{} tokens by estimate) does not \
             cover the fall of {fall}, and no record says what fell",
            thousands(*thinking_tokens),
        ),
        UndecidedReason::ThinkingKept { version } => format!(
            "at a new prompt, from CLI {version}, which sends every earlier thinking block; no \
             record says what fell"
        ),
        UndecidedReason::PrefixChanged => {
            "at a new prompt, with a cold cache although within its lifetime: what the request \
             starts with changed (system prompt, tools or earlier messages), and nothing says how"
                .to_owned()
        }
        UndecidedReason::NoTurnBoundary => {
            "neither a prompt nor tool results came before the request after, and no record says \
             what fell"
                .to_owned()
        }
    }
}

/// A warning in words; `label` names requests as [`request_label`] says.
pub fn warning_text(warning: &Warning, label: &str) -> String {
    let when = |time: &Option<Time>| readable_time(time.as_ref());
    match warning {
        Warning::CompactionLoop {
            compaction,
            previous,
            requests,
            turns,
            seconds,
            time,
        } => format!(
            "automatic compaction {compaction} ({}) came {requests} {label}(s){} and {turns} \
             prompt(s) after automatic compaction {previous}: the context refills past the \
             trigger at once; look at what those requests put back (large tool results, files \
             read whole) before raising the cap",
            when(time),
            seconds
                .map(|seconds| format!(" ({})", duration(seconds)))
                .unwrap_or_default(),
        ),
        Warning::CompactionWithoutSnapshot { compaction, time } => format!(
            "compaction {compaction} ({}) has no PreCompact snapshot: the hook did not fire (a \
             known Claude Code bug) or was not installed then",
            when(time),
        ),
        Warning::SnapshotWithoutCompaction { snapshot } => format!(
            "snapshot {snapshot} has no compaction in the usage log (the compaction failed, or \
             its boundary has not been logged yet)"
        ),
        Warning::FloorAboveTrigger {
            floor,
            trigger,
            headroom,
        } => format!(
            "the context right after compaction is already at or above the trigger: every \
             request re-compacts (floor {}, trigger {}, headroom {})",
            thousands(*floor),
            thousands(*trigger),
            signed_thousands(*headroom)
        ),
        Warning::RequestExceedsHeadroom {
            request,
            time,
            added_tokens,
            headroom,
        } => format!(
            "{label} {request} ({}) added {} tokens, more than the headroom of {}: one such \
             request right after a compaction triggers the next",
            when(time),
            thousands(*added_tokens),
            signed_thousands(*headroom)
        ),
        Warning::AdvisorCrossesTrigger {
            request,
            time,
            context_before,
            inflated,
            trigger,
        } => format!(
            "{label} {request} ({}) called the advisor at {} tokens of context; x{ADVISOR_FACTOR} \
             = {} reaches the trigger of {}",
            when(time),
            thousands(*context_before),
            thousands(*inflated),
            thousands(*trigger)
        ),
    }
}

/// What newer CLIs write of a compaction besides its trigger and `preTokens`, each as a phrase:
/// `postTokens 2,638`, `took 61 ms`, `2 message(s) kept verbatim` (nothing for what is not
/// written).
fn compaction_details(boundary: &Boundary) -> Vec<String> {
    let details = &boundary.details;
    let kept = details.preserved_messages.as_ref();
    let phrases = [
        boundary
            .post_tokens
            .map(|post| format!("postTokens {}", thousands(post))),
        details
            .duration_ms
            .map(|milliseconds| format!("took {} ms", thousands(milliseconds))),
        kept.map(|kept| format!("{} message(s) kept verbatim", kept.len())),
    ];
    phrases.into_iter().flatten().collect()
}
