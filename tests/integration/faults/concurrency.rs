//! Many processes at once: tool hooks, Stop hooks against a live writer and `PreCompact`s on
//! one session, installs and uninstalls on one settings file. No line is torn, lost or duplicated,
//! every snapshot is whole, and the settings file ends as one clean install leaves it.

use std::collections::HashSet;
use std::io::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;

use super::{
    Chance, REAL_TRANSCRIPT, SESSION, archives, long_transcript, precompact_payload, stop_payload,
    tooluse_payload, usage, verified_snapshots,
};
use crate::support::{Hook, World, json_lines, say_held, spawn_together, transcript_fixture};

/// How many processes run at once in each case.
const PROCESSES: usize = 16;

#[test]
fn tool_events_from_many_processes_are_all_kept_whole() {
    const EVENTS: usize = 20;
    let world = World::new("faults-tooluse-at-once");
    // A long transcript path makes each line about 3 KB: most of a page, so that a torn write
    // would show.
    let long_path = format!("/{}/session.jsonl", "p".repeat(3000));
    std::thread::scope(|scope| {
        for process in 0..PROCESSES {
            let (world, long_path) = (&world, &long_path);
            scope.spawn(move || {
                for event in 0..EVENTS {
                    let id = format!("toolu_{process:02}_{event:02}");
                    world
                        .hook(Hook::ToolUse)
                        .stdin(tooluse_payload(event, &id, long_path))
                        .success();
                }
            });
        }
    });
    let sidecar = fs_err::read(world.sidecar(SESSION)).unwrap();
    assert!(sidecar.ends_with(b"\n"));
    // Every line is one whole event (json_lines fails on a torn one), each written once.
    let lines = json_lines(&world.sidecar(SESSION));
    let ids: HashSet<(String, String)> = lines
        .iter()
        .map(|line| {
            assert_eq!(line["transcript_path"], long_path.as_str());
            (
                line["tool_use_id"].as_str().unwrap().to_owned(),
                line["event"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(lines.len(), PROCESSES * EVENTS);
    assert_eq!(ids.len(), PROCESSES * EVENTS, "a line was written twice");
    assert_eq!(world.errors(), Vec::<Value>::new());
    say_held(
        "concurrency",
        &format!(
            "{PROCESSES} tooluse × {EVENTS} events at once, {} lines of 3 KB, none torn, lost or \
             doubled",
            lines.len()
        ),
    );
}

#[test]
fn stop_hooks_against_a_live_writer_lose_and_duplicate_no_row() {
    let world = World::new("faults-stop-live-writer");
    let source = long_transcript(3);
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), b"");
    let payload = stop_payload(&transcript);
    let mut chance = Chance::new();
    let seed = chance.seed();
    let written = AtomicBool::new(false);
    let mut writes = 0;
    let runs = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..PROCESSES {
            let (world, payload, written, runs) = (&world, &payload, &written, &runs);
            scope.spawn(move || {
                // Until the writer is done, and at least twice.
                let mut mine = 0;
                while mine < 2 || !written.load(Ordering::Relaxed) {
                    world.hook(Hook::Stop).stdin(payload).success();
                    mine += 1;
                }
                runs.fetch_add(mine, Ordering::Relaxed);
            });
        }
        // Claude Code's side: the transcript grows in pieces that cut lines anywhere.
        let mut file = fs_err::OpenOptions::new()
            .append(true)
            .open(&transcript)
            .unwrap();
        let mut rest = &source[..];
        while !rest.is_empty() {
            let size = usize::try_from(chance.below(1, 8 * 1024))
                .unwrap()
                .min(rest.len());
            file.write_all(&rest[..size]).unwrap();
            rest = &rest[size..];
            writes += 1;
            std::thread::sleep(Duration::from_millis(chance.below(1, 6)));
        }
        written.store(true, Ordering::Relaxed);
    });
    // One run after the writer is done, as the Stop after the last turn.
    world.hook(Hook::Stop).stdin(&payload).success();
    let logged = usage(&world);
    let whole = world
        .ctxhooks([
            "usage",
            "--transcript",
            transcript.to_str().unwrap(),
            "--json",
        ])
        .json();
    for part in ["rows", "compactions", "micro_compactions", "skipped_lines"] {
        assert_eq!(logged[part], whole[part], "{part} (seed {seed})");
    }
    let rows = logged["rows"].as_array().unwrap().len();
    assert_eq!(rows, 36, "seed {seed}");
    // No line of the log is there twice (a later version of a request differs from the first).
    let log = fs_err::read_to_string(world.session_dir(SESSION).join("usage.jsonl")).unwrap();
    let mut seen = HashSet::new();
    for line in log.lines() {
        serde_json::from_str::<Value>(line).unwrap();
        assert!(seen.insert(line), "written twice (seed {seed}): {line}");
    }
    assert_eq!(world.errors(), Vec::<Value>::new(), "seed {seed}");
    say_held(
        "concurrency",
        &format!(
            "{} Stop runs, {PROCESSES} at a time, against a writer that grew a {} KB real \
             transcript in {writes} cut-anywhere writes: {rows} rows, the same as one read of \
             the whole file, none lost or doubled (seed {seed})",
            runs.into_inner() + 1,
            source.len() / 1024
        ),
    );
}

#[test]
fn every_hook_at_once_on_one_session() {
    const PRECOMPACTS: usize = 6;
    let world = World::new("faults-all-hooks-at-once");
    let transcript = world.transcript_path(SESSION);
    fs_err::copy(transcript_fixture(REAL_TRANSCRIPT), &transcript).unwrap();
    let path = transcript.to_str().unwrap();
    let runs = (0..PRECOMPACTS)
        .map(|_| {
            world
                .hook(Hook::PreCompact)
                .stdin(precompact_payload(path).to_string())
        })
        .chain((0..PROCESSES / 2).map(|_| world.hook(Hook::Stop).stdin(stop_payload(&transcript))))
        .chain((0..PROCESSES).map(|index| {
            world.hook(Hook::ToolUse).stdin(tooluse_payload(
                index,
                &format!("toolu_{index:02}"),
                path,
            ))
        }));
    for run in spawn_together(runs) {
        run.wait().success();
    }
    // Every PreCompact has its own whole snapshot.
    let listed = archives(&world);
    let names: HashSet<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|snapshot| snapshot["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), PRECOMPACTS, "{listed}");
    assert_eq!(verified_snapshots(&world), PRECOMPACTS);
    // The usage log holds each request once, as one read of the file gives them.
    let whole = world
        .ctxhooks(["usage", "--transcript", path, "--json"])
        .json();
    assert_eq!(usage(&world)["rows"], whole["rows"]);
    assert_eq!(json_lines(&world.sidecar(SESSION)).len(), PROCESSES);
    assert_eq!(world.errors(), Vec::<Value>::new());
    say_held(
        "concurrency",
        &format!(
            "{PRECOMPACTS} PreCompact, {} Stop and {PROCESSES} tooluse at once on one session: \
             {PRECOMPACTS} whole snapshots, each request once, every tool event once",
            PROCESSES / 2
        ),
    );
}

// See: issue 17 (`archives prune` run by a cron job while compactions happened removed the
// unfinished folder of a snapshot being written, made but not yet locked by its writer: 59 of 60
// snapshots were left).
#[test]
fn prune_in_a_loop_against_many_precompacts_loses_no_snapshot() {
    const ROUNDS: usize = 8;
    const PRECOMPACTS: usize = 8;
    const PRUNERS: usize = 2;
    let world = World::new("faults-prune-against-precompacts");
    let transcript = world.transcript_path(SESSION);
    fs_err::copy(transcript_fixture(REAL_TRANSCRIPT), &transcript).unwrap();
    let payload = precompact_payload(transcript.to_str().unwrap()).to_string();
    // A writer held up right after it makes a folder (by the scheduler, on a busy machine) is
    // what the prune must not mistake for a dead one: under strace, every `mkdir` of the hook
    // returns 50 ms late, so that each snapshot's folder waits that long before its writer's
    // next step. Without strace, the runs only race, and a loss is rarer.
    let strace = Path::new("/usr/bin/strace").exists();
    let precompact = || {
        let run = world.hook(Hook::PreCompact).stdin(&payload);
        if strace {
            run.via(
                "/usr/bin/strace",
                [
                    "-f",
                    "-qq",
                    "--seccomp-bpf",
                    "-o",
                    "/dev/null",
                    "-e",
                    "trace=mkdir,mkdirat",
                    "-e",
                    "inject=mkdir,mkdirat:delay_exit=50000",
                ],
            )
        } else {
            run
        }
    };
    let done = AtomicBool::new(false);
    let prunes = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..PRUNERS {
            let (world, done, prunes) = (&world, &done, &prunes);
            // The cron job: every finished snapshot is kept, only what no writer holds goes.
            scope.spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    world
                        .ctxhooks(["archives", "prune", "--keep", "100000"])
                        .success();
                    prunes.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        let _stop_pruners = StopOnDrop(&done);
        for _ in 0..ROUNDS {
            for run in spawn_together((0..PRECOMPACTS).map(|_| precompact())) {
                run.wait().success();
            }
        }
    });
    let expected = ROUNDS * PRECOMPACTS;
    let listed = archives(&world);
    assert_eq!(listed.as_array().unwrap().len(), expected, "{listed}");
    assert_eq!(verified_snapshots(&world), expected);
    assert_eq!(world.errors(), Vec::<Value>::new());
    say_held(
        "concurrency",
        &format!(
            "{expected} PreCompacts, {PRECOMPACTS} at a time{}, against {} `archives prune` \
             runs in {PRUNERS} loops: {expected} whole snapshots, none removed while written",
            if strace {
                ", each folder made 50 ms before its writer went on"
            } else {
                " (no strace: no writer held up)"
            },
            prunes.into_inner()
        ),
    );
}

/// A user settings file with keys, another tool's hooks and a hand layout.
const SETTINGS: &str = r#"{
  "model": "opus",
  "hooks": {
    "Stop": [ { "hooks": [ { "type": "command", "command": "/usr/bin/other-tool" } ] } ]
  },
  "permissions": { "allow": [ "Bash(ls:*)" ] }
}
"#;

#[test]
fn installs_and_uninstalls_at_once_end_as_one_clean_install() {
    let clean = World::new("faults-install-clean");
    clean.write_user_settings(SETTINGS);
    clean.ctxhooks(["install"]).success();
    let installed = fs_err::read(clean.user_settings()).unwrap();

    let world = World::new("faults-install-at-once");
    world.write_user_settings(SETTINGS);
    for run in spawn_together((0..PROCESSES).map(|_| world.ctxhooks(["install"]))) {
        run.wait().success();
    }
    assert_eq!(fs_err::read(world.user_settings()).unwrap(), installed);
    let installs: Value =
        serde_json::from_slice(&fs_err::read(world.state_dir().join("installs.json")).unwrap())
            .unwrap();
    assert_eq!(installs["settings_files"].as_object().unwrap().len(), 1);

    // Installs and uninstalls mixed: whichever ends last, the file is one of the two clean
    // states, and the next install and uninstall end exactly where clean runs end.
    let mixed = (0..PROCESSES).map(|index| {
        world.ctxhooks([if index % 2 == 0 {
            "install"
        } else {
            "uninstall"
        }])
    });
    let done = AtomicBool::new(false);
    let mut looks = 0;
    std::thread::scope(|scope| {
        // A reader (Claude Code starting a session) looks at the file all the while: it only
        // ever sees one of the two clean states, never a half-written file.
        let watcher = scope.spawn(|| {
            let mut looks = 0;
            while !done.load(Ordering::Relaxed) {
                let now = fs_err::read(world.user_settings()).unwrap();
                assert!(
                    now == installed || now == SETTINGS.as_bytes(),
                    "{}",
                    String::from_utf8_lossy(&now)
                );
                looks += 1;
            }
            looks
        });
        let stop_watcher = StopOnDrop(&done);
        for run in spawn_together(mixed) {
            run.wait().success();
        }
        drop(stop_watcher);
        looks = watcher.join().unwrap();
    });
    world.ctxhooks(["install"]).success();
    assert_eq!(fs_err::read(world.user_settings()).unwrap(), installed);
    world.ctxhooks(["uninstall"]).success();
    assert_eq!(
        fs_err::read_to_string(world.user_settings()).unwrap(),
        SETTINGS
    );
    say_held(
        "concurrency",
        &format!(
            "{PROCESSES} installs at once on one settings file, then {} installs and {} \
             uninstalls at once: {looks} reads in between saw only one of the two clean \
             states, and the next install and uninstall ended byte for byte as clean ones",
            PROCESSES / 2,
            PROCESSES / 2
        ),
    );
}

/// Sets its flag when dropped, also while a panic unwinds: the threads of a scope that loop until
/// the flag is set then end when a run fails (a timeout under load), and the test fails instead of
/// the scope waiting for them for ever.
struct StopOnDrop<'flag>(&'flag AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}
