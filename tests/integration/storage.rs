//! ctxhooks' own storage, bounded and visible: the logs rotated past their size with nothing a
//! command reads gone missing, `doctor`'s size and growth, and `archives prune`'s policies for
//! the kept copies.

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
    crate::support::mode(path)
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

/// Sets the modification time of every file and folder below `path` (and its own) `days` days
/// back, as if the session had been idle since.
pub fn age_tree(path: &Path, days: u64) {
    let when = std::time::SystemTime::now() - std::time::Duration::from_secs(days * 86_400);
    if path.is_dir() {
        for entry in fs_err::read_dir(path).unwrap() {
            age_tree(&entry.unwrap().path(), days);
        }
    }
    // Windows opens a folder only with FILE_FLAG_BACKUP_SEMANTICS, and sets times only through
    // a handle that may write its attributes.
    let mut options = fs_err::OpenOptions::new();
    #[cfg(windows)]
    {
        use fs_err::os::windows::fs::OpenOptionsExt as _;
        options.write(true).custom_flags(0x0200_0000);
    }
    #[cfg(unix)]
    options.read(true);
    options.open(path).unwrap().set_modified(when).unwrap();
}

const OLD: &str = "e5555555-5555-4555-8555-555555555555";
const IDLE: &str = "f6666666-6666-4666-8666-666666666666";
const BUSY: &str = "a7777777-7777-4777-8777-777777777777";

/// Three kept sessions: OLD idle for 40 days with its transcript deleted (the only copy left),
/// IDLE for 10 days, BUSY active now.
fn three_sessions(world: &World) -> (std::path::PathBuf, std::path::PathBuf) {
    let old = crate::cleanup::keep_session(world, OLD, "marot__spotter/short.jsonl");
    let idle = crate::cleanup::keep_session(world, IDLE, "marot__spotter/tool_heavy.jsonl");
    let busy = crate::cleanup::keep_session(world, BUSY, "marot__spotter/short.jsonl");
    fs_err::remove_file(&old).unwrap();
    age_tree(&world.session_dir(OLD), 40);
    age_tree(&world.session_dir(IDLE), 10);
    (idle, busy)
}

fn prune_log(world: &World) -> Vec<Value> {
    crate::support::json_lines(&world.state_dir().join("pruned.jsonl"))
}

#[test]
fn prune_kept_lists_first_deletes_only_with_yes_and_names_the_only_copy() {
    let world = World::new("storage-prune");
    let (_idle, _busy) = three_sessions(&world);
    let old_kept = world.session_dir(OLD).join("kept");

    let listed = world
        .ctxhooks(["archives", "prune", "--kept", "--older-than", "30"])
        .success()
        .stdout_text();
    assert!(
        listed.contains("would delete the kept copies (and snapshots) of 1 session(s)"),
        "{listed}"
    );
    assert!(
        listed.contains(OLD) && listed.contains("ONLY COPY: Claude Code deleted its transcript"),
        "{listed}"
    );
    assert!(listed.contains("give `--yes` to delete them"), "{listed}");
    assert!(old_kept.is_dir(), "a listing deleted something");

    let deleted = world
        .ctxhooks([
            "archives",
            "prune",
            "--kept",
            "--older-than",
            "30",
            "--yes",
            "--json",
        ])
        .json();
    assert_eq!(deleted["dry_run"], false);
    assert_eq!(deleted["sessions"][0]["session_id"], OLD);
    assert_eq!(deleted["sessions"][0]["only_copy"], true);
    assert!(deleted["bytes"].as_u64().unwrap() > 0);
    assert!(!old_kept.exists());
    // Its logs stay: its usage still reads.
    world.ctxhooks(["usage", "--session", OLD]).success();
    let records = prune_log(&world);
    assert_eq!(
        (
            &records[0]["session_id"],
            &records[0]["by"],
            &records[0]["only_copy"]
        ),
        (&json!(OLD), &json!("command"), &json!(true))
    );

    // The oldest first until the folder fits; the session active now never.
    let sized = world
        .ctxhooks(["archives", "prune", "--kept", "--max-size", "1", "--json"])
        .json();
    let ids: Vec<&str> = sized["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|session| session["session_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [IDLE]);
    assert_eq!(sized["size_unmet"], true);
    assert!(world.session_dir(IDLE).join("kept").is_dir());

    // A session's whole record, named.
    world
        .ctxhooks(["archives", "prune", "--session", BUSY, "--all"])
        .stdout_contains("would delete the whole record of 1 session(s)")
        .success();
    assert!(world.session_dir(BUSY).is_dir());
    world
        .ctxhooks(["archives", "prune", "--session", BUSY, "--all", "--yes"])
        .success();
    assert!(!world.session_dir(BUSY).exists());

    // The arguments that do not go together.
    for (arguments, message) in [
        (&["--keep", "2", "--kept"][..], "cannot be used with"),
        (&["--max-size", "1 GB"][..], "--kept"),
        (&["--all"][..], "--session"),
        (
            &["--older-than", "3", "--yes"][..],
            "`--yes` is for `--kept` and `--all`",
        ),
        (
            &["--kept", "--max-size", "12 parsecs"][..],
            "not a unit of size",
        ),
    ] {
        world
            .ctxhooks(["archives", "prune"])
            .args(arguments)
            .stderr_contains(message)
            .failure();
    }
}

#[test]
fn a_configured_limit_is_applied_once_a_day_by_the_stop_hook_and_nothing_without_one() {
    let world = World::new("storage-config");
    let (idle, busy) = three_sessions(&world);
    // No configuration: a Stop run deletes nothing, however old the sessions.
    crate::cleanup::stop(&world, BUSY, &busy);
    assert!(world.session_dir(OLD).join("kept").is_dir());
    assert!(!world.state_dir().join("pruned.jsonl").exists());

    fs_err::write(
        world.state_dir().join("config.json"),
        r#"{"storage": {"kept_older_than_days": 5}}"#,
    )
    .unwrap();
    crate::cleanup::stop(&world, BUSY, &busy);
    assert!(!world.session_dir(OLD).join("kept").exists());
    assert!(!world.session_dir(IDLE).join("kept").exists());
    assert!(world.session_dir(BUSY).join("kept").is_dir());
    let records = prune_log(&world);
    let mut pruned: Vec<(&str, &str, bool)> = records
        .iter()
        .map(|record| {
            (
                record["session_id"].as_str().unwrap(),
                record["by"].as_str().unwrap(),
                record["only_copy"].as_bool().unwrap(),
            )
        })
        .collect();
    pruned.sort_unstable();
    assert_eq!(pruned, [(OLD, "config", true), (IDLE, "config", false)]);
    // The only copy deleted is said where the person looks: the error log, and doctor.
    assert!(
        world
            .error_lines()
            .iter()
            .any(|line| line.contains(OLD) && line.contains("only copy left")),
        "{:?}",
        world.error_lines()
    );
    let doctor = world.ctxhooks(["doctor", "--json"]).output().json();
    assert_eq!(doctor["storage"]["limits"]["older_than_days"], 5);
    assert_eq!(doctor["storage"]["last_prune_day"]["only_copies"], 1);
    let text = world.ctxhooks(["doctor"]).output().stdout_text();
    assert!(
        text.contains("limits: kept copies of sessions idle over 5 days")
            && text.contains("1 of them the only copy left"),
        "{text}"
    );

    // Applied once a day: a session gone idle since is left for tomorrow's run.
    fs_err::write(&idle, fs_err::read(&idle).unwrap()).unwrap();
    crate::cleanup::stop(&world, IDLE, &idle);
    age_tree(&world.session_dir(IDLE), 10);
    crate::cleanup::stop(&world, BUSY, &busy);
    assert!(world.session_dir(IDLE).join("kept").is_dir());

    // A configuration that cannot be read deletes nothing, and says so.
    fs_err::remove_file(world.state_dir().join("prune.stamp")).unwrap();
    fs_err::write(
        world.state_dir().join("config.json"),
        r#"{"storage": {"kept_older_then_days": 5}}"#,
    )
    .unwrap();
    crate::cleanup::stop(&world, BUSY, &busy);
    assert!(world.session_dir(IDLE).join("kept").is_dir());
    let doctor = world.ctxhooks(["doctor", "--json"]).output().json();
    let codes: Vec<&str> = doctor["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| finding["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"storage_config_unusable"), "{codes:?}");
}

#[test]
fn doctor_shows_the_state_folder_size_and_what_the_files_say_was_written_in_7_days() {
    let world = World::new("storage-doctor");
    let (_idle, _busy) = three_sessions(&world);
    let storage = world.ctxhooks(["doctor", "--json"]).output().json()["storage"].clone();
    let kept_now: u64 = ["kept/transcript.jsonl.1.gz"]
        .iter()
        .map(|file| {
            fs_err::metadata(world.session_dir(BUSY).join(file))
                .unwrap()
                .len()
        })
        .sum();
    let bytes = storage["bytes"].as_u64().unwrap();
    let grown = storage["grown_bytes"].as_u64().unwrap();
    assert!(
        bytes >= storage["copy_bytes"].as_u64().unwrap() + storage["log_bytes"].as_u64().unwrap()
    );
    // BUSY's kept copy was written now; OLD's and IDLE's were written days ago (their files
    // changed long ago: not even read).
    assert!(grown >= kept_now && grown < bytes, "{storage:#}");
    assert_eq!(storage["limits"], Value::Null);
    let text = world.ctxhooks(["doctor"]).output().stdout_text();
    assert!(text.contains("in the last 7 days"), "{text}");
    assert!(
        text.contains("limits: none: nothing is deleted automatically"),
        "{text}"
    );
    // Everything idle for 10 days: nothing grew.
    age_tree(&world.state_dir(), 10);
    let storage = world.ctxhooks(["doctor", "--json"]).output().json()["storage"].clone();
    assert_eq!(storage["grown_bytes"], 0, "{storage:#}");
}

/// Where the state folder is when no variable names it but the home folder: `HOME`, else on
/// Windows `USERPROFILE`, where Claude Code (Node's `os.homedir()`) finds the home folder and
/// `HOME` is often not set (Claude Code started outside Git Bash). Elsewhere, nothing set is an
/// error that names what to set, and nothing is written.
#[test]
fn without_home_the_state_folder_is_under_userprofile_on_windows_only() {
    let world = World::new("storage-userprofile");
    let session = "0f0e0d0c-0000-4000-8000-0000000000aa";
    let run = world
        .ctxhooks(["mark-interrupt", "--session", session, "--reason", "a test"])
        .env_remove("HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CTXHOOKS_HOME")
        .env("USERPROFILE", world.home());
    let sidecar = world
        .state_dir()
        .join("sessions")
        .join(session)
        .join("provenance.jsonl");
    if cfg!(windows) {
        run.success();
        assert!(sidecar.is_file(), "{}", sidecar.display());
    } else {
        run.stderr_contains("nor `HOME` is set").exit_code(1);
        assert!(!sidecar.exists());
    }
}
