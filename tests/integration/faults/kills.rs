//! SIGKILL at random points of a run (as the OOM killer, a closed terminal or Claude Code's own
//! timeout would), then the next run: it must end exactly where a clean run ends. Same usage
//! log and cursor, byte for byte; the same snapshots, plus the killed run's own only if it was
//! complete; the same settings bytes. A killed run never leaves a partial file under a final
//! name.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::{
    Chance, SESSION, archives, long_transcript, precompact_payload, session_file, stop_payload,
    tooluse_payload, verified_snapshots,
};
use crate::support::{Hook, Scratch, World, json_lines, say_held};

/// Kill points per case.
const KILLS: u32 = 10;

/// Copies of the real transcript in the long one the hooks read (about 3 MB, 120 requests).
const COPIES: usize = 10;

/// `KILLS` kill points spread at random over a clean run's duration and a little past it, one in
/// each tenth (so that some land before the work starts and some after it ends).
fn kill_points(chance: &mut Chance, clean: Duration) -> Vec<Duration> {
    (0..KILLS)
        .map(|index| {
            let share = (f64::from(index) + chance.fraction()) / f64::from(KILLS);
            clean.mul_f64(share * 1.2)
        })
        .collect()
}

/// The long transcript, in a folder of its own that every world of a test reads.
fn shared_transcript(name: &str) -> (Scratch, std::path::PathBuf) {
    let scratch = Scratch::new(name);
    let transcript = scratch.join(format!("{SESSION}.jsonl"));
    fs_err::write(&transcript, long_transcript(COPIES)).unwrap();
    (scratch, transcript)
}

#[test]
fn a_killed_stop_leaves_the_next_run_where_a_clean_run_ends() {
    let (_scratch, transcript) = shared_transcript("faults-kill-stop-transcript");
    let payload = stop_payload(&transcript);
    let clean = World::new("faults-kill-stop-clean");
    let started = Instant::now();
    clean.hook(Hook::Stop).stdin(&payload).success();
    let duration = started.elapsed();
    let log = session_file(&clean, "usage.jsonl");
    let cursor = session_file(&clean, "cursor.json");
    let mut chance = Chance::new();
    let seed = chance.seed();
    let mut running = 0;
    for delay in kill_points(&mut chance, duration) {
        let world = World::new("faults-kill-stop");
        let (_, killed) = world
            .hook(Hook::Stop)
            .stdin(&payload)
            .spawn()
            .kill_after(delay);
        running += usize::from(killed);
        world.hook(Hook::Stop).stdin(&payload).success();
        let context = format!("killed after {delay:?} (seed {seed})");
        assert!(
            session_file(&world, "usage.jsonl") == log,
            "usage log, {context}"
        );
        assert!(
            session_file(&world, "cursor.json") == cursor,
            "cursor, {context}"
        );
        assert_eq!(world.errors(), Vec::<Value>::new(), "{context}");
    }
    say_held(
        "kills",
        &format!(
            "{KILLS} Stop ingests of a {} KB real transcript killed at random points ({running} \
             still running): each next run left the usage log and cursor byte for byte as a \
             clean run (seed {seed})",
            fs_err::metadata(&transcript).unwrap().len() / 1000
        ),
    );
}

#[test]
fn a_killed_precompact_leaves_no_partial_snapshot_and_no_hidden_copy() {
    let (_scratch, transcript) = shared_transcript("faults-kill-precompact-transcript");
    let payload = precompact_payload(transcript.to_str().unwrap()).to_string();
    let clean = World::new("faults-kill-precompact-clean");
    let started = Instant::now();
    clean.hook(Hook::PreCompact).stdin(&payload).success();
    let duration = started.elapsed();
    let snapshot = &archives(&clean)[0];
    let log = session_file(&clean, "usage.jsonl");
    let mut chance = Chance::new();
    let seed = chance.seed();
    let (mut running, mut complete) = (0, 0);
    for delay in kill_points(&mut chance, duration) {
        let world = World::new("faults-kill-precompact");
        let (_, killed) = world
            .hook(Hook::PreCompact)
            .stdin(&payload)
            .spawn()
            .kill_after(delay);
        running += usize::from(killed);
        let context = format!("killed after {delay:?} (seed {seed})");
        // What the killed run left listed is a whole snapshot (verified below), or nothing.
        let left = archives(&world).as_array().unwrap().len();
        complete += left;
        world.hook(Hook::PreCompact).stdin(&payload).success();
        let listed = archives(&world);
        let listed = listed.as_array().unwrap();
        assert_eq!(listed.len(), left + 1, "{context}");
        assert_eq!(verified_snapshots(&world), left + 1, "{context}");
        for listed in listed {
            assert_eq!(listed["size"], snapshot["size"], "{context}");
            assert_eq!(listed["sha256"], snapshot["sha256"], "{context}");
        }
        // The killed run's unfinished copy (as large as the transcript) is gone.
        // Nor is a temporary start of a kept copy's index (an index appears with its header).
        let hidden: Vec<String> = ["archive", "kept"]
            .iter()
            .flat_map(|folder| fs_err::read_dir(world.session_dir(SESSION).join(folder)).unwrap())
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with('.'))
            .collect();
        assert_eq!(hidden, Vec::<String>::new(), "{context}");
        assert!(
            session_file(&world, "usage.jsonl") == log,
            "usage log, {context}"
        );
        assert_eq!(world.errors(), Vec::<Value>::new(), "{context}");
    }
    say_held(
        "kills",
        &format!(
            "{KILLS} PreCompacts of a {} KB real transcript killed at random points ({running} \
             still running, {complete} had finished their snapshot): nothing partial was ever \
             listed, the next run left one more whole snapshot, no hidden copy, and the usage \
             log of a clean run (seed {seed})",
            fs_err::metadata(&transcript).unwrap().len() / 1000
        ),
    );
}

#[test]
fn a_killed_tool_hook_costs_at_most_its_own_line() {
    let clean = World::new("faults-kill-tooluse-clean");
    let started = Instant::now();
    clean
        .hook(Hook::ToolUse)
        .stdin(tooluse_payload(0, "toolu_clean", "/t.jsonl"))
        .success();
    let duration = started.elapsed();
    let mut chance = Chance::new();
    let seed = chance.seed();
    let mut written = 0;
    for delay in kill_points(&mut chance, duration) {
        let world = World::new("faults-kill-tooluse");
        let _ = world
            .hook(Hook::ToolUse)
            .stdin(tooluse_payload(0, "toolu_killed", "/t.jsonl"))
            .spawn()
            .kill_after(delay);
        let left = json_lines(&world.sidecar(SESSION)).len();
        written += left;
        world
            .hook(Hook::ToolUse)
            .stdin(tooluse_payload(1, "toolu_next", "/t.jsonl"))
            .success();
        let lines = json_lines(&world.sidecar(SESSION));
        assert_eq!(lines.len(), left + 1, "seed {seed}");
        assert_eq!(lines[left]["tool_use_id"], "toolu_next");
        assert_eq!(world.errors(), Vec::<Value>::new(), "seed {seed}");
    }
    say_held(
        "kills",
        &format!(
            "{KILLS} tool hooks killed at random points ({written} had written their line): \
             every line whole, the next one written (seed {seed})"
        ),
    );
}

/// A user settings file with keys and another tool's hooks.
const SETTINGS: &str = r#"{
  "model": "opus",
  "hooks": { "PreCompact": [ { "hooks": [ { "type": "command", "command": "/usr/bin/other-tool" } ] } ] }
}
"#;

#[test]
fn a_killed_install_or_uninstall_leaves_one_clean_settings_state() {
    let clean = World::new("faults-kill-install-clean");
    clean.write_user_settings(SETTINGS);
    let started = Instant::now();
    clean.ctxhooks(["install"]).success();
    let duration = started.elapsed();
    let installed = fs_err::read(clean.user_settings()).unwrap();
    let before = SETTINGS.as_bytes();
    let mut chance = Chance::new();
    let seed = chance.seed();
    let mut running = 0;
    for (index, delay) in kill_points(&mut chance, duration)
        .into_iter()
        .chain(kill_points(&mut chance, duration))
        .enumerate()
    {
        let world = World::new("faults-kill-install");
        world.write_user_settings(SETTINGS);
        let command = if index < usize::try_from(KILLS).unwrap() {
            "install"
        } else {
            "uninstall"
        };
        if command == "uninstall" {
            world.ctxhooks(["install"]).success();
        }
        let (_, killed) = world.ctxhooks([command]).spawn().kill_after(delay);
        running += usize::from(killed);
        let context = format!("{command} killed after {delay:?} (seed {seed})");
        let now = fs_err::read(world.user_settings()).unwrap();
        assert!(now == installed || now == before, "{context}");
        world.ctxhooks([command]).success();
        let expected: &[u8] = if command == "install" {
            &installed
        } else {
            before
        };
        assert_eq!(
            fs_err::read(world.user_settings()).unwrap(),
            expected,
            "{context}"
        );
        // And the other command, from there, ends as a clean one.
        let other = if command == "install" {
            "uninstall"
        } else {
            "install"
        };
        world.ctxhooks([other]).success();
        let expected: &[u8] = if other == "install" {
            &installed
        } else {
            before
        };
        assert_eq!(
            fs_err::read(world.user_settings()).unwrap(),
            expected,
            "{context}"
        );
    }
    say_held(
        "kills",
        &format!(
            "{KILLS} installs and {KILLS} uninstalls killed at random points ({running} still \
             running): the settings file was always one of the two clean states, and the next \
             install and uninstall ended byte for byte as clean ones (seed {seed})"
        ),
    );
}

#[test]
fn a_fragment_a_killed_append_left_costs_no_later_line() {
    // A run killed in the middle of its one append (the kernel stops a large write at a page
    // boundary) leaves part of a line at the end of the file.
    let (_scratch, transcript) = shared_transcript("faults-fragment-transcript");
    let payload = stop_payload(&transcript);
    let clean = World::new("faults-fragment-clean");
    clean.hook(Hook::Stop).stdin(&payload).success();
    let log = session_file(&clean, "usage.jsonl");
    let cursor = session_file(&clean, "cursor.json");
    let world = World::new("faults-fragment");
    let session_dir = world.session_dir(SESSION);
    fs_err::create_dir_all(&session_dir).unwrap();
    // The first ingest's state: the cursor saved before the append, half the append written.
    fs_err::write(
        session_dir.join("cursor.json"),
        r#"{"schema":1,"transcripts":{},"log_length":0}"#,
    )
    .unwrap();
    let mut cut = log.len() / 2;
    while log[cut - 1] == b'\n' {
        cut += 1;
    }
    fs_err::write(session_dir.join("usage.jsonl"), &log[..cut]).unwrap();
    world.hook(Hook::Stop).stdin(&payload).success();
    assert!(session_file(&world, "usage.jsonl") == log, "usage log");
    assert!(session_file(&world, "cursor.json") == cursor, "cursor");

    // The sidecar and the error log have writers of their own (a runtime appends its marks
    // itself): a fragment there is kept apart, and the next line is whole.
    let fragment = r#"{"kind":"tool_event","event":"sta"#;
    fs_err::write(world.sidecar(SESSION), fragment).unwrap();
    fs_err::write(world.state_dir().join("errors.log"), fragment).unwrap();
    world
        .hook(Hook::ToolUse)
        .stdin(tooluse_payload(0, "toolu_after", "/t.jsonl"))
        .success();
    world.hook(Hook::ToolUse).stdin("not json").success();
    for file in [world.sidecar(SESSION), world.state_dir().join("errors.log")] {
        let text = fs_err::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{}: {text}", file.display());
        assert_eq!(lines[0], fragment);
        serde_json::from_str::<Value>(lines[1]).unwrap();
    }
    say_held(
        "kills",
        "a fragment a killed append left: the usage log is cut back to its last whole line and \
         ends as a clean run's; in the sidecar and the error log it stays a line of its own",
    );
}
