//! One streaming pass over a transcript that keeps only what the verdicts and the ledger input
//! need: the interrupt groups (with where their lines are), every result that is not a normal
//! one, the tool calls, the prompts' times before each group, and the lines that could not be
//! read. Then the runtime marks are matched to the groups.

use std::collections::BTreeSet;
use std::io::Read;
use std::ops::ControlFlow;

use anyhow::Result;

use super::calls::ToolCalls;
use super::evidence::Warning;
use super::groups::{GroupFinder, InterruptGroup, LineSpan};
use super::marks;
use super::marks::{UnmatchedMark, UnmatchedReason};
use super::records::{RecordClass, ResultKind, classify_record};
use super::sidecar::Sidecar;
use ctxhooks_shared::transcript::lines::{Line, MAX_LINE_BYTES, split_lines};
use ctxhooks_shared::transcript::record::Record;

/// A `tool_result` that is not a normal one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotableResult {
    /// Its 0-based transcript line.
    pub line: usize,
    /// The call it answers.
    pub tool_use_id: String,
    /// How it reads.
    pub kind: ResultKind,
    /// Its line's timestamp.
    pub time_ms: Option<u64>,
    /// The interrupt group it is in.
    pub group: Option<usize>,
}

/// A transcript analysed: its groups found and the sidecar's marks matched to them.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// The interrupt groups, in transcript order.
    pub groups: Vec<InterruptGroup>,
    /// The results that are not normal ones, in transcript order.
    pub results: Vec<NotableResult>,
    pub calls: ToolCalls,
    /// The sidecar that was used.
    pub sidecar: Sidecar,
    /// Things a reader must know (new marker wording, unreadable lines, bad mark lines).
    pub warnings: Vec<Warning>,
    /// Non-blank lines that are not JSON records (half-written, invalid, or longer than
    /// [`MAX_LINE_BYTES`]).
    pub unreadable_lines: usize,
    /// The lines that are JSON records.
    pub records: usize,
    /// All lines, blank ones included.
    pub line_count: usize,
    /// The bytes read: the file's size when it was read (the ledger input copies no more).
    pub length: u64,
    /// The `sessionId`s of the `user` and `assistant` records.
    pub session_ids: BTreeSet<String>,
}

impl Analysis {
    /// Reads a transcript from its start, finds its groups and matches `sidecar`'s marks to
    /// them. Only what the verdicts need is kept, so memory does not grow with the transcript's
    /// text.
    pub fn scan(transcript: impl Read, sidecar: Sidecar) -> Result<Self> {
        let mut scan = Scan::default();
        scan.analysis.sidecar = sidecar;
        let read = split_lines(transcript, 0, true, MAX_LINE_BYTES, |line| {
            scan.line(line);
            ControlFlow::Continue(())
        })?;
        let mut analysis = scan.analysis;
        analysis.length = read.offset;
        (analysis.groups, analysis.warnings) = scan.finder.finish();
        for group in &mut analysis.groups {
            group.unanswered = std::mem::take(&mut group.calls_before)
                .into_iter()
                .map(|call| analysis.calls.at(call))
                .filter(|call| !call.answered)
                .map(|call| call.id.clone())
                .collect();
        }
        marks::match_marks(&mut analysis.groups, &analysis.sidecar, &analysis.calls);
        let problems = analysis.sidecar.mark_problems.iter();
        analysis
            .warnings
            .extend(problems.map(|problem| Warning::MarkProblem {
                line: problem.line,
                problem: problem.problem.clone(),
            }));
        Ok(analysis)
    }

    /// The marks that cover no interrupt group and are spent on none.
    pub fn unmatched(&self) -> Vec<UnmatchedMark> {
        let matched = |index: usize| {
            self.groups
                .iter()
                .any(|group| group.covered_by == Some(index) || group.spent_marks.contains(&index))
        };
        let marks = self.sidecar.marks.iter().enumerate();
        UnmatchedMark::all(
            marks
                .filter(|(index, _)| !matched(*index))
                .map(|(_, mark)| mark.clone()),
            &UnmatchedReason::NoInterruptInWindow,
        )
    }
}

/// The state of the pass: the analysis as far as it got, and the calls the current line issues
/// (kept to reuse their allocation).
#[derive(Default)]
struct Scan {
    analysis: Analysis,
    finder: GroupFinder,
    issued: Vec<usize>,
}

impl Scan {
    /// Notes the calls the results of line `index` answer, and keeps those that are not normal.
    fn results_of(&mut self, index: usize, class: &RecordClass, time_ms: Option<u64>) {
        let (RecordClass::InterruptOnly { results, .. } | RecordClass::Conversation { results }) =
            class
        else {
            return;
        };
        for (id, kind) in results {
            self.analysis.calls.answered(id);
            if *kind != ResultKind::Normal {
                self.analysis.results.push(NotableResult {
                    line: index,
                    tool_use_id: id.clone(),
                    kind: kind.clone(),
                    time_ms,
                    group: None,
                });
            }
        }
    }

    fn line(&mut self, line: Line) {
        let analysis = &mut self.analysis;
        let index = analysis.line_count;
        analysis.line_count += 1;
        let span = LineSpan {
            offset: line.offset,
            length: line.length,
        };
        let record = match line.bytes {
            Some(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => return,
            Some(bytes) => Record::parse(bytes),
            // Longer than MAX_LINE_BYTES: not read, so not a record either.
            None => None,
        };
        let Some(record) = record else {
            analysis.unreadable_lines += 1;
            self.finder.unreadable(index);
            return;
        };
        analysis.records += 1;
        let conversation = matches!(record.kind(), Some("user" | "assistant"));
        if conversation
            && let Some(id) = record.session_id.text()
            && !analysis.session_ids.contains(id)
        {
            analysis.session_ids.insert(id.to_owned());
        }
        let time_ms = if conversation { record.time_ms() } else { None };
        let class = classify_record(&record, Some(&analysis.sidecar));
        self.issued.clear();
        for (id, tool_use) in record.tool_uses() {
            let call = analysis.calls.issued(id, tool_use, index, time_ms);
            self.issued.push(call);
        }
        let first_result = analysis.results.len();
        self.results_of(index, &class, time_ms);
        let group = self
            .finder
            .record(index, span, &record, class, time_ms, &self.issued);
        for result in &mut self.analysis.results[first_result..] {
            result.group = group;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provenance::ledger::write_ledger_input;
    use crate::provenance::verdict::provenance_report;

    fn ledger_of(text: &[u8]) -> (Analysis, Vec<u8>) {
        let analysis = Analysis::scan(text, Sidecar::default()).unwrap();
        let report = provenance_report(&analysis);
        let mut ledger = Vec::new();
        write_ledger_input(&analysis, &report, std::io::Cursor::new(text), &mut ledger).unwrap();
        (analysis, ledger)
    }

    #[test]
    fn keeps_bytes_and_a_missing_final_newline() {
        let text = b"{\"a\":1}\n{\"b\": 2}";
        let (analysis, ledger) = ledger_of(text);
        assert_eq!(analysis.line_count, 2);
        assert_eq!(analysis.records, 2);
        assert_eq!(analysis.length, text.len() as u64);
        assert_eq!(ledger, text);
    }

    #[test]
    fn a_truncated_line_is_kept_unparsed() {
        let text = b"{\"a\":1}\n{\"b\": ";
        let (analysis, ledger) = ledger_of(text);
        assert_eq!(analysis.records, 1);
        assert_eq!(analysis.unreadable_lines, 1);
        assert_eq!(ledger, text);
    }

    #[test]
    fn blank_lines_count_as_lines_but_are_neither_records_nor_unreadable() {
        let text = b"{\"a\":1}\n\n  \r\n{\"b\":2}\n";
        let (analysis, ledger) = ledger_of(text);
        assert_eq!(analysis.line_count, 4);
        assert_eq!(analysis.records, 2);
        assert_eq!(analysis.unreadable_lines, 0);
        assert_eq!(ledger, text);
    }
}
