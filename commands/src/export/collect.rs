//! Gathering the export's records: from the projects folders (each session's transcripts, read
//! as `ctxhooks history` reads them) and from the state folder (usage logs of sessions whose
//! transcript is not in those folders, snapshots, sidecars' tool events, provenance verdicts).

use std::path::{Path, PathBuf};

use chrono::{DateTime, SecondsFormat, Utc};
use rayon::prelude::*;
use serde::Serialize;

use super::records::{
    CompactionRecord, EXPORT_SCHEMA, Envelope, ProvenanceRecord, RequestRecord, SessionRecord,
    SnapshotRecord, Source, ToolEventRecord,
};
use crate::archives::catalog::{SnapshotEntry, list_snapshots};
use crate::projects::cache::Cache;
use crate::projects::discover::{SessionFiles, discover};
use crate::projects::session::load_session;
use crate::projects::slug_of;
use crate::provenance::load::load_analysis;
use crate::provenance::verdict::provenance_report;
use crate::time::Time;
use crate::usage::log::{SessionLog, read_session_log};
use crate::usage::report::{ReportOptions, SessionReport, build_report};
use crate::usage::text::drop_evidence_text;
use ctxhooks_shared::store::rotation;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::sidecar::SidecarLine;
use ctxhooks_shared::store::state_dir::StateDir;

/// What to export.
#[derive(Debug, Clone)]
pub struct ExportQuery {
    /// The projects folders.
    pub folders: Vec<PathBuf>,
    /// The state folder, when there is one.
    pub state: Option<StateDir>,
    /// The machine's name.
    pub host: String,
    /// Only records at or after this time.
    pub since: Option<DateTime<Utc>>,
    /// The cache transcripts are read through, if any.
    pub cache: Option<Cache>,
}

/// The export, or one session's part of it: its lines (each a JSON record and a newline), how
/// many, what could not be read (in words) and the projects folders that could be listed.
#[derive(Debug, Clone, Default)]
pub struct Export {
    pub lines: Vec<u8>,
    pub records: usize,
    pub problems: Vec<String>,
    pub folders_read: usize,
}

/// Where one session's records go: the envelope's fields, the time filter, the lines.
struct Writer<'a> {
    query: &'a ExportQuery,
    project: Option<String>,
    session: String,
    source: Source,
    lines: Export,
}

impl Writer<'_> {
    fn push<T: Serialize>(&mut self, kind: &'static str, id: String, time: Option<Time>, body: T) {
        if let Some(since) = self.query.since
            && time
                .as_ref()
                .and_then(Time::instant)
                .is_none_or(|at| at < since)
        {
            return;
        }
        let envelope = Envelope {
            schema: EXPORT_SCHEMA,
            kind,
            id,
            host: self.query.host.clone(),
            project: self.project.clone(),
            session: self.session.clone(),
            time,
            source: self.source,
            body,
        };
        match serde_json::to_vec(&envelope) {
            Ok(mut line) => {
                line.push(b'\n');
                self.lines.lines.extend_from_slice(&line);
                self.lines.records += 1;
            }
            Err(error) => self.problem(&format!("a {kind} record could not be written: {error}")),
        }
    }

    /// Notes, in words, what of the session could not be read or written.
    fn problem(&mut self, what: &str) {
        self.lines
            .problems
            .push(format!("session {}: {what}", self.session));
    }
}

/// Gathers every record.
pub fn export(query: &ExportQuery, options: &ReportOptions) -> Export {
    let found = discover(&query.folders);
    let mut export = Export {
        folders_read: found.folders_read,
        problems: found.problems.iter().map(ToString::to_string).collect(),
        ..Export::default()
    };
    let from_history: Vec<Export> = found
        .sessions
        .par_iter()
        .with_max_len(1)
        .map(|files| history_session(query, options, files))
        .collect();
    let state_sessions = query
        .state
        .as_ref()
        .and_then(|state| state.session_ids().ok())
        .unwrap_or_default();
    let from_state: Vec<Export> = state_sessions
        .par_iter()
        .with_max_len(1)
        .map(|session| {
            let files = found
                .sessions
                .iter()
                .find(|files| files.session_id == session.as_str());
            state_session(query, options, session, files)
        })
        .collect();
    for part in from_history.into_iter().chain(from_state) {
        export.lines.extend_from_slice(&part.lines);
        export.records += part.records;
        export.problems.extend(part.problems);
    }
    export
}

fn snapshots_of(query: &ExportQuery, session: &str) -> Option<Vec<SnapshotEntry>> {
    let state = query.state.as_ref()?;
    let session = SessionId::parse(session).ok()?;
    list_snapshots(state, Some(&session)).ok()
}

fn history_session(query: &ExportQuery, options: &ReportOptions, files: &SessionFiles) -> Export {
    let loaded = load_session(files, query.cache.as_ref());
    let mut writer = Writer {
        query,
        project: Some(files.project.clone()),
        session: files.session_id.clone(),
        source: Source::Transcript,
        lines: Export::default(),
    };
    let problems = loaded.problems.iter().map(ToString::to_string);
    writer.lines.problems.extend(problems);
    if loaded.log.requests().next().is_none() {
        return writer.lines;
    }
    let snapshots = snapshots_of(query, &files.session_id);
    let report = build_report(
        Some(&files.session_id),
        &loaded.log,
        snapshots.as_deref(),
        options,
    );
    usage_records(&mut writer, &loaded.log, &report);
    writer.lines
}

/// One session's records from the state folder; `files` are its transcripts when the projects
/// folders hold them (its requests come from there then, not from its usage log).
fn state_session(
    query: &ExportQuery,
    options: &ReportOptions,
    session: &SessionId,
    files: Option<&SessionFiles>,
) -> Export {
    let Some(state) = &query.state else {
        return Export::default();
    };
    let mut writer = Writer {
        query,
        project: None,
        session: session.as_str().to_owned(),
        source: Source::UsageLog,
        lines: Export::default(),
    };
    let log = rotation::log_exists(&state.usage_log(session))
        .then(|| read_session_log(state, session))
        .transpose()
        .unwrap_or_else(|error| {
            writer.problem(&format!("the usage log could not be read: {error:#}"));
            None
        });
    // The project folder's name where the transcript was found, else the slug of its `cwd`.
    writer.project = files.map(|files| files.project.clone()).or_else(|| {
        log.as_ref()
            .and_then(|log| log.sources.iter().find_map(|source| source.cwd.as_deref()))
            .map(slug_of)
    });
    let snapshots = list_snapshots(state, Some(session)).unwrap_or_default();
    if files.is_none()
        && let Some(log) = &log
        && log.requests().next().is_some()
    {
        let report = build_report(Some(session.as_str()), log, Some(&snapshots), options);
        usage_records(&mut writer, log, &report);
    }
    writer.source = Source::State;
    for snapshot in &snapshots {
        let metadata = &snapshot.metadata;
        writer.push(
            "snapshot",
            format!("snapshot:{session}:{}", metadata.name),
            Some(Time::parse(&metadata.created_at)),
            SnapshotRecord {
                name: metadata.name.clone(),
                trigger: metadata.trigger.clone(),
                size: metadata.size,
                files: metadata.files.len(),
            },
        );
    }
    tool_events(&mut writer, &state.sidecar(session));
    if rotation::log_exists(&state.sidecar(session)) {
        verdicts(
            &mut writer,
            state,
            session,
            files.and_then(|files| files.main.as_deref()),
        );
    }
    writer.lines
}

/// A time in milliseconds since the Unix epoch, written in RFC 3339 with milliseconds, UTC.
fn time_of_ms(time_ms: u64) -> Option<Time> {
    let instant = DateTime::from_timestamp_millis(i64::try_from(time_ms).ok()?)?;
    Some(Time::at(instant, SecondsFormat::Millis))
}

fn tool_events(writer: &mut Writer<'_>, sidecar: &Path) {
    let Ok(Some(bytes)) = rotation::read_log(sidecar) else {
        return;
    };
    for line in bytes.split(|byte| *byte == b'\n') {
        let Ok(SidecarLine::ToolEvent(event)) = serde_json::from_slice::<SidecarLine>(line) else {
            continue;
        };
        let id = format!(
            "tool_event:{}:{}:{}:{}",
            writer.session,
            event.tool_use_id.as_deref().unwrap_or("-"),
            format!("{:?}", event.event).to_lowercase(),
            event.time_ms
        );
        writer.push(
            "tool_event",
            id,
            time_of_ms(event.time_ms),
            ToolEventRecord {
                event: event.event,
                tool_use_id: event.tool_use_id,
                tool_name: event.tool_name,
                duration_ms: event.duration_ms,
                is_interrupt: event.is_interrupt,
                interrupted: event.interrupted,
                agent_id: event.agent_id,
            },
        );
    }
}

fn verdicts(
    writer: &mut Writer<'_>,
    state: &StateDir,
    session: &SessionId,
    transcript: Option<&Path>,
) {
    let loaded = load_analysis(state, Some(session), transcript)
        .inspect_err(|error| writer.problem(&format!("no provenance verdicts: {error:#}")));
    let Ok(loaded) = loaded else { return };
    let report = provenance_report(&loaded.analysis);
    for call in report.calls {
        let time_ms = loaded
            .analysis
            .calls
            .get(&call.tool_use_id)
            .and_then(|tool_use| tool_use.time_ms)
            .or(call.mark.as_ref().map(|mark| mark.time_ms));
        writer.push(
            "provenance",
            format!("provenance:{session}:{}", call.tool_use_id),
            time_ms.and_then(time_of_ms),
            ProvenanceRecord {
                tool_use_id: call.tool_use_id.clone(),
                tool_name: call.tool_name.clone(),
                verdict: call.verdict,
                state: call.state,
                mark_reason: call.mark.as_ref().map(|mark| mark.reason.clone()),
                mark_source: call.mark.as_ref().and_then(|mark| mark.source.clone()),
            },
        );
    }
}

/// Requests, compactions, drops and the session summary of one report.
fn usage_records(writer: &mut Writer<'_>, log: &SessionLog, report: &SessionReport) {
    let session = writer.session.clone();
    let mut main = 0;
    for row in log.requests() {
        let request = (!row.sidechain).then(|| {
            main += 1;
            main
        });
        writer.push(
            "request",
            format!("request:{session}:{}", row.key),
            Time::of(row.time.as_deref()),
            RequestRecord {
                transcript: row.transcript.clone(),
                key: row.key.clone(),
                request,
                sidechain: row.sidechain,
                agent_id: row.agent_id.clone(),
                model: row.model.clone(),
                version: row.facts.version.clone(),
                tokens: row.tokens,
                context_tokens: row.context_tokens,
                turn_start: row.turn_start,
                advisor: row.advisor,
                advisor_usage: row.advisor_usage.clone(),
            },
        );
    }
    let trigger = report.estimates.trigger.tokens;
    for (index, compaction) in report.compactions.iter().enumerate() {
        // Its time names it, else the request after it.
        let at = match &compaction.time {
            Some(time) => time.text().to_owned(),
            None => format!("before-request-{}", compaction.next_request),
        };
        writer.push(
            "compaction",
            format!("compaction:{session}:{at}"),
            compaction.time.clone(),
            CompactionRecord {
                number: index + 1,
                basis: compaction.basis,
                confidence: compaction.confidence,
                trigger: compaction.trigger.clone(),
                pre_tokens: compaction.pre_tokens,
                post_tokens: compaction.post_tokens,
                duration_ms: compaction.details.duration_ms,
                context_before: compaction.context_before,
                context_after: compaction.context_after,
                next_request: compaction.next_request,
                trigger_tokens: trigger,
                snapshot: compaction.snapshot.clone(),
            },
        );
    }
    for drop in &report.drops {
        // The report's drop, less what the envelope and the session record say, its evidence
        // in words.
        let mut body = serde_json::to_value(drop).unwrap_or_default();
        if let Some(fields) = body.as_object_mut() {
            for key in ["time", "facts", "boundary"] {
                fields.shift_remove(key);
            }
            let evidence = drop_evidence_text(&drop.evidence, drop.fall());
            fields.insert("evidence".to_owned(), evidence.into());
        }
        writer.push(
            "drop",
            format!("drop:{session}:{}", drop.request_after),
            drop.time.clone(),
            body,
        );
    }
    writer.push(
        "session",
        format!("session:{session}"),
        log.last_time(),
        SessionRecord {
            cwd: log.sources.iter().find_map(|source| source.cwd.clone()),
            version: log.main_version(),
            first_time: log.first_time(),
            requests: report.requests,
            main_requests: report.main_requests,
            peak_context: report.peak.as_ref().map(|peak| peak.context_tokens),
            trigger_tokens: trigger,
            trigger_derivation: report.estimates.trigger.derivation,
            cap_tokens: report.estimates.cap.tokens,
            floor_tokens: report.estimates.floor,
            peak_to_trigger: report.peak_to_trigger(),
            compactions: report.compactions.len(),
            drops: report.drops.len(),
            tokens: report.totals.tokens,
            advisor_usage: report.totals.advisor.clone(),
        },
    );
}
