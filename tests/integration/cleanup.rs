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
fn keep_session(world: &World, session: &str, fixture: &str) -> PathBuf {
    let transcript = world.write_transcript(
        format!("{session}.jsonl"),
        fs_err::read(transcript_fixture(fixture)).unwrap(),
    );
    stop(world, session, &transcript);
    transcript
}

fn stop(world: &World, session: &str, transcript: &Path) {
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
fn age(path: &Path, days: u64) {
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
