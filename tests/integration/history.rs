//! Tests for `ctxhooks history`: the fast reader gives the usage ingest's own rows on every real
//! transcript; every layout of sub-agent transcripts is attributed to its session; each session
//! says what `ctxhooks report` says; filters; bad input named and passed.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use ctxhooks_commands::facts::log::{SessionLog, log_from_transcript};
use ctxhooks_commands::projects::read::read_transcript;

use crate::support::fixtures::{all_captures, all_sdk_transcripts};
use crate::support::{
    World, all_transcript_fixtures, make_fifo, running_as_root, transcript_fixture,
};

#[test]
fn the_fast_reader_gives_the_ingests_own_rows_on_every_fixture_and_capture() {
    let world = World::new("history-rows");
    let mut transcripts = all_transcript_fixtures();
    transcripts.extend(all_captures(world.root()));
    transcripts.extend(all_sdk_transcripts());
    assert!(transcripts.len() >= 35, "fixtures missing: {transcripts:?}");
    let (mut rows, mut passed) = (0, 0);
    for transcript in &transcripts {
        passed += read_transcript(transcript).unwrap().passed_lines;
        let full = log_from_transcript(transcript).unwrap();
        let fast = SessionLog::from_records(read_transcript(transcript).unwrap().records);
        assert_eq!(fast.timeline, full.timeline, "{}", transcript.display());
        assert_eq!(fast.sources, full.sources, "{}", transcript.display());
        assert_eq!(fast.skipped, full.skipped, "{}", transcript.display());
        assert_eq!(fast.session, full.session, "{}", transcript.display());
        rows += full.rows().len();
    }
    // The comparison means something: many rows, and many lines the ingest was not fed.
    assert!(rows > 150, "only {rows} rows compared");
    assert!(
        passed > 200,
        "only {passed} lines passed (not fed to the ingest)"
    );
}

/// A Claude configuration folder in `world` holding a projects folder laid out as three CLI
/// generations left it, from real fixtures: 1.0.108 (sidechains inline), 2.0.28 (flat
/// `agent-*.jsonl` beside the session), 2.1.38 (`<session>/subagents/`), and 2.0.76 with a
/// compaction. Returns the projects folder.
fn projects_folder(world: &World, name: &str) -> PathBuf {
    let projects = world.join(name).join("projects");
    let copy = |from: &Path, to: &str| {
        let target = projects.join(to);
        fs_err::create_dir_all(target.parent().unwrap()).unwrap();
        fs_err::copy(from, &target).unwrap();
    };
    copy(
        &transcript_fixture(
            "d-kimuson__claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
        ),
        "-path-to-Demo/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    );
    let lanegrid = "lanegrid__agtrace/-Users-zawakin-agent-sample";
    for file in [
        "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9.jsonl",
        "agent-0c4c3cf8.jsonl",
        "agent-90fa40b6.jsonl",
    ] {
        copy(
            &transcript_fixture(&format!("{lanegrid}/{file}")),
            &format!("-Users-zawakin-agent-sample/{file}"),
        );
    }
    copy(
        &transcript_fixture("marot__spotter/tool_heavy.jsonl"),
        "-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
    );
    copy(
        &transcript_fixture(
            "marot__spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl",
        ),
        "-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl",
    );
    copy(
        &transcript_fixture("entireio__cli/a6/e4c2a0fbd1/0/full.jsonl"),
        "-entire/a6e4c2a0-0000-4000-8000-000000000000.jsonl",
    );
    projects
}

fn session<'a>(history: &'a Value, id: &str) -> &'a Value {
    history["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|session| session["session_id"] == id)
        .unwrap_or_else(|| panic!("no session {id} in {history:#}"))
}

#[test]
fn every_layout_of_sub_agents_counts_for_its_session_and_each_session_says_what_report_says() {
    let world = World::new("history-layouts");
    let projects = projects_folder(&world, "machine");
    let history = world
        .ctxhooks(["history", "--json", "--projects"])
        .arg(&projects)
        .json();
    assert_eq!(history["schema"], 2);
    assert_eq!(history["problems"], Value::Array(Vec::new()), "{history:#}");
    assert_eq!(history["totals"]["sessions"], 4);
    assert_eq!(history["totals"]["transcripts"], 7);
    // 1.0.108: ten of its twenty requests are inline sidechain requests.
    let inline = session(&history, "5c0375b4-57a5-4f26-b12d-d022ee4e51b7");
    assert_eq!(
        (
            inline["requests"].as_u64(),
            inline["sidechain_requests"].as_u64()
        ),
        (Some(20), Some(10))
    );
    // 2.0.28: the two flat agent files name the session in their lines.
    let flat = session(&history, "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9");
    assert_eq!(flat["transcripts"].as_array().unwrap().len(), 3);
    assert!(
        flat["sidechain_requests"].as_u64().unwrap() >= 2,
        "{flat:#}"
    );
    // 2.1.x: the sub-agent under <session>/subagents/.
    let nested = session(&history, "ae4a77f8-aedd-4bc1-888f-c94edc91af04");
    assert_eq!(nested["transcripts"].as_array().unwrap().len(), 2);
    assert!(nested["transcripts"][1]["sub_agent"].as_bool().unwrap());
    // Each session's facts are the report's, read from the same transcript.
    let compacted = session(&history, "a6e4c2a0-0000-4000-8000-000000000000");
    let report = world
        .ctxhooks(["report", "--json", "--transcript"])
        .arg(projects.join("-entire/a6e4c2a0-0000-4000-8000-000000000000.jsonl"))
        .json();
    assert_eq!(compacted["peak"], report["peak"]);
    assert_eq!(
        compacted["trigger"],
        report["estimates"]["trigger"]["tokens"]
    );
    assert_eq!(compacted["floor"], report["estimates"]["floor"]);
    assert_eq!(compacted["totals"], report["totals"]);
    assert_eq!(
        compacted["compaction_counts"]["total"].as_u64().unwrap(),
        report["compactions"].as_array().unwrap().len() as u64
    );
    assert_eq!(compacted["compaction_counts"]["structural"], 1);
    assert_eq!(compacted["drops_by_class"]["compaction"], 1);
    // Per day and per project add up to the totals.
    let days: u64 = history["days"]
        .as_array()
        .unwrap()
        .iter()
        .map(|day| day["requests"].as_u64().unwrap())
        .sum();
    assert_eq!(days, history["totals"]["requests"].as_u64().unwrap());
    let project_requests: u64 = history["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|project| project["requests"].as_u64().unwrap())
        .sum();
    assert_eq!(project_requests, days);
    assert_eq!(history["projects"].as_array().unwrap().len(), 4);
    // The text says the same, and the SVG is written where it says.
    let svg = world.join("overview.svg");
    let text = world
        .ctxhooks(["history", "--projects"])
        .arg(&projects)
        .arg("--svg")
        .arg(&svg)
        .stderr_contains(format!("wrote the overview to {}", svg.display()))
        .success();
    let text = text.stdout_text();
    assert!(text.contains("history of 4 session(s)"), "{text}");
    assert!(text.contains("per project"), "{text}");
    let drawn = fs_err::read_to_string(&svg).unwrap();
    assert!(
        drawn.starts_with("<svg") && drawn.contains("compaction"),
        "{drawn}"
    );
}

#[test]
fn filters_by_time_and_project() {
    let world = World::new("history-filters");
    let projects = projects_folder(&world, "machine");
    let count = |args: &[&str]| {
        world
            .ctxhooks(["history", "--json", "--projects"])
            .arg(&projects)
            .args(args)
            .json()["totals"]["sessions"]
            .as_u64()
            .unwrap()
    };
    // The 1.0.108 session ran on 2025-09-07; the 2.1.38 one on 2026-02-10.
    assert_eq!(
        count(&["--until", "2025-09-07"]),
        1 + count(&["--until", "2025-09-06"])
    );
    assert_eq!(
        count(&["--since", "2026-02-10", "--until", "2026-02-10"]),
        1
    );
    assert_eq!(count(&["--project", "spotter"]), 1);
    assert_eq!(count(&["--project", "nothing-like-it"]), 0);
    world
        .ctxhooks(["history", "--since", "last week"])
        .stderr_contains("is not a day")
        .failure();
}

#[test]
fn bad_input_is_named_and_the_rest_is_still_reported() {
    let world = World::new("history-bad");
    let projects = projects_folder(&world, "machine");
    // Foreign JSON in a project folder, a FIFO named like a transcript, a link to a transcript.
    let foreign = projects.join("-foreign/0000-foreign.jsonl");
    fs_err::create_dir_all(foreign.parent().unwrap()).unwrap();
    fs_err::write(&foreign, "{\"level\":\"info\",\"msg\":\"hello\"}\n[1,2]\n").unwrap();
    let fifo = projects.join("-foreign/1111-fifo.jsonl");
    make_fifo(&fifo);
    let link = projects.join("-foreign/2222-link.jsonl");
    std::os::unix::fs::symlink(transcript_fixture("marot__spotter/short.jsonl"), &link).unwrap();
    // A folder that is one project's (read as that project, its session listed once), not the
    // projects folder; a folder of nothing; a file.
    let one_project = projects.join("-spotter");
    let empty = world.join("empty");
    fs_err::create_dir_all(&empty).unwrap();
    let missing = world.join("missing");
    let history = world
        .ctxhooks(["history", "--json", "--projects"])
        .arg(&projects)
        .arg("--projects")
        .arg(&one_project)
        .arg("--projects")
        .arg(&empty)
        .arg("--projects")
        .arg(&missing)
        .arg("--projects")
        .arg(&foreign)
        .json();
    assert_eq!(history["totals"]["sessions"], 4, "{history:#}");
    let problems: Vec<(String, String)> = history["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|problem| {
            (
                problem["path"].as_str().unwrap().to_owned(),
                problem["problem"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expect = |path: &Path, code: &str| {
        assert!(
            problems.contains(&(path.display().to_string(), code.to_owned())),
            "{code} for {} in {problems:#?}",
            path.display()
        );
    };
    expect(&foreign, "not_a_transcript");
    expect(&fifo, "unreadable");
    expect(&link, "unreadable");
    assert!(
        !problems
            .iter()
            .any(|(path, _)| *path == one_project.display().to_string()),
        "{problems:#?}"
    );
    expect(&empty, "not_a_projects_folder");
    expect(&missing, "missing");
    expect(&foreign, "not_a_folder");
    // The text names each one on its own line, and still reports the sessions.
    let outcome = world
        .ctxhooks(["history", "--projects"])
        .arg(&projects)
        .arg("--projects")
        .arg(&one_project)
        .success();
    let text = outcome.stdout_text();
    assert!(text.contains("history of 4 session(s)"), "{text}");
    assert!(text.contains("not a Claude Code transcript"), "{text}");
    assert!(text.contains("symbolic link"), "{text}");
}

#[test]
fn a_second_run_reads_only_what_changed_and_says_the_same() {
    let world = World::new("history-cache");
    let projects = projects_folder(&world, "machine");
    let history = |extra: &[&str]| {
        let mut value = world
            .ctxhooks(["history", "--json", "--projects"])
            .arg(&projects)
            .args(extra)
            .json();
        let cached = value["totals"]["cached_transcripts"].take();
        (value, cached.as_u64().unwrap())
    };
    let (first, cached) = history(&[]);
    assert_eq!(cached, 0);
    let (second, cached) = history(&[]);
    assert_eq!(cached, 7);
    assert_eq!(second, first);
    // The cache is private: a folder 0700 of files 0600 in the state folder.
    let cache = world.state_dir().join("history-cache");
    assert_eq!(crate::support::mode(&cache), 0o700);
    let entries: Vec<PathBuf> = fs_err::read_dir(&cache)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(entries.len(), 7);
    for entry in &entries {
        assert_eq!(crate::support::mode(entry), 0o600, "{}", entry.display());
    }
    // A transcript that grew by one response is read again; the others come from the cache.
    let grown = projects.join("-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl");
    let text = fs_err::read_to_string(&grown).unwrap();
    let last_response = text
        .lines()
        .rev()
        .find(|line| line.contains("\"type\":\"assistant\"") && line.contains("\"usage\""))
        .unwrap();
    let mut response: Value = serde_json::from_str(last_response).unwrap();
    response["message"]["id"] = Value::from("msg_grown_by_the_test");
    response["uuid"] = Value::from("grown-by-the-test");
    crate::support::append(&grown, format!("{response}\n"));
    let (third, cached) = history(&[]);
    assert_eq!(cached, 6);
    let requests = |history: &Value| {
        session(history, "ae4a77f8-aedd-4bc1-888f-c94edc91af04")["requests"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(requests(&third), requests(&first) + 1);
    // --no-cache reads every transcript and agrees.
    let (fresh, cached) = history(&["--no-cache"]);
    assert_eq!(cached, 0);
    assert_eq!(fresh, third);
}

/// `ctxhooks history --json` over `projects`, with the number of transcripts the cache gave
/// taken out (the rest must not depend on it).
fn history_of(world: &World, projects: &Path, extra: &[&str]) -> (Value, u64) {
    let mut value = world
        .ctxhooks(["history", "--json", "--projects"])
        .arg(projects)
        .args(extra)
        .json();
    let cached = value["totals"]["cached_transcripts"].take();
    (value, cached.as_u64().unwrap())
}

/// The cache file of the transcript at `path`.
fn cache_entry(world: &World, path: &Path) -> PathBuf {
    let name = ctxhooks_shared::store::files::sha256_hex(path.as_os_str().as_encoded_bytes());
    world
        .state_dir()
        .join("history-cache")
        .join(format!("{name}.json"))
}

/// Runs `run` with its stdout in `out`, watching its peak resident memory (`VmHWM`) until it
/// ends; kills it after [`HANG_BOUND`](crate::support::HANG_BOUND), a bound against a hang.
/// Returns whether it exited 0, its peak in KiB, and whether it had to be killed.
fn run_watching_memory(run: crate::support::run::Run, out: &Path) -> (bool, u64, bool) {
    let mut command = run.command();
    command
        .stdin(std::process::Stdio::null())
        .stdout(fs_err::File::create(out).unwrap().into_parts().0)
        .stderr(std::process::Stdio::null());
    let mut child = command.spawn().unwrap();
    let status = format!("/proc/{}/status", child.id());
    let started = std::time::Instant::now();
    let mut peak = 0;
    loop {
        // Read before the exit is looked at: a zombie's status has no memory lines.
        if let Ok(text) = fs_err::read_to_string(&status) {
            let high_water = text
                .lines()
                .find_map(|line| line.strip_prefix("VmHWM:"))
                .and_then(|kib| kib.trim().trim_end_matches("kB").trim().parse().ok());
            peak = peak.max(high_water.unwrap_or(0));
        }
        if let Some(exit) = child.try_wait().unwrap() {
            return (exit.success(), peak, false);
        }
        if started.elapsed() > crate::support::HANG_BOUND {
            let _ = child.kill();
            let _ = child.wait();
            return (false, peak, true);
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

// See: issue 17 (a cache file that is a FIFO hung `history`; one linked to `/dev/zero` grew it
// to about 1 GB).
#[test]
fn a_cache_entry_that_is_no_file_of_sane_size_is_passed_over_at_once() {
    let world = World::new("history-cache-special");
    let projects = projects_folder(&world, "machine");
    let transcript = projects.join("-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl");
    let (fresh, _) = history_of(&world, &projects, &["--no-cache"]);
    let entry = cache_entry(&world, &transcript);
    fs_err::create_dir_all(entry.parent().unwrap()).unwrap();
    let zero_link = |entry: &Path| std::os::unix::fs::symlink("/dev/zero", entry).unwrap();
    let huge = |entry: &Path| {
        // 4 GiB that take no disk (a sparse file), far past what a transcript's entry can be.
        let file = fs_err::File::create(entry).unwrap();
        file.set_len(4 << 30).unwrap();
    };
    // What is made where the entry belongs.
    type Make = fn(&Path);
    let cases: [(&str, Make); 3] = [
        ("a FIFO", make_fifo),
        ("a link to /dev/zero", zero_link),
        ("a sparse file of 4 GiB", huge),
    ];
    let out = world.join("history.json");
    for (what, make) in cases {
        if fs_err::symlink_metadata(&entry).is_ok() {
            fs_err::remove_file(&entry).unwrap();
        }
        make(&entry);
        // At most 2 GiB of address space, so that an unbounded read cannot take the machine's
        // memory; the bound itself is the peak the run reached.
        let run = world
            .ctxhooks(["history", "--json", "--projects"])
            .arg(&projects)
            .via("/bin/sh", ["-c", "ulimit -v 2097152; exec \"$0\" \"$@\""]);
        let (success, peak, hung) = run_watching_memory(run, &out);
        assert!(!hung, "history waited on a cache entry that is {what}");
        assert!(success, "history failed with a cache entry that is {what}");
        assert!(
            peak < 256 * 1024,
            "history grew to {peak} KiB reading a cache entry that is {what}"
        );
        let mut value: Value = serde_json::from_slice(&fs_err::read(&out).unwrap()).unwrap();
        value["totals"]["cached_transcripts"].take();
        assert_eq!(value, fresh, "a cache entry that is {what}");
    }
}

// See: issue 17 (a transcript rewritten with the same size and modification time was taken from
// the cache; a hand-edited cache entry was believed).
#[test]
fn a_transcript_rewritten_in_place_or_a_hand_edited_entry_is_read_again() {
    let world = World::new("history-cache-stale");
    let projects = projects_folder(&world, "machine");
    let session_id = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";
    let transcript = projects.join(format!("-spotter/{session_id}.jsonl"));
    let output_tokens =
        |history: &Value| session(history, session_id)["totals"]["output_tokens"].clone();
    let (first, cached) = history_of(&world, &projects, &[]);
    assert_eq!(cached, 0);
    // Rewritten in place with the same size, then given back its modification time: only the
    // change time (and the bytes) say it changed.
    let text = fs_err::read_to_string(&transcript).unwrap();
    let modified = fs_err::metadata(&transcript).unwrap().modified().unwrap();
    let at = text.rfind("\"output_tokens\":").unwrap() + "\"output_tokens\":".len();
    let digits = text[at..].chars().take_while(char::is_ascii_digit).count();
    let rewritten = format!(
        "{}{}{}",
        &text[..at],
        "9".repeat(digits),
        &text[at + digits..]
    );
    assert_eq!(rewritten.len(), text.len());
    assert_ne!(rewritten, text);
    fs_err::write(&transcript, &rewritten).unwrap();
    fs_err::File::options()
        .write(true)
        .open(&transcript)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    assert_eq!(
        fs_err::metadata(&transcript).unwrap().modified().unwrap(),
        modified
    );
    let (second, cached) = history_of(&world, &projects, &[]);
    let (fresh, _) = history_of(&world, &projects, &["--no-cache"]);
    assert_ne!(
        output_tokens(&fresh),
        output_tokens(&first),
        "the rewrite changed nothing"
    );
    assert_eq!(
        output_tokens(&second),
        output_tokens(&fresh),
        "a transcript rewritten in place was taken from the cache"
    );
    assert_eq!(second, fresh);
    assert_eq!(cached, 6);
    // An entry edited by hand (still JSON, its numbers changed) is not believed.
    let entry = cache_entry(&world, &transcript);
    let bytes = fs_err::read_to_string(&entry).unwrap();
    let edited = bytes.replace("\"output_tokens\":", "\"output_tokens\":1");
    assert_ne!(edited, bytes);
    fs_err::write(&entry, edited).unwrap();
    let (third, cached) = history_of(&world, &projects, &[]);
    assert_eq!(
        output_tokens(&third),
        output_tokens(&fresh),
        "a hand-edited cache entry was believed"
    );
    assert_eq!(third, fresh);
    assert_eq!(cached, 6);
    // The entry read again replaced the edited one: the next run takes it from the cache.
    let (_, cached) = history_of(&world, &projects, &[]);
    assert_eq!(cached, 7);
}

// See: issue 17 (`history` and `export` exited 0 having written nothing when the only folder
// given was refused).
#[test]
fn nothing_readable_is_an_error_and_one_folder_read_is_enough() {
    let world = World::new("history-nothing-read");
    let projects = projects_folder(&world, "machine");
    let missing = world.join("missing");
    let file = world.join("file");
    fs_err::write(&file, "not a folder").unwrap();
    // A folder that holds no session (issue 30: it counted as read, and both exited 0).
    let empty = world.join("empty");
    fs_err::create_dir_all(empty.join("-project-without-sessions")).unwrap();
    let mut refused = vec![
        (missing.clone(), "nothing is there"),
        (file.clone(), "a file"),
        (empty.clone(), "holds no session"),
    ];
    // A folder its reader may not list: as another user when the tests run as root.
    let unreadable = world.join("unreadable");
    fs_err::create_dir_all(unreadable.join("-project")).unwrap();
    fs_err::set_permissions(&unreadable, std::fs::Permissions::from_mode(0o000)).unwrap();
    let as_nobody = running_as_root() && Path::new("/usr/bin/setpriv").exists();
    if as_nobody || !running_as_root() {
        refused.push((unreadable.clone(), "could not be read"));
    } else {
        crate::support::say_skipped("an unreadable projects folder (needs setpriv as root)");
    }
    let run = |command: &str, folder: &Path| {
        let run = world
            .ctxhooks([command, "--projects"])
            .arg(folder)
            .in_dir("/");
        if as_nobody {
            run.via(
                "/usr/bin/setpriv",
                ["--reuid=65534", "--regid=65534", "--clear-groups"],
            )
        } else {
            run
        }
    };
    let out = world.join("export.jsonl");
    for (folder, why) in &refused {
        // The state folder does not exist: nothing at all could be read.
        for command in ["history", "export"] {
            let outcome = run(command, folder)
                .args(if command == "export" {
                    vec!["--out".into(), out.clone()]
                } else {
                    vec![]
                })
                .stderr_contains("no projects folder could be read")
                .stderr_contains(*why)
                .failure();
            assert_eq!(outcome.code(), Some(1));
            assert!(outcome.stdout().is_empty(), "{command} printed a result");
        }
        assert!(!out.exists(), "export wrote a file with nothing read");
    }
    // One folder read is enough: the refused ones are warnings, and the rest is reported.
    let history = world
        .ctxhooks(["history", "--json", "--projects"])
        .arg(&projects)
        .arg("--projects")
        .arg(&missing)
        .json();
    assert_eq!(history["totals"]["sessions"], 4);
    world
        .ctxhooks(["export", "--projects"])
        .arg(&projects)
        .arg("--projects")
        .arg(&missing)
        .stderr_contains("nothing is there")
        .success();
    // So is a state folder: what it holds is exported, and the refused folder a warning.
    fs_err::create_dir_all(world.state_dir()).unwrap();
    world
        .ctxhooks(["export", "--projects"])
        .arg(&missing)
        .stderr_contains("nothing is there")
        .success();
    fs_err::set_permissions(&unreadable, std::fs::Permissions::from_mode(0o700)).unwrap();
}

// See: issue 30 (given one project's folder, what most people type, `history` and `export` said
// "not a projects folder", reported nothing and exited 0).
#[test]
fn one_projects_folder_is_read_as_that_project() {
    let world = World::new("history-one-project");
    let projects = projects_folder(&world, "machine");
    // The 2.0.28 project: a session and two flat sub-agent files; and the 2.1.38 one, whose
    // sub-agent is in `<session>/subagents/`.
    for (project, id, transcripts) in [
        (
            "-Users-zawakin-agent-sample",
            "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9",
            3,
        ),
        ("-spotter", "ae4a77f8-aedd-4bc1-888f-c94edc91af04", 2),
    ] {
        let folder = projects.join(project);
        let whole = world
            .ctxhooks(["history", "--json", "--projects"])
            .arg(&projects)
            .json();
        let history = world
            .ctxhooks(["history", "--json", "--projects"])
            .arg(&folder)
            .json();
        assert_eq!(history["totals"]["sessions"], 1, "{history:#}");
        assert_eq!(history["problems"], serde_json::json!([]), "{history:#}");
        let alone = session(&history, id);
        assert_eq!(alone["project"], project);
        assert_eq!(
            alone["transcripts"].as_array().unwrap().len(),
            transcripts,
            "{alone:#}"
        );
        // The same as the session read in the whole projects folder.
        assert_eq!(alone["totals"], session(&whole, id)["totals"]);
        assert_eq!(alone["requests"], session(&whole, id)["requests"]);
        // Given from inside it, as `.`, it is named as itself.
        let here = world
            .ctxhooks(["history", "--json", "--projects", "."])
            .in_dir(&folder)
            .json();
        assert_eq!(session(&here, id)["project"], project);
        // `export` writes that session's records.
        let export = world
            .ctxhooks(["export", "--projects"])
            .arg(&folder)
            .success()
            .stdout_text();
        let records: Vec<Value> = export
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert!(
            records
                .iter()
                .filter(|record| record["kind"] == "request")
                .count()
                > 1,
            "{export}"
        );
        assert!(
            records
                .iter()
                .all(|record| record["session"] == id && record["project"] == project),
            "{export}"
        );
    }
}

/// A session resumed from another folder: Claude Code writes it on under that folder's project
/// with the same id, its new transcript holding the rest of the conversation, or (older
/// builds) a copy of it first, uuids and message ids kept. `history`, `export` and `report`
/// (from the usage log the Stop hook wrote for both transcripts) count it as one session, each
/// request and each compaction once; it was two sessions, the copied requests and compaction
/// counted twice.
#[test]
fn a_session_in_two_project_folders_is_one_session_counted_once_as_report_counts_it() {
    use serde_json::json;
    const ID: &str = "5e55a0e0-0000-4000-8000-00000000000d";
    let line = |kind: &str, uuid: &str, time: &str, cwd: &str, more: Value| {
        let mut line = json!({"type": kind, "uuid": uuid, "sessionId": ID, "cwd": cwd,
            "timestamp": time, "version": "2.1.100"});
        for (key, value) in more.as_object().unwrap() {
            line[key] = value.clone();
        }
        line.to_string() + "\n"
    };
    let answer = |uuid: &str, time: &str, cwd: &str, id: &str, input: u64| {
        line(
            "assistant",
            uuid,
            time,
            cwd,
            json!({"requestId": format!("req_{id}"),
            "message": {"id": format!("msg_{id}"), "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": input, "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 0, "output_tokens": 10}}}),
        )
    };
    let prompt = |uuid: &str, time: &str, cwd: &str| {
        line(
            "user",
            uuid,
            time,
            cwd,
            json!({"message": {"role": "user", "content": "go"}}),
        )
    };
    let (a, b) = ("/work/first", "/work/second");
    let before = [
        prompt("u1", "2026-11-01T10:00:00.000Z", a),
        answer("a1", "2026-11-01T10:00:05.000Z", a, "1", 90_000),
        line(
            "system",
            "cb",
            "2026-11-01T10:01:00.000Z",
            a,
            json!({"subtype":
            "compact_boundary", "compactMetadata": {"trigger": "auto", "preTokens": 90_000}}),
        ),
        prompt("u2", "2026-11-01T10:02:00.000Z", a),
        answer("a2", "2026-11-01T10:02:05.000Z", a, "2", 20_000),
    ]
    .concat();
    let after = [
        prompt("u3", "2026-11-02T10:00:00.000Z", b),
        answer("a3", "2026-11-02T10:00:05.000Z", b, "3", 30_000),
    ]
    .concat();
    for copied in [false, true] {
        let world = World::new(if copied {
            "history-two-copied"
        } else {
            "history-two"
        });
        let projects = world.config_dir().join("projects");
        let first = projects.join("-work-first").join(format!("{ID}.jsonl"));
        let second = projects.join("-work-second").join(format!("{ID}.jsonl"));
        for (path, text) in [
            (&first, before.clone()),
            (
                &second,
                if copied {
                    before.clone() + &after
                } else {
                    after.clone()
                },
            ),
        ] {
            fs_err::create_dir_all(path.parent().unwrap()).unwrap();
            fs_err::write(path, text).unwrap();
        }
        for (transcript, cwd) in [(&first, a), (&second, b)] {
            world
                .hook(crate::support::Hook::Stop)
                .stdin(
                    json!({"session_id": ID, "transcript_path": transcript,
                        "hook_event_name": "Stop", "cwd": cwd})
                    .to_string(),
                )
                .success();
        }
        let report = world.ctxhooks(["report", "--json", "--session", ID]).json();
        assert_eq!(report["requests"], 3, "copied {copied}: {report:#}");
        assert_eq!(report["compactions"].as_array().unwrap().len(), 1);
        let history = world.ctxhooks(["history", "--json"]).json();
        assert_eq!(
            history["totals"]["sessions"], 1,
            "copied {copied}: {history:#}"
        );
        assert_eq!(
            history["totals"]["requests"], 3,
            "copied {copied}: {history:#}"
        );
        assert_eq!(history["totals"]["transcripts"], 2);
        let session = session(&history, ID);
        assert_eq!(session["totals"], report["totals"], "copied {copied}");
        assert_eq!(session["peak"], report["peak"], "copied {copied}");
        assert_eq!(
            session["compaction_counts"]["structural"], 1,
            "copied {copied}"
        );
        // Listed where it went on, in the folder `sessions` names, found by either folder.
        assert_eq!(session["project"], "-work-second", "copied {copied}");
        let sessions = world.ctxhooks(["sessions", "--json"]).json();
        assert_eq!(session["cwd"], sessions[0]["project"], "copied {copied}");
        for project in ["first", "second"] {
            let only = world
                .ctxhooks(["history", "--json", "--project", project])
                .json();
            assert_eq!(only["totals"]["requests"], 3, "--project {project}");
        }
        // The fleet's records: one session, each request once.
        let out = world.join("export.jsonl");
        world
            .ctxhooks(["export", "--host", "h", "--out"])
            .arg(&out)
            .success();
        let records = fs_err::read_to_string(&out).unwrap();
        let records: Vec<Value> = records
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let count = |kind: &str| {
            records
                .iter()
                .filter(|record| record["kind"] == kind)
                .count()
        };
        assert_eq!(count("session"), 1, "copied {copied}");
        assert_eq!(count("request"), 3, "copied {copied}");
        assert_eq!(count("compaction"), 1, "copied {copied}");
    }
}
