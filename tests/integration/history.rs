//! Tests for `ctxhooks history`: the fast reader gives the usage ingest's own rows on every real
//! transcript; every layout of sub-agent transcripts is attributed to its session; each session
//! says what `ctxhooks report` says; filters; bad input named and passed.

use std::path::{Path, PathBuf};

use serde_json::Value;

use ctxhooks_shared::command::history::read::{log_of_transcript, read_transcript};
use ctxhooks_shared::command::usage::log::log_from_transcript;

use crate::support::fixtures::{all_captures, all_sdk_transcripts};
use crate::support::{World, all_transcript_fixtures, make_fifo, transcript_fixture};

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
        let fast = log_of_transcript(transcript).unwrap();
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
    assert_eq!(history["schema"], 1);
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
    // A folder that is one project's, not the projects folder; a folder of nothing; a file.
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
    expect(&one_project, "not_a_projects_folder");
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
    assert!(text.contains("looks like one project's folder"), "{text}");
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
