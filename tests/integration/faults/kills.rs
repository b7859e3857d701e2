//! SIGKILL at random points of a run (as the OOM killer, a closed terminal or Claude Code's own
//! timeout would), then the next run: it must end exactly where a clean run ends. Same usage
//! log and cursor, byte for byte; the same snapshots, plus the killed run's own only if it was
//! complete; the same settings bytes. A killed run never leaves a partial file under a final
//! name. Each case counts the kills that landed while the program ran (it was still running when
//! SIGKILL was sent, and died of it) and fails when none did: kills that all came after the run
//! ended would reduce a case to running it twice.

use std::time::Duration;

use serde_json::Value;

use super::{
    Chance, SESSION, archives, long_transcript, precompact_payload, session_file, stop_payload,
    tooluse_payload, verified_snapshots,
};
use crate::support::run::{Kill, Run};
use crate::support::{Hook, Scratch, World, json_lines, say_held};

/// Kill points per case.
const KILLS: u32 = 10;

/// Copies of the real transcript in the long one the hooks read (about 3 MB, 120 requests).
const COPIES: usize = 10;

/// Clean runs timed before the kills, each in a world of its own: the shortest sets the kill
/// points (a first run, with cold caches or on a machine busy for a moment, is slower than the
/// runs killed after it, and kill points drawn from it would fall after those ended).
const CLEAN_RUNS: usize = 2;

/// `KILLS` kill points spread at random over a clean run's duration and a little past it, one in
/// each tenth (so that some land before the work starts and some after it ends), as shares of
/// that duration, in order.
fn kill_shares(chance: &mut Chance) -> Vec<f64> {
    (0..KILLS)
        .map(|index| (f64::from(index) + chance.fraction()) / f64::from(KILLS) * 1.2)
        .collect()
}

/// [`CLEAN_RUNS`] clean runs of `run`, each in a new world named `name` that `prepare` lays
/// out first, timed to within 200 µs: the first world (the clean run's result, for the killed
/// runs to be compared with) and the shortest duration.
fn clean_runs(
    name: &str,
    prepare: impl Fn(&World),
    run: impl Fn(&World) -> Run,
) -> (World, Duration) {
    let mut worlds = Vec::new();
    let mut shortest = Duration::MAX;
    for _ in 0..CLEAN_RUNS {
        let world = World::new(name);
        prepare(&world);
        let (outcome, ran) = run(&world).spawn().timed();
        outcome.success();
        shortest = shortest.min(ran);
        worlds.push(world);
    }
    (worlds.swap_remove(0), shortest)
}

/// The kill points of one case and the kills that landed mid-run (the program still running
/// when SIGKILL was sent, and dead of it): a kill test whose kills all came after the run ended
/// tried nothing. The points are shares of the shortest run seen so far: a clean run timed
/// first, then every killed run that ended before its kill (the machine may be busier while the
/// clean runs are timed than later, when the other tests are done).
struct Kills {
    /// The shares of a run at which to kill, in order.
    shares: std::vec::IntoIter<f64>,
    /// The shortest run seen.
    shortest: Duration,
    /// Kills that landed.
    landed: usize,
    /// Kills tried.
    tried: usize,
}

impl Kills {
    /// [`KILLS`] kill points drawn by `chance` over runs as long as `clean`.
    fn new(chance: &mut Chance, clean: Duration) -> Self {
        Self {
            shares: kill_shares(chance).into_iter(),
            shortest: clean,
            landed: 0,
            tried: 0,
        }
    }

    /// The next kill point, after the start of a run.
    fn next_delay(&mut self) -> Option<Duration> {
        let share = self.shares.next()?;
        Some(self.shortest.mul_f64(share))
    }

    /// Counts `kill` (and how long its run lasted, when it ended first).
    fn count(&mut self, kill: &Kill) {
        self.tried += 1;
        self.landed += usize::from(kill.landed);
        if let Some(ran) = kill.ended_after {
            self.shortest = self.shortest.min(ran);
        }
    }

    /// Fails unless at least one kill landed mid-run; else says how many did, for the summary.
    #[track_caller]
    fn said(&self, what: &str, seed: u64) -> String {
        assert!(
            self.landed > 0,
            "no kill of the {} landed while {what} ran (the shortest run took {:?}; seed {seed})",
            self.tried,
            self.shortest
        );
        format!(
            "{} of {} kills landed mid-run, in runs of {:.1} ms",
            self.landed,
            self.tried,
            self.shortest.as_secs_f64() * 1000.0
        )
    }
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
    let (clean, duration) = clean_runs(
        "faults-kill-stop-clean",
        |_| {},
        |world| world.hook(Hook::Stop).stdin(&payload),
    );
    let log = session_file(&clean, "usage.jsonl");
    let cursor = session_file(&clean, "cursor.json");
    let mut chance = Chance::new();
    let seed = chance.seed();
    let mut kills = Kills::new(&mut chance, duration);
    while let Some(delay) = kills.next_delay() {
        let world = World::new("faults-kill-stop");
        kills.count(
            &world
                .hook(Hook::Stop)
                .stdin(&payload)
                .spawn()
                .kill_at(delay),
        );
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
            "{KILLS} Stop ingests of a {} KB real transcript killed at random points ({}): each \
             next run left the usage log and cursor byte for byte as a clean run (seed {seed})",
            fs_err::metadata(&transcript).unwrap().len() / 1000,
            kills.said("the Stop ingest", seed)
        ),
    );
}

#[test]
fn a_killed_precompact_leaves_no_partial_snapshot_and_no_hidden_copy() {
    let (_scratch, transcript) = shared_transcript("faults-kill-precompact-transcript");
    let payload = precompact_payload(transcript.to_str().unwrap()).to_string();
    let (clean, duration) = clean_runs(
        "faults-kill-precompact-clean",
        |_| {},
        |world| world.hook(Hook::PreCompact).stdin(&payload),
    );
    let snapshot = &archives(&clean)[0];
    let log = session_file(&clean, "usage.jsonl");
    let mut chance = Chance::new();
    let seed = chance.seed();
    let mut kills = Kills::new(&mut chance, duration);
    let mut complete = 0;
    while let Some(delay) = kills.next_delay() {
        let world = World::new("faults-kill-precompact");
        kills.count(
            &world
                .hook(Hook::PreCompact)
                .stdin(&payload)
                .spawn()
                .kill_at(delay),
        );
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
            "{KILLS} PreCompacts of a {} KB real transcript killed at random points ({}; \
             {complete} had finished their snapshot): nothing partial was ever listed, the next \
             run left one more whole snapshot, no hidden copy, and the usage log of a clean run \
             (seed {seed})",
            fs_err::metadata(&transcript).unwrap().len() / 1000,
            kills.said("the PreCompact", seed)
        ),
    );
}

/// A `PostToolUse` whose output is 1 MB: the tool hook reads it whole, so that its run lasts
/// long enough for kills to land in it, not only in its process start.
fn large_tool_payload(tool_use_id: &str) -> String {
    let mut payload: Value =
        serde_json::from_str(&tooluse_payload(1, tool_use_id, "/t.jsonl")).unwrap();
    payload["tool_response"]["stdout"] = "   Compiling a crate v1.0.0\n".repeat(36_000).into();
    payload.to_string()
}

#[test]
fn a_killed_tool_hook_costs_at_most_its_own_line() {
    let payload = large_tool_payload("toolu_killed");
    let (_clean, duration) = clean_runs(
        "faults-kill-tooluse-clean",
        |_| {},
        |world| world.hook(Hook::ToolUse).stdin(&payload),
    );
    let mut chance = Chance::new();
    let seed = chance.seed();
    let mut kills = Kills::new(&mut chance, duration);
    let mut written = 0;
    while let Some(delay) = kills.next_delay() {
        let world = World::new("faults-kill-tooluse");
        kills.count(
            &world
                .hook(Hook::ToolUse)
                .stdin(&payload)
                .spawn()
                .kill_at(delay),
        );
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
            "{KILLS} tool hooks reading a 1 MB PostToolUse killed at random points ({}; \
             {written} had written their line): every line whole, the next one written (seed \
             {seed})",
            kills.said("the tool hook", seed)
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
    let settings = |world: &World| world.write_user_settings(SETTINGS);
    let (clean, install) = clean_runs("faults-kill-install-clean", settings, |world| {
        world.ctxhooks(["install"])
    });
    let installed = fs_err::read(clean.user_settings()).unwrap();
    let (_, uninstall) = clean_runs(
        "faults-kill-uninstall-clean",
        |world| {
            settings(world);
            world.ctxhooks(["install"]).success();
        },
        |world| world.ctxhooks(["uninstall"]),
    );
    let mut chance = Chance::new();
    let seed = chance.seed();
    let mut kills = [
        ("install", Kills::new(&mut chance, install)),
        ("uninstall", Kills::new(&mut chance, uninstall)),
    ];
    for (command, kills) in &mut kills {
        while let Some(delay) = kills.next_delay() {
            kill_one_settings_change(command, delay, &installed, kills, seed);
        }
    }
    say_held(
        "kills",
        &format!(
            "{KILLS} installs ({}) and {KILLS} uninstalls ({}) killed at random points: the \
             settings file was always one of the two clean states, and the next install and \
             uninstall ended byte for byte as clean ones (seed {seed})",
            kills[0].1.said("install", seed),
            kills[1].1.said("uninstall", seed)
        ),
    );
}

/// Kills `command` (`install` or `uninstall`) `delay` after its start, on a settings file in
/// the clean state it starts from; then the file must be in one of the two clean states, and
/// the next run of each command must end as a clean one.
fn kill_one_settings_change(
    command: &str,
    delay: Duration,
    installed: &[u8],
    kills: &mut Kills,
    seed: u64,
) {
    let before = SETTINGS.as_bytes();
    let world = World::new("faults-kill-install");
    world.write_user_settings(SETTINGS);
    if command == "uninstall" {
        world.ctxhooks(["install"]).success();
    }
    kills.count(&world.ctxhooks([command]).spawn().kill_at(delay));
    let context = format!("{command} killed after {delay:?} (seed {seed})");
    let now = fs_err::read(world.user_settings()).unwrap();
    assert!(now == installed || now == before, "{context}");
    // The same command again, then the other one: each ends as a clean one.
    let other = if command == "install" {
        "uninstall"
    } else {
        "install"
    };
    for command in [command, other] {
        world.ctxhooks([command]).success();
        let expected = if command == "install" {
            installed
        } else {
            before
        };
        assert_eq!(
            fs_err::read(world.user_settings()).unwrap(),
            expected,
            "{command}, after {context}"
        );
    }
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
