//! The kept copies when something went wrong with them: a generation that keeps nothing, an
//! empty or missing index, a generation gone from the middle, a damaged gzip member, a FIFO, a
//! link or a folder where a kept file belongs, an index whose numbers are nonsense, and a
//! transcript rewritten far before the kept end. `archives restore` gives the newest bytes that
//! are truly kept (saying which generation it used and which newer ones it passed over, and
//! why) or refuses with the reason; `archives verify` reports every kept byte `restore` could
//! not give back; and the hooks start a new generation instead of appending to a damaged one.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::keep::{SESSION, kept_dir, stop, zcat};
#[cfg(unix)]
use crate::support::make_fifo;
use crate::support::{HANG_BOUND, Hook, World, transcript_fixture};

/// Claude Code 2.0.76 with one compaction, 294 KB.
const LONG: &str = "entireio__cli/a6/e4c2a0fbd1/0/full.jsonl";

/// Another real transcript: what the session's file holds after it was rewritten.
const OTHER: &str = "marot__spotter/tool_heavy.jsonl";

/// A third: what it holds after a second rewrite.
const THIRD: &str = "marot__spotter/short.jsonl";

fn fixture(relative: &str) -> Vec<u8> {
    fs_err::read(transcript_fixture(relative)).unwrap()
}

/// The first `count` lines of `bytes`.
fn first_lines(bytes: &[u8], count: usize) -> Vec<u8> {
    let mut end = 0;
    for _ in 0..count {
        end += bytes[end..].iter().position(|byte| *byte == b'\n').unwrap() + 1;
    }
    bytes[..end].to_vec()
}

fn index_path(world: &World, generation: u32) -> PathBuf {
    kept_dir(world).join(format!("transcript.jsonl.{generation}.index.jsonl"))
}

fn gz_path(world: &World, generation: u32) -> PathBuf {
    kept_dir(world).join(format!("transcript.jsonl.{generation}.gz"))
}

fn index_lines(world: &World, generation: u32) -> Vec<Value> {
    fs_err::read_to_string(index_path(world, generation))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn precompact(world: &World, transcript: &Path) {
    world
        .hook(Hook::PreCompact)
        .stdin(
            json!({"session_id": SESSION, "transcript_path": transcript,
                "hook_event_name": "PreCompact", "trigger": "auto"})
            .to_string(),
        )
        .success();
}

/// `archives verify --json`, whatever its exit code.
fn verify(world: &World) -> (i32, Vec<Value>) {
    let outcome = world.ctxhooks(["archives", "verify", "--json"]).output();
    let code = outcome.code().unwrap();
    (code, outcome.json().as_array().unwrap().clone())
}

/// The verify outcome named `name` (`kept/transcript.jsonl.2`, or a snapshot's name).
fn outcome<'a>(outcomes: &'a [Value], name: &str) -> &'a Value {
    outcomes
        .iter()
        .find(|outcome| outcome["name"] == name)
        .unwrap_or_else(|| panic!("no outcome `{name}` in {outcomes:#?}"))
}

/// `archives restore --to <folder> --json`: the outcome, and the main transcript written.
fn restore_to(world: &World, folder: &str) -> (Value, Vec<u8>) {
    let target = world.join(folder);
    let restored = world
        .ctxhooks([
            "archives",
            "restore",
            "--session",
            SESSION,
            "--json",
            "--to",
        ])
        .arg(&target)
        .json();
    let bytes = fs_err::read(target.join(format!("{SESSION}.jsonl"))).unwrap();
    (restored, bytes)
}

/// A gzip member holding `bytes`, as a run that stopped before its index line left it.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// Generation 2 as a writer killed after starting it left it: its header only (and, when
/// `orphan` is given, a gzip member no index line records).
fn start_cut_short(world: &World, orphan: Option<&[u8]>) {
    let mut header = index_lines(world, 1)[0].clone();
    header["generation"] = json!(2);
    header["reason"] = json!("rewritten");
    fs_err::write(index_path(world, 2), format!("{header}\n")).unwrap();
    if let Some(orphan) = orphan {
        fs_err::write(gz_path(world, 2), gzip(orphan)).unwrap();
    }
}

#[test]
fn restore_passes_over_a_newest_generation_that_keeps_nothing_and_verify_says_so() {
    for orphan in [None, Some(&b"{\"lost\":1}\n"[..])] {
        let world = World::new("kept-nothing");
        let original = fixture(LONG);
        let transcript = world.write_transcript(format!("{SESSION}.jsonl"), &original);
        stop(&world, &transcript);
        // The transcript was rewritten, and the Stop that noticed it was killed between
        // starting generation 2 and recording its first member; then the cleanup took the file.
        start_cut_short(&world, orphan);
        fs_err::remove_file(&transcript).unwrap();

        let (restored, bytes) = restore_to(&world, "restored");
        assert_eq!(bytes, original, "{restored:#}");
        let file = &restored["files"][0];
        assert_eq!(file["generation"], 1, "{restored:#}");
        assert_eq!(file["passed_over"][0]["generation"], 2, "{restored:#}");
        assert_eq!(file["passed_over"][0]["status"], "kept_nothing");
        // Said in words too.
        world
            .ctxhooks(["archives", "restore", "--session", SESSION, "--to"])
            .arg(world.join("again"))
            .stdout_contains("generation 1")
            .stdout_contains("passed over generation 2")
            .success();

        let (code, outcomes) = verify(&world);
        assert_eq!(code, 1, "{outcomes:#?}");
        let second = outcome(&outcomes, "kept/transcript.jsonl.2");
        assert_eq!(second["ok"], false);
        assert_eq!(second["files"][0]["status"], "kept_nothing", "{second:#}");
        assert_eq!(outcome(&outcomes, "kept/transcript.jsonl.1")["ok"], true);
    }
}

#[test]
fn an_empty_newest_index_an_older_build_left_costs_neither_restore_nor_recall() {
    let world = World::new("kept-empty-index");
    let original = fixture(LONG);
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), &original);
    stop(&world, &transcript);
    // What a writer killed while starting generation 2 left before 2026-12-01.
    fs_err::write(index_path(&world, 2), "").unwrap();

    let (restored, bytes) = restore_to(&world, "restored");
    assert_eq!(bytes, original);
    assert_eq!(restored["files"][0]["generation"], 1);
    assert_eq!(restored["files"][0]["passed_over"][0]["generation"], 2);
    let messages = world
        .ctxhooks(["recall", "--session", SESSION, "--json"])
        .json();
    assert!(messages.as_array().unwrap().len() > 10, "{messages:#}");
    // Verify says what restore passed over: the newest generation keeps nothing.
    let (code, outcomes) = verify(&world);
    assert_eq!(code, 1);
    let empty = outcome(&outcomes, "kept/transcript.jsonl.2");
    assert_eq!(empty["files"][0]["status"], "kept_nothing", "{empty:#}");
    // The next run starts generation 3 with everything; the empty one is then only history.
    stop(&world, &transcript);
    assert_eq!(zcat(&gz_path(&world, 3)), original);
    let (code, outcomes) = verify(&world);
    assert_eq!(code, 0, "{outcomes:#?}");
    let empty = outcome(&outcomes, "kept/transcript.jsonl.2");
    assert!(
        empty["files"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("keeps nothing"),
        "{empty:#}"
    );
    world
        .ctxhooks(["archives", "verify"])
        .stdout_contains("keeps nothing")
        .success();
}

/// A session whose transcript was rewritten twice: three generations, each a real transcript.
fn three_generations(world: &World) -> (PathBuf, [Vec<u8>; 3]) {
    let versions = [fixture(LONG), fixture(OTHER), fixture(THIRD)];
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), &versions[0]);
    stop(world, &transcript);
    for version in &versions[1..] {
        fs_err::write(&transcript, version).unwrap();
        stop(world, &transcript);
    }
    assert!(index_path(world, 3).exists());
    (transcript, versions)
}

#[test]
fn a_generation_missing_from_the_middle_is_reported_and_never_written_again() {
    let world = World::new("kept-gap");
    let (transcript, versions) = three_generations(&world);
    let second_gz = fs_err::read(gz_path(&world, 2)).unwrap();
    // Generation 2's index is deleted: its gzip file holds bytes no index describes.
    fs_err::remove_file(index_path(&world, 2)).unwrap();
    let (code, outcomes) = verify(&world);
    assert_eq!(code, 1, "{outcomes:#?}");
    let second = outcome(&outcomes, "kept/transcript.jsonl.2");
    assert_eq!(second["files"][0]["status"], "kept_damaged", "{second:#}");
    assert!(
        second["files"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("index"),
        "{second:#}"
    );
    // Restore gives the newest generation, not the one before the gap.
    let (restored, bytes) = restore_to(&world, "restored");
    assert_eq!(bytes, versions[2], "{restored:#}");
    assert_eq!(restored["files"][0]["generation"], 3);
    // The next turn goes to generation 3; generation 2's bytes are never written again.
    let grown = with_a_turn(&versions[2]);
    fs_err::write(&transcript, &grown).unwrap();
    stop(&world, &transcript);
    assert_eq!(fs_err::read(gz_path(&world, 2)).unwrap(), second_gz);
    assert_eq!(zcat(&gz_path(&world, 3)), grown);
    assert!(!index_path(&world, 2).exists());
    assert!(!index_path(&world, 4).exists());

    // Both of its files gone: a gap in the numbers, reported.
    fs_err::remove_file(gz_path(&world, 2)).unwrap();
    let (code, outcomes) = verify(&world);
    assert_eq!(code, 1);
    let second = outcome(&outcomes, "kept/transcript.jsonl.2");
    assert_eq!(second["files"][0]["status"], "kept_missing", "{second:#}");
    let (_, bytes) = restore_to(&world, "restored-again");
    assert_eq!(bytes, grown);
}

/// `bytes` and one more line (after a newline, if `bytes` ends without one).
fn with_a_turn(bytes: &[u8]) -> Vec<u8> {
    let mut grown = bytes.to_vec();
    if !grown.ends_with(b"\n") {
        grown.push(b'\n');
    }
    grown.extend_from_slice(b"{\"type\":\"user\",\"message\":{\"content\":\"next\"}}\n");
    grown
}

/// Flips one bit in the middle of the `member`th gzip member of `generation`.
fn damage_member(world: &World, generation: u32, member: usize) {
    let chunk = &index_lines(world, generation)[member + 1];
    let middle = chunk["gz_start"].as_u64().unwrap() + chunk["gz_length"].as_u64().unwrap() / 2;
    let path = gz_path(world, generation);
    let mut bytes = fs_err::read(&path).unwrap();
    bytes[usize::try_from(middle).unwrap()] ^= 0x10;
    fs_err::write(&path, bytes).unwrap();
}

#[test]
fn a_damaged_member_fails_verify_and_the_snapshots_on_it_and_the_next_run_starts_anew() {
    let world = World::new("kept-damaged-member");
    let all = fixture(LONG);
    let half = first_lines(&all, 40);
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), &half);
    stop(&world, &transcript);
    precompact(&world, &transcript);
    fs_err::write(&transcript, &all).unwrap();
    stop(&world, &transcript);
    assert_eq!(index_lines(&world, 1).len(), 3, "two members");
    damage_member(&world, 1, 0);

    // Verify fails the generation and the snapshot whose bytes are in the damaged member.
    let (code, outcomes) = verify(&world);
    assert_eq!(code, 1);
    assert_eq!(outcome(&outcomes, "kept/transcript.jsonl.1")["ok"], false);
    let snapshot = outcomes
        .iter()
        .find(|outcome| outcome["kind"] == "snapshot")
        .unwrap();
    assert_eq!(snapshot["ok"], false, "{snapshot:#}");
    assert_eq!(
        snapshot["files"][0]["status"], "kept_damaged",
        "{snapshot:#}"
    );
    // Restore refuses, with the reason, and writes nothing.
    let target = world.join("restored");
    world
        .ctxhooks(["archives", "restore", "--session", SESSION, "--to"])
        .arg(&target)
        .stderr_contains("generation 1")
        .stderr_contains("member at 0")
        .exit_code(1);
    assert!(!target.join(format!("{SESSION}.jsonl")).exists());

    // The next turn is not appended to the damaged generation: verify left a mark, and the
    // Stop hook starts generation 2 from the transcript's first byte.
    let grown = with_a_turn(&all);
    fs_err::write(&transcript, &grown).unwrap();
    stop(&world, &transcript);
    assert_eq!(
        index_lines(&world, 1).len(),
        3,
        "nothing more in generation 1"
    );
    assert_eq!(index_lines(&world, 2)[0]["reason"], "previous_damaged");
    let (restored, bytes) = restore_to(&world, "restored-after");
    assert_eq!(bytes, grown);
    assert_eq!(restored["files"][0]["generation"], 2);
    assert_eq!(world.errors(), Vec::<Value>::new());
}

#[test]
fn precompact_notices_a_damaged_member_and_starts_a_new_generation() {
    let world = World::new("kept-damaged-precompact");
    let all = fixture(LONG);
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), &all);
    stop(&world, &transcript);
    damage_member(&world, 1, 0);
    // No verify in between: PreCompact compares every kept byte, decompressed, with the
    // transcript's, finds the member that does not decompress, and keeps it all again.
    precompact(&world, &transcript);
    assert_eq!(index_lines(&world, 2)[0]["reason"], "previous_damaged");
    assert_eq!(zcat(&gz_path(&world, 2)), all);
    let (_, outcomes) = verify(&world);
    let snapshot = outcomes
        .iter()
        .find(|outcome| outcome["kind"] == "snapshot")
        .unwrap();
    assert_eq!(snapshot["ok"], true, "{snapshot:#}");
    assert_eq!(snapshot["files"][0]["status"], "ok");
    assert_eq!(world.errors(), Vec::<Value>::new());
}

// Unix only: a symbolic link (Wine 8 makes none that reads back as one), a FIFO.
#[cfg(unix)]
#[test]
fn a_fifo_a_folder_or_a_link_where_a_kept_file_belongs_is_refused_at_once() {
    type Place = fn(&World) -> PathBuf;
    let places: [(&str, Place); 4] = [
        ("transcript.jsonl.1.index.jsonl", |world| {
            index_path(world, 1)
        }),
        ("transcript.jsonl.1.gz", |world| gz_path(world, 1)),
        ("lock", |world| kept_dir(world).join("lock")),
        ("transcript.jsonl.2.index.jsonl", |world| {
            index_path(world, 2)
        }),
    ];
    let mut problems = Vec::new();
    for (name, place) in places {
        for kind in ["fifo", "folder", "link"] {
            let world = World::new("kept-fifo");
            let all = fixture(LONG);
            let transcript = world.write_transcript(format!("{SESSION}.jsonl"), &all);
            stop(&world, &transcript);
            let path = place(&world);
            if path.is_file() {
                fs_err::remove_file(&path).unwrap();
            }
            match kind {
                "fifo" => make_fifo(&path),
                "folder" => fs_err::create_dir_all(path.join("inside")).unwrap(),
                _ => std::os::unix::fs::symlink(world.join("elsewhere"), &path).unwrap(),
            }
            let what = format!("{name} a {kind}");
            // The Stop hook: refused at once, never ended by its budget (the tests' generous
            // one, which a hook that waited on what is there would reach, however fast the
            // machine, as such a wait never ends).
            fs_err::write(&transcript, with_a_turn(&all)).unwrap();
            let outcome = world
                .hook(Hook::Stop)
                .stdin(
                    json!({"session_id": SESSION, "transcript_path": transcript,
                        "hook_event_name": "Stop"})
                    .to_string(),
                )
                .success();
            let logged = serde_json::to_string(&world.errors()).unwrap();
            let said = format!("{}{logged}", String::from_utf8_lossy(outcome.stderr()));
            if said.contains("budget") {
                problems.push(format!("Stop with {what}: {said}"));
            }
            for command in [
                &["sessions", "--json"][..],
                &["archives", "verify"],
                &["recall", "--session", SESSION],
                &["archives", "restore", "--session", SESSION, "--to", "out"],
            ] {
                let (outcome, hung) = world.ctxhooks(command).spawn().kill_after(HANG_BOUND);
                if hung {
                    problems.push(format!(
                        "ctxhooks {command:?} with {what} hung: {}",
                        String::from_utf8_lossy(outcome.stderr())
                    ));
                }
            }
            // Verify names the file and says it is not a regular file, or that it is a link.
            let (code, outcomes) = verify(&world);
            let text = serde_json::to_string(&outcomes).unwrap();
            if name != "lock" && (code != 1 || !text.contains(name)) {
                problems.push(format!("verify with {what}: exit {code}, {text}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// Unix only: a symbolic link (Wine 8 makes none that reads back as one).
#[cfg(unix)]
#[test]
fn verify_reports_an_index_whose_numbers_are_nonsense_without_aborting() {
    let world = World::new("kept-nonsense");
    let all = fixture(LONG);
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), &all);
    stop(&world, &transcript);
    let lines = index_lines(&world, 1);
    for (field, value) in [
        ("gz_length", json!(u64::MAX)),
        ("gz_start", json!(u64::MAX - 3)),
        ("length", json!(u64::MAX)),
        ("start", json!(u64::MAX - 3)),
        ("length", json!(1u64 << 50)),
    ] {
        let mut chunk = lines[1].clone();
        chunk[field] = value;
        fs_err::write(index_path(&world, 1), format!("{}\n{chunk}\n", lines[0])).unwrap();
        let outcome = world
            .ctxhooks(["archives", "verify", "--json"])
            .exit_code(1);
        let outcomes = outcome.json();
        let first = outcome_of(&outcomes, "kept/transcript.jsonl.1");
        assert_eq!(first["ok"], false, "{field}: {first:#}");
        world
            .ctxhooks(["archives", "restore", "--session", SESSION, "--to", "out"])
            .exit_code(1);
    }
    // A gzip file that cannot be opened is said as it is, not as a short file.
    fs_err::write(
        index_path(&world, 1),
        format!("{}\n{}\n", lines[0], lines[1]),
    )
    .unwrap();
    let gz = gz_path(&world, 1);
    fs_err::rename(&gz, world.join("moved.gz")).unwrap();
    std::os::unix::fs::symlink(world.join("moved.gz"), &gz).unwrap();
    let (_, outcomes) = verify(&world);
    let detail = outcome(&outcomes, "kept/transcript.jsonl.1")["files"][0]["detail"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(detail.contains("symbolic link"), "{detail}");
    assert!(!detail.contains("found 0"), "{detail}");
}

fn outcome_of<'a>(outcomes: &'a Value, name: &str) -> &'a Value {
    outcome(outcomes.as_array().unwrap(), name)
}

// Unix only: a symbolic link (Wine 8 makes none that reads back as one).
#[cfg(unix)]
#[test]
fn a_link_as_the_kept_folder_or_in_it_is_never_followed_and_verify_fails_naming_it() {
    /// Puts a link in place and returns its path.
    type MakeLink = fn(&World) -> PathBuf;
    let cases: [(&str, MakeLink); 3] = [
        // The kept copies moved elsewhere, a link left in their place.
        ("a link to another folder", |world| {
            let kept = kept_dir(world);
            let moved = world.join("moved-kept");
            fs_err::rename(&kept, &moved).unwrap();
            std::os::unix::fs::symlink(&moved, &kept).unwrap();
            kept
        }),
        ("a link to itself", |world| {
            let kept = kept_dir(world);
            fs_err::remove_dir_all(&kept).unwrap();
            std::os::unix::fs::symlink(&kept, &kept).unwrap();
            kept
        }),
        ("a folder of sub-agents that is a link", |world| {
            let agents = world.join("agents");
            fs_err::create_dir_all(&agents).unwrap();
            let link = kept_dir(world).join("subagents");
            std::os::unix::fs::symlink(&agents, &link).unwrap();
            link
        }),
    ];
    for (case, make) in cases {
        let world = World::new("kept-link");
        let transcript = world.write_transcript(format!("{SESSION}.jsonl"), fixture(LONG));
        stop(&world, &transcript);
        let link = make(&world);
        let shown = link.display().to_string();
        // Verify fails, in one sentence that names the link; nothing is read through it.
        let (code, outcomes) = verify(&world);
        assert_eq!(code, 1, "{case}: {outcomes:#?}");
        let failed: Vec<&Value> = outcomes
            .iter()
            .filter(|outcome| outcome["ok"] == false)
            .collect();
        assert_eq!(failed.len(), 1, "{case}: {outcomes:#?}");
        let detail = failed[0]["files"][0]["detail"].as_str().unwrap();
        assert!(
            detail.contains(&format!("`{shown}` is a symbolic link")),
            "{case}: {detail}"
        );
        assert!(
            outcomes
                .iter()
                .all(|outcome| outcome["name"] != "kept/transcript.jsonl.1"),
            "{case}: read through the link: {outcomes:#?}"
        );
        world
            .ctxhooks(["archives", "verify"])
            .stdout_contains(format!("`{shown}` is a symbolic link"))
            .stdout_contains("1 failed")
            .exit_code(1);
        // Restore refuses with the same sentence, and writes nothing.
        world
            .ctxhooks(["archives", "restore", "--session", SESSION, "--to", "out"])
            .stderr_contains(format!("`{shown}` is a symbolic link"))
            .exit_code(1);
        assert!(!world.join("out").join(format!("{SESSION}.jsonl")).exists());
    }
}

/// A file where a session's kept copies go is not "nothing kept": `verify` fails naming it, and
/// `restore` refuses with the same sentence.
#[test]
fn a_file_where_the_kept_folder_belongs_fails_verify_naming_it() {
    let world = World::new("kept-file");
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), fixture(LONG));
    stop(&world, &transcript);
    let kept = kept_dir(&world);
    fs_err::remove_dir_all(&kept).unwrap();
    fs_err::write(&kept, "not a folder").unwrap();
    let shown = format!("`{}` is not a folder", kept.display());
    let (code, outcomes) = verify(&world);
    assert_eq!(code, 1, "{outcomes:#?}");
    let failed: Vec<&Value> = outcomes
        .iter()
        .filter(|outcome| outcome["ok"] == false)
        .collect();
    assert_eq!(failed.len(), 1, "{outcomes:#?}");
    let detail = failed[0]["files"][0]["detail"].as_str().unwrap();
    assert!(detail.contains(&shown), "{detail}");
    world
        .ctxhooks(["archives", "restore", "--session", SESSION, "--to", "out"])
        .stderr_contains(shown)
        .exit_code(1);
    assert!(!world.join("out").join(format!("{SESSION}.jsonl")).exists());
}
