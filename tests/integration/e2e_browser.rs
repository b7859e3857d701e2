//! `ctxhooks view`'s pages as a person sees them: opened in headless Chromium (Debian's
//! `chromium`, driven by the pinned playwright-core that `tests/e2e/install-tools.sh` installs)
//! through `tests/e2e/view-browser.js`, which reports what is shown; each test checks it against
//! the transcript, that nothing a transcript held ran, and that no request left the page. A
//! screenshot is taken of each page and kept when the test fails (its path is printed).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::fixtures::repository_file;
use crate::support::summary::{group_of, record_group};
use crate::support::{World, say_skipped};
use crate::view::{SESSION, compacted_session, hostile_transcript, stop};

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
