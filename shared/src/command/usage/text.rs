//! Plain-text tables of rows and reports, for people (programs use `--json`).

use std::fmt::Write as _;

use super::drops::{Basis, DropEvidence};
use super::estimates::{ADVISOR_FACTOR, TriggerEstimate};
use super::log::{SessionLog, TimelineItem};
use super::report::SessionReport;
use super::warnings::Warning;
use crate::store::trigger::Trigger;
use crate::store::usage_record::SkippedLinesRow;
use crate::transcript::lines::MAX_LINE_BYTES;

/// `1234567` as `1,234,567`.
pub fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut text = String::with_capacity(digits.len() + digits.len() / 3);
    for (position, digit) in digits.chars().enumerate() {
        if position > 0 && (digits.len() - position).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

/// `range LOW .. HIGH`, or `at most HIGH` when nothing says where T is not.
pub fn trigger_range(trigger: &TriggerEstimate) -> String {
    match trigger.low {
        Some(low) => format!("range {} .. {}", thousands(low), thousands(trigger.high)),
        None => format!("at most {}", thousands(trigger.high)),
    }
}

/// How the report names a request by its index: "main-chain request" when sub-agent rows make
/// that numbering differ from the rows of `ctxhooks usage`, else "request".
pub fn request_label(report: &SessionReport) -> &'static str {
    if report.sidechain_requests > 0 {
        "main-chain request"
    } else {
        "request"
    }
}

/// `-1,234` or `1,234`.
pub fn signed_thousands(value: i64) -> String {
    if value < 0 {
        format!("-{}", thousands(value.unsigned_abs()))
    } else {
        thousands(value.unsigned_abs())
    }
}

fn short_time(time: Option<&str>) -> String {
    // `2026-01-07T12:36:14.177Z` -> `2026-01-07 12:36:14`
    time.map_or_else(
        || "-".to_owned(),
        |time| time.get(..19).unwrap_or(time).replace('T', " "),
    )
}

/// The rows of a log as a table, with compaction boundaries between them.
pub fn rows_table(log: &SessionLog) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{:>4}  {:<19}  {:<26}  {:>8}  {:>11}  {:>11}  {:>7}  {:>10}  chain",
        "#", "time", "model", "input", "cache write", "cache read", "output", "context"
    );
    let mut number = 0;
    for item in &log.timeline {
        match item {
            TimelineItem::Request(row) => {
                number += 1;
                let chain = if row.sidechain {
                    format!("agent {}", row.agent_id.as_deref().unwrap_or("(inline)"))
                } else {
                    "main".to_owned()
                };
                let _ = writeln!(
                    text,
                    "{number:>4}  {:<19}  {:<26}  {:>8}  {:>11}  {:>11}  {:>7}  {:>10}  {chain}{}",
                    short_time(row.time.as_deref()),
                    row.model.as_deref().unwrap_or("-"),
                    thousands(row.input_tokens),
                    thousands(row.cache_creation_input_tokens),
                    thousands(row.cache_read_input_tokens),
                    thousands(row.output_tokens),
                    thousands(row.context_tokens),
                    if row.advisor { "  advisor" } else { "" },
                );
            }
            TimelineItem::Compaction(boundary) | TimelineItem::MicroCompaction(boundary) => {
                let name = if matches!(item, TimelineItem::Compaction(_)) {
                    "compaction"
                } else {
                    "micro-compaction"
                };
                let _ = writeln!(
                    text,
                    "      ---- {name}{} at {} (trigger {}, preTokens {}) ----",
                    if boundary.sidechain {
                        " (sub-agent)"
                    } else {
                        ""
                    },
                    short_time(boundary.time.as_deref()),
                    boundary.trigger.as_ref().map_or("unknown", Trigger::as_str),
                    boundary
                        .pre_tokens
                        .map_or_else(|| "unknown".to_owned(), thousands),
                );
            }
        }
    }
    let _ = writeln!(text, "{number} request(s)");
    for skipped in &log.skipped {
        let _ = writeln!(text, "{}", skipped_text(skipped));
    }
    text
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
    format!(
        "skipped in `{}`: {}",
        skipped.transcript,
        parts.join(" and ")
    )
}

/// A report as readable text.
pub fn report_text(report: &SessionReport) -> String {
    let mut text = String::new();
    let title = report.session_id.as_deref().map_or_else(
        || report.transcripts.first().cloned().unwrap_or_default(),
        |id| format!("session {id}"),
    );
    let _ = writeln!(text, "{title}");
    let _ = writeln!(
        text,
        "  requests: {} ({} main chain, {} sub-agent)",
        report.requests, report.main_requests, report.sidechain_requests
    );
    let totals = &report.totals;
    let _ = writeln!(
        text,
        "  tokens: input {}, cache write {}, cache read {}, output {}",
        thousands(totals.input_tokens),
        thousands(totals.cache_creation_input_tokens),
        thousands(totals.cache_read_input_tokens),
        thousands(totals.output_tokens),
    );
    for skipped in &report.skipped_lines {
        let _ = writeln!(text, "  {}", skipped_text(skipped));
    }
    let label = request_label(report);
    if let Some(peak) = &report.peak {
        let _ = writeln!(
            text,
            "  peak context: {} ({label} {}, {})",
            thousands(peak.context_tokens),
            peak.index + 1,
            short_time(peak.time.as_deref())
        );
    }
    let _ = writeln!(text, "\n  drops ({}):", report.drops.len());
    if report.drops.is_empty() {
        let _ = writeln!(text, "    none");
    }
    for drop in &report.drops {
        let class = serde_json::to_value(drop.class)
            .ok()
            .and_then(|value| value.as_str().map(ToOwned::to_owned))
            .unwrap_or_default();
        let _ = writeln!(
            text,
            "    {}  {label} {} -> {}: {} -> {}  {class} ({})\n      {}",
            short_time(drop.time.as_deref()),
            drop.before_index + 1,
            drop.after_index + 1,
            thousands(drop.context_before),
            thousands(drop.context_after),
            basis_name(drop.basis),
            drop_evidence_text(&drop.evidence),
        );
    }
    let _ = writeln!(text, "\n  compactions ({}):", report.compactions.len());
    for (index, compaction) in report.compactions.iter().enumerate() {
        let snapshot = match (&compaction.snapshot, report.snapshots.checked) {
            (Some(name), _) => format!("snapshot {name}"),
            (None, true) => "NO SNAPSHOT".to_owned(),
            (None, false) => "snapshots not checked".to_owned(),
        };
        let _ = writeln!(
            text,
            "    {}. {}  {} {}, preTokens {}, before {}, after {}; {snapshot}",
            index + 1,
            short_time(compaction.time.as_deref()),
            compaction
                .trigger
                .as_ref()
                .map_or("unknown trigger", Trigger::as_str),
            basis_name(compaction.basis),
            compaction
                .pre_tokens
                .map_or_else(|| "-".to_owned(), thousands),
            compaction
                .context_before
                .map_or_else(|| "-".to_owned(), thousands),
            compaction
                .context_after
                .map_or_else(|| "-".to_owned(), thousands),
        );
    }
    if report.snapshots.checked {
        let _ = writeln!(
            text,
            "    snapshots: {} matched, {} compaction(s) without, {} snapshot(s) without a compaction",
            report.snapshots.matched.len(),
            report.snapshots.compactions_without_snapshot.len(),
            report.snapshots.snapshots_without_compaction.len(),
        );
    }
    let estimates = &report.estimates;
    let _ = writeln!(text, "\n  estimates:");
    let _ = writeln!(
        text,
        "    cap: {} ({})",
        thousands(estimates.cap.tokens),
        estimates.cap.source
    );
    match &estimates.trigger {
        Some(trigger) => {
            let _ = writeln!(
                text,
                "    trigger T: about {} ({}, from {} automatic compaction(s)){}",
                thousands(trigger.estimate),
                trigger_range(trigger),
                trigger.observations.len(),
                estimates
                    .trigger_ratio
                    .map(|ratio| format!(", {ratio:.2} x cap"))
                    .unwrap_or_default(),
            );
        }
        None => {
            let _ = writeln!(
                text,
                "    trigger T: unknown (no automatic compaction seen)"
            );
        }
    }
    let _ = writeln!(
        text,
        "    floor: {}\n    headroom (T - floor): {}",
        estimates
            .floor
            .map_or_else(|| "unknown".to_owned(), thousands),
        estimates
            .headroom
            .map_or_else(|| "unknown".to_owned(), signed_thousands),
    );
    if !estimates.largest_turns.is_empty() {
        let _ = writeln!(
            text,
            "    turns that added the most context (tool results: bytes, ~tokens at 4 bytes/token):"
        );
        for turn in &estimates.largest_turns {
            let tool = turn
                .largest_tool_result
                .as_ref()
                .map_or_else(String::new, |note| {
                    format!(
                        "; largest result {} {} bytes",
                        note.tool_name.as_deref().unwrap_or("(tool)"),
                        thousands(note.bytes)
                    )
                });
            let _ = writeln!(
                text,
                "      {label} {} ({}): +{}  tool results {} bytes ~{} tokens{tool}",
                turn.index + 1,
                short_time(turn.time.as_deref()),
                thousands(turn.added_tokens),
                thousands(turn.tool_result_bytes),
                thousands(turn.tool_result_tokens_estimate),
            );
        }
    }
    let _ = writeln!(text, "\n  warnings ({}):", report.warnings.len());
    if report.warnings.is_empty() {
        let _ = writeln!(text, "    none");
    }
    for warning in &report.warnings {
        let _ = writeln!(
            text,
            "    [{}] {}",
            warning.kind(),
            warning_text(warning, label)
        );
    }
    text
}

/// A drop's evidence in words.
pub fn drop_evidence_text(evidence: &DropEvidence) -> String {
    let or_unknown = |tokens: Option<u64>| {
        tokens.map_or_else(|| "unknown".to_owned(), |tokens| tokens.to_string())
    };
    let trigger_name = |trigger: &Option<Trigger>| {
        trigger
            .as_ref()
            .map_or("unknown", Trigger::as_str)
            .to_owned()
    };
    match evidence {
        DropEvidence::CompactBoundary {
            time,
            trigger,
            pre_tokens,
        } => format!(
            "compact_boundary{} (trigger {}, preTokens {}) between the two requests",
            time.as_deref()
                .map(|time| format!(" at {time}"))
                .unwrap_or_default(),
            trigger_name(trigger),
            or_unknown(*pre_tokens),
        ),
        DropEvidence::MicrocompactBoundary {
            trigger,
            pre_tokens,
            tokens_saved,
        } => format!(
            "microcompact_boundary (trigger {}, preTokens {}, tokensSaved {}) between the two requests",
            trigger_name(trigger),
            or_unknown(*pre_tokens),
            or_unknown(*tokens_saved),
        ),
        DropEvidence::ZeroContext => {
            "the request after the drop wrote 0 to the cache with 0 context".to_owned()
        }
        DropEvidence::AdvisorCall {
            cache_write,
            compaction_threshold,
        } => format!(
            "the request before the drop called the advisor tool, and the request after it wrote only {cache_write} tokens to the cache (< {compaction_threshold})"
        ),
        DropEvidence::LargeCacheWrite {
            cache_write,
            compaction_threshold,
            after_advisor_call,
        } => format!(
            "no compact_boundary in the log, but the request after the drop wrote {cache_write} tokens to the cache (>= {compaction_threshold}){}",
            if *after_advisor_call {
                ", after an advisor call"
            } else {
                ""
            }
        ),
        DropEvidence::SmallCacheWrite {
            cache_write,
            advisor_threshold,
        } => format!(
            "the request after the drop wrote only {cache_write} tokens to the cache (<= {advisor_threshold})"
        ),
        DropEvidence::BetweenThresholds {
            cache_write,
            advisor_threshold,
            compaction_threshold,
        } => format!(
            "cache write {cache_write} is between {advisor_threshold} and {compaction_threshold}"
        ),
    }
}

/// A warning in words; `label` names requests as [`request_label`] says.
pub fn warning_text(warning: &Warning, label: &str) -> String {
    let when = |time: &Option<String>| time.clone().unwrap_or_else(|| "time unknown".to_owned());
    match warning {
        Warning::CompactionLoop {
            compaction,
            previous,
            turns,
            time,
        } => format!(
            "automatic compaction {} came only {turns} turn(s) after automatic compaction {} \
             ({}): context refills past the trigger at once; look at what the turns put back \
             (large tool results, files read whole) before raising the cap",
            compaction + 1,
            previous + 1,
            when(time),
        ),
        Warning::CompactionWithoutSnapshot { compaction, time } => format!(
            "compaction {} ({}) has no PreCompact snapshot: the hook did not fire (a known \
             Claude Code bug) or was not installed then",
            compaction + 1,
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
            "the context right after compaction is already above the trigger: every turn \
             re-compacts (floor {floor}, trigger about {trigger}, headroom {headroom})"
        ),
        Warning::TurnExceedsHeadroom {
            request,
            time,
            added_tokens,
            headroom,
        } => format!(
            "{label} {} ({}) added {added_tokens} tokens, more than the headroom of \
             {headroom}: one such turn right after a compaction triggers the next",
            request + 1,
            when(time),
        ),
        Warning::AdvisorCrossesTrigger {
            request,
            time,
            context_before,
            inflated,
            trigger,
        } => format!(
            "{label} {} ({}) called the advisor at {context_before} tokens of context; \
             x{ADVISOR_FACTOR} = {inflated} reaches the trigger of about {trigger}",
            request + 1,
            when(time),
        ),
    }
}

fn basis_name(basis: Basis) -> &'static str {
    match basis {
        Basis::Structural => "structural",
        Basis::Heuristic => "heuristic",
    }
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn groups_digits_by_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(155_250), "155,250");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }
}
