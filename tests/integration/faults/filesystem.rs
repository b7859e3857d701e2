//! Filesystem faults: a disk that fills at every step of a run, a read-only state folder, a
//! state folder of another user, odd umasks, and folders or FIFOs where state files belong. The
//! hooks exit 0 with nothing on stdout (stderr only when even the error log cannot be written),
//! leave no partial file under a final name and no torn line, change nothing they may not, keep
//! exact modes, and the next run on a healthy disk ends where a clean run ends. The commands
//! refuse what they cannot use, at once, with a clear error.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{
    REAL_TRANSCRIPT, SESSION, precompact_payload, session_file, stop_payload, tooluse_payload,
    usage, verified_snapshots,
};
use crate::support::{
    AS_NOBODY, HANG_BOUND, Hook, SETPRIV, SmallFilesystem, World, json_lines, make_fifo, mode,
    needs_root, needs_root_and_setpriv, say_held, transcript_fixture,
};

/// The world's transcript, a copy of the real one.
fn lay_out_transcript(world: &World) -> PathBuf {
    let transcript = world.transcript_path(SESSION);
    fs_err::copy(transcript_fixture(REAL_TRANSCRIPT), &transcript).unwrap();
    transcript
}

/// One round of the hooks a session runs: a tool event, a Stop, a `PreCompact`, a tool event.
/// Every run exits 0 with nothing on stdout; stderr holds something only when the error log
/// could not be written either. Returns the runs that wrote to stderr.
fn hook_round(world: &World, transcript: &Path, round: usize) -> usize {
    let path = transcript.to_str().unwrap();
    let runs = [
        (
            Hook::ToolUse,
            tooluse_payload(0, &format!("toolu_{round}_a"), path),
        ),
        (Hook::Stop, stop_payload(transcript)),
        (Hook::PreCompact, precompact_payload(path).to_string()),
        (
            Hook::ToolUse,
            tooluse_payload(1, &format!("toolu_{round}_a"), path),
        ),
    ];
    let mut loud = 0;
    for (hook, payload) in runs {
        let outcome = world.hook(hook).stdin(payload).success();
        let stderr = String::from_utf8_lossy(outcome.stderr()).into_owned();
        if !stderr.is_empty() {
            assert!(stderr.contains("the error log failed too"), "{stderr}");
            loud += 1;
        }
    }
    loud
}

/// Every line of the session's JSON Lines files and of the error log parses: none is torn.
fn assert_no_torn_line(world: &World) {
    for path in [
        world.session_dir(SESSION).join("usage.jsonl"),
        world.sidecar(SESSION),
        world.state_dir().join("errors.log"),
    ] {
        json_lines(&path);
    }
}

/// Unfinished snapshot folders left in the session's archive.
fn hidden_copies(world: &World) -> usize {
    fs_err::read_dir(world.session_dir(SESSION).join("archive")).map_or(0, |entries| {
        entries
            .filter(|entry| {
                entry
                    .as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with('.')
            })
            .count()
    })
}

#[test]
fn a_disk_full_at_any_step_loses_nothing_and_the_next_run_catches_up() {
    let Some(root) = needs_root("the full-disk group (a tmpfs)") else {
        return;
    };
    // The real transcript is 294 KB: the levels below it fail the snapshot's copy, those around
    // it its metadata, the usage log, the cursor, the sidecar and the error log in turn.
    const LEVELS: [u32; 16] = [
        4, 8, 12, 16, 24, 32, 64, 128, 256, 292, 296, 300, 304, 308, 316, 332,
    ];
    let clean = World::new("faults-disk-clean");
    let transcript = lay_out_transcript(&clean);
    hook_round(&clean, &transcript, 0);
    hook_round(&clean, &transcript, 1);
    let clean_log = session_file(&clean, "usage.jsonl");
    clean.write_user_settings(SETTINGS);
    clean.ctxhooks(["install"]).success();
    let installed = fs_err::read(clean.user_settings()).unwrap();
    let mut installs_refused = 0;
    let mut loud = 0;
    let mut failed_snapshots = 0;
    for level in LEVELS {
        let world = World::new("faults-disk-full");
        // The same transcript path as the clean world's: rows name it.
        let Some(disk) = SmallFilesystem::mount(world.state_dir(), &format!("{level}k")) else {
            return root.skip("could not mount a tmpfs");
        };
        loud += hook_round(&world, &transcript, 0);
        assert_no_torn_line(&world);
        // The installer keeps its backup and record on the full disk: it installs, or refuses
        // with the settings file as it was.
        world.write_user_settings(SETTINGS);
        let outcome = world.ctxhooks(["install"]).output();
        let settings = fs_err::read(world.user_settings()).unwrap();
        if outcome.code() == Some(0) {
            assert_eq!(settings, installed, "{level}k");
        } else {
            assert_eq!(settings, SETTINGS.as_bytes(), "{level}k");
            installs_refused += 1;
        }
        // Whatever is listed is whole.
        let listed = verified_snapshots(&world);
        failed_snapshots += 1 - listed;
        assert_eq!(hidden_copies(&world), 0, "{level}k");
        // The disk is freed: the next round ends where a clean one ends.
        disk.resize("16m");
        hook_round(&world, &transcript, 1);
        assert_no_torn_line(&world);
        assert_eq!(verified_snapshots(&world), listed + 1, "{level}k");
        assert_eq!(hidden_copies(&world), 0, "{level}k");
        assert!(
            session_file(&world, "usage.jsonl") == clean_log,
            "{level}k: the usage log differs from a clean run's"
        );
        assert_eq!(usage(&world)["rows"], usage(&clean)["rows"], "{level}k");
        let sidecar = json_lines(&world.sidecar(SESSION));
        assert!((2..=4).contains(&sidecar.len()), "{level}k: {sidecar:?}");
        world.ctxhooks(["install"]).success();
        assert_eq!(fs_err::read(world.user_settings()).unwrap(), installed);
        world.ctxhooks(["uninstall"]).success();
        assert_eq!(
            fs_err::read_to_string(world.user_settings()).unwrap(),
            SETTINGS
        );
        drop(disk);
    }
    say_held(
        "filesystem",
        &format!(
            "a disk full at {} levels from 4 KB to 332 KB under one round of every hook: every \
             run exit 0, nothing partial listed, no torn line, no hidden copy ({failed_snapshots} \
             snapshots and {loud} error lines could not be written, those said on stderr; \
             {installs_refused} installs refused with the settings file untouched); on the freed \
             disk the next round left the usage log byte for byte as a clean run, and install \
             and uninstall the clean settings bytes",
            LEVELS.len()
        ),
    );
}

/// Every file under `root` with its bytes, and every folder, for a before/after comparison.
fn tree(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs_err::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                found.insert(path.clone(), None);
                stack.push(path);
            } else if path.is_file() {
                found.insert(path.clone(), Some(fs_err::read(&path).unwrap()));
            } else {
                found.insert(path, None);
            }
        }
    }
    found
}

/// The settings file of the worlds below: another tool's hook, a key.
const SETTINGS: &str = "{\n  \"model\": \"opus\"\n}\n";

/// Runs every hook and the installer in `world`, as `wrapper` when given, and checks that the
/// state folder and the settings file did not change, that the hooks exited 0 (saying why on
/// stderr, since the error log cannot be written either), and that install and uninstall
/// refused with an error naming what they could not write.
fn nothing_changes(world: &World, transcript: &Path, wrapper: Option<(&str, &[&str])>) {
    let before = tree(&world.state_dir());
    let path = transcript.to_str().unwrap();
    let runs = [
        (Hook::ToolUse, tooluse_payload(0, "toolu_ro", path)),
        (Hook::Stop, stop_payload(transcript)),
        (Hook::PreCompact, precompact_payload(path).to_string()),
        (Hook::ToolUse, "not a payload".to_owned()),
    ];
    for (hook, payload) in runs {
        let mut run = world.hook(hook).stdin(payload);
        if let Some((program, args)) = wrapper {
            run = run.via(program, args);
        }
        run.stderr_contains("the error log failed too").success();
    }
    // After a compaction: the note when something is kept that the hook can read, and why the
    // bytes since then cannot be kept, said (issue 30: with a readable copy it was silent).
    let mut run = world
        .program(Hook::Session.binary())
        .stdin(
            serde_json::json!({
                "session_id": SESSION, "transcript_path": path, "cwd": "/",
                "hook_event_name": "SessionStart", "source": "compact",
            })
            .to_string(),
        )
        .stderr_contains("after the compaction")
        .stderr_contains("the error log failed too");
    if let Some((program, args)) = wrapper {
        run = run.via(program, args);
    }
    let stdout = run.success().stdout_text();
    if !stdout.is_empty() {
        let answer: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert!(
            answer["hookSpecificOutput"]["additionalContext"].is_string(),
            "{stdout}"
        );
    }
    for command in ["install", "uninstall"] {
        let mut run = world.ctxhooks([command]);
        if let Some((program, args)) = wrapper {
            run = run.via(program, args);
        }
        let outcome = run.output();
        let stderr = String::from_utf8_lossy(outcome.stderr()).into_owned();
        if command == "install" {
            assert_eq!(outcome.code(), Some(1), "{stderr}");
            assert!(stderr.contains("ctxhooks: error:"), "{stderr}");
        }
    }
    assert_eq!(
        fs_err::read_to_string(world.user_settings()).unwrap(),
        SETTINGS
    );
    assert!(
        tree(&world.state_dir()) == before,
        "the state folder changed"
    );
}

#[test]
fn a_read_only_state_folder_changes_nothing_and_the_hooks_say_why() {
    let Some(root) = needs_root("the read-only state folder test (a tmpfs)") else {
        return;
    };
    let world = World::new("faults-read-only");
    let transcript = lay_out_transcript(&world);
    world.write_user_settings(SETTINGS);
    let Some(disk) = SmallFilesystem::mount(world.state_dir(), "4m") else {
        return root.skip("could not mount a tmpfs");
    };
    // A state folder with a session in it, then made read-only.
    hook_round(&world, &transcript, 0);
    disk.remount_read_only();
    nothing_changes(&world, &transcript, None);
    drop(disk);
    say_held(
        "filesystem",
        "a read-only state folder: every hook exit 0 with one line on stderr (the error log \
         cannot be written either), SessionStart after a compaction with its note and why the \
         new bytes cannot be kept, install refused with an error, nothing changed in the state \
         folder or the settings file",
    );
}

#[test]
fn a_state_folder_of_another_user_changes_nothing_and_the_hooks_say_why() {
    let Some(_root) = needs_root_and_setpriv("the other-user test (setpriv)") else {
        return;
    };
    let world = World::new("faults-other-user");
    let transcript = lay_out_transcript(&world);
    world.write_user_settings(SETTINGS);
    hook_round(&world, &transcript, 0);
    // Root's state folder (0700) and settings, run as nobody: nothing there may be written.
    fs_err::set_permissions(world.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
    nothing_changes(&world, &transcript, Some((SETPRIV, &AS_NOBODY)));

    // The other way round: a state folder nobody owns, a transcript only root may read.
    let world = World::new("faults-other-user-transcript");
    let transcript = lay_out_transcript(&world);
    fs_err::set_permissions(&transcript, std::fs::Permissions::from_mode(0o600)).unwrap();
    fs_err::set_permissions(world.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
    fs_err::create_dir_all(world.state_dir()).unwrap();
    let chowned = Command::new("chown")
        .arg("65534:65534")
        .arg(world.state_dir())
        .status()
        .unwrap();
    assert!(chowned.success());
    for hook in [Hook::Stop, Hook::PreCompact] {
        let path = transcript.to_str().unwrap();
        let payload = match hook {
            Hook::Stop => stop_payload(&transcript),
            _ => precompact_payload(path).to_string(),
        };
        world
            .hook(hook)
            .via(SETPRIV, AS_NOBODY)
            .stdin(payload)
            .stdout("")
            .success();
    }
    let errors = world.errors();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors
            .iter()
            .all(|error| error["error"].to_string().contains("Permission denied")),
        "{errors:?}"
    );
    assert!(!world.state_dir().join("sessions").exists());
    say_held(
        "filesystem",
        "a state folder of another user: every hook exit 0 with one line on stderr, install \
         refused, nothing changed; a transcript the hook's user may not read: one error line \
         each, nothing written",
    );
}

/// Every path under the state folder with its permission bits.
fn modes(world: &World) -> Vec<(String, u32)> {
    world
        .state_entries()
        .into_iter()
        .map(|relative| {
            let bits = mode(&world.state_dir().join(&relative));
            (relative, bits)
        })
        .collect()
}

#[test]
fn odd_umasks_leave_exact_modes() {
    let mut checked = 0;
    for umask in ["000", "0277"] {
        let world = World::new(&format!("faults-umask-{umask}"));
        let transcript = lay_out_transcript(&world);
        let wrapper = format!("umask {umask}; exec \"$0\" \"$@\"");
        let path = transcript.to_str().unwrap();
        for (hook, payload) in [
            (Hook::ToolUse, tooluse_payload(0, "toolu_1", path)),
            (Hook::Stop, stop_payload(&transcript)),
            (Hook::PreCompact, precompact_payload(path).to_string()),
            (Hook::ToolUse, "not a payload".to_owned()),
        ] {
            world
                .hook(hook)
                .via("/bin/sh", ["-c", &wrapper])
                .stdin(payload)
                .success();
        }
        for command in ["install", "uninstall", "install"] {
            world
                .ctxhooks([command])
                .via("/bin/sh", ["-c", &wrapper])
                .success();
        }
        // What ctxhooks writes where a person names it: charts and exports name projects and
        // sessions, and are private too.
        let charts = [
            (vec!["history", "--svg"], world.join("history.svg")),
            (
                vec!["report", "--session", SESSION, "--svg"],
                world.join("report.svg"),
            ),
            (vec!["export", "--out"], world.join("export.jsonl")),
        ];
        for (command, file) in &charts {
            world
                .ctxhooks(command)
                .arg(file)
                .via("/bin/sh", ["-c", &wrapper])
                .success();
            assert_eq!(mode(file), 0o600, "umask {umask}: {}", file.display());
            checked += 1;
        }
        for (relative, bits) in modes(&world) {
            let path = world.state_dir().join(&relative);
            let expected = if path.is_dir() { 0o700 } else { 0o600 };
            assert_eq!(bits, expected, "umask {umask}: {relative} is {bits:04o}");
            checked += 1;
        }
        assert_eq!(mode(&world.state_dir()), 0o700);
        // A user settings file ctxhooks creates is private too.
        assert_eq!(mode(&world.user_settings()), 0o600, "umask {umask}");
        assert_eq!(world.errors().len(), 1);
    }
    say_held(
        "filesystem",
        &format!(
            "umask 000 and 0277 under every hook, install, uninstall, install, history --svg, \
             report --svg and export --out: {checked} paths, every folder 0700 and every file \
             0600 (charts and exports too), the settings file 0600"
        ),
    );
}

/// What a state file is replaced by.
#[derive(Debug, Clone, Copy)]
enum Special {
    Folder,
    Fifo,
}

/// Makes `path` a folder or a FIFO, its parent created.
fn make_special(path: &Path, special: Special) {
    fs_err::create_dir_all(path.parent().unwrap()).unwrap();
    match special {
        Special::Folder => fs_err::create_dir_all(path.join("inside")).unwrap(),
        Special::Fifo => make_fifo(path),
    }
}

/// Makes `path` a folder or a FIFO, whatever is there now.
fn remake_special(path: &Path, special: Special) {
    if path.is_dir() {
        fs_err::remove_dir_all(path).unwrap();
    } else if fs_err::symlink_metadata(path).is_ok() {
        fs_err::remove_file(path).unwrap();
    }
    make_special(path, special);
}

#[test]
fn a_folder_or_fifo_where_a_state_file_belongs_is_refused_at_once() {
    // Each state file, with the hooks and the commands that use it.
    type Place = fn(&World) -> PathBuf;
    type Case<'a> = (&'a str, Place, &'a [Hook], &'a [&'a [&'a str]]);
    let cases: [Case; 8] = [
        (
            "gauge.json",
            |world| world.session_dir(SESSION).join("gauge.json"),
            &[Hook::Stop, Hook::PreCompact],
            &[&["gauge", "--session", SESSION]],
        ),
        (
            "usage.jsonl",
            |world| world.session_dir(SESSION).join("usage.jsonl"),
            &[Hook::Stop, Hook::PreCompact],
            &[
                &["usage", "--session", SESSION],
                &["report", "--session", SESSION],
            ],
        ),
        (
            "cursor.json",
            |world| world.session_dir(SESSION).join("cursor.json"),
            &[Hook::Stop, Hook::PreCompact],
            &[],
        ),
        (
            "usage.lock",
            |world| world.session_dir(SESSION).join("usage.lock"),
            &[Hook::Stop, Hook::PreCompact],
            &[],
        ),
        (
            "provenance.jsonl",
            |world| world.sidecar(SESSION),
            &[Hook::ToolUse],
            &[&["provenance", "--session", SESSION]],
        ),
        (
            "errors.log",
            |world| world.state_dir().join("errors.log"),
            &[Hook::ToolUse],
            &[&["doctor"]],
        ),
        (
            "installs.json",
            |world| world.state_dir().join("installs.json"),
            &[],
            &[&["install"], &["uninstall"], &["doctor"]],
        ),
        (
            "installs.lock",
            |world| world.state_dir().join("installs.lock"),
            &[],
            &[&["install"]],
        ),
    ];
    let mut runs = 0;
    let mut problems = Vec::new();
    for (name, place, hooks, commands) in cases {
        for special in [Special::Folder, Special::Fifo] {
            let world = World::new("faults-special");
            let transcript = lay_out_transcript(&world);
            world.write_user_settings(SETTINGS);
            let path = transcript.to_str().unwrap();
            for hook in hooks {
                // Made anew for each run: a run may rightly replace what it found (the cursor
                // is rewritten whole).
                remake_special(&place(&world), special);
                let payload = match hook {
                    Hook::Stop => stop_payload(&transcript),
                    Hook::PreCompact => precompact_payload(path).to_string(),
                    // A refused payload, so that the hook has something to log.
                    Hook::ToolUse if name == "errors.log" => "not a payload".to_owned(),
                    Hook::ToolUse => tooluse_payload(0, "toolu_1", path),
                    Hook::Session => serde_json::json!({"session_id": SESSION,
                        "transcript_path": path, "hook_event_name": "SessionEnd",
                        "reason": "other"})
                    .to_string(),
                };
                // With the tests' generous budget: a hook that waited on what is there would
                // reach it, however fast the machine, as such a wait never ends.
                let outcome = world.hook(*hook).stdin(payload).success();
                runs += 1;
                let errors_log = world.state_dir().join("errors.log");
                let logged = if errors_log.is_file() {
                    serde_json::to_string(&world.errors()).unwrap()
                } else {
                    String::new()
                };
                let said = format!("{}{logged}", String::from_utf8_lossy(outcome.stderr()));
                // Refused at once, by name, not ended by its budget.
                if said.contains("budget") || !said.contains(name) {
                    problems.push(format!("{hook:?} with {name} a {special:?}: {said}"));
                }
                if name != "errors.log" {
                    let _ = fs_err::remove_file(world.state_dir().join("errors.log"));
                }
            }
            for command in commands {
                remake_special(&place(&world), special);
                let (outcome, hung) = world.ctxhooks(*command).spawn().kill_after(HANG_BOUND);
                runs += 1;
                let said = format!(
                    "{}{}",
                    String::from_utf8_lossy(outcome.stderr()),
                    String::from_utf8_lossy(outcome.stdout())
                );
                // A clear error naming the file (doctor may report it as a finding instead).
                if hung || !said.contains(name) {
                    problems.push(format!(
                        "ctxhooks {command:?} with {name} a {special:?}: {}, {said}",
                        if hung { "hung" } else { "exited" }
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    say_held(
        "filesystem",
        &format!(
            "a folder or a FIFO in place of gauge.json, usage.jsonl, cursor.json, usage.lock, \
             provenance.jsonl, errors.log, installs.json and installs.lock, {runs} hook and \
             command runs: each refused at once with an error naming the file, none waited"
        ),
    );
}
