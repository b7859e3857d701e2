//! Tests for `ctxhooks-precompact` (run as Claude Code runs it: JSON on stdin) and
//! `ctxhooks archives`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use ctxhooks_shared::store::env_vars;
use serde_json::{Value, json};

use crate::support::{
    AS_NOBODY, Hook, SETPRIV, SmallFilesystem, World, mode, needs_root, needs_root_and_setpriv,
    spawn_together, transcript_fixture,
};

const SESSION: &str = "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9";

fn payload(transcript: &Path, trigger: &str, instructions: Value) -> Value {
    json!({
        "session_id": SESSION,
        "transcript_path": transcript,
        "cwd": "/work/demo",
        "prompt_id": "p1",
        "hook_event_name": "PreCompact",
        "trigger": trigger,
        "custom_instructions": instructions,
        "some_future_field": {"nested": true}
    })
}

/// The bytes a snapshot records for its file `path` (`transcript.jsonl`, `subagents/…`), as
/// `ctxhooks archives restore --snapshot` writes them into a folder of the world.
fn snapshot_bytes(world: &World, snapshot: &Value, path: &str) -> Vec<u8> {
    let session = snapshot["session_id"].as_str().unwrap();
    let name = snapshot["name"].as_str().unwrap();
    let folder = world.join(format!("restored-{name}"));
    if !folder.exists() {
        world
            .ctxhooks([
                "archives",
                "restore",
                "--session",
                session,
                "--snapshot",
                name,
            ])
            .arg("--to")
            .arg(&folder)
            .success();
    }
    let file = if path == "transcript.jsonl" {
        folder.join(format!("{session}.jsonl"))
    } else {
        folder.join(session).join(path)
    };
    fs_err::read(file).unwrap()
}

/// Copies the 2.0.x fixture project (main transcript plus flat agent files) into the world.
fn lay_out_flat_project(world: &World) -> PathBuf {
    let source = transcript_fixture("lanegrid__agtrace/-Users-zawakin-agent-sample");
    for name in [
        &format!("{SESSION}.jsonl"),
        "agent-0c4c3cf8.jsonl",
        "agent-90fa40b6.jsonl",
    ] {
        world.write_transcript(name, fs_err::read(source.join(name)).unwrap());
    }
    // An agent file of another session must not be archived with this one.
    world.write_transcript(
        "agent-ffffffff.jsonl",
        "{\"sessionId\":\"another-session\",\"isSidechain\":true}\n",
    );
    world.transcript_path(SESSION)
}

#[test]
fn archives_the_transcript_and_its_flat_agent_files() {
    let world = World::new("flat");
    let transcript = lay_out_flat_project(&world);
    world
        .hook(Hook::PreCompact)
        .stdin(payload(&transcript, "manual", json!("keep the file ids")).to_string())
        .success();
    assert_eq!(world.errors(), Vec::<Value>::new());

    let listed = world.ctxhooks(["archives", "--json"]).json();
    let snapshots = listed.as_array().unwrap();
    assert_eq!(snapshots.len(), 1);
    let snapshot = &snapshots[0];
    assert_eq!(snapshot["trigger"], "manual");
    assert_eq!(snapshot["custom_instructions"], "keep the file ids");
    assert_eq!(snapshot["session_id"], SESSION);
    assert_eq!(
        snapshot["source_path"],
        transcript.to_string_lossy().as_ref()
    );
    // Sizes from PROVENANCE.md (23 397 bytes for the main transcript).
    assert_eq!(snapshot["size"], 23_397);
    let files: Vec<&str> = snapshot["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "transcript.jsonl",
            "subagents/agent-0c4c3cf8.jsonl",
            "subagents/agent-90fa40b6.jsonl"
        ]
    );
    // Schema 2: the folder holds no copy; the bytes are in the kept copies.
    assert_eq!(snapshot["schema"], 2);
    assert_eq!(snapshot["files"][0]["kept"]["name"], "transcript.jsonl");
    let folder = Path::new(snapshot["path"].as_str().unwrap());
    let mut in_folder: Vec<String> = fs_err::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    in_folder.sort();
    // Beside the record, what the conversation held since the previous compaction.
    assert_eq!(in_folder, ["segment.json", "snapshot.json"]);
    assert_eq!(
        snapshot_bytes(&world, snapshot, "transcript.jsonl"),
        fs_err::read(&transcript).unwrap()
    );
    assert_eq!(
        snapshot_bytes(&world, snapshot, "subagents/agent-90fa40b6.jsonl"),
        fs_err::read(world.transcript("agent-90fa40b6.jsonl")).unwrap()
    );
    // The checksum is the transcript's real SHA-256 (computed independently here).
    use sha2::Digest;
    let expected = format!(
        "{:x}",
        sha2::Sha256::digest(fs_err::read(&transcript).unwrap())
    );
    assert_eq!(snapshot["sha256"], expected);
    for entry in world.state_entries() {
        let path = world.state_dir().join(&entry);
        let expected = if path.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode(&path), expected, "mode of {entry}");
    }
}

#[test]
fn archives_nested_subagent_transcripts_of_2_1() {
    let world = World::new("nested");
    let session = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";
    let transcript = world.write_transcript(
        format!("{session}.jsonl"),
        fs_err::read(transcript_fixture("marot__spotter/short.jsonl")).unwrap(),
    );
    world.write_transcript(
        format!("{session}/subagents/agent-aac57f5.jsonl"),
        fs_err::read(transcript_fixture(
            "marot__spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl",
        ))
        .unwrap(),
    );
    let mut body = payload(&transcript, "auto", Value::Null);
    body["session_id"] = json!(session);
    world
        .hook(Hook::PreCompact)
        .stdin(body.to_string())
        .success();
    assert_eq!(world.errors(), Vec::<Value>::new());
    let listed = world
        .ctxhooks(["archives", "--session", session, "--json"])
        .json();
    let snapshot = &listed[0];
    assert_eq!(snapshot["trigger"], "auto");
    assert_eq!(snapshot["custom_instructions"], Value::Null);
    assert_eq!(
        snapshot["files"][1]["path"],
        "subagents/agent-aac57f5.jsonl"
    );
    assert_eq!(snapshot["files"][1]["size"], 46_918);
}

#[test]
fn an_optional_field_of_an_unexpected_type_still_gets_its_snapshot() {
    // Only `session_id` and `transcript_path` are needed to archive: one odd optional field used
    // to make the whole payload unreadable, and no snapshot was taken.
    let cases = [
        ("instructions", json!({"custom_instructions": {"x": 1}})),
        ("trigger", json!({"trigger": 5})),
        ("cwd", json!({"cwd": 7})),
        ("event", json!({"hook_event_name": ["PreCompact"]})),
        (
            "all",
            json!({"custom_instructions": {"x": 1}, "trigger": 5, "cwd": 7,
                "hook_event_name": ["PreCompact"]}),
        ),
    ];
    for (name, odd) in cases {
        let world = World::new(&format!("odd-{name}"));
        let transcript = lay_out_flat_project(&world);
        let mut body = payload(&transcript, "manual", json!("keep the ids"));
        for (field, value) in odd.as_object().unwrap() {
            body[field] = value.clone();
        }
        world
            .hook(Hook::PreCompact)
            .stdin(body.to_string())
            .success();
        let listed = world.ctxhooks(["archives", "--json"]).json();
        assert_eq!(listed.as_array().unwrap().len(), 1, "{name}: no snapshot");
        assert_eq!(listed[0]["size"], 23_397, "{name}");
        // One line names every odd field, and the work went on.
        let errors = world.errors();
        assert_eq!(errors.len(), 1, "{name}: {errors:?}");
        assert_eq!(errors[0]["hook"], "ctxhooks-precompact");
        assert_eq!(errors[0]["session_id"], SESSION);
        let text = errors[0]["error"].to_string();
        for field in odd.as_object().unwrap().keys() {
            assert!(text.contains(&format!("`{field}`")), "{name}: {text}");
        }
    }
}

#[test]
fn two_compactions_in_the_same_instant_get_two_snapshots() {
    let world = World::new("collide");
    let transcript = lay_out_flat_project(&world);
    let body = payload(&transcript, "auto", Value::Null).to_string();
    // All six exist before any gets its payload, so they run at the same time.
    let runs = spawn_together((0..6).map(|_| world.hook(Hook::PreCompact).stdin(&body)));
    for run in runs {
        run.wait().success();
    }
    assert_eq!(world.errors(), Vec::<Value>::new());
    let listed = world.ctxhooks(["archives", "--json"]).json();
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 6, "{names:?}");
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), 6);
    world.ctxhooks(["archives", "verify"]).success();
}

/// Runs the hook with `stdin` and checks it exited 0 silently, wrote exactly one error line
/// containing `expected`, and created nothing but that log.
#[track_caller]
fn assert_refused(world: &World, stdin: &[u8], expected: &str) {
    world.hook(Hook::PreCompact).stdin(stdin).success();
    let errors = world.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let text = errors[0]["error"].to_string();
    assert!(text.contains(expected), "error {text} lacks {expected:?}");
    assert_eq!(errors[0]["hook"], "ctxhooks-precompact");
    assert_eq!(
        world.state_entries(),
        ["errors.log"],
        "something besides the error log was written"
    );
}

#[test]
fn hostile_input_is_logged_once_and_changes_nothing() {
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty", Vec::new(), "empty"),
        ("not-json", b"compact please".to_vec(), "not a JSON object"),
        (
            "truncated",
            b"{\"session_id\": \"abc".to_vec(),
            "ended before",
        ),
        ("array", b"[1, 2]".to_vec(), "not a JSON object"),
        (
            "wrong-type",
            br#"{"session_id": 42, "transcript_path": "/x"}"#.to_vec(),
            "wrong type",
        ),
        (
            "no-session",
            br#"{"transcript_path": "/x", "trigger": "auto"}"#.to_vec(),
            "no `session_id`",
        ),
        (
            "traversal",
            br#"{"session_id": "../../x", "transcript_path": "/x"}"#.to_vec(),
            "session id",
        ),
        (
            "slash",
            br#"{"session_id": "/", "transcript_path": "/x"}"#.to_vec(),
            "session id",
        ),
        (
            "no-transcript",
            format!(r#"{{"session_id": "{SESSION}"}}"#).into_bytes(),
            "transcript_path",
        ),
    ];
    for (name, stdin, expected) in cases {
        let world = World::new(&format!("hostile-{name}"));
        assert_refused(&world, &stdin, expected);
    }
}

// Unix only: a symbolic link (Wine 8 makes none that reads back as one).
#[cfg(unix)]
#[test]
fn missing_folder_and_symlink_transcripts_are_refused() {
    let world = World::new("paths-missing");
    let missing = world.transcript("gone.jsonl");
    assert_refused(
        &world,
        payload(&missing, "auto", Value::Null)
            .to_string()
            .as_bytes(),
        "does not exist",
    );

    let world = World::new("paths-folder");
    assert_refused(
        &world,
        payload(&world.project(), "auto", Value::Null)
            .to_string()
            .as_bytes(),
        "is a folder",
    );

    let world = World::new("paths-symlink");
    let real = lay_out_flat_project(&world);
    let link = world.transcript("link.jsonl");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let before = fs_err::read(&real).unwrap();
    assert_refused(
        &world,
        payload(&link, "auto", Value::Null).to_string().as_bytes(),
        "symbolic link",
    );
    assert_eq!(fs_err::read(&real).unwrap(), before);
}

#[test]
fn stdin_that_never_closes_is_bounded() {
    // A complete payload on a pipe that stays open: archived without waiting for end of input.
    let world = World::new("open-pipe");
    let transcript = lay_out_flat_project(&world);
    // The bound against a hang (30 s) is below the hook's own stdin deadline (60 s): a hook that
    // waited for end of input is killed, and the test fails.
    world
        .hook(Hook::PreCompact)
        .env(env_vars::CTXHOOKS_STDIN_TIMEOUT_MS, "60000")
        .stdin_held_open(payload(&transcript, "auto", Value::Null).to_string())
        .timeout(Duration::from_secs(30))
        .success();
    assert_eq!(
        world
            .ctxhooks(["archives", "--json"])
            .json()
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(world.errors(), Vec::<Value>::new());

    // Nothing at all on a pipe that stays open: the hook's own deadline ends it.
    let world = World::new("silent-pipe");
    world
        .hook(Hook::PreCompact)
        .env(env_vars::CTXHOOKS_STDIN_TIMEOUT_MS, "300")
        .stdin_held_open("")
        .timeout(Duration::from_secs(30))
        .success();
    let errors = world.errors();
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0]["error"]
            .to_string()
            .contains("no complete JSON value")
    );
}

#[test]
fn verify_reports_an_empty_start_until_a_later_generation_follows_and_fails_a_headerless_index() {
    let world = World::new("verify-empty-start");
    let transcript = lay_out_flat_project(&world);
    world
        .hook(Hook::PreCompact)
        .stdin(payload(&transcript, "auto", Value::Null).to_string())
        .success();
    let kept = world.session_dir(SESSION).join("kept");
    // Killed between creating generation 2's index and writing its header (before 2026-12-01):
    // an empty index and no gzip file. Nothing was kept under it, and as the newest generation
    // it is what `restore` passes over: verify says so.
    let second = kept.join("transcript.jsonl.2.index.jsonl");
    fs_err::write(&second, "").unwrap();
    let find = |outcomes: &Value, name: &str| {
        outcomes
            .as_array()
            .unwrap()
            .iter()
            .find(|outcome| outcome["name"] == name)
            .unwrap()
            .clone()
    };
    let outcomes = world
        .ctxhooks(["archives", "verify", "--json"])
        .exit_code(1)
        .json();
    let empty = find(&outcomes, "kept/transcript.jsonl.2");
    assert_eq!(empty["files"][0]["status"], "kept_nothing", "{empty:#}");
    // The next run starts generation 3; the empty one is then history, noted.
    world
        .hook(Hook::PreCompact)
        .stdin(payload(&transcript, "auto", Value::Null).to_string())
        .success();
    let outcomes = world.ctxhooks(["archives", "verify", "--json"]).json();
    let empty = find(&outcomes, "kept/transcript.jsonl.2");
    assert_eq!(empty["ok"], true, "{outcomes:#}");
    assert!(
        empty["files"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("keeps nothing"),
        "{empty:#}"
    );
    assert_eq!(find(&outcomes, "kept/transcript.jsonl.3")["ok"], true);
    // An index with bytes but no header is damage: exit 1.
    fs_err::write(&second, "not a header\n").unwrap();
    world
        .ctxhooks(["archives", "verify", "--json"])
        .exit_code(1)
        .json();
}

#[test]
fn verify_catches_tampering_and_prune_trims_on_request() {
    let world = World::new("verify-prune");
    let transcript = lay_out_flat_project(&world);
    for _ in 0..3 {
        world
            .hook(Hook::PreCompact)
            .stdin(payload(&transcript, "auto", Value::Null).to_string())
            .success();
    }
    let listed = world.ctxhooks(["archives", "--json"]).json();
    assert_eq!(listed.as_array().unwrap().len(), 3);

    // Three snapshots of an unchanged transcript share one kept copy: one member each file.
    let kept = world.session_dir(SESSION).join("kept");
    let gz = kept.join("transcript.jsonl.1.gz");
    let index = fs_err::read_to_string(kept.join("transcript.jsonl.1.index.jsonl")).unwrap();
    assert_eq!(index.lines().count(), 2, "{index}");
    let clean = world.ctxhooks(["archives", "verify", "--json"]).json();
    assert_eq!(clean.as_array().unwrap().len(), 6, "{clean:#}");
    let mut bytes = fs_err::read(&gz).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    fs_err::write(&gz, &bytes).unwrap();
    // Exit 1: verify found the changed byte in the kept copy, and every snapshot whose bytes
    // are there fails with it.
    let outcomes = world
        .ctxhooks(["archives", "verify", "--json"])
        .exit_code(1)
        .json();
    let failed: Vec<(&str, &str)> = outcomes
        .as_array()
        .unwrap()
        .iter()
        .filter(|outcome| outcome["ok"] == false)
        .map(|outcome| {
            (
                outcome["name"].as_str().unwrap(),
                outcome["files"][0]["status"].as_str().unwrap(),
            )
        })
        .collect();
    let snapshots: Vec<(&str, &str)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|snapshot| (snapshot["name"].as_str().unwrap(), "kept_damaged"))
        .chain([("kept/transcript.jsonl.1", "kept_damaged")])
        .collect();
    assert_eq!(failed, snapshots);
    // Put back, it passes again (and the mark verify left on the damage goes).
    bytes[middle] ^= 1;
    fs_err::write(&gz, &bytes).unwrap();
    world.ctxhooks(["archives", "verify"]).success();
    assert!(!kept.join("transcript.jsonl.1.damaged.json").exists());

    let dry = world
        .ctxhooks(["archives", "prune", "--keep", "1", "--dry-run", "--json"])
        .json();
    assert_eq!(dry["deleted"].as_array().unwrap().len(), 2);
    assert_eq!(
        world
            .ctxhooks(["archives", "--json"])
            .json()
            .as_array()
            .unwrap()
            .len(),
        3
    );

    let pruned = world
        .ctxhooks(["archives", "prune", "--keep", "1", "--json"])
        .json();
    assert_eq!(pruned["deleted"].as_array().unwrap().len(), 2);
    let left = world.ctxhooks(["archives", "--json"]).json();
    assert_eq!(left.as_array().unwrap().len(), 1);
    assert_eq!(
        left[0]["name"], listed[2]["name"],
        "prune kept the wrong snapshot"
    );

    let none = world
        .ctxhooks(["archives", "prune", "--older-than", "1", "--json"])
        .json();
    assert_eq!(none["deleted"].as_array().unwrap().len(), 0);

    // Prune without a policy refuses.
    world.ctxhooks(["archives", "prune"]).failure();
    world
        .ctxhooks(["archives", "--session", "../x"])
        .stderr_contains("session")
        .failure();
}

#[test]
fn a_full_disk_leaves_nothing_under_a_final_name() {
    let Some(root) = needs_root("the full-disk test (a tmpfs)") else {
        return;
    };
    let world = World::new("full-disk");
    // A transcript of about 1.2 MB for a state folder on a 256 KiB filesystem.
    let fixture_bytes = fs_err::read(transcript_fixture(
        "entireio__cli/a6/e4c2a0fbd1/0/full.jsonl",
    ))
    .unwrap();
    let mut big = Vec::new();
    for _ in 0..4 {
        big.extend_from_slice(&fixture_bytes);
        big.push(b'\n');
    }
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), &big);
    // Compressed, it is about 270 KB: more than the 128 KiB the filesystem holds.
    let Some(small) = SmallFilesystem::mount(world.state_dir(), "128k") else {
        return root.skip("could not mount a tmpfs");
    };
    world
        .hook(Hook::PreCompact)
        .stdin(payload(&transcript, "auto", Value::Null).to_string())
        .success();
    let errors = world.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]["error"].to_string().contains("No space left"),
        "{errors:?}"
    );
    let archive = world.session_dir(SESSION).join("archive");
    let left: Vec<String> = fs_err::read_dir(&archive)
        .map(|entries| {
            entries
                .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        left,
        Vec::<String>::new(),
        "a partial snapshot was left behind"
    );
    assert_eq!(world.ctxhooks(["archives", "--json"]).json(), json!([]));
    drop(small);
}

// Unix only: Unix modes and owners, root and `setpriv`.
#[cfg(unix)]
#[test]
fn an_unreadable_agent_file_costs_only_itself() {
    // Needs root, to make a file the hook (run as `nobody`) cannot read.
    let Some(_root) = needs_root_and_setpriv("the unreadable-file test (setpriv)") else {
        return;
    };
    let world = World::new("unreadable");
    let transcript = lay_out_flat_project(&world);
    let status = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(world.root())
        .status()
        .unwrap();
    assert!(status.success());
    // Another session's agent file that `nobody` may not read (root-owned, 0600).
    let locked = world.transcript("agent-locked00.jsonl");
    fs_err::write(&locked, "{\"sessionId\":\"another-session\"}\n").unwrap();
    fs_err::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();

    world
        .hook(Hook::PreCompact)
        .via(SETPRIV, AS_NOBODY)
        .stdin(payload(&transcript, "auto", Value::Null).to_string())
        .success();

    let listed = world.ctxhooks(["archives", "--json"]).json();
    assert_eq!(
        listed.as_array().unwrap().len(),
        1,
        "the main transcript was not archived"
    );
    let snapshot = &listed[0];
    assert_eq!(snapshot["size"], 23_397);
    assert_eq!(
        snapshot["files"].as_array().unwrap().len(),
        3,
        "this session's agent files are kept"
    );
    assert_eq!(
        snapshot["skipped"][0]["source"],
        locked.to_string_lossy().as_ref()
    );
    let errors = world.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]["error"]
            .to_string()
            .contains("without 1 subagent file"),
        "{errors:?}"
    );
}

#[test]
fn a_log_line_that_does_not_fit_leaves_no_fragment() {
    let Some(root) = needs_root("the full-disk log test (a tmpfs)") else {
        return;
    };
    let world = World::new("log-fragment");
    let Some(small) = SmallFilesystem::mount(world.state_dir(), "16k") else {
        return root.skip("could not mount a tmpfs");
    };
    // Each refused payload logs its (long) transcript path; the fifth line no longer fits.
    let long_name = "x".repeat(3000);
    for _ in 0..8 {
        let missing = world.transcript(format!("{long_name}.jsonl"));
        world
            .hook(Hook::PreCompact)
            .stdin(payload(&missing, "auto", Value::Null).to_string())
            .success();
    }
    let log = fs_err::read(world.state_dir().join("errors.log")).unwrap();
    assert!(log.len() < 16 * 1024);
    assert!(log.ends_with(b"\n"), "the log ends in a fragment");
    for line in log
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
    {
        serde_json::from_slice::<Value>(line).expect("every line is whole JSON");
    }
    drop(small);
}

#[test]
fn a_damaged_archive_folder_never_hides_the_others() {
    let world = World::new("damaged");
    let transcript = lay_out_flat_project(&world);
    for _ in 0..2 {
        world
            .hook(Hook::PreCompact)
            .stdin(payload(&transcript, "auto", Value::Null).to_string())
            .success();
    }
    let archive = world.session_dir(SESSION).join("archive");
    // A folder someone made by hand, a snapshot whose metadata points outside itself, and the
    // temporary folder of a snapshot whose hook was killed two hours ago.
    fs_err::create_dir_all(archive.join("my-notes")).unwrap();
    let listed = world.ctxhooks(["archives", "--json"]).json();
    assert_eq!(
        listed.as_array().unwrap().len(),
        2,
        "the readable snapshots are still listed"
    );
    let second = Path::new(listed[1]["path"].as_str().unwrap()).join("snapshot.json");
    let mut metadata: Value = serde_json::from_slice(&fs_err::read(&second).unwrap()).unwrap();
    metadata["files"][0]["kept"]["name"] = json!("../../../../../../etc/hostname");
    fs_err::write(&second, serde_json::to_vec(&metadata).unwrap()).unwrap();
    let unfinished = archive.join(".tmp-20261130T000000.000000Z-auto-1");
    fs_err::create_dir_all(&unfinished).unwrap();
    let two_hours_ago = SystemTime::now() - Duration::from_secs(2 * 3600);
    ctxhooks_shared::test_support::set_modified(&unfinished, two_hours_ago);

    let outcomes = world
        .ctxhooks(["archives", "verify", "--json"])
        .exit_code(1)
        .json();
    let statuses: Vec<(bool, String)> = outcomes
        .as_array()
        .unwrap()
        .iter()
        .filter(|outcome| outcome["kind"] == "snapshot")
        .map(|outcome| {
            (
                outcome["ok"].as_bool().unwrap(),
                outcome["files"][0]["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            (true, "ok".to_owned()),
            (false, "outside_snapshot".to_owned()),
            (false, "unreadable".to_owned())
        ]
    );

    let pruned = world
        .ctxhooks(["archives", "prune", "--keep", "5", "--json"])
        .json();
    assert_eq!(pruned["deleted"].as_array().unwrap().len(), 0);
    assert_eq!(pruned["unfinished_deleted"].as_array().unwrap().len(), 1);
    assert!(!unfinished.exists());
    assert!(
        archive.join("my-notes").exists(),
        "prune deletes only what it was asked to"
    );
}
