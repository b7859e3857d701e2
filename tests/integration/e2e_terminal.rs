//! The real terminal: the pinned CLI run interactively in tmux, with the status line set by
//! `ctxhooks install --statusline` and the hooks by `ctxhooks install`, against the scripted
//! model server. The segment is read from the captured screen, and the warning a turn past the
//! share of the trigger gives is seen where the person sees it. Also the same warning in
//! `claude -p --output-format stream-json`, where an SDK runtime reads it.

use serde_json::{Value, json};

use crate::support::claude::Sandbox;
use crate::support::model_server::{ModelServer, Scripted, Usage};
use crate::support::terminal::{Terminal, tmux_available};
use crate::support::wait_until;

/// The project's window: T is 167,000 under 2.1.332.
const WINDOW: u64 = 200_000;

/// A sandbox with the hooks and the status line installed by the real installer, the project's
/// `autoCompactWindow` set; `None` when the CLI or tmux is missing (said loudly).
fn sandbox(name: &str) -> Option<Sandbox> {
    if !tmux_available("e2e_terminal") {
        return None;
    }
    let sandbox = Sandbox::new(name)?;
    sandbox.write_project_settings(&json!({ "autoCompactWindow": WINDOW }));
    let installed: Value =
        sandbox.ctxhooks_json(&["install", "--scope", "project", "--statusline", "--json"]);
    assert_eq!(installed["status_line"]["action"], "added", "{installed:#}");
    Some(sandbox)
}

/// The session's gauge once `ready` holds for it (the Stop hook runs while the TUI already shows
/// the answer); fails after a bound against hangs.
fn gauge_when(sandbox: &Sandbox, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
    wait_until(what, || {
        let output = sandbox.ctxhooks(&["gauge", "--session", "last", "--json"]);
        let gauge: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        ready(&gauge).then_some(gauge)
    })
}

/// The lines of `screen` that hold `text`.
fn lines_with(screen: &str, text: &str) -> Vec<String> {
    screen
        .lines()
        .filter(|line| line.contains(text))
        .map(ToOwned::to_owned)
        .collect()
}

#[test]
fn the_status_line_segment_shows_the_context_against_the_trigger_in_a_real_terminal() {
    let Some(sandbox) = sandbox("terminal-statusline") else {
        return;
    };
    let server = ModelServer::start();
    server.push([
        Scripted::text("First answer.", Usage::context(100_000)),
        Scripted::text("Second answer.", Usage::context(142_503)),
    ]);
    let terminal = Terminal::start(&sandbox, &server, &["--permission-mode", "default"], 200);
    // Before any answer: no context yet, T from the rule for the model and the project's
    // window.
    terminal.wait_for("the prompt and the segment", |screen| {
        screen.contains('❯') && screen.contains("ctx ? / 167k · 0 compactions")
    });
    terminal.submit("first question");
    terminal.wait_for("the first answer's segment", |screen| {
        screen.contains("First answer.") && screen.contains("ctx 100k / 167k (59%) · 67k left")
    });
    terminal.submit("second question");
    let screen = terminal.wait_for("the second answer's segment", |screen| {
        screen.contains("Second answer.")
            && screen.contains("ctx 142k / 167k (85%) · 24k left · 0 compactions")
    });
    // One status line, not two.
    assert_eq!(lines_with(&screen, "ctx 142k").len(), 1, "{screen}");
    // Near the trigger it is yellow (75% to the warning share).
    let coloured = terminal.screen(true);
    let line = lines_with(&coloured, "ctx 142k").pop().unwrap_or_default();
    assert!(
        line.contains("\u{1b}[33m"),
        "the segment is not yellow: {line:?}"
    );
    // The Stop hook wrote the gauge the segment reads its count from (it may still be running
    // when the answer shows), and no error.
    let session = gauge_when(&sandbox, "the gauge of the second answer", |gauge| {
        gauge["context_tokens"] == 142_503
    });
    assert_eq!(session["trigger_tokens"], 167_000);
    assert_eq!(sandbox.problems(), Vec::<String>::new());
    // An interactive `/compact` has no Stop after it, and Claude Code's status line input then
    // holds a usage of zeros: the segment shows what the compaction left (the PostCompact hook
    // read its boundary) and counts it.
    terminal.submit("/compact keep it");
    let screen = terminal.wait_for("the segment after /compact", |screen| {
        screen.contains("Compacted") && screen.contains("after compaction / 167k")
    });
    let line = lines_with(&screen, "after compaction")
        .pop()
        .unwrap_or_default();
    assert!(line.trim_end().ends_with("· 1 compaction"), "{line}");
    terminal.submit("third question");
    terminal.wait_for("the segment after the next answer", |screen| {
        screen.contains("ctx 10k / 167k (5%) · 157k left · 1 compaction")
    });
    assert_eq!(sandbox.problems(), Vec::<String>::new());
}

#[test]
fn a_turn_past_the_warning_share_shows_one_warning_in_a_real_terminal() {
    let Some(sandbox) = sandbox("terminal-warning") else {
        return;
    };
    let server = ModelServer::start();
    server.push([
        Scripted::text("Below the share.", Usage::context(140_000)),
        Scripted::text("Past the share.", Usage::context(152_000)),
        Scripted::text("Still past it.", Usage::context(155_000)),
    ]);
    let terminal = Terminal::start(&sandbox, &server, &["--permission-mode", "default"], 250);
    terminal.wait_for("the prompt", |screen| screen.contains('❯'));
    terminal.submit("one");
    terminal.wait_for("the first answer", |screen| {
        screen.contains("Below the share.") && screen.contains("ctx 140k")
    });
    terminal.submit("two");
    let warned = terminal.wait_for("the warning", |screen| {
        screen.contains("Past the share.")
            && screen.contains("ctxhooks: context is at 91% of the auto-compact trigger")
    });
    assert!(
        warned.contains("(152k of 167k tokens, 15k left)"),
        "{warned}"
    );
    terminal.submit("three");
    let screen = terminal.wait_for("the third answer", |screen| {
        screen.contains("Still past it.") && screen.contains("ctx 155k")
    });
    // Shown by Claude Code as the Stop hook's message, once: not again on the next turn.
    let warnings = lines_with(&screen, "ctxhooks: context is at");
    assert_eq!(warnings.len(), 1, "{screen}");
    assert!(warnings[0].contains("Stop says:"), "{screen}");
    // Red from the warning share on.
    let coloured = terminal.screen(true);
    let line = lines_with(&coloured, "ctx 155k").pop().unwrap_or_default();
    assert!(
        line.contains("\u{1b}[31m"),
        "the segment is not red: {line:?}"
    );
    assert_eq!(sandbox.problems(), Vec::<String>::new());
}

/// Issue 30: a person who picked a 1M-context model got a false warning on every turn past
/// 150,000 (the transcript's `message.model` has no `[1m]`, so the session was judged against
/// 200,000). Run with `--model 'claude-sonnet-4-5-20250929[1m]'` and the project's window at
/// 1,000,000 (T 967,000 for it, by the CLI's debug log): past 200,000 the segment is under 100 %
/// and no warning shows.
#[test]
fn a_million_window_session_past_200k_is_measured_against_its_own_window_in_a_real_terminal() {
    if !tmux_available("e2e_terminal") {
        return;
    }
    let Some(sandbox) = Sandbox::new("terminal-million") else {
        return;
    };
    sandbox.write_project_settings(&json!({ "autoCompactWindow": 1_000_000 }));
    let installed: Value =
        sandbox.ctxhooks_json(&["install", "--scope", "project", "--statusline", "--json"]);
    assert_eq!(installed["status_line"]["action"], "added", "{installed:#}");
    let server = ModelServer::start();
    server.push([
        Scripted::text("Past two hundred thousand.", Usage::context(250_000)),
        Scripted::text("Past three hundred thousand.", Usage::context(300_000)),
    ]);
    let model = "claude-sonnet-4-5-20250929[1m]";
    let terminal = Terminal::start(
        &sandbox,
        &server,
        &["--permission-mode", "default", "--model", model],
        200,
    );
    terminal.wait_for("the prompt and the segment", |screen| {
        screen.contains('❯') && screen.contains("ctx ? / 967k · 0 compactions")
    });
    terminal.submit("one");
    terminal.wait_for("the first answer's segment", |screen| {
        screen.contains("Past two hundred thousand.")
            && screen.contains("ctx 250k / 967k (25%) · 717k left")
    });
    terminal.submit("two");
    let screen = terminal.wait_for("the second answer's segment", |screen| {
        screen.contains("Past three hundred thousand.")
            && screen.contains("ctx 300k / 967k (31%) · 667k left")
    });
    let gauge = gauge_when(&sandbox, "the gauge of the second answer", |gauge| {
        gauge["context_tokens"] == 300_000
    });
    assert_eq!(gauge["trigger_tokens"], 967_000, "{gauge:#}");
    assert_eq!(gauge["trigger"]["model"], model, "{gauge:#}");
    assert!(
        gauge["percent"]
            .as_f64()
            .is_some_and(|percent| percent < 100.0),
        "{gauge:#}"
    );
    assert_eq!(gauge["warned"], false, "{gauge:#}");
    // The Stop hook of the second turn has run (the gauge says so): no warning was shown.
    let screen = format!("{screen}\n{}", terminal.screen(false));
    assert!(
        lines_with(&screen, "ctxhooks: context is at").is_empty(),
        "{screen}"
    );
    // The API was asked for the model without `[1m]`, as the transcript names it.
    assert!(
        server
            .served()
            .iter()
            .all(|served| served.model == "claude-sonnet-4-5-20250929"),
    );
    assert_eq!(sandbox.problems(), Vec::<String>::new());
}

#[test]
fn the_warning_reaches_a_stream_json_runtime_as_an_informational_message() {
    // No terminal here: what an SDK runtime or `claude -p --output-format stream-json` sees.
    let Some(sandbox) = Sandbox::new("stream-warning") else {
        return;
    };
    sandbox.write_project_settings(&json!({ "autoCompactWindow": WINDOW }));
    sandbox.install_hooks();
    let server = ModelServer::start();
    server.push([Scripted::text("Past the share.", Usage::context(152_000))]);
    let output = sandbox
        .run_claude(&server)
        .args(["-p", "one", "--output-format", "stream-json", "--verbose"])
        .success();
    let messages: Vec<Value> = output
        .stdout_text()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .filter(|message: &Value| {
            message["type"] == "system" && message["subtype"] == "informational"
        })
        .collect();
    assert_eq!(messages.len(), 1, "{messages:#?}");
    let content = messages[0]["content"].as_str().unwrap();
    assert!(
        content.starts_with("Stop says: ctxhooks: context is at 91% of the auto-compact trigger"),
        "{content}"
    );
    // A runtime reads the same numbers with one command.
    let gauge = sandbox.ctxhooks_json(&["gauge", "--session", "last", "--json"]);
    assert_eq!(
        (
            gauge["percent"].as_f64(),
            gauge["room_left"].as_i64(),
            gauge["warned"].as_bool()
        ),
        (Some(91.0), Some(15_000), Some(true))
    );
}

#[test]
fn the_warning_share_set_in_the_settings_env_block_reaches_the_hook() {
    // `CTXHOOKS_WARN_AT` in a settings file's `env` block: Claude Code gives it to its hooks.
    let Some(sandbox) = Sandbox::new("stream-warning-share") else {
        return;
    };
    sandbox.write_project_settings(&json!({
        "autoCompactWindow": WINDOW,
        "env": { "CTXHOOKS_WARN_AT": "50" },
    }));
    sandbox.install_hooks();
    let server = ModelServer::start();
    server.push([Scripted::text("Over half.", Usage::context(100_000))]);
    let output = sandbox
        .run_claude(&server)
        .args(["-p", "one", "--output-format", "stream-json", "--verbose"])
        .success();
    let stdout = output.stdout_text();
    assert!(
        stdout.contains("ctxhooks: context is at 59% of the auto-compact trigger"),
        "{stdout}"
    );
    let gauge = sandbox.ctxhooks_json(&["gauge", "--session", "last", "--json"]);
    assert_eq!(gauge["warn_at_percent"], 50);
}
