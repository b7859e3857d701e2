//! End-to-end tests: the real Claude Code CLI runs our real binaries, installed by the real
//! `ctxhooks install`; only the model is scripted.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::claude::Sandbox;
use crate::support::model_server::{ModelServer, RequestKind, Scripted, Usage};

/// Byte offsets at which each `compact_boundary` line of a transcript starts.
fn compact_boundary_offsets(transcript: &[u8]) -> Vec<(usize, Value)> {
    let mut offsets = Vec::new();
    let mut start = 0;
    for line in transcript.split_inclusive(|byte| *byte == b'\n') {
        if let Ok(record) = serde_json::from_slice::<Value>(line)
            && record["type"] == "system"
            && record["subtype"] == "compact_boundary"
        {
            offsets.push((start, record));
        }
        start += line.len();
    }
    offsets
}

/// Checks every snapshot against the final transcript: one snapshot per compaction, in order,
/// each with the right trigger, mode 0600, and bytes equal to the transcript as it stood just
/// before that compaction (a prefix of the final file ending before that compaction's boundary).
fn assert_one_verified_snapshot_per_compaction(
    sandbox: &Sandbox,
    session: &str,
    expected_triggers: &[&str],
    expected_instructions: &[Option<&str>],
) {
    let transcript = fs_err::read(sandbox.transcript_path(session)).unwrap();
    let boundaries = compact_boundary_offsets(&transcript);
    let triggers: Vec<&str> = boundaries
        .iter()
        .map(|(_, record)| record["compactMetadata"]["trigger"].as_str().unwrap())
        .collect();
    assert_eq!(triggers, expected_triggers, "compactions in the transcript");

    let listed = sandbox.ctxhooks_json(&["archives", "--session", session, "--json"]);
    let snapshots = listed.as_array().unwrap();
    assert_eq!(
        snapshots.len(),
        boundaries.len(),
        "one snapshot per compaction: {listed:#}"
    );
    for (index, (snapshot, (boundary_offset, _))) in snapshots.iter().zip(&boundaries).enumerate() {
        assert_eq!(snapshot["trigger"], expected_triggers[index]);
        assert_eq!(
            snapshot["custom_instructions"].as_str(),
            expected_instructions[index]
        );
        assert_eq!(snapshot["session_id"], session);
        let folder = Path::new(snapshot["path"].as_str().unwrap());
        let copy_path = folder.join("transcript.jsonl");
        let copy = fs_err::read(&copy_path).unwrap();
        assert_eq!(snapshot["size"], copy.len());
        assert!(
            copy.len() <= *boundary_offset,
            "snapshot {index} runs past its compaction's boundary"
        );
        assert_eq!(
            copy[..],
            transcript[..copy.len()],
            "snapshot {index} is not a prefix of the transcript"
        );
        assert!(copy.ends_with(b"\n"), "snapshot {index} ends mid-line");
        assert_eq!(
            compact_boundary_offsets(&copy).len(),
            index,
            "snapshot {index} holds the wrong number of earlier compactions"
        );
        let mode = fs_err::metadata(&copy_path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "snapshot file mode");
        let folder_mode = fs_err::metadata(folder).unwrap().permissions().mode() & 0o777;
        assert_eq!(folder_mode, 0o700, "snapshot folder mode");
    }
    let verified = sandbox.ctxhooks(&["archives", "verify", "--session", session]);
    assert!(
        verified.status.success(),
        "archives verify: {}",
        String::from_utf8_lossy(&verified.stdout)
    );
}

#[test]
fn manual_compact_with_instructions_leaves_one_verified_snapshot() {
    let Some(sandbox) = Sandbox::new("manual-compact") else {
        return;
    };
    sandbox.install_hooks();
    let server = ModelServer::start();
    server.push([
        Scripted::bash("echo first > notes.txt", Usage::context(30_000)),
        Scripted::text("Wrote notes.txt.", Usage::context(31_000)),
    ]);
    let first = sandbox.prompt(&server, "write the notes", None);
    let session = first["session_id"].as_str().unwrap().to_owned();

    let compact = sandbox.prompt(&server, "/compact keep the file ids", Some(&session));
    assert_eq!(compact["session_id"], session.as_str());
    assert!(
        server
            .served()
            .iter()
            .any(|served| served.kind == RequestKind::Summary),
        "the CLI never asked for a summary"
    );

    assert_one_verified_snapshot_per_compaction(
        &sandbox,
        &session,
        &["manual"],
        &[Some("keep the file ids")],
    );
    assert_eq!(sandbox.error_log_lines(), Vec::<String>::new());
}

#[test]
fn automatic_compaction_leaves_one_verified_snapshot() {
    let Some(sandbox) = Sandbox::new("auto-compact") else {
        return;
    };
    sandbox.write_project_settings(&json!({"autoCompactWindow": 200_000}));
    sandbox.install_hooks();
    let server = ModelServer::start();
    // The second turn reports a context close to the window, so the third turn compacts first.
    server.push([
        Scripted::text("Started.", Usage::context(40_000)),
        Scripted::text("Read everything.", Usage::context(185_000)),
        Scripted::text("Carried on after compaction.", Usage::context(30_000)),
    ]);
    let first = sandbox.prompt(&server, "start", None);
    let session = first["session_id"].as_str().unwrap().to_owned();
    sandbox.prompt(&server, "read everything", Some(&session));
    sandbox.prompt(&server, "carry on", Some(&session));
    assert!(
        server
            .served()
            .iter()
            .any(|served| served.kind == RequestKind::Summary),
        "the CLI never compacted"
    );
    assert_one_verified_snapshot_per_compaction(&sandbox, &session, &["auto"], &[None]);
    assert_eq!(sandbox.error_log_lines(), Vec::<String>::new());
}
