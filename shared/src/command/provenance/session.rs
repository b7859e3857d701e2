//! One-call entry points for other code (doctor, e2e tests): the report or the ledger input
//! of a session or a transcript, read from disk.

use std::path::Path;

use anyhow::Result;

use super::ledger::ledger_input;
use super::marks::load_analysis;
use super::verdict::{ProvenanceReport, provenance_report};
use crate::store::session_id::SessionId;
use crate::store::state_dir::StateDir;

/// The provenance report of a session and/or transcript (see [`load_analysis`] for how each is
/// found from the other).
pub fn report_for(
    state: &StateDir,
    session: Option<&SessionId>,
    transcript: Option<&Path>,
) -> Result<ProvenanceReport> {
    let loaded = load_analysis(state, session, transcript)?;
    Ok(provenance_report(&loaded.analysis))
}

/// The ledger input (the bytes `ctxhooks ledger-input` prints) of a session and/or transcript.
pub fn ledger_input_for(
    state: &StateDir,
    session: Option<&SessionId>,
    transcript: Option<&Path>,
) -> Result<Vec<u8>> {
    let loaded = load_analysis(state, session, transcript)?;
    let report = provenance_report(&loaded.analysis);
    Ok(ledger_input(&loaded.analysis, &report))
}
