//! ctxhooks' own storage, bounded: the logs rotated past their size with nothing a command
//! reads gone missing.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::{Hook, World, project_fixture};

/// The real Agent SDK capture whose sidecar holds a tool event and a runtime mark.
const SCENARIO: &str = "marked-interrupt";

fn sdk(file: &str) -> std::path::PathBuf {
    project_fixture(&format!("sdk-0.3.332/{SCENARIO}/{file}"))
}

fn sdk_session() -> String {
    let driver: Value = serde_json::from_slice(&fs_err::read(sdk("driver.json")).unwrap()).unwrap();
    driver["sessions"][0]["session_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Appends copies of `path`'s own lines (after `prefix`, when given) until it holds more than
/// `bytes`.
fn inflate(path: &Path, prefix: Option<&[u8]>, bytes: usize) {
    let original = fs_err::read(path).unwrap();
    let mut grown = prefix.map(<[u8]>::to_vec).unwrap_or_default();
    while grown.len() <= bytes {
        grown.extend_from_slice(&original);
    }
    if prefix.is_some() {
        grown.extend_from_slice(&original);
    }
    fs_err::write(path, grown).unwrap();
}

/// The size past which the test's logs are rotated.
const ROTATE_AT: usize = 64 * 1024;

/// A Stop run with the logs' limit lowered to [`ROTATE_AT`].
fn rotating_stop(world: &World, session: &str, transcript: &Path) {
    world
        .hook(Hook::Stop)
        .env("CTXHOOKS_ROTATE_AT_BYTES", ROTATE_AT.to_string())
        .stdin(
            json!({"session_id": session, "transcript_path": transcript,
                "hook_event_name": "Stop", "cwd": "/work/demo"})
            .to_string(),
        )
        .success();
}

fn mode_of(path: &Path) -> u32 {
    fs_err::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_stop_hook_rotates_every_log_past_its_size_and_every_reader_still_reads_it_all() {
    let world = World::new("storage-rotation");
    let session = sdk_session();
    let transcript = world.write_transcript(
        format!("{session}.jsonl"),
        fs_err::read(sdk("transcript.jsonl")).unwrap(),
    );
    crate::cleanup::stop(&world, &session, &transcript);
    let usage = world.session_dir(&session).join("usage.jsonl");
    let sidecar = world.sidecar(&session);
    let errors = world.state_dir().join("errors.log");
    // Logs past their size (lowered to 64 kB for the test, as `CTXHOOKS_ROTATE_AT_BYTES`
    // allows): the usage log's rows over and over (they fold into the same requests),
    // unrelated tool events before the capture's sidecar, and errors.
    inflate(&usage, None, ROTATE_AT);
    let padding_event = json!({"kind": "tool_event", "event": "completed", "time_ms": 1,
        "tool_use_id": "toolu_padding", "tool_name": "Read"})
    .to_string()
        + "\n";
    fs_err::copy(sdk("provenance.jsonl"), &sidecar).unwrap();
    let padding = padding_event.repeat(ROTATE_AT / padding_event.len() + 1);
    inflate(&sidecar, Some(padding.as_bytes()), 0);
    let error_line = |number: usize| {
        json!({"time": "2026-12-01T10:00:00.000Z", "hook": "ctxhooks-stop", "event": "Stop",
            "session_id": null, "error": [format!("failed the {number}th time")]})
        .to_string()
            + "\n"
    };
    let all_errors: String = (0..1_000).map(error_line).collect();
    assert!(all_errors.len() > ROTATE_AT);
    fs_err::write(&errors, &all_errors).unwrap();

    let read_all = |world: &World| {
        (
            world
                .ctxhooks(["usage", "--session", &session, "--json"])
                .json(),
            world
                .ctxhooks([
                    "provenance",
                    "--json",
                    "--session",
                    &session,
                    "--transcript",
                ])
                .arg(&transcript)
                .json(),
            world
                .ctxhooks(["export", "--projects"])
                .arg(world.config_dir().join("projects"))
                .success()
                .stdout_text()
                .lines()
                .filter(|line| line.contains("\"tool_event\""))
                .count(),
            world.ctxhooks(["doctor", "--json"]).output().json()["recent_errors"].clone(),
        )
    };
    let before = read_all(&world);
    assert!(before.2 > 500, "{}", before.2);

    rotating_stop(&world, &session, &transcript);
    for (log, part) in [
        (&usage, "usage.jsonl.1.gz"),
        (&sidecar, "provenance.jsonl.1.gz"),
        (&errors, "errors.log.1.gz"),
    ] {
        let part = log.with_file_name(part);
        assert!(part.is_file(), "{} not rotated", log.display());
        assert_eq!(mode_of(&part), 0o600);
        assert!(
            !log.with_file_name(format!("{}.1", log.file_name().unwrap().to_string_lossy()))
                .exists()
        );
    }
    assert!(fs_err::metadata(&sidecar).is_err() && fs_err::metadata(&usage).is_err());
    assert!(!fs_err::metadata(&errors).is_ok_and(|metadata| metadata.len() > ROTATE_AT as u64));

    // Nothing a command reads went missing.
    let after = read_all(&world);
    assert_eq!(after.0, before.0, "usage");
    assert_eq!(after.1, before.1, "provenance");
    assert_eq!(after.2, before.2, "export's tool events");
    assert_eq!(after.3, before.3, "doctor's recent errors");
    // The next turn's rows land in a new log, read after the part.
    rotating_stop(&world, &session, &transcript);
    assert_eq!(
        world
            .ctxhooks(["usage", "--session", &session, "--json"])
            .json(),
        before.0
    );
    // mark-interrupt's look at the sidecar's end reaches into the part the rotation just made.
    world
        .ctxhooks([
            "mark-interrupt",
            "--session",
            &session,
            "--reason",
            "backstop",
        ])
        .success()
        .stderr_text()
        .is_empty()
        .then_some(())
        .expect("mark-interrupt found no recent tool event in the rotated sidecar");
}
