//! Tests for the kept transcript copies: the hooks that keep them (Stop, `SubagentStop`,
//! `PreCompact`, and `ctxhooks-session` for `SessionStart`, `PostCompact`, `SessionEnd`), and the
//! commands that read them back (`sessions`, `recall`, `archives restore`, `archives verify`),
//! with `--session last` and a unique start of an id.

use std::io::Read as _;
#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{Hook, World, mode, transcript_fixture, wait_until};

pub const SESSION: &str = "198393f2-22db-477b-ac77-1825bea883ae";

/// The fixture with one compaction (2.0.76): 30 lines before its boundary.
const COMPACTED: &str = "entireio__cli/a6/e4c2a0fbd1/0/full.jsonl";

pub fn stop(world: &World, transcript: &Path) {
    world
        .hook(Hook::Stop)
        .stdin(
            json!({"session_id": SESSION, "transcript_path": transcript,
                "hook_event_name": "Stop", "cwd": "/work/demo"})
            .to_string(),
        )
        .success();
}

fn session_event(world: &World, transcript: &Path, event: &str, extra: Value) -> String {
    let mut body = json!({"session_id": SESSION, "transcript_path": transcript,
        "hook_event_name": event, "cwd": "/work/demo"});
    for (key, value) in extra.as_object().unwrap() {
        body[key] = value.clone();
    }
    // Not `world.hook(..)`, which expects an empty stdout: this hook may answer there.
    world
        .program(Hook::Session.binary())
        .stdin(body.to_string())
        .success()
        .stdout_text()
}

pub fn kept_dir(world: &World) -> PathBuf {
    world.session_dir(SESSION).join("kept")
}

/// What `zcat` reads from a kept gzip file: every member, in order.
pub fn zcat(path: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    flate2::read::MultiGzDecoder::new(fs_err::File::open(path).unwrap())
        .read_to_end(&mut bytes)
        .unwrap();
    bytes
}

#[test]
fn stop_keeps_each_turn_and_a_rewrite_starts_a_generation() {
    let world = World::new("keep-stop");
    let all = fs_err::read(transcript_fixture(COMPACTED)).unwrap();
    let cut = all.len() / 2
        + all[all.len() / 2..]
            .iter()
            .position(|b| *b == b'\n')
            .unwrap()
        + 1;
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), &all[..cut]);
    stop(&world, &transcript);
    fs_err::write(&transcript, &all).unwrap();
    stop(&world, &transcript);
    stop(&world, &transcript);
    assert_eq!(world.errors(), Vec::<Value>::new());
    let kept = kept_dir(&world);
    assert_eq!(zcat(&kept.join("transcript.jsonl.1.gz")), all);
    // A header and one member per run that had new bytes: the third run added nothing.
    let index = fs_err::read_to_string(kept.join("transcript.jsonl.1.index.jsonl")).unwrap();
    let lines: Vec<Value> = index
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{index}");
    assert_eq!(lines[0]["record"], "generation");
    assert_eq!(lines[0]["reason"], "first");
    assert_eq!(lines[2]["start"], cut);
    assert_eq!(lines[2]["length"], all.len() - cut);
    // A third of the transcript's size or less.
    let stored = fs_err::metadata(kept.join("transcript.jsonl.1.gz"))
        .unwrap()
        .len();
    assert!(stored * 3 <= all.len() as u64, "{stored} of {}", all.len());
    for entry in world.state_entries() {
        let path = world.state_dir().join(&entry);
        let expected = if path.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode(&path), expected, "mode of {entry}");
    }

    // The transcript is cut short and rewritten: generation 1 stays whole, 2 follows it.
    let rewritten = b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"again\"}}\n";
    fs_err::write(&transcript, rewritten).unwrap();
    stop(&world, &transcript);
    assert_eq!(zcat(&kept.join("transcript.jsonl.1.gz")), all);
    assert_eq!(zcat(&kept.join("transcript.jsonl.2.gz")), rewritten);
    let second = fs_err::read_to_string(kept.join("transcript.jsonl.2.index.jsonl")).unwrap();
    assert!(second.contains("\"reason\":\"shrank\""), "{second}");
    let verified = world.ctxhooks(["archives", "verify", "--json"]).json();
    assert_eq!(verified.as_array().unwrap().len(), 2);
    assert!(verified.as_array().unwrap().iter().all(|o| o["ok"] == true));
    let sessions = world.ctxhooks(["sessions", "--json"]).json();
    assert_eq!(sessions[0]["generations"], 2);
    assert_eq!(sessions[0]["size"], rewritten.len());
}

#[test]
fn subagent_stop_and_session_end_keep_the_sub_agents() {
    let world = World::new("keep-agents");
    let transcript = world.write_transcript(
        format!("{SESSION}.jsonl"),
        fs_err::read(transcript_fixture("marot__spotter/short.jsonl")).unwrap(),
    );
    let agent_fixture = fs_err::read(transcript_fixture(
        "marot__spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl",
    ))
    .unwrap();
    let agent = world.write_transcript(
        format!("{SESSION}/subagents/agent-aac57f5.jsonl"),
        &agent_fixture,
    );
    world
        .hook(Hook::Stop)
        .stdin(
            json!({"session_id": SESSION, "transcript_path": transcript,
                "hook_event_name": "SubagentStop", "agent_id": "aac57f5",
                "agent_transcript_path": agent})
            .to_string(),
        )
        .success();
    let kept = kept_dir(&world);
    assert_eq!(
        zcat(&kept.join("subagents/agent-aac57f5.jsonl.1.gz")),
        agent_fixture
    );
    // One more sub-agent, that no SubagentStop reported: SessionEnd keeps it, and prints nothing.
    let other = world.write_transcript(
        format!("{SESSION}/subagents/agent-bbb.jsonl"),
        "{\"isSidechain\":true}\n",
    );
    let printed = session_event(
        &world,
        &transcript,
        "SessionEnd",
        json!({"reason": "other"}),
    );
    assert_eq!(printed, "");
    assert_eq!(
        zcat(&kept.join("subagents/agent-bbb.jsonl.1.gz")),
        fs_err::read(&other).unwrap()
    );
    assert_eq!(world.errors(), Vec::<Value>::new());
    // It kept everything: nothing is left for the next Stop hook.
    assert_eq!(catch_up_records(&world), Vec::<PathBuf>::new());

    // Deleted by Claude Code's cleanup, restored into another folder, sub-agents included.
    let folder = world.join("restored");
    world
        .ctxhooks(["archives", "restore", "--session", "198", "--to"])
        .arg(&folder)
        .success();
    assert_eq!(
        fs_err::read(folder.join(format!("{SESSION}.jsonl"))).unwrap(),
        fs_err::read(&transcript).unwrap()
    );
    assert_eq!(
        fs_err::read(folder.join(SESSION).join("subagents/agent-aac57f5.jsonl")).unwrap(),
        agent_fixture
    );
    assert_eq!(mode(&folder.join(format!("{SESSION}.jsonl"))), 0o600);
}

/// The records `SessionEnd` runs left for the next Stop hook (`<state>/catch-up/*.json`).
pub fn catch_up_records(world: &World) -> Vec<PathBuf> {
    let Ok(entries) = fs_err::read_dir(world.state_dir().join("catch-up")) else {
        return Vec::new();
    };
    let mut records: Vec<PathBuf> = entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "json")
        })
        .collect();
    records.sort();
    records
}

#[test]
fn a_session_end_cut_short_is_kept_whole_by_the_next_stop() {
    // Claude Code gives SessionEnd 1 s and ends it past that: on a busy machine it may not have
    // kept the session's last bytes by then, and no hook runs for the session again unless it
    // is resumed. Here it is ended, as Claude Code ends it, while it waits for the kept copies'
    // lock another writer holds (had it given up the wait first, it would have left the same).
    let world = World::new("keep-end-cut-short");
    let all = fs_err::read(transcript_fixture("marot__spotter/short.jsonl")).unwrap();
    let turn_end = all[..all.len() / 2]
        .iter()
        .rposition(|byte| *byte == b'\n')
        .unwrap()
        + 1;
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), &all[..turn_end]);
    stop(&world, &transcript);
    // The session's last turn, and a sub-agent's transcript no SubagentStop reported: only
    // SessionEnd would keep them.
    fs_err::write(&transcript, &all).unwrap();
    let agent_bytes = b"{\"isSidechain\":true}\n";
    world.write_transcript(format!("{SESSION}/subagents/agent-late.jsonl"), agent_bytes);
    let writer = fs_err::OpenOptions::new()
        .read(true)
        .write(true)
        .open(kept_dir(&world).join("lock"))
        .unwrap();
    writer.file().lock().unwrap();
    let running = world
        .program(Hook::Session.binary())
        .stdin(
            json!({"session_id": SESSION, "transcript_path": transcript,
                "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"})
            .to_string(),
        )
        .spawn();
    // It records the session before its work.
    let record = wait_until("SessionEnd's record for the next run", || {
        catch_up_records(&world).pop()
    });
    running.kill_after(std::time::Duration::ZERO);
    drop(writer);
    assert!(record.is_file());
    let kept_bytes = |name: &str| zcat(&kept_dir(&world).join(name)).len();
    assert_eq!(kept_bytes("transcript.jsonl.1.gz"), turn_end);

    // The next Stop hook, of another session, keeps what it left and takes the record back.
    let other = world.write_transcript(
        "other-session.jsonl",
        fs_err::read(transcript_fixture(COMPACTED)).unwrap(),
    );
    world
        .hook(Hook::Stop)
        .stdin(
            json!({"session_id": "other-session", "transcript_path": other,
                "hook_event_name": "Stop"})
            .to_string(),
        )
        .success();
    assert_eq!(kept_bytes("transcript.jsonl.1.gz"), all.len());
    assert_eq!(
        kept_bytes("subagents/agent-late.jsonl.1.gz"),
        agent_bytes.len()
    );
    world
        .ctxhooks(["archives", "restore", "--session", SESSION, "--to", "out"])
        .success();
    assert_eq!(
        fs_err::read(world.project().join("out").join(format!("{SESSION}.jsonl"))).unwrap(),
        all
    );
    assert_eq!(catch_up_records(&world), Vec::<PathBuf>::new());
    assert_eq!(world.errors(), Vec::<Value>::new());
    world.ctxhooks(["archives", "verify"]).success();
}

#[test]
fn a_catch_up_record_that_cannot_be_read_is_said_once_and_removed() {
    let world = World::new("keep-catch-up-garbage");
    let folder = world.state_dir().join("catch-up");
    fs_err::create_dir_all(&folder).unwrap();
    let garbage = folder.join(format!("{SESSION}.1.2.json"));
    fs_err::write(&garbage, "not a record").unwrap();
    let transcript = world.write_transcript(
        format!("{SESSION}.jsonl"),
        fs_err::read(transcript_fixture("marot__spotter/short.jsonl")).unwrap(),
    );
    stop(&world, &transcript);
    stop(&world, &transcript);
    let errors = world.errors();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0]["error"][0]
            .as_str()
            .unwrap()
            .contains("a session's end to keep"),
        "{errors:#?}"
    );
    assert!(!garbage.exists());
    // The Stop's own work was done.
    assert_eq!(
        zcat(&kept_dir(&world).join("transcript.jsonl.1.gz")),
        fs_err::read(&transcript).unwrap()
    );
}

#[test]
fn session_start_speaks_only_after_a_compaction_and_only_when_something_is_kept() {
    let world = World::new("keep-start");
    let transcript = world.write_transcript(
        format!("{SESSION}.jsonl"),
        fs_err::read(transcript_fixture(COMPACTED)).unwrap(),
    );
    for source in ["startup", "resume", "clear", "fork"] {
        let printed = session_event(
            &world,
            &transcript,
            "SessionStart",
            json!({"source": source}),
        );
        assert_eq!(printed, "", "{source}");
    }
    assert!(!world.state_dir().exists(), "other sources write nothing");
    let printed = session_event(
        &world,
        &transcript,
        "SessionStart",
        json!({"source": "compact"}),
    );
    let answer: Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"],
        "SessionStart"
    );
    let note = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        note.contains(&format!(
            "recall --session {SESSION} --before-compaction last 'WORDS'"
        )),
        "{note}"
    );
    assert_eq!(answer.as_object().unwrap().len(), 1, "{answer}");
    // The transcript was kept on the way (the compaction's snapshot may not have run).
    assert!(kept_dir(&world).join("transcript.jsonl.1.gz").exists());
    // A compaction of a transcript that is not there: nothing is kept, nothing is said.
    let gone = world.transcript("gone.jsonl");
    let printed = session_event(&world, &gone, "SessionStart", json!({"source": "compact"}));
    assert_eq!(printed, "");
    assert_eq!(world.errors(), Vec::<Value>::new());
}

#[test]
fn session_start_after_a_compaction_writes_nothing_when_the_session_is_kept() {
    // PreCompact kept the conversation before the compaction; the SessionStart that follows it
    // runs while the person waits (Claude Code gives it 1 s): it says so without taking the
    // lock or syncing a member to disk (one fdatasync on a loaded disk outlasted its budget).
    let world = World::new("keep-start-kept");
    let transcript = world.write_transcript(
        format!("{SESSION}.jsonl"),
        fs_err::read(transcript_fixture(COMPACTED)).unwrap(),
    );
    world
        .hook(Hook::PreCompact)
        .stdin(
            json!({"session_id": SESSION, "transcript_path": transcript,
                "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": null})
            .to_string(),
        )
        .success();
    let kept = kept_dir(&world);
    let files = |kept: &Path| -> Vec<(String, u64)> {
        let mut found: Vec<(String, u64)> = fs_err::read_dir(kept)
            .unwrap()
            .map(|entry| {
                let entry = entry.unwrap();
                let length = entry.metadata().unwrap().len();
                (entry.file_name().to_string_lossy().into_owned(), length)
            })
            .collect();
        found.sort();
        found
    };
    let before = files(&kept);
    assert!(
        before
            .iter()
            .any(|(name, _)| name == "transcript.jsonl.1.gz"),
        "{before:?}"
    );
    // The compaction's boundary and summary arrive; SessionStart says the note and writes
    // nothing.
    let mut grown = fs_err::read(&transcript).unwrap();
    grown.extend_from_slice(b"{\"type\":\"system\",\"subtype\":\"compact_boundary\"}\n");
    fs_err::write(&transcript, &grown).unwrap();
    let printed = session_event(
        &world,
        &transcript,
        "SessionStart",
        json!({"source": "compact"}),
    );
    assert!(printed.contains("--before-compaction last"), "{printed}");
    assert_eq!(files(&kept), before);
    assert_eq!(world.errors(), Vec::<Value>::new());
}

#[test]
fn post_compact_records_the_summary_beside_its_snapshot() {
    let world = World::new("keep-post");
    let transcript = world.write_transcript(
        format!("{SESSION}.jsonl"),
        fs_err::read(transcript_fixture(COMPACTED)).unwrap(),
    );
    world
        .hook(Hook::PreCompact)
        .stdin(
            json!({"session_id": SESSION, "transcript_path": transcript,
                "hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": null})
            .to_string(),
        )
        .success();
    let printed = session_event(
        &world,
        &transcript,
        "PostCompact",
        json!({"trigger": "manual", "compact_summary": "The user fixed the hook.\nSecond line."}),
    );
    assert_eq!(printed, "");
    let listed = world.ctxhooks(["archives", "--json"]).json();
    assert_eq!(
        listed[0]["compact_summary"]["compact_summary"],
        "The user fixed the hook.\nSecond line."
    );
    assert_eq!(listed[0]["compact_summary"]["trigger"], "manual");
    let table = world
        .ctxhooks(["archives"])
        .stdout_contains("summary: The user fixed the hook. …")
        .success()
        .stdout_text();
    // The row's columns end where the header's do: a trigger shorter than its column is padded.
    let (header, row) = (table.lines().next().unwrap(), table.lines().nth(1).unwrap());
    let size = listed[0]["size"].as_u64().unwrap().to_string();
    let bytes_end = header.find("BYTES").unwrap() + "BYTES".len();
    assert_eq!(&row[bytes_end - size.len()..bytes_end], size, "{table}");
    // A second PostCompact with no new snapshot: logged, nothing overwritten.
    session_event(
        &world,
        &transcript,
        "PostCompact",
        json!({"trigger": "auto", "compact_summary": "other"}),
    );
    let listed = world.ctxhooks(["archives", "--json"]).json();
    assert_eq!(listed[0]["compact_summary"]["trigger"], "manual");
    let errors = world.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0]["error"].to_string().contains("no snapshot"));
}

#[test]
fn recall_reads_messages_in_order_by_text_compaction_and_last() {
    let world = World::new("keep-recall");
    let transcript = world.write_transcript(
        format!("{SESSION}.jsonl"),
        fs_err::read(transcript_fixture(COMPACTED)).unwrap(),
    );
    stop(&world, &transcript);
    let all = world
        .ctxhooks(["recall", "--session", "last", "--json"])
        .json();
    let all = all.as_array().unwrap();
    let before: Vec<&Value> = all
        .iter()
        .filter(|message| message["compactions_before"] == 0)
        .collect();
    assert!(!before.is_empty() && before.len() < all.len());
    let numbers: Vec<u64> = all.iter().map(|m| m["number"].as_u64().unwrap()).collect();
    assert!(
        numbers.windows(2).all(|pair| pair[0] < pair[1]),
        "reading order"
    );
    assert!(
        all.iter().any(|m| m["speaker"] == "summary"),
        "the compaction summary is a message"
    );
    assert!(all.iter().any(|m| {
        m["parts"].as_array().unwrap().iter().any(|part| {
            part["type"] == "tool_call" && part["input"].as_str().unwrap().contains('{')
        })
    }));
    let only_before = world
        .ctxhooks([
            "recall",
            "--session",
            "198393",
            "--before-compaction",
            "1",
            "--json",
        ])
        .json();
    assert_eq!(only_before.as_array().unwrap().len(), before.len());
    let found = world
        .ctxhooks([
            "recall",
            "--session",
            SESSION,
            "SIMILAR to when the",
            "--before-compaction",
            "last",
        ])
        .success()
        .stdout_text();
    assert!(
        found.contains("could we do that similar to when the"),
        "{found}"
    );
    assert!(found.contains("before compaction 1"), "{found}");
    let last = world
        .ctxhooks(["recall", "--session", SESSION, "--last", "2", "--json"])
        .json();
    assert_eq!(last.as_array().unwrap(), &all[all.len() - 2..]);
    world
        .ctxhooks(["recall", "--session", SESSION, "--before-compaction", "2"])
        .stderr_contains("from 1 to 1")
        .exit_code(1);
    // The live transcript's new lines are read too, past the kept copy's end.
    let mut grown = fs_err::read(&transcript).unwrap();
    if !grown.ends_with(b"\n") {
        // The fixture's last line has no newline (as Claude Code 2.0.76 left it).
        grown.push(b'\n');
    }
    grown.extend_from_slice(
        b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"fresh words\"}}\n",
    );
    fs_err::write(&transcript, &grown).unwrap();
    world
        .ctxhooks(["recall", "--session", SESSION, "fresh words"])
        .stdout_contains("after compaction 1")
        .success();
}

#[test]
fn session_arguments_take_last_a_unique_start_and_say_what_is_wrong() {
    let world = World::new("keep-resolve");
    for id in ["aaaa1111-0000", "aaaa2222-0000"] {
        fs_err::create_dir_all(world.session_dir(id)).unwrap();
    }
    world
        .ctxhooks(["archives", "--session", "aaaa"])
        .stderr_contains("start of 2 sessions: aaaa1111-0000, aaaa2222-0000")
        .exit_code(1);
    world
        .ctxhooks(["usage", "--session", "zzz"])
        .stderr_contains("no session known to ctxhooks is `zzz`")
        .exit_code(1);
    world
        .ctxhooks(["recall", "--session", "../x"])
        .stderr_contains("invalid `--session`")
        .exit_code(1);
    world
        .ctxhooks(["archives", "--session", "aaaa2", "--json"])
        .stdout("[]\n")
        .success();
    // mark-interrupt may name a session ctxhooks has not seen yet.
    world
        .ctxhooks([
            "mark-interrupt",
            "--session",
            "new-one",
            "--reason",
            "backstop",
        ])
        .success();
    assert!(world.sidecar("new-one").exists());
    let empty = World::new("keep-resolve-empty");
    empty
        .ctxhooks(["recall", "--session", "last"])
        .stderr_contains("no session is known to ctxhooks yet")
        .exit_code(1);
}

// Unix only: a symbolic link (Wine 8 makes none that reads back as one).
#[cfg(unix)]
#[test]
fn restore_refuses_links_and_existing_files_and_keeps_what_it_replaces() {
    let world = World::new("keep-restore");
    let original = fs_err::read(transcript_fixture("marot__spotter/short.jsonl")).unwrap();
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), &original);
    stop(&world, &transcript);

    // Over an existing file: refused, the file as it was.
    let damaged = b"{\"damaged\":true}\n";
    fs_err::write(&transcript, damaged).unwrap();
    world
        .ctxhooks(["archives", "restore", "--session", SESSION])
        .stderr_contains("already exist")
        .expect_file(&transcript, damaged)
        .exit_code(1);
    // With --force: the damaged file is kept apart first, then replaced.
    world
        .ctxhooks(["archives", "restore", "--session", SESSION, "--force"])
        .stdout_contains("replaced")
        .stdout_contains("replaced/")
        .success();
    assert_eq!(fs_err::read(&transcript).unwrap(), original);
    assert_eq!(replaced_files(&world), vec![damaged.to_vec()]);

    // A link in the projects folder is never followed out of it.
    let outside = world.join("outside");
    fs_err::create_dir_all(&outside).unwrap();
    let projects = world.config_dir().join("projects");
    let slug = transcript.parent().unwrap().file_name().unwrap().to_owned();
    fs_err::remove_dir_all(projects.join(&slug)).unwrap();
    std::os::unix::fs::symlink(&outside, projects.join(&slug)).unwrap();
    world
        .ctxhooks(["archives", "restore", "--session", SESSION])
        .stderr_contains("symbolic link")
        .exit_code(1);
    assert_eq!(fs_err::read_dir(&outside).unwrap().count(), 0);

    // A kept copy reached through a link in the state folder is not written through it.
    let elsewhere = world.join("elsewhere");
    fs_err::create_dir_all(&elsewhere).unwrap();
    let second = "0f0f0f0f-0000-4000-8000-000000000000";
    fs_err::create_dir_all(world.session_dir(second)).unwrap();
    std::os::unix::fs::symlink(&elsewhere, world.session_dir(second).join("kept")).unwrap();
    let other = world.join("other.jsonl");
    fs_err::write(&other, "{}\n").unwrap();
    world
        .hook(Hook::Stop)
        .stdin(json!({"session_id": second, "transcript_path": other}).to_string())
        .success();
    assert_eq!(fs_err::read_dir(&elsewhere).unwrap().count(), 0);
    assert!(
        world
            .errors()
            .iter()
            .any(|error| error["error"].to_string().contains("symbolic link")),
        "{:?}",
        world.errors()
    );
}

/// The bytes of every file `restore --force` kept apart for the session, oldest first, each
/// checked private (files 0600, folders 0700).
fn replaced_files(world: &World) -> Vec<Vec<u8>> {
    let folder = world.session_dir(SESSION).join("replaced");
    assert_eq!(mode(&folder), 0o700);
    let mut runs: Vec<PathBuf> = fs_err::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    runs.sort();
    let mut found = Vec::new();
    for run in runs {
        assert_eq!(mode(&run), 0o700, "{}", run.display());
        let main = run.join("transcript.jsonl");
        assert_eq!(mode(&main), 0o600);
        found.push(fs_err::read(main).unwrap());
    }
    found
}

#[test]
fn restore_force_keeps_the_replaced_file_apart_and_never_as_the_transcript() {
    let world = World::new("keep-force");
    let original = fs_err::read(transcript_fixture(COMPACTED)).unwrap();
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), &original);
    stop(&world, &transcript);

    // An older copy of the transcript is put back by hand; `--force` replaces it with what is
    // kept, and says where the older copy went.
    let older = original[..original.len() / 3].to_vec();
    fs_err::write(&transcript, &older).unwrap();
    let restored = world
        .ctxhooks([
            "archives",
            "restore",
            "--session",
            SESSION,
            "--force",
            "--json",
        ])
        .json();
    assert_eq!(fs_err::read(&transcript).unwrap(), original);
    let kept_at = PathBuf::from(restored["files"][0]["replaced_kept_at"].as_str().unwrap());
    assert!(kept_at.starts_with(world.session_dir(SESSION).join("replaced")));
    assert_eq!(fs_err::read(&kept_at).unwrap(), older);
    // The replaced copy never becomes the session's transcript: a plain restore gives the
    // transcript as kept, and nothing but the transcript's own generation is kept.
    let folder = world.join("again");
    world
        .ctxhooks(["archives", "restore", "--session", SESSION, "--to"])
        .arg(&folder)
        .success();
    assert_eq!(
        fs_err::read(folder.join(format!("{SESSION}.jsonl"))).unwrap(),
        original
    );
    assert!(
        !kept_dir(&world)
            .join("transcript.jsonl.2.index.jsonl")
            .exists()
    );
    // The restored file is another file with the same bytes: the next turn carries the same
    // generation on.
    let mut grown = original.clone();
    if !grown.ends_with(b"\n") {
        grown.push(b'\n');
    }
    grown.extend_from_slice(b"{\"type\":\"user\",\"message\":{\"content\":\"next\"}}\n");
    fs_err::write(&transcript, &grown).unwrap();
    stop(&world, &transcript);
    assert_eq!(zcat(&kept_dir(&world).join("transcript.jsonl.1.gz")), grown);
    assert!(
        !kept_dir(&world)
            .join("transcript.jsonl.2.index.jsonl")
            .exists()
    );

    // A file a crash left damaged (NUL bytes, no transcript at all) is replaced too, and kept.
    let crashed = b"\0\0\0\0\0\0{\"type\":\"us".to_vec();
    fs_err::write(&transcript, &crashed).unwrap();
    world
        .ctxhooks(["archives", "restore", "--session", SESSION, "--force"])
        .stdout_contains("kept in")
        .success();
    assert_eq!(fs_err::read(&transcript).unwrap(), grown);
    assert_eq!(replaced_files(&world), vec![older, crashed]);
    world.ctxhooks(["archives", "verify"]).success();
}

// Unix only: a FIFO.
#[cfg(unix)]
#[test]
fn a_restore_of_several_files_replaces_all_of_them_or_none() {
    let world = World::new("keep-force-all");
    let main = fs_err::read(transcript_fixture("marot__spotter/short.jsonl")).unwrap();
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), &main);
    let agent_bytes = b"{\"isSidechain\":true}\n".to_vec();
    let agent = world.write_transcript(format!("{SESSION}/subagents/agent-a1.jsonl"), &agent_bytes);
    session_event(
        &world,
        &transcript,
        "SessionEnd",
        json!({"reason": "other"}),
    );
    assert!(
        kept_dir(&world)
            .join("subagents/agent-a1.jsonl.1.gz")
            .exists()
    );

    // The main transcript is a later file; the sub-agent's place holds what cannot be kept (a
    // FIFO): nothing is replaced at all, and the error says so.
    let later = b"{\"later\":true}\n";
    fs_err::write(&transcript, later).unwrap();
    fs_err::remove_file(&agent).unwrap();
    crate::support::make_fifo(&agent);
    world
        .ctxhooks(["archives", "restore", "--session", SESSION, "--force"])
        .stderr_contains("nothing was replaced")
        .expect_file(&transcript, later)
        .exit_code(1);
    assert!(!world.session_dir(SESSION).join("replaced").exists());

    // A sub-agent file a crash left with NUL bytes can be kept: both are replaced, both kept.
    fs_err::remove_file(&agent).unwrap();
    fs_err::write(&agent, b"\0\0\0").unwrap();
    let restored = world
        .ctxhooks([
            "archives",
            "restore",
            "--session",
            SESSION,
            "--force",
            "--json",
        ])
        .json();
    assert_eq!(fs_err::read(&transcript).unwrap(), main);
    assert_eq!(fs_err::read(&agent).unwrap(), agent_bytes);
    let files = restored["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    for (file, bytes) in files.iter().zip([&later[..], b"\0\0\0"]) {
        let kept_at = file["replaced_kept_at"].as_str().unwrap();
        assert_eq!(fs_err::read(kept_at).unwrap(), bytes, "{file:#}");
    }
}

#[test]
fn an_empty_transcript_keeps_nothing_yet_and_a_compaction_of_it_is_said() {
    let world = World::new("keep-empty");
    // Claude Code creates the session's file before it writes the first line.
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), "");
    stop(&world, &transcript);
    session_event(
        &world,
        &transcript,
        "SessionEnd",
        json!({"reason": "other"}),
    );
    assert!(
        !kept_dir(&world)
            .join("transcript.jsonl.1.index.jsonl")
            .exists()
    );
    assert_eq!(world.errors(), Vec::<Value>::new());
    world
        .ctxhooks(["archives", "restore", "--session", SESSION, "--to", "out"])
        .stderr_contains("nothing is kept")
        .exit_code(1);
    // A compaction of an empty transcript: no snapshot of nothing, and one line says why.
    world
        .hook(Hook::PreCompact)
        .stdin(
            json!({"session_id": SESSION, "transcript_path": transcript,
                "hook_event_name": "PreCompact", "trigger": "auto"})
            .to_string(),
        )
        .success();
    let errors = world.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]["error"].to_string().contains("empty"),
        "{errors:?}"
    );
    assert_eq!(world.ctxhooks(["archives", "--json"]).json(), json!([]));
    // Its first lines arrive: kept as generation 1.
    let bytes = fs_err::read(transcript_fixture("marot__spotter/short.jsonl")).unwrap();
    fs_err::write(&transcript, &bytes).unwrap();
    stop(&world, &transcript);
    assert_eq!(zcat(&kept_dir(&world).join("transcript.jsonl.1.gz")), bytes);
    let index =
        fs_err::read_to_string(kept_dir(&world).join("transcript.jsonl.1.index.jsonl")).unwrap();
    assert!(index.contains("\"reason\":\"first\""), "{index}");
}

// Unix only: Unix modes and owners, root and `setpriv`.
#[cfg(unix)]
#[test]
fn post_compact_names_the_error_when_the_state_folder_cannot_be_read() {
    let Some(_root) = crate::support::needs_root_and_setpriv("the other-user PostCompact test")
    else {
        return;
    };
    let world = World::new("keep-post-denied");
    let transcript = world.write_transcript(
        format!("{SESSION}.jsonl"),
        fs_err::read(transcript_fixture(COMPACTED)).unwrap(),
    );
    world
        .hook(Hook::PreCompact)
        .stdin(
            json!({"session_id": SESSION, "transcript_path": transcript,
                "hook_event_name": "PreCompact", "trigger": "manual"})
            .to_string(),
        )
        .success();
    // Root's state folder (0700), the hook run as nobody.
    fs_err::set_permissions(world.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let outcome = world
        .program(Hook::Session.binary())
        .via(crate::support::SETPRIV, crate::support::AS_NOBODY)
        .stdin(
            json!({"session_id": SESSION, "transcript_path": transcript,
                "hook_event_name": "PostCompact", "trigger": "manual",
                "compact_summary": "summary"})
            .to_string(),
        )
        .success();
    let said = outcome.stderr_text();
    assert!(said.contains("Permission denied"), "{said}");
    assert!(!said.contains("did PreCompact run"), "{said}");
}

/// `bytes` with one letter at or after `at` changed to another (the length stays).
fn one_letter_changed(bytes: &[u8], at: usize) -> Vec<u8> {
    let mut changed = bytes.to_vec();
    let position = at
        + changed[at..]
            .iter()
            .position(u8::is_ascii_lowercase)
            .unwrap();
    changed[position] = if changed[position] == b'a' {
        b'b'
    } else {
        b'a'
    };
    changed
}

#[test]
fn a_rewrite_far_before_the_kept_end_starts_a_new_generation() {
    let original = fs_err::read(transcript_fixture(COMPACTED)).unwrap();
    for (case, at) in [("another file", 100_000), ("in place", 1_000)] {
        let world = World::new("keep-far-rewrite");
        let transcript = world.write_transcript(format!("{SESSION}.jsonl"), &original);
        stop(&world, &transcript);
        let mut changed = one_letter_changed(&original, at);
        if !changed.ends_with(b"\n") {
            changed.push(b'\n');
        }
        changed.extend_from_slice(b"{\"type\":\"user\",\"message\":{\"content\":\"next\"}}\n");
        if case == "another file" {
            // Written beside it and renamed over it, as an editor saves.
            let beside = transcript.with_extension("new");
            fs_err::write(&beside, &changed).unwrap();
            fs_err::rename(&beside, &transcript).unwrap();
        } else {
            let mut file = fs_err::OpenOptions::new()
                .write(true)
                .open(&transcript)
                .unwrap();
            std::io::Write::write_all(&mut file, &changed).unwrap();
        }
        stop(&world, &transcript);
        let kept = kept_dir(&world);
        assert_eq!(
            zcat(&kept.join("transcript.jsonl.1.gz")),
            original,
            "{case}"
        );
        let second = fs_err::read_to_string(kept.join("transcript.jsonl.2.index.jsonl"))
            .unwrap_or_else(|_| panic!("{case}: no generation 2"));
        assert!(
            second.contains("\"reason\":\"rewritten\""),
            "{case}: {second}"
        );
        assert_eq!(zcat(&kept.join("transcript.jsonl.2.gz")), changed, "{case}");
    }
}

#[test]
fn a_schema_1_snapshot_stays_readable_verifiable_and_restorable() {
    let world = World::new("keep-legacy");
    let bytes = fs_err::read(transcript_fixture("marot__spotter/short.jsonl")).unwrap();
    let folder = world
        .session_dir(SESSION)
        .join("archive/20261130T041502.000001Z-manual");
    fs_err::create_dir_all(&folder).unwrap();
    fs_err::write(folder.join("transcript.jsonl"), &bytes).unwrap();
    use sha2::Digest;
    let sha = format!("{:x}", sha2::Sha256::digest(&bytes));
    let source = world.transcript_path(SESSION);
    let metadata = json!({
        "schema": 1, "name": "20261130T041502.000001Z-manual", "session_id": SESSION,
        "trigger": "manual", "custom_instructions": null,
        "created_at": "2026-11-30T04:15:02.000001Z", "source_path": source,
        "size": bytes.len(), "sha256": sha,
        "files": [{"path": "transcript.jsonl", "source": source, "role": "transcript",
            "size": bytes.len(), "sha256": sha}]
    });
    fs_err::write(folder.join("snapshot.json"), metadata.to_string()).unwrap();
    world.ctxhooks(["archives", "verify"]).success();
    world
        .ctxhooks([
            "archives",
            "restore",
            "--session",
            "last",
            "--snapshot",
            "2026",
        ])
        .success();
    assert_eq!(fs_err::read(&source).unwrap(), bytes);
    // A changed byte in the old copy fails verify, and restore refuses to write it.
    let mut changed = bytes.clone();
    changed[5] ^= 1;
    fs_err::write(folder.join("transcript.jsonl"), &changed).unwrap();
    let outcomes = world
        .ctxhooks(["archives", "verify", "--json"])
        .exit_code(1)
        .json();
    assert_eq!(outcomes[0]["files"][0]["status"], "checksum_mismatch");
    let target = world.join("again");
    world
        .ctxhooks([
            "archives",
            "restore",
            "--session",
            SESSION,
            "--snapshot",
            "2026",
            "--to",
        ])
        .arg(&target)
        .stderr_contains("recorded size and SHA-256")
        .exit_code(1);
    assert!(!target.join(format!("{SESSION}.jsonl")).exists());
    let leftovers: Vec<PathBuf> = fs_err::read_dir(&target)
        .map(|entries| entries.map(|entry| entry.unwrap().path()).collect())
        .unwrap_or_default();
    assert_eq!(leftovers, Vec::<PathBuf>::new(), "no temporary file left");
}

// Unix only: Unix modes and owners, a `/bin/sh` script.
#[cfg(unix)]
#[test]
fn install_leaves_out_events_an_old_claude_refuses_and_doctor_says_so() {
    let world = World::new("keep-old-claude");
    // A `claude` on PATH that answers as 2.1.42 does (PostCompact appeared in 2.1.76).
    let bin = world.join("old-claude-bin");
    fs_err::create_dir_all(&bin).unwrap();
    let claude = bin.join("claude");
    fs_err::write(&claude, "#!/bin/sh\necho '2.1.42 (Claude Code)'\n").unwrap();
    fs_err::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let outcome = world
        .ctxhooks(["install", "--json"])
        .env("PATH", &path)
        .json();
    let events: Vec<&str> = outcome["added"]
        .as_array()
        .unwrap()
        .iter()
        .map(|added| added["event"].as_str().unwrap())
        .collect();
    assert!(!events.contains(&"PostCompact"), "{events:?}");
    assert!(events.contains(&"SessionStart") && events.contains(&"SessionEnd"));
    assert!(
        outcome["notes"][0]
            .as_str()
            .unwrap()
            .contains("Claude Code 2.1.42"),
        "{outcome:#}"
    );
    world
        .ctxhooks(["doctor"])
        .env("PATH", &path)
        .stdout_contains("2.1.42")
        .success();
    // Installed for a newer Claude Code, then run with the old one: doctor fails loudly.
    world
        .ctxhooks(["install"])
        .env("PATH", "/usr/bin:/bin")
        .success();
    let report = world
        .ctxhooks(["doctor", "--json"])
        .env("PATH", &path)
        .exit_code(1)
        .json();
    let finding = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|finding| finding["code"] == "hook_event_unknown_to_claude")
        .expect("no finding");
    assert!(finding["message"].as_str().unwrap().contains("PostCompact"));
    // Installing again with the old one on PATH takes the event out again.
    let again = world
        .ctxhooks(["install", "--json"])
        .env("PATH", &path)
        .json();
    assert_eq!(again["removed"][0]["event"], "PostCompact");
    world.ctxhooks(["uninstall"]).success();
    assert!(!world.user_settings().exists());
}

// See: issue 17 (`recall PATTERN` listed the right message, but its excerpt missed the match when
// the text before it held characters whose lower case has another byte length).
#[test]
fn recall_shows_the_match_after_text_whose_lower_case_has_other_lengths() {
    let world = World::new("keep-recall-folding");
    let mut text = fs_err::read_to_string(transcript_fixture(COMPACTED)).unwrap();
    // A real tool result, its text made long: 3,000 `İ` (two bytes, three lowercased), then
    // the words searched for, then more.
    let mut result: Value = text
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["isSidechain"] != true)
        .find(|line| {
            line["message"]["content"]
                .as_array()
                .is_some_and(|blocks| blocks.iter().any(|block| block["type"] == "tool_result"))
        })
        .unwrap();
    let long = format!(
        "{}Zebrafish Migration{}",
        "İ".repeat(3000),
        "b".repeat(3000)
    );
    result["message"]["content"] =
        json!([{"type": "tool_result", "tool_use_id": "toolu_folding", "content": long}]);
    result["uuid"] = json!("folding-result");
    // The fixture's last line has no newline.
    text.push('\n');
    text.push_str(&result.to_string());
    text.push('\n');
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), text);
    stop(&world, &transcript);
    let found = world
        .ctxhooks(["recall", "--session", SESSION, "zebrafish migration"])
        .success()
        .stdout_text();
    assert!(found.contains("1 message(s) shown"), "{found}");
    assert!(found.contains("Zebrafish Migration"), "{found}");
}

/// A session resumed from another folder: Claude Code writes it on under that folder's
/// project with the same id, the new transcript holding only the rest of the conversation.
/// The kept copy holds each as a generation of its own source; `recall`, `compactions` and
/// `view` read the whole conversation, the first folder's part first, while both files are
/// there and once Claude Code deleted the first (they read only the second: the first part
/// was lost without a word but a note calling it an earlier version).
#[test]
fn a_session_resumed_in_another_folder_is_recalled_and_viewed_whole() {
    let world = World::new("keep-two-folders");
    let line = |kind: &str, uuid: &str, parent: Option<&str>, time: &str, text: &str| {
        let message = if kind == "user" {
            json!({"role": "user", "content": text})
        } else {
            json!({"id": format!("msg_{uuid}"), "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": text}],
                "usage": {"input_tokens": 10, "output_tokens": 1}})
        };
        json!({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": SESSION,
            "timestamp": time, "cwd": "/work/demo", "message": message})
        .to_string()
            + "\n"
    };
    let first = world.transcript_path(SESSION);
    fs_err::write(
        &first,
        line(
            "user",
            "u1",
            None,
            "2026-11-01T10:00:00.000Z",
            "plant the kumquat",
        ) + &line(
            "assistant",
            "a1",
            Some("u1"),
            "2026-11-01T10:00:05.000Z",
            "planted",
        ),
    )
    .unwrap();
    let second = world
        .config_dir()
        .join("projects/-work-elsewhere")
        .join(format!("{SESSION}.jsonl"));
    fs_err::create_dir_all(second.parent().unwrap()).unwrap();
    fs_err::write(
        &second,
        line(
            "user",
            "u2",
            Some("a1"),
            "2026-11-02T10:00:00.000Z",
            "water the persimmon",
        ) + &line(
            "assistant",
            "a2",
            Some("u2"),
            "2026-11-02T10:00:05.000Z",
            "watered",
        ),
    )
    .unwrap();
    stop(&world, &first);
    stop(&world, &second);
    // Both kept, and `sessions` counts both.
    let sessions = world.ctxhooks(["sessions", "--json"]).json();
    let both = fs_err::metadata(&first).unwrap().len() + fs_err::metadata(&second).unwrap().len();
    assert_eq!(sessions[0]["size"], both, "{sessions:#}");
    for deleted in [false, true] {
        if deleted {
            fs_err::remove_file(&first).unwrap();
        }
        // Once the first folder's file is gone, the kept copy is the only one of its part.
        let prune = world
            .ctxhooks(["archives", "prune", "--json", "--all", "--session", SESSION])
            .json();
        assert_eq!(
            prune["sessions"][0]["only_copy"], deleted,
            "deleted {deleted}: {prune:#}"
        );
        let recall = world
            .ctxhooks(["recall", "--json", "--session", SESSION])
            .json();
        let texts: Vec<String> = recall
            .as_array()
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(texts.len(), 4, "deleted {deleted}: {recall:#}");
        assert!(
            texts[0].contains("kumquat"),
            "deleted {deleted}: {recall:#}"
        );
        assert!(
            texts[2].contains("persimmon"),
            "deleted {deleted}: {recall:#}"
        );
        // Both prompts are what the conversation held since its start.
        let ledger = world
            .ctxhooks(["compactions", "--json", "--session", SESSION])
            .json();
        assert_eq!(
            ledger["since_last"]["items"], 2,
            "deleted {deleted}: {ledger:#}"
        );
        let page = world.join(format!("page-{deleted}.html"));
        world
            .ctxhooks(["view", "--session", SESSION, "--out"])
            .arg(&page)
            .success();
        let page = fs_err::read_to_string(&page).unwrap();
        assert!(
            page.contains("kumquat") && page.contains("persimmon"),
            "deleted {deleted}"
        );
    }
}

/// A session kept from two project folders (resumed in the second): the first folder's file and
/// the second's, each as the hooks kept it.
fn session_in_two_folders(world: &World) -> [(PathBuf, String); 2] {
    let line = |uuid: &str, parent: Option<&str>, text: &str| {
        json!({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": SESSION,
            "timestamp": "2026-11-01T10:00:00.000Z", "cwd": "/work/demo",
            "message": {"role": "user", "content": text}})
        .to_string()
            + "\n"
    };
    let first = world.transcript_path(SESSION);
    let second = world
        .config_dir()
        .join("projects/-work-elsewhere")
        .join(format!("{SESSION}.jsonl"));
    let parts = [
        (first, line("u1", None, "plant the kumquat")),
        (second, line("u2", Some("u1"), "water the persimmon")),
    ];
    for (path, text) in &parts {
        fs_err::create_dir_all(path.parent().unwrap()).unwrap();
        fs_err::write(path, text).unwrap();
        stop(world, path);
    }
    parts
}

#[test]
fn restore_deleted_writes_each_gone_part_back_to_its_own_folder() {
    for both_gone in [true, false] {
        let world = World::new("keep-two-folders-restore");
        let [(first, first_text), (second, second_text)] = session_in_two_folders(&world);
        // Claude Code's cleanup deletes the older file first, the newer one later.
        fs_err::remove_file(&first).unwrap();
        if both_gone {
            fs_err::remove_file(&second).unwrap();
        }
        let restored = world
            .ctxhooks(["archives", "restore", "--deleted", "--json"])
            .json();
        assert_eq!(restored["failed"], json!([]), "{restored:#}");
        let files = restored["restored"][0]["files"].as_array().unwrap();
        let written: Vec<&str> = files
            .iter()
            .map(|file| file["path"].as_str().unwrap())
            .collect();
        let first_shown = first.to_str().unwrap();
        let second_shown = second.to_str().unwrap();
        if both_gone {
            assert_eq!(written, [second_shown, first_shown], "{restored:#}");
        } else {
            // The newer file, still there, is left as it is.
            assert_eq!(written, [first_shown], "{restored:#}");
            assert_eq!(
                restored["restored"][0]["left_existing"],
                json!([second_shown])
            );
        }
        assert!(
            files
                .iter()
                .all(|file| (file["path"] == first_shown) == (file["part"] == true)),
            "{restored:#}"
        );
        // Each part in its own folder, as it was.
        assert_eq!(fs_err::read_to_string(&first).unwrap(), first_text);
        assert_eq!(fs_err::read_to_string(&second).unwrap(), second_text);
        // Nothing is gone any more: a second run has nothing to write back.
        let again = world
            .ctxhooks(["archives", "restore", "--deleted", "--json"])
            .json();
        assert_eq!(again["restored"], json!([]), "{again:#}");
        assert_eq!(again["failed"], json!([]), "{again:#}");
    }
}
