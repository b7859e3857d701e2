//! Gathering the export's records: from the projects folders (each session's transcripts, read
//! as `ctxhooks history` reads them) and from the state folder (usage logs of sessions whose
//! transcript is not in those folders, snapshots, sidecars' tool events, provenance verdicts).

use std::path::{Path, PathBuf};

use chrono::{DateTime, SecondsFormat, Utc};
use memchr::memmem;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

use super::records::{
    CompactionRecord, DropRecord, Envelope, ProvenanceRecord, RequestRecord, SessionRecord,
    SnapshotRecord, Source, ToolEventRecord,
};
use crate::facts::log::{SessionLog, read_session_log};
use crate::facts::report::{ReportOptions, SessionReport, build_report};
use crate::facts::summary::SessionSummary;
use crate::output::Versioned;
use crate::prices::Prices;
use crate::projects::cache::Cache;
use crate::projects::discover::{SessionFiles, discover};
use crate::projects::session::load_parts;
use crate::projects::slug_of;
use crate::provenance::load::load_analysis;
use crate::provenance::verdict::provenance_report;
use crate::snapshots::catalog::{SnapshotEntry, scan_archive};
use crate::time::Time;
use ctxhooks_shared::causes::Causes;
use ctxhooks_shared::store::rotation;
use ctxhooks_shared::store::session_id::SessionId;
use ctxhooks_shared::store::sidecar::{MARK_KIND, SidecarLine};
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
/// many, what could not be read or written (in words), the projects folders that gave a
/// session, whether the state folder's sessions could be listed, and how many records could
/// not be written (each also a problem; none is ever written as `null` or `{}`).
#[derive(Debug, Clone, Default)]
pub struct Export {
    pub lines: Vec<u8>,
    pub records: usize,
    pub problems: Vec<String>,
    pub folders_read: usize,
    pub state_read: bool,
    pub unwritten: usize,
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
    /// Writes one record, its fields `body`'s: a body that does not serialise into a JSON
    /// object (an error, or `null`, which would leave the record without its kind's fields) is
    /// a problem and an unwritten record, never a line.
    fn push<T: Serialize>(&mut self, kind: &'static str, id: String, time: Option<Time>, body: T) {
        if let Some(since) = self.query.since
            && time
                .as_ref()
                .and_then(Time::instant)
                .is_none_or(|at| at < since)
        {
            return;
        }
        let body = match serde_json::to_value(body) {
            Ok(Value::Object(fields)) => fields,
            Ok(other) => {
                let what = format!("its fields serialised to {other} instead of an object");
                return self.unwritten(kind, &id, &what);
            }
            Err(error) => return self.unwritten(kind, &id, &error.to_string()),
        };
        let envelope = Envelope {
            kind,
            id,
            host: self.query.host.clone(),
            project: self.project.clone(),
            session: self.session.clone(),
            time,
            source: self.source,
            body,
        };
        match serde_json::to_vec(&Versioned::new(&envelope)) {
            Ok(mut line) => {
                line.push(b'\n');
                self.lines.lines.extend_from_slice(&line);
                self.lines.records += 1;
            }
            Err(error) => self.unwritten(kind, &envelope.id, &error.to_string()),
        }
    }

    /// Notes a record that could not be written, and why.
    fn unwritten(&mut self, kind: &str, id: &str, why: &str) {
        self.lines.unwritten += 1;
        self.problem(&format!(
            "the {kind} record {id} could not be written: {why}"
        ));
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
    // A session whose id is in several project folders is one session (see `by_session`).
    let groups = found.by_session();
    let from_history: Vec<(Export, &SessionFiles)> = groups
        .par_iter()
        .with_max_len(1)
        .map(|parts| history_session(query, options, parts))
        .collect();
    // The sessions whose id is in several project folders.
    let in_several: std::collections::HashSet<&str> = (groups.iter())
        .filter(|parts| parts.len() > 1)
        .map(|parts| parts[0].session_id.as_str())
        .collect();
    // Each session's latest part, whose project its records from the state folder name too.
    let latest: std::collections::HashMap<&str, &SessionFiles> = from_history
        .iter()
        .map(|(_, files)| (files.session_id.as_str(), *files))
        .collect();
    let state_sessions = match &query.state {
        Some(state) => match state.session_ids() {
            Ok(sessions) => {
                export.state_read = true;
                sessions
            }
            Err(error) => {
                export.problems.push(format!(
                    "the state folder {} could not be read ({}): no usage log, snapshot, \
                     tool event or verdict of it is exported",
                    state.root().display(),
                    Causes(&error)
                ));
                Vec::new()
            }
        },
        None => Vec::new(),
    };
    let from_state: Vec<Export> = state_sessions
        .par_iter()
        .with_max_len(1)
        .map(|session| {
            let files = latest.get(session.as_str()).copied();
            // A session in several project folders: its verdicts from every transcript its
            // tool events recorded, as `provenance --session` reads them.
            let several = in_several.contains(session.as_str());
            state_session(query, options, session, (files, several))
        })
        .collect();
    let from_history = from_history.into_iter().map(|(part, _)| part);
    for part in from_history.chain(from_state) {
        export.lines.extend_from_slice(&part.lines);
        export.records += part.records;
        export.problems.extend(part.problems);
        export.unwritten += part.unwritten;
    }
    export
}

/// The readable snapshots of a session the projects folders hold, for its report; `None` when
/// there is no state folder, the id can have no folder in it, or its archive cannot be listed
/// (that session's part from the state folder says why: every session folder has one).
fn snapshots_of(query: &ExportQuery, session: &str) -> Option<Vec<SnapshotEntry>> {
    let state = query.state.as_ref()?;
    let session = SessionId::parse(session).ok()?;
    scan_archive(state, Some(&session))
        .ok()
        .map(|catalog| catalog.entries)
}

/// The readable snapshots of `session`, each one that cannot be read a problem (and the whole
/// archive, `None`, when it cannot be listed).
fn snapshots(
    writer: &mut Writer<'_>,
    state: &StateDir,
    session: &SessionId,
) -> Option<Vec<SnapshotEntry>> {
    match scan_archive(state, Some(session)) {
        Ok(catalog) => {
            for broken in &catalog.broken {
                writer.problem(&format!(
                    "the snapshot {} could not be read ({}): not exported",
                    broken.path.display(),
                    broken.error
                ));
            }
            Some(catalog.entries)
        }
        Err(error) => {
            writer.problem(&format!(
                "the snapshots could not be listed ({error:#}): none is exported"
            ));
            None
        }
    }
}

/// One session's records from its transcripts in every project folder its id is in, and the
/// latest of those parts (whose project names the session).
fn history_session<'a>(
    query: &ExportQuery,
    options: &ReportOptions,
    parts: &[&'a SessionFiles],
) -> (Export, &'a SessionFiles) {
    let (loaded, latest) = load_parts(parts, query.cache.as_ref());
    let files = parts[latest];
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
        return (writer.lines, files);
    }
    let snapshots = snapshots_of(query, &files.session_id);
    let options = &options.with_status_line_of(query.state.as_ref(), &files.session_id);
    let log = &loaded.log;
    let report = build_report(Some(&files.session_id), log, snapshots.as_deref(), options);
    usage_records(
        &mut writer,
        log,
        &loaded.summary(&files.session_id),
        &report,
        &options.prices,
    );
    (writer.lines, files)
}

/// One session's records from the state folder; `files` are its transcripts when the projects
/// folders hold them (its requests come from there then, not from its usage log), the latest
/// part's when its id is in `several` project folders.
fn state_session(
    query: &ExportQuery,
    options: &ReportOptions,
    session: &SessionId,
    (files, several): (Option<&SessionFiles>, bool),
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
    let snapshots = snapshots(&mut writer, state, session);
    if files.is_none()
        && let Some(log) = &log
        && log.requests().next().is_some()
    {
        let options = &options.with_status_line_of(Some(state), session.as_str());
        let report = build_report(Some(session.as_str()), log, snapshots.as_deref(), options);
        let summary = SessionSummary::of(session.as_str(), log, log.sources.first());
        usage_records(&mut writer, log, &summary, &report, &options.prices);
    }
    writer.source = Source::State;
    for snapshot in snapshots.iter().flatten() {
        let metadata = &snapshot.metadata;
        writer.push(
            "snapshot",
            format!("snapshot:{session}:{}", metadata.name),
            Some(snapshot.created.clone()),
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
            files
                .filter(|_| !several)
                .and_then(|files| files.main.as_deref()),
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
    let bytes = match rotation::read_log(sidecar) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return,
        Err(error) => {
            return writer.problem(&format!(
                "the provenance sidecar could not be read ({}): no tool event is exported",
                Causes(&error)
            ));
        }
    };
    // Lines that are no record this version reads: counted, the first one named.
    let mut unreadable: Option<(usize, usize, String)> = None;
    for (index, line) in bytes.split(|byte| *byte == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let event = match serde_json::from_slice::<SidecarLine>(line) {
            Ok(SidecarLine::ToolEvent(event)) => event,
            Ok(SidecarLine::RuntimeInterruptMark(_)) => continue,
            // A mark line the verdicts read leniently (and say what is wrong with): no event.
            Err(_) if memmem::find(line, MARK_KIND.as_bytes()).is_some() => continue,
            Err(error) => {
                let (count, ..) =
                    unreadable.get_or_insert_with(|| (0, index + 1, error.to_string()));
                *count += 1;
                continue;
            }
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
    if let Some((count, line, error)) = unreadable {
        writer.problem(&format!(
            "{count} line(s) of the provenance sidecar could not be read (the first, line \
             {line}: {error}): their tool events are not exported"
        ));
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

/// Requests, compactions, drops and the session summary of one session.
fn usage_records(
    writer: &mut Writer<'_>,
    log: &SessionLog,
    summary: &SessionSummary,
    report: &SessionReport,
    prices: &Prices,
) {
    let session = writer.session.clone();
    let mut main = 0;
    for timed in log.timed_requests() {
        let row = &timed.row;
        let request = (!row.sidechain).then(|| {
            main += 1;
            main
        });
        let id = format!("request:{session}:{}", row.key);
        let record = RequestRecord::of(row, request, prices);
        writer.push("request", id, timed.time.clone(), record);
    }
    let trigger_tokens = report.estimates.trigger.tokens;
    for (index, compaction) in report.compactions.iter().enumerate() {
        // Its time names it, else the request after it.
        let at = match &compaction.time {
            Some(time) => time.text().to_owned(),
            None => format!("before-request-{}", compaction.next_request),
        };
        let record = CompactionRecord {
            number: index + 1,
            compaction,
            trigger_tokens,
        };
        let id = format!("compaction:{session}:{at}");
        writer.push("compaction", id, compaction.time.clone(), record);
    }
    for drop in &report.drops {
        let id = format!("drop:{session}:{}", drop.request_after);
        writer.push("drop", id, drop.time.clone(), DropRecord(drop));
    }
    let record = SessionRecord::of(summary, log, report);
    writer.push(
        "session",
        format!("session:{session}"),
        summary.last_time.clone(),
        record,
    );
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn writer(query: &ExportQuery) -> Writer<'_> {
        Writer {
            query,
            project: None,
            session: "s".to_owned(),
            source: Source::State,
            lines: Export::default(),
        }
    }

    #[test]
    fn a_record_whose_fields_are_no_object_is_a_problem_never_a_line() {
        let query = ExportQuery {
            folders: Vec::new(),
            state: None,
            host: "h".to_owned(),
            since: None,
            cache: None,
        };
        let mut writer = writer(&query);
        // Fields that cannot be JSON (a key that is no string), no fields at all (`null`), a
        // number: each one said and counted, none written as `null` or `{}`.
        let keyed: BTreeMap<(u8, u8), u8> = BTreeMap::from([((1, 2), 3)]);
        writer.push("snapshot", "snapshot:s:a".to_owned(), None, keyed);
        writer.push("snapshot", "snapshot:s:b".to_owned(), None, ());
        writer.push("snapshot", "snapshot:s:c".to_owned(), None, 5);
        assert_eq!(writer.lines.lines, b"");
        assert_eq!((writer.lines.records, writer.lines.unwritten), (0, 3));
        let problems = &writer.lines.problems;
        assert_eq!(problems.len(), 3, "{problems:#?}");
        assert!(
            problems[0]
                .starts_with("session s: the snapshot record snapshot:s:a could not be written: ")
        );
        assert!(problems[1].contains("serialised to null"), "{problems:#?}");
        // A record with its fields is one line.
        writer.push(
            "snapshot",
            "snapshot:s:d".to_owned(),
            None,
            BTreeMap::from([("name", "d")]),
        );
        let line: Value = serde_json::from_slice(&writer.lines.lines).unwrap();
        assert_eq!(
            (line["kind"].as_str(), line["name"].as_str()),
            (Some("snapshot"), Some("d"))
        );
        assert_eq!(writer.lines.records, 1);
    }
}
