//! Claude Code's cleanup and the guard against it: `sessions` marks each transcript live, due
//! for deletion or deleted by the retention every settings scope gives, `archives restore
//! --deleted` writes back every deleted one in one step, and `doctor` counts both.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::support::{Hook, World, transcript_fixture};

const LIVE: &str = "a1111111-1111-4111-8111-111111111111";
const DUE: &str = "b2222222-2222-4222-8222-222222222222";
const GONE: &str = "c3333333-3333-4333-8333-333333333333";

const SHORT: &str = "marot__spotter/short.jsonl";
const COMPACTED: &str = "entireio__cli/a6/e4c2a0fbd1/0/full.jsonl";

/// Writes `fixture` as `session`'s transcript in the project's transcript folder and keeps it
/// with one Stop run; returns its path.
pub fn keep_session(world: &World, session: &str, fixture: &str) -> PathBuf {
    let transcript = world.write_transcript(
        format!("{session}.jsonl"),
        fs_err::read(transcript_fixture(fixture)).unwrap(),
    );
    stop(world, session, &transcript);
    transcript
}

pub fn stop(world: &World, session: &str, transcript: &Path) {
    world
        .hook(Hook::Stop)
        .stdin(
            json!({"session_id": session, "transcript_path": transcript,
                "hook_event_name": "Stop", "cwd": "/work/demo"})
            .to_string(),
        )
        .success();
}

/// Sets a file's modification time `days` days back, as if last written then.
pub fn age(path: &Path, days: u64) {
    let file = fs_err::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(days * 86_400))
        .unwrap();
}

fn cleanup_of(sessions: &Value, session: &str) -> Value {
    sessions
        .as_array()
        .unwrap()
        .iter()
        .find(|listed| listed["session_id"] == session)
        .unwrap_or_else(|| panic!("{session} not listed: {sessions:#}"))["cleanup"]
        .clone()
}

fn states(world: &World) -> (Value, Value, Value) {
    let sessions = world.ctxhooks(["sessions", "--json"]).json();
    (
        cleanup_of(&sessions, LIVE),
        cleanup_of(&sessions, DUE),
        cleanup_of(&sessions, GONE),
    )
}

#[test]
fn sessions_mark_each_transcript_live_due_or_deleted_by_every_settings_scope() {
    let world = World::new("cleanup-sessions");
    let live = keep_session(&world, LIVE, SHORT);
    let due = keep_session(&world, DUE, SHORT);
    let gone = keep_session(&world, GONE, COMPACTED);
    age(&live, 2);
    age(&due, 26);
    fs_err::remove_file(&gone).unwrap();

    // No file sets it: Claude Code's default, 30 days after the last change.
    let (live_state, due_state, gone_state) = states(&world);
    assert_eq!(
        (&live_state["state"], &live_state["days_left"]),
        (&json!("live"), &json!(28)),
        "{live_state:#}"
    );
    assert_eq!(
        (&due_state["state"], &due_state["days_left"]),
        (&json!("due"), &json!(4))
    );
    assert_eq!(gone_state["state"], "deleted");
    let text = world.ctxhooks(["sessions"]).success().stdout_text();
    assert!(
        text.contains("CLAUDE CODE") && text.contains("due in 4d"),
        "{text}"
    );
    assert!(
        text.contains("30 days after its last change (its default"),
        "{text}"
    );
    assert!(
        text.contains("1 transcript(s) deleted from Claude Code's folder, 1 of them kept only here: `ctxhooks archives restore --deleted`"),
        "{text}"
    );
    assert!(text.contains("1 transcript(s) due for deletion"), "{text}");

    // The project's value overrides the user's, shorter as well as longer (as 2.1.332 does).
    world.write_user_settings(r#"{"cleanupPeriodDays": 365}"#);
    let project_settings = world.project().join(".claude/settings.json");
    fs_err::create_dir_all(project_settings.parent().unwrap()).unwrap();
    fs_err::write(&project_settings, r#"{"cleanupPeriodDays": 3}"#).unwrap();
    let (live_state, due_state, _) = states(&world);
    assert_eq!(
        (&live_state["state"], &live_state["days_left"]),
        (&json!("due"), &json!(1))
    );
    assert_eq!(
        (&due_state["state"], &due_state["days_left"]),
        (&json!("due"), &json!(0))
    );
    assert!(
        world
            .ctxhooks(["sessions"])
            .success()
            .stdout_text()
            .contains("due now"),
    );

    // A value Claude Code refuses pauses its sweep: nothing is due.
    fs_err::write(
        world.project().join(".claude/settings.local.json"),
        r#"{"cleanupPeriodDays": 0}"#,
    )
    .unwrap();
    let (live_state, due_state, _) = states(&world);
    assert_eq!(
        (
            &live_state["state"],
            &due_state["state"],
            &due_state["deleted_from"]
        ),
        (&json!("live"), &json!("live"), &Value::Null)
    );
    assert!(
        world
            .ctxhooks(["sessions"])
            .success()
            .stdout_text()
            .contains("deletes no transcripts while `cleanupPeriodDays` is 0"),
    );

    // A managed drop-in's valid value holds over every other file.
    let drop_ins = world.managed_settings_dir().join("managed-settings.d");
    fs_err::create_dir_all(&drop_ins).unwrap();
    fs_err::write(
        drop_ins.join("10-retention.json"),
        r#"{"cleanupPeriodDays": 20}"#,
    )
    .unwrap();
    let (live_state, due_state, _) = states(&world);
    assert_eq!(
        (&live_state["state"], &live_state["days_left"]),
        (&json!("live"), &json!(18))
    );
    assert_eq!(due_state["state"], "due");

    // Doctor counts them with the same reading.
    let doctor = world.ctxhooks(["doctor", "--json"]).output().json();
    assert_eq!(
        (
            &doctor["cleanup"]["deleted_kept"],
            &doctor["cleanup"]["due_within_7_days"],
            &doctor["cleanup"]["retention"]["days"]
        ),
        (&json!(1), &json!(1), &json!(20)),
        "{doctor:#}"
    );
    let codes: Vec<&str> = doctor["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| finding["code"].as_str().unwrap())
        .collect();
    assert!(
        codes.contains(&"sessions_deleted_kept")
            && codes.contains(&"sessions_due_for_deletion")
            && codes.contains(&"cleanup_period_set"),
        "{codes:?}"
    );
    let text = world.ctxhooks(["doctor"]).output().stdout_text();
    assert!(
        text.contains("1 session(s) it deleted kept here, 1 due within 7 days"),
        "{text}"
    );
}

// Unix only: a symbolic link (Wine 8 makes none that reads back as one).
#[cfg(unix)]
#[test]
fn restore_deleted_writes_back_every_deleted_session_and_goes_on_after_a_failure() {
    let world = World::new("cleanup-restore");
    let first = keep_session(&world, LIVE, SHORT);
    let first_bytes = fs_err::read(&first).unwrap();
    // The second has a sub-agent, whose file an older CLI left behind (changed since).
    let second = keep_session(&world, DUE, COMPACTED);
    let second_bytes = fs_err::read(&second).unwrap();
    let agent = world.write_transcript(
        format!("{DUE}/subagents/agent-aac57f5.jsonl"),
        fs_err::read(transcript_fixture(
            "marot__spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl",
        ))
        .unwrap(),
    );
    world
        .hook(Hook::Stop)
        .stdin(
            json!({"session_id": DUE, "transcript_path": second,
                "hook_event_name": "SubagentStop", "agent_id": "aac57f5",
                "agent_transcript_path": agent})
            .to_string(),
        )
        .success();
    // The third ran in another project, whose folder becomes a link: its restore must fail.
    let other = world.config_dir().join("projects/-other-project");
    fs_err::create_dir_all(&other).unwrap();
    let third = other.join(format!("{GONE}.jsonl"));
    fs_err::copy(transcript_fixture(SHORT), &third).unwrap();
    stop(&world, GONE, &third);
    // A fourth is still there: not touched.
    let untouched = "d4444444-4444-4444-8444-444444444444";
    let fourth = keep_session(&world, untouched, SHORT);
    let fourth_modified = fs_err::metadata(&fourth).unwrap().modified().unwrap();

    fs_err::remove_file(&first).unwrap();
    fs_err::remove_file(&second).unwrap();
    fs_err::write(&agent, "left by an older CLI\n").unwrap();
    fs_err::remove_file(&third).unwrap();
    fs_err::remove_dir(&other).unwrap();
    let elsewhere = world.join("elsewhere");
    fs_err::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &other).unwrap();

    // Filters first: nothing before the day given, only the other project's by name.
    world
        .ctxhooks(["archives", "restore", "--deleted", "--since", "2999-01-01"])
        .stdout_contains("restored 0 session(s), 0 failed")
        .success();
    let only_other = world
        .ctxhooks([
            "archives",
            "restore",
            "--deleted",
            "--project",
            "other-project",
            "--json",
        ])
        .exit_code(1)
        .stdout_text();
    let only_other: Value = serde_json::from_str(&only_other).unwrap();
    assert_eq!(only_other["restored"], json!([]));
    assert_eq!(only_other["failed"][0]["session_id"], GONE);
    assert!(!first.exists() && !second.exists());

    let outcome = world
        .ctxhooks(["archives", "restore", "--deleted"])
        .exit_code(1);
    let text = outcome.stdout_text();
    assert!(
        text.contains(&format!("restored session {LIVE}:")),
        "{text}"
    );
    assert!(text.contains(&format!("restored session {DUE}:")), "{text}");
    assert!(
        text.contains(&format!("FAILED session {GONE}")) && text.contains("symbolic link"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "left as it is (already there): {}",
            agent.display()
        )),
        "{text}"
    );
    assert!(text.contains("restored 2 session(s), 1 failed"), "{text}");
    assert_eq!(fs_err::read(&first).unwrap(), first_bytes);
    assert_eq!(fs_err::read(&second).unwrap(), second_bytes);
    assert_eq!(fs_err::read(&agent).unwrap(), b"left by an older CLI\n");
    assert!(!elsewhere.join(format!("{GONE}.jsonl")).exists());
    assert_eq!(
        fs_err::metadata(&fourth).unwrap().modified().unwrap(),
        fourth_modified
    );
    // The restored transcripts are live again; the failed one is still listed as deleted.
    let sessions = world.ctxhooks(["sessions", "--json"]).json();
    assert_eq!(cleanup_of(&sessions, LIVE)["state"], "live");
    assert_eq!(cleanup_of(&sessions, GONE)["state"], "deleted");

    // A session of which nothing is kept is named, not failed; the next run restores nothing
    // twice.
    fs_err::remove_dir_all(world.session_dir(GONE).join("kept")).unwrap();
    let again = world
        .ctxhooks(["archives", "restore", "--deleted", "--json"])
        .json();
    assert_eq!(
        (&again["restored"], &again["failed"], &again["not_kept"]),
        (&json!([]), &json!([]), &json!([GONE])),
        "{again:#}"
    );
}

#[test]
fn a_transcript_the_cli_moved_to_another_project_is_live_not_deleted() {
    let world = World::new("cleanup-moved");
    let first = keep_session(&world, LIVE, SHORT);
    // The CLI relocates the session: its transcript moves to the new folder's project, and
    // the hooks read it there from then on.
    let moved = world
        .config_dir()
        .join(format!("projects/-work-moved/{LIVE}.jsonl"));
    fs_err::create_dir_all(moved.parent().unwrap()).unwrap();
    fs_err::rename(&first, &moved).unwrap();
    stop(&world, LIVE, &moved);
    let sessions = world.ctxhooks(["sessions", "--json"]).json();
    assert_eq!(cleanup_of(&sessions, LIVE)["state"], "live", "{sessions:#}");
    assert_eq!(sessions[0]["transcript"], moved.to_string_lossy().as_ref());
    let restored = world
        .ctxhooks(["archives", "restore", "--deleted", "--json"])
        .json();
    assert_eq!(restored["restored"], json!([]));
    assert!(
        !first.exists(),
        "a moved transcript was written back where it was"
    );
    // Idle since: a prune lists it, but not as the only copy.
    crate::storage::age_tree(&world.session_dir(LIVE), 3);
    let listed = world
        .ctxhooks(["archives", "prune", "--kept", "--older-than", "1", "--json"])
        .json();
    assert_eq!(listed["sessions"][0]["session_id"], LIVE, "{listed:#}");
    assert_eq!(listed["sessions"][0]["only_copy"], false, "{listed:#}");
}

#[test]
fn restore_deleted_takes_no_session_snapshot_target_or_force() {
    let world = World::new("cleanup-restore-arguments");
    for extra in [
        &["--session", LIVE][..],
        &["--to", "/tmp/x"][..],
        &["--force"][..],
        &["--snapshot", "x"][..],
    ] {
        world
            .ctxhooks(["archives", "restore", "--deleted"])
            .args(extra)
            .stderr_contains("cannot be used with")
            .exit_code(2);
    }
    world
        .ctxhooks(["archives", "restore", "--project", "x"])
        .stderr_contains("--deleted")
        .exit_code(2);
    world
        .ctxhooks(["archives", "restore"])
        .stderr_contains("--session")
        .exit_code(2);
}
