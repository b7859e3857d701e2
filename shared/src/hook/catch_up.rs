//! A session's end in the usage log, for `SessionEnd` and for the catch-up of one it cut short.
//! `keep/catch_up.rs` records the session, keeps its kept copies and takes the records up, but
//! `keep` stands below `usage` and `gauge`: the usage ingest is here, given to it as an argument.
//! `SessionEnd` ingests within its own budget ([`log_final_usage`]); the Stop hook of any session
//! then takes up what a `SessionEnd` cut short left ([`catch_up`]): the kept copies, then the
//! usage log from the session's cursor to its transcript's end, each by the catch-up's deadline.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::gauge::{GaugeInputs, GaugeRole, log_usage_and_gauge};
use crate::keep::catch_up::{self, CATCH_UP_LOCK_WAIT, EndedSession};
use crate::notes::{Notes, note_failed};
use crate::store::state_dir::StateDir;
use crate::transcript::file::TranscriptFile;
use crate::usage::log::{IngestError, IngestOptions};

/// How much a final ingest may read, and wait for another ingest of the session.
#[derive(Debug, Clone, Copy)]
pub struct FinalBounds {
    /// The most it reads; the rest waits for a later run, from the saved cursor.
    pub max_bytes: u64,
    /// The most it waits for the usage lock, when less than the default.
    pub lock_wait: Option<Duration>,
}

/// A session's usage ingest at its end: from its cursor on, with the transcript at rest, so
/// that a last line Claude Code left without its newline is logged when it is a whole JSON
/// object, as `history` and `usage --transcript`, which read the file at rest, count it. Its
/// gauge is brought up to date too, quietly: nobody is shown a warning for a session that ended
/// (the catch-up runs in another session's Stop hook, whose warning is its own). A transcript no
/// longer there has nothing to log: what is left of it is its kept copy, and no ingest reads
/// usage from a kept copy (a resumed session's neither: its Stop reads the transcript Claude Code
/// names). `gauge_inputs` are the ended session's (its project folder's settings; quiet).
/// Returns true when nothing is left to read (or there was no transcript), false when
/// `bounds.max_bytes` stopped it first.
pub fn log_final_usage(
    state: &StateDir,
    notes: &dyn Notes,
    ended: &EndedSession<'_>,
    gauge_inputs: &GaugeInputs,
    bounds: FinalBounds,
) -> Result<bool, IngestError> {
    let Some(file) = TranscriptFile::open_if_present(ended.transcript)? else {
        return Ok(true);
    };
    let mut file = file.checked()?;
    let options = IngestOptions {
        max_bytes: Some(bounds.max_bytes),
        whole_last_line: true,
        lock_wait: bounds.lock_wait,
        ..IngestOptions::default()
    };
    let ingested = log_usage_and_gauge(
        state,
        notes,
        ended.session,
        &mut file,
        gauge_inputs,
        options,
    )?;
    Ok(ingested.outcome.caught_up)
}

/// Whether a final ingest left nothing for a later run: it read to the end, or failed with a
/// problem that is said (and would only be said again); another ingest of the session holding
/// the lock leaves it (that one may stop short of the end).
pub fn ingest_finished(logged: &Result<bool, IngestError>) -> bool {
    match logged {
        Ok(finished) => *finished,
        Err(IngestError::Busy { .. }) => false,
        Err(_) => true,
    }
}

/// How fast the catch-up counts on reading a transcript: half the 56 MB/s measured on this
/// project's machines, so that its ingest ends by its deadline on a loaded one too.
const CATCH_UP_READ_BYTES_PER_SECOND: u128 = 28 * 1024 * 1024;

/// Takes up the records `SessionEnd` runs cut short left (`keep/catch_up.rs`), until `deadline`:
/// for each, the kept copies, then the usage the session's transcript holds past its cursor
/// ([`log_final_usage`], reading no more than the time left allows); the record is removed once
/// both finished. No record: one failed `read_dir`, nothing else.
///
/// Two Stop hooks taking up the same record at once (or one while the session's `SessionEnd`
/// still runs, or the session was resumed and its own Stop runs) never log a request twice: each
/// ingest runs under the session's usage lock (`usage/log.rs`, `ingest_transcript_then`), reads
/// the cursor, appends and saves the cursor before it lets go, so the next one starts where it
/// stopped; one ended between its append and its cursor's save left lines past the log length
/// the cursor confirmed, which the next one does not append again. Here the lock is waited for
/// briefly: a run that could not take it leaves the record for a later one.
pub fn catch_up(state: &StateDir, notes: &dyn Notes, deadline: Instant) {
    catch_up::catch_up(state, notes, deadline, &|ended, deadline| {
        take_up_usage(state, notes, ended, deadline)
    });
}

/// The catch-up's usage ingest of `ended`, by `deadline`: true when it finished.
fn take_up_usage(
    state: &StateDir,
    notes: &dyn Notes,
    ended: &EndedSession<'_>,
    deadline: Instant,
) -> bool {
    let Some(left) = deadline
        .checked_duration_since(Instant::now())
        .filter(|left| !left.is_zero())
    else {
        return false;
    };
    let bounds = FinalBounds {
        max_bytes: u64::try_from(left.as_millis() * CATCH_UP_READ_BYTES_PER_SECOND / 1000)
            .unwrap_or(u64::MAX),
        lock_wait: Some(CATCH_UP_LOCK_WAIT.min(left)),
    };
    // The ended session's project folder, as its record says, not this hook's.
    let (mut gauge_inputs, _) = GaugeInputs::of_hook(None, GaugeRole::Quiet);
    gauge_inputs.project_dir = ended.project_dir.map(Path::to_owned);
    let logged = log_final_usage(state, notes, ended, &gauge_inputs, bounds);
    let finished = ingest_finished(&logged);
    if let Err(error) = logged
        && finished
    {
        let what = format!(
            "failed to log the usage of session {} at its end",
            ended.session
        );
        note_failed(notes, error, what);
    }
    finished
}
