//! `ctxhooks view`'s pages as a person sees them: opened in headless Chromium (Debian's
//! `chromium`, driven by the pinned playwright-core that `tests/e2e/install-tools.sh` installs)
//! through `tests/e2e/view-browser.js`, which reports what is shown; each test checks it against
//! the transcript, that nothing a transcript held ran, and that no request left the page. A
//! screenshot is taken of each page and kept when the test fails (its path is printed).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::support::fixtures::repository_file;
use crate::support::summary::{group_of, record_group};
use crate::support::{World, say_skipped};
use crate::view::{SESSION, compacted_session, hostile_transcript, session_with_subagent, stop};

const CHROMIUM: &str = "/usr/bin/chromium";

/// The browser and its driver, or `None` (recorded as skipped, said on stderr) when either is
/// missing; under `CTXHOOKS_E2E=require` a missing one fails the test.
#[track_caller]
fn browser() -> Option<PathBuf> {
    let group = group_of(std::panic::Location::caller().file());
    let driver = repository_file(".e2e/browser/node_modules/playwright-core");
    let missing = if !Path::new(CHROMIUM).exists() {
        Some(format!("no Chromium at {CHROMIUM}"))
    } else if !driver.join("package.json").exists() {
        Some("no playwright-core in .e2e/browser/".to_owned())
    } else {
        None
    };
    let Some(why) = missing else {
        record_group(&group, "ran");
        return Some(driver);
    };
    let required = std::env::var("CTXHOOKS_E2E").is_ok_and(|value| value == "require");
    assert!(
        !required,
        "CTXHOOKS_E2E=require but {why}: run tests/e2e/install-tools.sh"
    );
    say_skipped(&format!(
        "{group}: {why} (tests/e2e/install-tools.sh installs them)"
    ));
    record_group(&group, &format!("skipped: {why}"));
    None
}

/// What the browser showed of a page, with the screenshot taken of it.
struct Seen {
    facts: Value,
    screenshot: PathBuf,
}

impl Drop for Seen {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // Past the harness's capture, as `say_skipped` writes.
            let _ = writeln!(
                std::io::stderr(),
                "the page as the browser showed it: {}",
                self.screenshot.display()
            );
        } else {
            let _ = fs_err::remove_file(&self.screenshot);
        }
    }
}

/// Opens `page` in Chromium and returns what it showed (`word`: typed in the filter box).
fn open(world: &World, driver: &Path, page: &Path, name: &str, word: Option<&str>) -> Seen {
    // Kept past the world's folder, which goes when the test ends.
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("view-screenshots");
    fs_err::create_dir_all(&shots).unwrap();
    let screenshot = shots.join(format!("{name}-{}.png", std::process::id()));
    let profile = world.join(format!("chromium-profile-{name}"));
    let output = Command::new("node")
        .arg(repository_file("tests/e2e/view-browser.js"))
        .arg(page)
        .arg(&screenshot)
        .args(word)
        .env("PLAYWRIGHT_CORE", driver)
        .env("CHROMIUM", CHROMIUM)
        .env("VIEW_PROFILE", &profile)
        .env("HOME", world.home())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the browser script failed: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    Seen {
        facts: serde_json::from_str(stdout.trim()).unwrap(),
        screenshot,
    }
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_compacted_sessions_page_shows_its_messages_compactions_and_calls() {
    let Some(driver) = browser() else { return };
    let world = World::new("browser-session");
    compacted_session(&world);
    world.ctxhooks(["view", "--session", SESSION]).success();
    let page = world
        .state_dir()
        .join("views")
        .join(format!("{SESSION}.html"));
    let seen = open(&world, &driver, &page, "session", Some("step1"));
    let facts = &seen.facts;
    let recalled = world
        .ctxhooks(["recall", "--session", SESSION, "--json"])
        .json();
    let recalled = recalled.as_array().unwrap();
    // Every message, each of its speaker, all shown.
    let kinds: Vec<String> = recalled
        .iter()
        .map(|message| match message["speaker"].as_str().unwrap() {
            "user" => "user".to_owned(),
            "assistant" => "assistant".to_owned(),
            "tool_result" | "tool" => "tool".to_owned(),
            other => other.to_owned(),
        })
        .collect();
    assert_eq!(strings(&facts["kinds"]), kinds);
    assert_eq!(facts["visible_messages"], recalled.len());
    // Both compactions, as dividers; every tool call the transcript made, by its tool.
    assert_eq!(
        strings(&facts["compactions"]),
        ["Compaction 1", "Compaction 2"]
    );
    let calls: Vec<String> = recalled
        .iter()
        .flat_map(|message| message["parts"].as_array().unwrap().iter())
        .filter(|part| part["type"] == "tool_call")
        .map(|part| part["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(!calls.is_empty());
    assert_eq!(strings(&facts["tool_calls"]), calls);
    assert_eq!(facts["curve"], 1);
    let text = facts["text"].as_str().unwrap();
    assert!(text.contains("167,011 → 2,638 tokens"), "{text}");
    assert!(text.contains("Run three steps"), "{text}");
    // The filter box: shown with scripts on; prompts only leaves the person's messages; a word
    // leaves the messages that hold it.
    assert_eq!(facts["filter_shown"], true);
    let prompts = strings(&facts["prompts_only"]);
    assert_eq!(
        prompts.len(),
        kinds.iter().filter(|kind| *kind == "user").count()
    );
    assert!(prompts.iter().all(|kind| kind == "user"));
    let with_word: Vec<String> = recalled
        .iter()
        .filter(|message| message.to_string().contains("step1"))
        .map(|message| format!("m-{}", message["number"]))
        .collect();
    assert!(!with_word.is_empty());
    assert_eq!(strings(&facts["word_shown"]), with_word);
    assert_eq!(facts["requests_left"], serde_json::json!([]));
    assert_eq!(facts["errors"], serde_json::json!([]));
}

#[test]
fn a_hostile_transcript_runs_nothing_and_no_request_leaves_the_page() {
    let Some(driver) = browser() else { return };
    let world = World::new("browser-hostile");
    let transcript = hostile_transcript(&world);
    stop(&world, &transcript);
    let page = world.join("hostile.html");
    world
        .ctxhooks(["view", "--session", SESSION, "--out"])
        .arg(&page)
        .success();
    let seen = open(&world, &driver, &page, "hostile", None);
    let facts = &seen.facts;
    assert_eq!(facts["pwned"], false, "{facts}");
    assert_eq!(facts["pwned_after_opening"], false, "{facts}");
    assert_eq!(facts["scripts"], 1);
    assert_eq!(facts["messages"], 4);
    assert_eq!(facts["errors_only"], 1);
    // The markup is shown as the text it was.
    let text = facts["text"].as_str().unwrap();
    assert!(text.contains("<script>window.__pwned=1</script>"), "{text}");
    assert!(
        text.contains("<svg onload=\"window.__pwned=4\"></svg>"),
        "{text}"
    );
    // Links: the page's own anchors and the one web link, never `javascript:`.
    for link in strings(&facts["links"]) {
        assert!(
            link.starts_with('#') || link == "https://example.com/docs",
            "{link}"
        );
    }
    assert_eq!(facts["requests_left"], serde_json::json!([]));
    assert_eq!(facts["errors"], serde_json::json!([]));
}

/// A session of `SESSION` whose `Task` call started the sub-agent `a0e1f2a` (tied by the call's
/// result naming it, as 2.1.x writes it), every text of the sub-agent trying to be markup that
/// runs or that closes its fold.
fn hostile_subagent_session(world: &World) -> PathBuf {
    let time = |second: u32| format!("2026-12-01T10:00:{second:02}.000Z");
    let usage = json!({"input_tokens": 10, "output_tokens": 5});
    let main = [
        json!({"type": "user", "sessionId": SESSION, "uuid": "u1", "timestamp": time(0),
            "message": {"role": "user", "content": "Look around"}}),
        json!({"type": "assistant", "sessionId": SESSION, "uuid": "a1", "parentUuid": "u1",
            "timestamp": time(1), "requestId": "req_1",
            "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "tool_use", "id": "toolu_task", "name": "Task",
                    "input": {"description": "Look", "prompt": "Read evil.html",
                        "subagent_type": "general-purpose"}}],
                "usage": usage}}),
        json!({"type": "user", "sessionId": SESSION, "uuid": "u2", "parentUuid": "a1",
            "timestamp": time(9),
            "message": {"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": "toolu_task", "content": [{"type": "text", "text": "Found it."}]}]},
            "toolUseResult": {"status": "completed", "agentId": "a0e1f2a",
                "prompt": "Read evil.html", "content": [{"type": "text", "text": "Found it."}]}}),
        json!({"type": "assistant", "sessionId": SESSION, "uuid": "a2", "parentUuid": "u2",
            "timestamp": time(10), "requestId": "req_2",
            "message": {"id": "msg_2", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "Done."}], "usage": usage}}),
    ];
    let agent_line = |uuid: &str, second: u32, kind: &str, message: Value| {
        json!({"type": kind, "sessionId": SESSION, "isSidechain": true, "agentId": "a0e1f2a",
            "uuid": uuid, "timestamp": time(second), "message": message})
    };
    let agent = [
        agent_line(
            "s1",
            2,
            "user",
            json!({"role": "user",
            "content": "Read evil.html </details><script>window.__pwned=7</script>"}),
        ),
        agent_line(
            "s2",
            3,
            "assistant",
            json!({"id": "msg_s1", "role": "assistant",
            "model": "claude-haiku-4-5", "usage": usage, "content": [
                {"type": "text", "text": "<img src=x onerror=\"window.__pwned=8\"> [x](javascript:window.__pwned=9)"},
                {"type": "tool_use", "id": "toolu_s1", "name": "Read",
                    "input": {"file_path": "evil.html"}}]}),
        ),
        agent_line(
            "s3",
            4,
            "user",
            json!({"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "toolu_s1",
            "content": "</details></article><svg onload=\"window.__pwned=10\"></svg>SUBAGENT-RESULT"}]}),
        ),
        agent_line(
            "s4",
            5,
            "assistant",
            json!({"id": "msg_s2", "role": "assistant",
            "model": "claude-haiku-4-5", "usage": usage,
            "content": [{"type": "text", "text": "Found it."}]}),
        ),
    ];
    let join = |lines: &[Value]| {
        lines
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    };
    world.write_transcript(
        format!("{SESSION}/subagents/agent-a0e1f2a.jsonl"),
        join(&agent),
    );
    world.write_transcript(format!("{SESSION}.jsonl"), join(&main))
}

#[test]
fn a_sub_agent_shows_under_its_call_once_opened_and_runs_nothing() {
    let Some(driver) = browser() else { return };
    let world = World::new("browser-subagent");
    // A real 2.1.39 session and its sub-agent.
    let real = session_with_subagent(&world);
    let page = world.join("real.html");
    world
        .ctxhooks(["view", "--out"])
        .arg(&page)
        .arg("--transcript")
        .arg(&real)
        .success();
    let seen = open(&world, &driver, &page, "subagent-real", None);
    let agents = seen.facts["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 1, "{agents:?}");
    assert_eq!(agents[0]["id"], "aac57f5");
    assert_eq!(agents[0]["under_call"], "Task");
    assert_eq!(agents[0]["shown_closed"], false);
    assert_eq!(agents[0]["shown_open"], true);
    let text = agents[0]["text"].as_str().unwrap();
    assert!(
        text.contains("Search hex.pm for the latest versions"),
        "{text}"
    );
    assert_eq!(seen.facts["requests_left"], json!([]));
    assert_eq!(seen.facts["errors"], json!([]));

    // A sub-agent whose every text tries to run or to close its fold.
    let transcript = hostile_subagent_session(&world);
    let page = world.join("hostile-agent.html");
    world
        .ctxhooks(["view", "--out"])
        .arg(&page)
        .arg("--transcript")
        .arg(&transcript)
        .success();
    let seen = open(&world, &driver, &page, "subagent-hostile", None);
    let facts = &seen.facts;
    let agents = facts["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 1, "{agents:?}");
    let agent = &agents[0];
    assert_eq!(agent["under_call"], "Task");
    assert_eq!(agent["in_section"], false);
    assert_eq!(agent["shown_closed"], false);
    assert_eq!(agent["shown_open"], true);
    assert_eq!(agent["messages"], 4);
    assert_eq!(agent["pwned"], false, "{facts}");
    let text = agent["text"].as_str().unwrap();
    assert!(
        text.contains("Read evil.html </details><script>window.__pwned=7</script>"),
        "{text}"
    );
    assert!(
        text.contains("<img src=x onerror=\"window.__pwned=8\">"),
        "{text}"
    );
    assert!(text.contains("Found it."), "{text}");
    // The main conversation is whole around it: its four messages, one script on the page.
    assert_eq!(facts["messages"], 4);
    assert_eq!(facts["scripts"], 1);
    assert_eq!(facts["pwned"], false);
    assert_eq!(facts["pwned_after_opening"], false, "{facts}");
    for link in strings(&facts["links"]) {
        assert!(!link.starts_with("javascript:"), "{link}");
    }
    assert_eq!(facts["requests_left"], json!([]));
    assert_eq!(facts["errors"], json!([]));
}
