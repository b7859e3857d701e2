//! End-to-end tests of the kept transcript copies with the real Claude Code CLI: a session whose
//! transcript is deleted (as the CLI's cleanup would) is restored and continued with
//! `claude --resume`, and so is every such session at once (`archives restore --deleted`); after
//! `/compact`, the model is told how to recall the conversation before it, and the command it is
//! told finds what only that part held; and it is told what the summary left out (a file
//! written, a command that failed).

use serde_json::Value;

use crate::support::claude::Sandbox;
use crate::support::model_server::{Block, ModelServer, RequestKind, Scripted, Usage};

/// The served conversation requests whose body holds `text` anywhere.
fn requests_holding(server: &ModelServer, text: &str) -> Vec<usize> {
    server
        .served()
        .iter()
        .enumerate()
        .filter(|(_, served)| served.body["messages"].to_string().contains(text))
        .map(|(index, _)| index)
        .collect()
}

#[test]
fn a_deleted_transcript_is_restored_and_resume_continues_it() {
    let Some(sandbox) = Sandbox::new("keep-restore") else {
        return;
    };
    sandbox.install_hooks();
    let server = ModelServer::start();
    server.push([
        Scripted::bash("echo kept > kept.txt", Usage::context(20_000)),
        Scripted::text("Noted the code word.", Usage::context(21_000)),
        Scripted::text("Another session.", Usage::context(20_000)),
        Scripted::text("The code word was PAPAYA-17.", Usage::context(22_000)),
    ]);
    let first = sandbox.prompt(&server, "remember the code word PAPAYA-17", None);
    let session = first["session_id"].as_str().unwrap().to_owned();
    let transcript = sandbox.transcript_path(&session);
    let original = fs_err::read(&transcript).unwrap();
    // A later session's turn, as Claude Code's cleanup comes days after a session: its Stop hook
    // keeps what the first one's SessionEnd left, should a busy machine have cut that short.
    let later = sandbox.prompt(&server, "something else", None);
    assert_ne!(later["session_id"], session.as_str());

    // Every byte of it is kept.
    let sessions = sandbox.ctxhooks_json(&["sessions", "--json"]);
    let listed = sessions
        .as_array()
        .unwrap()
        .iter()
        .find(|listed| listed["session_id"] == session.as_str())
        .unwrap();
    assert_eq!(listed["size"], original.len(), "{sessions:#}");
    assert_eq!(listed["transcript_present"], true);
    assert_eq!(
        listed["project"],
        sandbox.project.to_string_lossy().as_ref(),
        "{sessions:#}"
    );

    // Claude Code's cleanup deletes the transcript (and the session's folder beside it).
    fs_err::remove_file(&transcript).unwrap();
    let beside = transcript.with_extension("");
    if beside.is_dir() {
        fs_err::remove_dir_all(&beside).unwrap();
    }
    let sessions = sandbox.ctxhooks_json(&["sessions", "--json"]);
    let listed = sessions
        .as_array()
        .unwrap()
        .iter()
        .find(|listed| listed["session_id"] == session.as_str())
        .unwrap();
    assert_eq!(listed["transcript_present"], false, "{sessions:#}");

    // The restore writes it back byte for byte, 0600.
    sandbox
        .run_ctxhooks(["archives", "restore", "--session", &session])
        .stdout_contains(format!("claude --resume {session}"))
        .success();
    assert_eq!(fs_err::read(&transcript).unwrap(), original);
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &fs_err::metadata(&transcript).unwrap().permissions(),
    ) & 0o777;
    assert_eq!(mode, 0o600);
    // A second restore refuses to write over it.
    sandbox
        .run_ctxhooks(["archives", "restore", "--session", &session[..8]])
        .stderr_contains("already exist")
        .exit_code(1);

    // The resumed session continues: the model server receives the earlier conversation.
    let before = server.served().len();
    let resumed = sandbox.prompt(&server, "what was the code word?", Some(&session));
    assert_eq!(resumed["session_id"], session.as_str());
    let served = server.served();
    let continued = served[before..]
        .iter()
        .find(|served| served.kind == RequestKind::Scripted)
        .expect("the resumed session sent no request");
    let conversation = continued.body["messages"].to_string();
    assert!(
        conversation.contains("remember the code word PAPAYA-17"),
        "the resumed request lacks the earlier prompt: {conversation}"
    );
    assert!(
        conversation.contains("Noted the code word."),
        "{conversation}"
    );
    assert!(conversation.contains("what was the code word?"));
    sandbox.run_ctxhooks(["archives", "verify"]).success();
    assert_eq!(sandbox.problems(), Vec::<String>::new());
}

#[test]
fn every_session_the_cleanup_deleted_comes_back_in_one_step_and_each_resumes() {
    let Some(sandbox) = Sandbox::new("keep-restore-deleted") else {
        return;
    };
    sandbox.install_hooks();
    let server = ModelServer::start();
    server.push([
        Scripted::text("Noted QUINCE-4.", Usage::context(20_000)),
        Scripted::text("Noted TAMARIND-8.", Usage::context(20_000)),
        Scripted::text("Another session.", Usage::context(20_000)),
        Scripted::text("It was QUINCE-4.", Usage::context(21_000)),
        Scripted::text("It was TAMARIND-8.", Usage::context(21_000)),
    ]);
    let mut sessions = Vec::new();
    for word in ["QUINCE-4", "TAMARIND-8"] {
        let result = sandbox.prompt(&server, &format!("remember the word {word}"), None);
        let session = result["session_id"].as_str().unwrap().to_owned();
        let transcript = sandbox.transcript_path(&session);
        sessions.push((
            session,
            transcript.clone(),
            fs_err::read(&transcript).unwrap(),
        ));
    }
    // A later session's turn, as Claude Code's cleanup comes days after a session: its Stop hook
    // keeps what a SessionEnd cut short by a busy machine left.
    let later = sandbox.prompt(&server, "something else", None);
    let later = later["session_id"].as_str().unwrap().to_owned();
    // Claude Code's cleanup deletes both transcripts and, since 2.1.110, their folders.
    for (_, transcript, _) in &sessions {
        fs_err::remove_file(transcript).unwrap();
        let beside = transcript.with_extension("");
        if beside.is_dir() {
            fs_err::remove_dir_all(&beside).unwrap();
        }
    }
    let listed = sandbox.ctxhooks_json(&["sessions", "--json"]);
    assert!(
        listed
            .as_array()
            .unwrap()
            .iter()
            .filter(|session| session["session_id"] != later.as_str())
            .all(|session| session["cleanup"]["state"] == "deleted"),
        "{listed:#}"
    );

    let restored = sandbox.ctxhooks_json(&["archives", "restore", "--deleted", "--json"]);
    assert_eq!(
        restored["restored"].as_array().unwrap().len(),
        2,
        "{restored:#}"
    );
    assert_eq!(restored["failed"], Value::Array(Vec::new()));
    for (session, transcript, original) in &sessions {
        assert_eq!(&fs_err::read(transcript).unwrap(), original, "{session}");
    }
    // Each continues: its resumed request holds its own earlier conversation.
    for ((session, _, _), word) in sessions.iter().zip(["QUINCE-4", "TAMARIND-8"]) {
        let before = server.served().len();
        let resumed = sandbox.prompt(&server, "which word was it?", Some(session));
        assert_eq!(resumed["session_id"], session.as_str());
        let served = server.served();
        let continued = served[before..]
            .iter()
            .find(|served| served.kind == RequestKind::Scripted)
            .expect("the resumed session sent no request");
        let conversation = continued.body["messages"].to_string();
        assert!(
            conversation.contains(&format!("remember the word {word}")),
            "{session}: {conversation}"
        );
    }
    // Nothing is deleted any more, so a second run restores nothing.
    let again = sandbox.ctxhooks_json(&["archives", "restore", "--deleted", "--json"]);
    assert_eq!(again["restored"], Value::Array(Vec::new()));
    assert_eq!(sandbox.problems(), Vec::<String>::new());
}

#[test]
fn after_compact_the_model_is_told_how_to_recall_and_the_command_finds_the_past() {
    let Some(sandbox) = Sandbox::new("keep-recall") else {
        return;
    };
    sandbox.install_hooks();
    let server = ModelServer::start();
    server.push([
        Scripted::text(
            "Understood, I will keep it in mind.",
            Usage::context(30_000),
        ),
        Scripted::text("Carrying on.", Usage::context(12_000)),
    ]);
    let phrase = "MARMALADE-SKYLINE-93";
    let first = sandbox.prompt(
        &server,
        &format!("the deployment password is {phrase}; acknowledge only"),
        None,
    );
    let session = first["session_id"].as_str().unwrap().to_owned();
    sandbox.prompt(&server, "/compact", Some(&session));
    assert!(
        server
            .served()
            .iter()
            .any(|served| served.kind == RequestKind::Summary),
        "the CLI never compacted"
    );
    let before = server.served().len();
    sandbox.prompt(&server, "carry on", Some(&session));
    let served = server.served();
    let next = served[before..]
        .iter()
        .find(|served| served.kind == RequestKind::Scripted)
        .expect("no request after the compaction");
    let body = next.body.to_string();
    // The note reached the model, with the exact command; the phrase itself did not.
    assert!(
        body.contains(
            "ctxhooks keeps this session's whole conversation from before the compaction"
        ),
        "the note did not reach the model: {body}"
    );
    assert!(!body.contains(phrase), "the request still holds the phrase");
    let messages: Value = next.body["messages"].clone();
    let text = messages.to_string();
    let start = text
        .find("search it with Bash: ")
        .map(|start| start + "search it with Bash: ".len())
        .expect("no command in the note");
    let end = start + text[start..].find(" (case-insensitive").unwrap();
    // The note is inside a JSON string: its quotes are escaped there.
    let command = text[start..end].replace("\\\"", "\"").replace("\\\\", "\\");
    assert!(
        command.contains(&format!(
            "recall --session {session} --before-compaction last"
        )),
        "{command}"
    );
    // Only the first request and the compaction's summary request held it.
    assert!(
        requests_holding(&server, phrase)
            .iter()
            .all(|index| *index < before),
        "a request after the compaction held the phrase"
    );

    // The model runs it through Bash: a shell, the sandbox's HOME, no CTXHOOKS_HOME.
    let command = command.replace("'WORDS'", "'marmalade-skyline'");
    let found = sandbox
        .world()
        .program("sh")
        .args(["-c", &command])
        .env_remove("CTXHOOKS_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .success()
        .stdout_text();
    assert!(found.contains(phrase), "{found}");
    assert!(found.contains("before compaction 1"), "{found}");
    assert!(found.contains("1 message(s) shown"), "{found}");

    // PostCompact recorded the summary beside the snapshot.
    let archives = sandbox.ctxhooks_json(&["archives", "--session", &session, "--json"]);
    let summary = archives[0]["compact_summary"]["compact_summary"]
        .as_str()
        .unwrap_or_default();
    assert!(summary.contains("Keep the file ids"), "{archives:#}");
    sandbox.run_ctxhooks(["archives", "verify"]).success();
    assert_eq!(sandbox.problems(), Vec::<String>::new());
}

/// Every part of a string in `value` from `text` on (to the end of its paragraph: a blank line
/// or the end of the string), walking objects and arrays.
fn strings_holding(value: &Value, text: &str, found: &mut Vec<String>) {
    match value {
        Value::String(string) => {
            for (start, _) in string.match_indices(text) {
                let rest = &string[start..];
                let end = rest.find("\n\n").unwrap_or(rest.len());
                found.push(rest[..end].to_owned());
            }
        }
        Value::Array(values) => {
            for value in values {
                strings_holding(value, text, found);
            }
        }
        Value::Object(map) => {
            for value in map.values() {
                strings_holding(value, text, found);
            }
        }
        _ => {}
    }
}

#[test]
fn after_compact_the_model_is_told_the_file_and_the_command_the_summary_left_out() {
    let Some(sandbox) = Sandbox::new("keep-left-out") else {
        return;
    };
    sandbox.install_hooks();
    let server = ModelServer::start();
    let plan = sandbox.project.join("notes").join("plan-zebra-41.md");
    server.push([
        Scripted {
            blocks: vec![Block::ToolUse {
                name: "Write".to_owned(),
                input: serde_json::json!({"file_path": plan, "content": "step one\n"}),
            }],
            usage: Usage::context(20_000),
        },
        Scripted::bash("cat quokka-missing-41.txt", Usage::context(21_000)),
        Scripted::text(
            "The plan is written; the notes file is missing.",
            Usage::context(22_000),
        ),
    ]);
    // A summary that names neither the file nor the command.
    server.set_summary_text(
        "<summary>The user asked for a plan and some checks; work is under way.</summary>",
    );
    let first = sandbox.prompt_allowing(
        &server,
        "write the plan, then show the notes",
        None,
        "Bash Write",
    );
    let session = first["session_id"].as_str().unwrap().to_owned();
    assert!(plan.exists(), "the CLI did not write the plan");
    sandbox.prompt(&server, "/compact", Some(&session));
    assert!(
        server
            .served()
            .iter()
            .any(|served| served.kind == RequestKind::Summary),
        "the CLI never compacted"
    );
    let before = server.served().len();
    sandbox.prompt(&server, "carry on", Some(&session));
    // Every request that follows the compaction: the note reached the model in one of them, and
    // each copy of it names the file written and the command that failed (the CLI may attach
    // the file itself after a compaction: only the note's own words count here).
    let mut notes = Vec::new();
    for served in &server.served()[before..] {
        strings_holding(
            &served.body["messages"],
            "ctxhooks keeps this session's whole conversation",
            &mut notes,
        );
    }
    assert!(
        !notes.is_empty(),
        "no request after the compaction held the note"
    );
    for note in &notes {
        // 2.1.332 runs SessionStart before it writes the boundary and the summary, and before
        // PostCompact: the list cannot be checked against the summary yet, and says so.
        assert!(
            note.contains("Its summary could not be checked yet"),
            "{note}"
        );
        assert!(note.contains("- edited: notes/plan-zebra-41.md"), "{note}");
        assert!(
            note.contains("- failed commands: `cat quokka-missing-41.txt` (exit 1)"),
            "{note}"
        );
    }
    // The ledger says the same of the compaction.
    let ledger = sandbox.ctxhooks_json(&["compactions", "--session", &session, "--json"]);
    let compaction = &ledger["compactions"][0];
    assert_eq!(
        compaction["items"]["edited"][0]["verdict"], "left_out",
        "{ledger:#}"
    );
    assert_eq!(
        compaction["items"]["commands"][0]["command"],
        "cat quokka-missing-41.txt"
    );
    assert_eq!(compaction["items"]["commands"][0]["verdict"], "left_out");
    assert_eq!(compaction["items"]["commands"][0]["exit_code"], 1);
    assert_eq!(sandbox.problems(), Vec::<String>::new());
}
