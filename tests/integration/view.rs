//! Tests for `ctxhooks view`: the page of a session (its facts, its curve, its conversation and
//! its compactions) checked against the transcript it came from, hostile text kept as text, the
//! cut texts' `recall` command, `--all`'s index, and the errors that write nothing. What a
//! browser shows of the same pages is `e2e_browser.rs`'s.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{Hook, World, cli_capture};

pub const SESSION: &str = "5e55a0b1-0000-4000-8000-0000000f1e55";

/// The 2.1.332 capture with an automatic and a manual compaction.
pub const AUTO_MANUAL: &str = "compaction/auto-manual.jsonl.gz";

/// Characters of the hostile tool result: past the page's bound of 2,000.
pub const LONG_RESULT: usize = 3_000;

/// Runs the Stop hook of `SESSION` on `transcript`: its usage log and its kept copy.
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

/// The auto-manual capture as `SESSION`'s transcript, kept by the Stop hook.
pub fn compacted_session(world: &World) -> PathBuf {
    let capture = cli_capture(world.root(), AUTO_MANUAL);
    let transcript =
        world.write_transcript(format!("{SESSION}.jsonl"), fs_err::read(capture).unwrap());
    stop(world, &transcript);
    transcript
}

/// A transcript of `SESSION` whose every text tries to be markup that runs: a prompt with a
/// script, an answer with a `javascript:` link, raw HTML and an SVG with `onload`, a tool result
/// (an error, and long) with `</textarea>`, a script and an SVG, and a last answer.
pub fn hostile_transcript(world: &World) -> PathBuf {
    let line = |value: Value| value.to_string();
    let time = |second: u32| format!("2026-12-01T10:00:{second:02}.000Z");
    let usage = json!({"input_tokens": 10, "cache_creation_input_tokens": 1000,
        "cache_read_input_tokens": 0, "output_tokens": 20});
    let result = format!(
        "</textarea><script>window.__pwned=5</script><svg onload=\"window.__pwned=6\"></svg>{}END-OF-RESULT",
        "x".repeat(LONG_RESULT)
    );
    let lines = [
        line(
            json!({"type": "user", "sessionId": SESSION, "uuid": "u1", "timestamp": time(0),
            "cwd": "/work/demo", "version": "2.1.332",
            "message": {"role": "user",
                "content": "<script>window.__pwned=1</script> look at </textarea> evil.html"}}),
        ),
        line(
            json!({"type": "assistant", "sessionId": SESSION, "uuid": "a1", "parentUuid": "u1",
            "timestamp": time(1), "cwd": "/work/demo", "version": "2.1.332", "requestId": "req_1",
            "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [
                    {"type": "text", "text": "See [this](javascript:window.__pwned=2) and <img src=x onerror=\"window.__pwned=3\"> and <svg onload=\"window.__pwned=4\"></svg> **bold**"},
                    {"type": "tool_use", "id": "toolu_1", "name": "Bash",
                        "input": {"command": "cat evil.html"}}],
                "usage": usage}}),
        ),
        line(
            json!({"type": "user", "sessionId": SESSION, "uuid": "u2", "parentUuid": "a1",
            "timestamp": time(2), "cwd": "/work/demo", "version": "2.1.332",
            "message": {"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": "toolu_1", "content": result, "is_error": true}]}}),
        ),
        line(
            json!({"type": "assistant", "sessionId": SESSION, "uuid": "a2", "parentUuid": "u2",
            "timestamp": time(3), "cwd": "/work/demo", "version": "2.1.332", "requestId": "req_2",
            "message": {"id": "msg_2", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "Done: [docs](https://example.com/docs)."}],
                "usage": usage}}),
        ),
    ];
    world.write_transcript(format!("{SESSION}.jsonl"), lines.join("\n") + "\n")
}

/// The page's text between `<main` and `</main>`: the conversation.
fn conversation(page: &str) -> &str {
    let start = page.find("<main").unwrap();
    let end = page.rfind("</main>").unwrap();
    &page[start..end]
}

#[test]
fn a_sessions_page_holds_its_facts_curve_messages_and_compactions() {
    let world = World::new("view-session");
    compacted_session(&world);
    let printed = world
        .ctxhooks(["view", "--session", "last", "--json"])
        .json();
    let written = &printed["pages"][0];
    let path = PathBuf::from(written["path"].as_str().unwrap());
    assert_eq!(
        path,
        world
            .state_dir()
            .join("views")
            .join(format!("{SESSION}.html"))
    );
    #[cfg(unix)]
    {
        use ctxhooks_shared::platform::private::mode_of;
        assert_eq!(mode_of(&path).unwrap() & 0o777, 0o600);
        assert_eq!(mode_of(path.parent().unwrap()).unwrap() & 0o777, 0o700);
    }
    let page = fs_err::read_to_string(&path).unwrap();
    // Every message recall reads is on the page, in its order, and no other.
    let recalled = world
        .ctxhooks(["recall", "--session", SESSION, "--json"])
        .json();
    let recalled = recalled.as_array().unwrap();
    assert_eq!(written["messages"], recalled.len());
    let body = conversation(&page);
    let mut at = 0;
    for message in recalled {
        let anchor = format!("id=\"m-{}\"", message["number"]);
        let found = body[at..]
            .find(&anchor)
            .unwrap_or_else(|| panic!("{anchor}"));
        at += found;
    }
    assert_eq!(body.matches("<article ").count(), recalled.len());
    // Both compactions are dividers, with the ledger's numbers and what their summaries left out,
    // and the facts and the curve link to them.
    assert_eq!(written["compactions"], 2);
    assert_eq!(body.matches("<section class=\"compaction\"").count(), 2);
    for expected in [
        "automatic, 167,011 → 2,638 tokens, took 61 ms",
        "manual, 22,453 → 2,626 tokens, took 206 ms",
        "command: echo step1  (ok)",
        "prompt: &quot;Run three steps&quot;",
        "prompt: &quot;question after the automatic compaction&quot;",
    ] {
        assert!(body.contains(expected), "{expected}");
    }
    assert!(!body.contains("command: echo step3"), "kept word for word");
    assert!(page.contains("<a href=\"#compaction-1\">compaction 1</a>"));
    assert!(page.contains("<a href=\"#compaction-2\">compaction 2</a>"));
    // The facts: the session, its project, its requests, its cost, and T.
    let facts = &page[page.find("id=\"facts\"").unwrap()..page.find("id=\"context\"").unwrap()];
    let report = world
        .ctxhooks(["report", "--session", SESSION, "--json"])
        .json();
    for expected in [
        SESSION.to_owned(),
        "<dt>project</dt><dd>/".to_owned(),
        format!("<dt>requests</dt><dd>{} (", report["requests"]),
        format!(
            "<dt>compactions</dt><dd>{}</dd>",
            report["compactions"].as_array().unwrap().len()
        ),
        "of T ".to_owned(),
        // The capture's model has no price: said, never guessed.
        "<dt>cost</dt><dd>? (unpriced: claude-opus-5-5)</dd>".to_owned(),
    ] {
        assert!(facts.contains(&expected), "{expected}\n{facts}");
    }
    // The curve is the report's chart, inline.
    assert!(page.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    // Nothing may leave the page: the policy, and no source or reference to anything outside.
    // Of scripts, only the page's own (by its hash): an inline script or handler that reached
    // the page from a transcript would not run.
    assert!(
        page.contains(
            "content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-"
        )
    );
    assert!(!page.contains("script-src 'unsafe-inline'"));
    assert_eq!(page.matches("<script>").count(), 1);
    for outside in ["src=", "<link", "url(", "@import"] {
        assert!(!page.contains(outside), "{outside}");
    }
    assert_eq!(world.error_lines(), Vec::<String>::new());
}

#[test]
fn hostile_text_stays_text_and_a_cut_result_names_the_recall_that_gives_it_whole() {
    let world = World::new("view-hostile");
    let transcript = hostile_transcript(&world);
    stop(&world, &transcript);
    let out = world.join("page.html");
    world
        .ctxhooks(["view", "--session", SESSION, "--out"])
        .arg(&out)
        .success();
    let page = fs_err::read_to_string(&out).unwrap();
    // One script, the page's own; none of the transcript's markup is markup.
    assert_eq!(page.matches("<script").count(), 1);
    assert!(!page.contains("window.__pwned=1</script>"));
    assert!(page.contains("&lt;script&gt;window.__pwned=1&lt;/script&gt;"));
    assert!(!page.contains("</textarea>"));
    assert!(!page.contains("<svg onload"));
    assert!(!page.contains("<img"));
    assert!(!page.to_ascii_lowercase().contains("href=\"javascript:"));
    assert!(page.contains("<a href=\"https://example.com/docs\">docs</a>"));
    assert!(page.contains("<strong>bold</strong>"));
    // The long result is cut, and the command given prints it whole.
    assert!(!page.contains("END-OF-RESULT"));
    let command = format!("ctxhooks recall --session {SESSION} --message 3");
    assert!(
        page.contains(&format!(
            "more characters not shown: <code>{command}</code>"
        )),
        "{page}"
    );
    let whole = world
        .ctxhooks(["recall", "--session", SESSION, "--message", "3"])
        .success()
        .stdout_text();
    assert!(whole.contains(&"x".repeat(LONG_RESULT)), "{whole}");
    assert!(whole.contains("END-OF-RESULT"), "{whole}");
    // Without --message, recall still cuts.
    let cut = world
        .ctxhooks(["recall", "--session", SESSION])
        .success()
        .stdout_text();
    assert!(!cut.contains("END-OF-RESULT"));
    // The result is an error: the filter's data says so.
    assert!(page.contains("data-k=\"tool\" data-e=\"1\""));
}

#[test]
fn a_transcript_file_makes_a_page_without_a_usage_log() {
    let world = World::new("view-transcript");
    let transcript = cli_capture(world.root(), AUTO_MANUAL);
    let out = world.join("out").join("page.html");
    fs_err::create_dir_all(out.parent().unwrap()).unwrap();
    let printed = world
        .ctxhooks(["view", "--json", "--out"])
        .arg(&out)
        .arg("--transcript")
        .arg(&transcript)
        .json();
    assert_eq!(printed["pages"][0]["compactions"], 2);
    let page = fs_err::read_to_string(&out).unwrap();
    assert_eq!(
        conversation(&page)
            .matches("<section class=\"compaction\"")
            .count(),
        2
    );
    // No session kept: a cut text would name the transcript, not a recall of a session.
    assert!(!page.contains("ctxhooks recall"));
}

#[test]
fn a_deleted_session_is_viewed_from_its_kept_copy_and_listed_in_the_index() {
    let world = World::new("view-all");
    let transcript = compacted_session(&world);
    let live = world
        .ctxhooks(["view", "--session", SESSION])
        .success()
        .stdout_text();
    assert!(live.contains("16 messages, 2 compactions"), "{live}");
    fs_err::remove_file(&transcript).unwrap();
    let printed = world.ctxhooks(["view", "--all", "--json"]).json();
    assert_eq!(printed["pages"][0]["messages"], 16);
    assert_eq!(printed["failed"], json!([]));
    let index_path = world.state_dir().join("views").join("index.html");
    assert_eq!(printed["index"], json!(index_path));
    let index = fs_err::read_to_string(&index_path).unwrap();
    assert!(
        index.contains(&format!("<a href=\"{SESSION}.html\">")),
        "{index}"
    );
    assert!(index.contains("<td>deleted</td>"), "{index}");
    let page = fs_err::read_to_string(
        world
            .state_dir()
            .join("views")
            .join(format!("{SESSION}.html")),
    )
    .unwrap();
    assert_eq!(conversation(&page).matches("<article ").count(), 16);
}

#[test]
fn an_unknown_session_or_an_unreadable_transcript_is_an_error_and_writes_nothing() {
    let world = World::new("view-errors");
    compacted_session(&world);
    let views = world.state_dir().join("views");
    let unknown = world
        .ctxhooks(["view", "--session", "0000dead"])
        .exit_code(1)
        .stderr_text();
    assert!(unknown.contains("0000dead"), "{unknown}");
    let missing = world.join("missing.jsonl");
    let failed = world
        .ctxhooks(["view", "--transcript"])
        .arg(&missing)
        .exit_code(1)
        .stderr_text();
    assert!(failed.contains("failed to read the transcript"), "{failed}");
    assert!(failed.contains("missing.jsonl"), "{failed}");
    let listed: Vec<_> = fs_err::read_dir(&views)
        .map(|entries| entries.flatten().map(|entry| entry.file_name()).collect())
        .unwrap_or_default();
    assert_eq!(listed, Vec::<std::ffi::OsString>::new());
    // A folder where the page should go is refused, and left as it was.
    let folder = world.join("a-folder");
    fs_err::create_dir_all(&folder).unwrap();
    world
        .ctxhooks(["view", "--session", SESSION, "--out"])
        .arg(&folder)
        .exit_code(1);
    assert_eq!(fs_err::read_dir(&folder).unwrap().count(), 0);
}

#[test]
fn long_tool_results_are_cut_so_the_page_stays_under_a_quarter_of_the_transcript() {
    let world = World::new("view-bound");
    let mut lines = Vec::new();
    for turn in 0..30 {
        let id = format!("toolu_{turn}");
        lines.push(
            json!({"type": "assistant", "sessionId": SESSION, "uuid": format!("a{turn}"),
                "timestamp": "2026-12-01T10:00:00.000Z", "requestId": format!("req_{turn}"),
                "message": {"id": format!("msg_{turn}"), "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [{"type": "tool_use", "id": id, "name": "Read",
                        "input": {"file_path": format!("/src/{turn}.rs")}}],
                    "usage": {"input_tokens": 10, "output_tokens": 5}}})
            .to_string(),
        );
        lines.push(
            json!({"type": "user", "sessionId": SESSION, "uuid": format!("u{turn}"),
                "timestamp": "2026-12-01T10:00:01.000Z",
                "message": {"role": "user", "content": [{"type": "tool_result",
                    "tool_use_id": id, "content": format!("line {turn}\n").repeat(5_000)}]}})
            .to_string(),
        );
    }
    let transcript = world.write_transcript("bound.jsonl", lines.join("\n") + "\n");
    let out = world.join("bound.html");
    let printed = world
        .ctxhooks(["view", "--json", "--out"])
        .arg(&out)
        .arg("--transcript")
        .arg(&transcript)
        .json();
    assert_eq!(printed["pages"][0]["cut"], 30);
    let page = fs_err::metadata(&out).unwrap().len();
    let whole = fs_err::metadata(&transcript).unwrap().len();
    assert!(page * 4 <= whole, "page {page} bytes, transcript {whole}");
    let text = fs_err::read_to_string(&out).unwrap();
    assert_eq!(
        text.matches("more characters not shown: message #").count(),
        30
    );
}

#[test]
fn thinking_is_folded_in_its_answer_and_the_numbers_stay_recalls() {
    let world = World::new("view-thinking");
    let fixture = crate::support::transcript_fixture("marot__spotter/short.jsonl");
    let transcript =
        world.write_transcript(format!("{SESSION}.jsonl"), fs_err::read(fixture).unwrap());
    stop(&world, &transcript);
    let out = world.join("thinking.html");
    world
        .ctxhooks(["view", "--session", SESSION, "--out"])
        .arg(&out)
        .success();
    let page = fs_err::read_to_string(&out).unwrap();
    let body = conversation(&page);
    let thought = "The user is having trouble starting their Phoenix server";
    let at = body.find(thought).expect("the thinking is on the page");
    let fold = body[..at].rfind("<details class=\"think\">").unwrap();
    assert!(!body[fold..at].contains("</details>"), "inside its fold");
    // The thinking sits in an answer, and every message recall numbers is there under its
    // number: a response's thinking never makes a message of its own.
    let recalled = world
        .ctxhooks(["recall", "--session", SESSION, "--json"])
        .json();
    let numbers: Vec<String> = recalled
        .as_array()
        .unwrap()
        .iter()
        .map(|message| format!("m-{}", message["number"]))
        .collect();
    let ids: Vec<String> = body
        .match_indices("<article class=\"m ")
        .map(|(start, _)| {
            let id = &body[start..][body[start..].find("id=\"").unwrap() + 4..];
            id[..id.find('"').unwrap()].to_owned()
        })
        .collect();
    assert_eq!(ids, numbers);
    let article = body[..fold].rfind("<article ").unwrap();
    assert!(body[article..fold].contains("data-k=\"assistant\""));
}

#[cfg(unix)]
#[test]
fn a_link_in_the_views_folder_is_replaced_not_followed() {
    let world = World::new("view-link");
    compacted_session(&world);
    let views = world.state_dir().join("views");
    fs_err::create_dir_all(&views).unwrap();
    let elsewhere = world.join("elsewhere.html");
    fs_err::write(&elsewhere, "not ctxhooks'").unwrap();
    let page = views.join(format!("{SESSION}.html"));
    std::os::unix::fs::symlink(&elsewhere, &page).unwrap();
    world.ctxhooks(["view", "--session", SESSION]).success();
    assert_eq!(fs_err::read_to_string(&elsewhere).unwrap(), "not ctxhooks'");
    let metadata = fs_err::symlink_metadata(&page).unwrap();
    assert!(metadata.is_file(), "{metadata:?}");
}

/// The real 2.1.39 session `ae4a77f8-…` (a `Task` call at its line 71 whose sub-agent is
/// `aac57f5`), laid out in the world's transcript folder with its sub-agent's transcript in
/// `<session>/subagents/`, as Claude Code writes them: the main transcript's path.
pub fn session_with_subagent(world: &World) -> PathBuf {
    let gz = crate::support::transcript_fixture(&format!("marot__spotter/{MAROT}.jsonl.gz"));
    let mut main = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::MultiGzDecoder::new(fs_err::File::open(gz).unwrap()),
        &mut main,
    )
    .unwrap();
    let agent = fs_err::read(crate::support::transcript_fixture(&format!(
        "marot__spotter/{MAROT}/subagents/agent-aac57f5.jsonl"
    )))
    .unwrap();
    world.write_transcript(format!("{MAROT}/subagents/agent-aac57f5.jsonl"), agent);
    world.write_transcript(format!("{MAROT}.jsonl"), main)
}

const MAROT: &str = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";

/// The `<details class="agent">` fold right after the call `call_id`'s fold, and what it holds.
fn agent_fold_after<'a>(page: &'a str, call_input: &str) -> &'a str {
    let call = page
        .find(call_input)
        .unwrap_or_else(|| panic!("no call {call_input}"));
    let after = &page[call..];
    let call_end = after.find("</details>\n").unwrap() + "</details>\n".len();
    let fold = &after[call_end..];
    assert!(
        fold.starts_with("<details class=\"agent\">"),
        "no sub-agent right after the call: {}",
        &fold[..fold.len().min(300)]
    );
    // The fold ends at the first `</details>\n` at its own depth.
    let mut depth = 0;
    let mut at = 0;
    while let Some(next) = fold[at..].find("details") {
        let index = at + next;
        if fold[..index].ends_with("</") {
            depth -= 1;
            if depth == 0 {
                return &fold[..index];
            }
        } else if fold[..index].ends_with('<') {
            depth += 1;
        }
        at = index + 1;
    }
    fold
}

#[test]
fn a_sub_agent_is_folded_under_the_task_call_that_started_it() {
    let world = World::new("view-subagent");
    let transcript = session_with_subagent(&world);
    let out = world.join("agent.html");
    let printed = world
        .ctxhooks(["view", "--json", "--out"])
        .arg(&out)
        .arg("--transcript")
        .arg(&transcript)
        .json();
    assert_eq!(printed["pages"][0]["subagents"], 1);
    assert_eq!(printed["pages"][0]["subagents_nested"], 1);
    let page = fs_err::read_to_string(&out).unwrap();
    let fold = agent_fold_after(
        &page,
        "<b>Task</b> <code>{&quot;description&quot;:&quot;Check OTEL hex package versions&quot;",
    );
    assert!(fold.contains("<code>aac57f5</code>"), "{fold}");
    // Its prompt, its searches and their results, and its answer, each escaped.
    assert!(
        fold.contains("Search hex.pm for the latest versions of these Elixir packages"),
        "{fold}"
    );
    assert!(fold.contains("<b>WebSearch</b>"), "{fold}");
    assert!(fold.contains("<details class=\"result\">"), "{fold}");
    assert!(fold.contains("reasonable `~&gt;` constraint"), "{fold}");
    assert!(
        !page.contains("<section id=\"subagents\">"),
        "nothing left over"
    );
    // The main conversation's counts are the main conversation's.
    let main_calls = conversation(&page)
        .matches("<details class=\"call\">")
        .count();
    let nested_calls = fold.matches("<details class=\"call\">").count();
    assert!(nested_calls > 0);
    assert_eq!(
        printed["pages"][0]["tool_calls"],
        json!(main_calls - nested_calls)
    );
}

#[test]
fn a_kept_sub_agent_is_shown_once_claude_code_deleted_it() {
    let world = World::new("view-subagent-kept");
    let transcript = session_with_subagent(&world);
    let agent = transcript
        .with_extension("")
        .join("subagents/agent-aac57f5.jsonl");
    for (event, extra) in [
        ("Stop", json!({})),
        (
            "SubagentStop",
            json!({"agent_id": "aac57f5", "agent_transcript_path": agent}),
        ),
    ] {
        let mut input = json!({"session_id": MAROT, "transcript_path": transcript,
            "hook_event_name": event, "cwd": "/work/demo"});
        input
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        world.hook(Hook::Stop).stdin(input.to_string()).success();
    }
    fs_err::remove_file(&agent).unwrap();
    fs_err::remove_file(&transcript).unwrap();
    let printed = world
        .ctxhooks(["view", "--json", "--session", MAROT])
        .json();
    assert_eq!(printed["pages"][0]["subagents_nested"], 1, "{printed}");
    let page = fs_err::read_to_string(printed["pages"][0]["path"].as_str().unwrap()).unwrap();
    let fold = agent_fold_after(
        &page,
        "<b>Task</b> <code>{&quot;description&quot;:&quot;Check OTEL hex package versions&quot;",
    );
    assert!(fold.contains("<b>WebSearch</b>"), "{fold}");
}

#[test]
fn sub_agents_no_call_started_are_listed_at_the_end_and_a_sub_agents_file_shows_its_talk() {
    let world = World::new("view-subagent-loose");
    let folder =
        crate::support::transcript_fixture("lanegrid__agtrace/-Users-zawakin-agent-sample");
    for name in [
        "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9.jsonl",
        "agent-0c4c3cf8.jsonl",
        "agent-90fa40b6.jsonl",
    ] {
        world.write_transcript(name, fs_err::read(folder.join(name)).unwrap());
    }
    // 2.0.28's "Warmup" agents, started by no call: at the end, never lost.
    let out = world.join("loose.html");
    let printed = world
        .ctxhooks(["view", "--json", "--out"])
        .arg(&out)
        .arg("--transcript")
        .arg(world.transcript("7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9.jsonl"))
        .json();
    assert_eq!(printed["pages"][0]["subagents"], 2);
    assert_eq!(printed["pages"][0]["subagents_nested"], 0);
    let page = fs_err::read_to_string(&out).unwrap();
    let section = &page[page.find("<section id=\"subagents\">").unwrap()..];
    assert!(section.contains("<code>0c4c3cf8</code>"), "{section}");
    assert!(section.contains("<code>90fa40b6</code>"), "{section}");
    assert_eq!(section.matches(">Warmup</div>").count(), 2, "{section}");
    // A sub-agent's own transcript (every line a sidechain line) shows its conversation, and is
    // named by its file, not by the session it names.
    let printed = world
        .ctxhooks(["view", "--json", "--transcript"])
        .arg(world.transcript("agent-0c4c3cf8.jsonl"))
        .json();
    assert_eq!(printed["pages"][0]["messages"], 2, "{printed}");
    let path = world.state_dir().join("views").join("agent-0c4c3cf8.html");
    assert_eq!(printed["pages"][0]["path"], json!(path));
    let page = fs_err::read_to_string(&path).unwrap();
    assert!(conversation(&page).contains(">Warmup</div>"), "{page}");
}

#[test]
fn hundreds_of_sub_agents_keep_the_page_under_a_quarter_of_the_transcripts() {
    let world = World::new("view-subagent-many");
    let transcript = session_with_subagent(&world);
    let agent = fs_err::read(
        transcript
            .with_extension("")
            .join("subagents/agent-aac57f5.jsonl"),
    )
    .unwrap();
    let mut whole = fs_err::metadata(&transcript).unwrap().len() + agent.len() as u64;
    for copy in 0..300 {
        let path =
            world.write_transcript(format!("{MAROT}/subagents/agent-b{copy:06}.jsonl"), &agent);
        whole += fs_err::metadata(path).unwrap().len();
    }
    let out = world.join("many.html");
    let printed = world
        .ctxhooks(["view", "--json", "--out"])
        .arg(&out)
        .arg("--transcript")
        .arg(&transcript)
        .json();
    assert_eq!(printed["pages"][0]["subagents"], 301);
    let page = fs_err::metadata(&out).unwrap().len();
    assert!(page * 4 <= whole, "page {page} bytes, transcripts {whole}");
    let text = fs_err::read_to_string(&out).unwrap();
    // Each copy is cut with where the rest is, and no made-up command.
    assert!(
        text.matches("more messages of this sub-agent not shown")
            .count()
            >= 300,
        "{}",
        text.len()
    );
    assert!(text.contains("reads the main conversation only"));
}

#[test]
fn a_snapshots_page_is_drawn_from_the_copy_it_holds_and_an_unknown_one_writes_nothing() {
    let world = World::new("view-snapshot");
    let transcript = session_with_subagent(&world);
    let whole = fs_err::read(&transcript).unwrap();
    // What the transcript held when the automatic compaction began (its boundary is line 1,481).
    let before: Vec<u8> = whole
        .split_inclusive(|&byte| byte == b'\n')
        .take(1_480)
        .flatten()
        .copied()
        .collect();
    fs_err::write(&transcript, &before).unwrap();
    world
        .hook(Hook::PreCompact)
        .stdin(
            json!({"session_id": MAROT, "transcript_path": transcript, "cwd": "/work/demo",
                "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": null})
            .to_string(),
        )
        .success();
    fs_err::write(&transcript, &whole).unwrap();
    world
        .hook(Hook::Stop)
        .stdin(
            json!({"session_id": MAROT, "transcript_path": transcript, "cwd": "/work/demo",
                "hook_event_name": "Stop"})
            .to_string(),
        )
        .success();
    let listed = world
        .ctxhooks(["archives", "--session", MAROT, "--json"])
        .json();
    let name = listed[0]["name"].as_str().unwrap().to_owned();

    let latest = world
        .ctxhooks(["view", "--json", "--session", MAROT])
        .json();
    assert_eq!(latest["pages"][0]["compactions"], 1);
    let state_before = world.state_entries();
    let printed = world
        .ctxhooks(["view", "--json", "--session", MAROT, "--snapshot", &name])
        .json();
    let page = &printed["pages"][0];
    assert_eq!(page["compactions"], 0, "{printed}");
    assert!(page["messages"].as_u64().unwrap() < latest["pages"][0]["messages"].as_u64().unwrap());
    assert_eq!(page["subagents_nested"], 1, "{printed}");
    let path = world
        .state_dir()
        .join("views")
        .join(format!("{MAROT}.snapshot-{name}.html"));
    assert_eq!(page["path"], json!(path));
    // Nothing written in the state folder but the page.
    let mut expected = state_before.clone();
    expected.push(format!(
        "views{}{MAROT}.snapshot-{name}.html",
        std::path::MAIN_SEPARATOR
    ));
    expected.sort();
    assert_eq!(world.state_entries(), expected);
    let html = fs_err::read_to_string(&path).unwrap();
    assert!(!html.contains("<section class=\"compaction\""));
    // The last message the snapshot holds, and nothing the transcript held past it.
    assert!(conversation(&html).contains("Check OTEL hex package versions"));

    let unknown = world
        .ctxhooks(["view", "--session", MAROT, "--snapshot", "19990101"])
        .exit_code(1)
        .stderr_text();
    assert!(unknown.contains("no snapshot `19990101`"), "{unknown}");
    assert_eq!(world.state_entries(), expected, "nothing written");
}

#[test]
fn a_cut_thinking_names_the_recall_that_prints_it_whole() {
    let world = World::new("view-thinking-cut");
    let thought = format!("{}END-OF-THOUGHT", "I weigh the options. ".repeat(200));
    let lines = [
        json!({"type": "user", "sessionId": SESSION, "uuid": "u1",
            "timestamp": "2026-12-01T10:00:00.000Z", "cwd": "/work/demo", "version": "2.1.332",
            "message": {"role": "user", "content": "Which option?"}}),
        json!({"type": "assistant", "sessionId": SESSION, "uuid": "a1", "parentUuid": "u1",
            "timestamp": "2026-12-01T10:00:01.000Z", "cwd": "/work/demo", "version": "2.1.332",
            "requestId": "req_1",
            "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "thinking", "thinking": thought, "signature": "c2ln"}],
                "usage": {"input_tokens": 10, "output_tokens": 5}}}),
        json!({"type": "assistant", "sessionId": SESSION, "uuid": "a2", "parentUuid": "a1",
            "timestamp": "2026-12-01T10:00:02.000Z", "cwd": "/work/demo", "version": "2.1.332",
            "requestId": "req_1",
            "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "The second."}],
                "usage": {"input_tokens": 10, "output_tokens": 5}}}),
    ]
    .map(|line| line.to_string());
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), lines.join("\n") + "\n");
    stop(&world, &transcript);
    let page = world
        .ctxhooks(["view", "--json", "--session", SESSION])
        .json();
    let html = fs_err::read_to_string(page["pages"][0]["path"].as_str().unwrap()).unwrap();
    let command = format!("ctxhooks recall --session {SESSION} --message 2 --thinking");
    assert!(
        html.contains(&format!("<code>{command}</code> prints it whole")),
        "{html}"
    );
    assert!(!html.contains("END-OF-THOUGHT"));
    let whole = world
        .ctxhooks([
            "recall",
            "--session",
            SESSION,
            "--message",
            "2",
            "--thinking",
        ])
        .success()
        .stdout_text();
    assert!(whole.contains(&format!("[thinking] {thought}")), "{whole}");
    assert!(whole.contains("The second."), "{whole}");
    // Without `--thinking`, recall prints what it printed before: no thinking, the same numbers.
    let plain = world
        .ctxhooks(["recall", "--session", SESSION, "--message", "2"])
        .success()
        .stdout_text();
    assert!(!plain.contains("[thinking]"), "{plain}");
    assert!(plain.contains("── #2 assistant"), "{plain}");
    let json = world
        .ctxhooks(["recall", "--session", SESSION, "--json", "--thinking"])
        .json();
    assert_eq!(json[1]["parts"][0]["type"], "thinking");
    assert_eq!(json.as_array().unwrap().len(), 2);
}

#[test]
fn a_1_0_sessions_inline_sub_agents_are_folded_under_their_task_calls() {
    let world = World::new("view-subagent-inline");
    // 1.0.108: each Task call's sub-agent written inline, its lines `isSidechain: true`.
    let transcript = crate::support::transcript_fixture(
        "d-kimuson__claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    );
    let out = world.join("inline.html");
    let printed = world
        .ctxhooks(["view", "--json", "--out"])
        .arg(&out)
        .arg("--transcript")
        .arg(&transcript)
        .json();
    assert_eq!(printed["pages"][0]["subagents"], 2, "{printed}");
    assert_eq!(printed["pages"][0]["subagents_nested"], 2, "{printed}");
    let page = fs_err::read_to_string(&out).unwrap();
    let fold = agent_fold_after(
        &page,
        "description&quot;:&quot;Check package configuration&quot;",
    );
    assert!(
        fold.contains("Examine the package.json file(s) in /path/to/Demo"),
        "{fold}"
    );
    assert!(fold.contains("<b>Glob</b>"), "{fold}");
    let fold = agent_fold_after(
        &page,
        "description&quot;:&quot;Analyze current project structure",
    );
    assert!(
        fold.contains("Analyze the current project structure in /path/to/Demo"),
        "{fold}"
    );
    assert!(fold.contains("<b>Bash</b>"), "{fold}");
}

/// `--open` hands the page it wrote to the system's browser (`xdg-open` here, a stand-in first
/// on `PATH` that records what it was given), without waiting for it; with `--all`, the index.
/// Without a browser to hand it to, it says so and fails, the page written all the same.
#[cfg(all(unix, not(target_os = "macos")))]
#[test]
fn open_hands_the_written_page_to_the_browser_and_says_when_there_is_none() {
    use std::os::unix::fs::PermissionsExt as _;

    use crate::support::wait_until;

    let world = World::new("view-open");
    compacted_session(&world);
    let bin = world.join("browser-bin");
    fs_err::create_dir_all(&bin).unwrap();
    let opened = world.join("opened");
    let browser = bin.join("xdg-open");
    fs_err::write(
        &browser,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$#\" \"$@\" > '{0}.part' && mv '{0}.part' '{0}'\n",
            opened.display()
        ),
    )
    .unwrap();
    fs_err::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let handed = |args: &[&str]| {
        let _ = fs_err::remove_file(&opened);
        let printed = world.ctxhooks(args).env("PATH", &path).success();
        let given = wait_until("the browser given the page", || {
            fs_err::read_to_string(&opened).ok()
        });
        (printed, given)
    };

    let (printed, given) = handed(&["view", "--session", "last", "--json", "--open"]);
    let page = printed.json()["pages"][0]["path"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(given, format!("1\n{page}\n"));
    assert!(
        printed
            .stderr_text()
            .contains(&format!("handed {page} to the browser")),
        "{}",
        printed.stderr_text()
    );

    let (printed, given) = handed(&["view", "--all", "--json", "--open"]);
    let index = printed.json()["index"].as_str().unwrap().to_owned();
    assert!(index.ends_with("index.html"), "{index}");
    assert_eq!(given, format!("1\n{index}\n"));

    // No browser on PATH: the page is written, and the error says what could not be done.
    fs_err::remove_file(&page).unwrap();
    let failed = world
        .ctxhooks(["view", "--session", "last", "--open"])
        .env("PATH", world.join("nothing-here"))
        .failure();
    assert!(
        failed
            .stderr_text()
            .contains(&format!("failed to hand `{page}` to the browser")),
        "{}",
        failed.stderr_text()
    );
    assert!(Path::new(&page).is_file());
}
