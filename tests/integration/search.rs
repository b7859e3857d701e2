//! Tests for `ctxhooks search` and `ctxhooks mcp`: the index follows the kept copies and the
//! live transcripts incrementally, reflects a new generation and a rewritten file, is rebuilt
//! when damaged, refuses bad queries and links, and the MCP server answers over stdio.

use std::io::{BufRead as _, BufReader, Write as _};
#[cfg(unix)]
use std::os::unix::fs::FileTypeExt as _;
use std::path::Path;
use std::process::Stdio;

use serde_json::{Value, json};

use crate::keep::{SESSION, stop};
#[cfg(unix)]
use crate::support::make_fifo;
use crate::support::run::{CTXHOOKS, CTXHOOKS_SEARCH, Run};
use crate::support::{Hook, World, mode};
use ctxhooks_shared::test_support::set_modified;

pub fn user(uuid: &str, time: &str, text: &str) -> String {
    json!({"type": "user", "uuid": uuid, "sessionId": SESSION, "cwd": "/work/demo",
        "timestamp": time, "message": {"role": "user", "content": text}})
    .to_string()
        + "\n"
}

pub fn assistant(uuid: &str, time: &str, text: &str) -> String {
    json!({"type": "assistant", "uuid": uuid, "sessionId": SESSION, "cwd": "/work/demo",
        "timestamp": time, "message": {"id": format!("msg_{uuid}"), "role": "assistant",
        "content": [{"type": "text", "text": text}]}})
    .to_string()
        + "\n"
}

pub fn search(world: &World, args: &[&str]) -> Value {
    let mut all = vec!["search", "--json"];
    all.extend_from_slice(args);
    world.ctxhooks(all).success().json()
}

/// The snippets' marked words of a search's results.
fn marked(outcome: &Value) -> Vec<Vec<String>> {
    outcome["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|result| {
            let text: Vec<char> = result["snippet"]["text"]
                .as_str()
                .unwrap()
                .chars()
                .collect();
            result["snippet"]["matches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|pair| {
                    let start = usize::try_from(pair[0].as_u64().unwrap()).unwrap();
                    let end = usize::try_from(pair[1].as_u64().unwrap()).unwrap();
                    text[start..end].iter().collect()
                })
                .collect()
        })
        .collect()
}

fn count(outcome: &Value) -> usize {
    outcome["results"].as_array().unwrap().len()
}

#[test]
fn search_follows_kept_and_live_bytes_incrementally_once_each() {
    let world = World::new("search-incremental");
    let transcript = world.transcript_path(SESSION);
    let first = user(
        "u1",
        "2026-11-01T10:00:00.000Z",
        "remember the word Avocado please",
    ) + &assistant(
        "a1",
        "2026-11-01T10:00:05.000Z",
        "Noted: the transcript renderer.",
    );
    fs_err::write(&transcript, &first).unwrap();
    stop(&world, &transcript);

    let found = search(&world, &["avocado"]);
    assert_eq!(count(&found), 1, "{found:#}");
    let result = &found["results"][0];
    assert_eq!(result["session"], SESSION);
    assert_eq!(result["role"], "user");
    // Kept, and still in the live transcript: read from the live file (a seek), not inflated
    // from the kept copy's member.
    assert_eq!(result["origin"], "live");
    assert_eq!(result["generation"], 1);
    assert_eq!(result["project"], "/work/demo");
    assert_eq!(marked(&found), [["Avocado"]]);
    assert_eq!(found["indexed_bytes"], first.len());
    let next = result["next"].as_array().unwrap();
    assert!(
        next[0]
            .as_str()
            .unwrap()
            .starts_with(&format!("ctxhooks recall --session {SESSION} avocado")),
        "{next:?}"
    );

    // A turn the hooks have not kept yet is read from the live transcript, and only it.
    let turn = user("u2", "2026-11-02T09:00:00.000Z", "now think of a zucchini");
    let mut file = fs_err::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .unwrap();
    file.write_all(turn.as_bytes()).unwrap();
    // Closed: on Windows a file still open is not gone until it is closed (its removal below).
    drop(file);
    let live = search(&world, &["zucchini"]);
    assert_eq!(count(&live), 1);
    assert_eq!(live["results"][0]["origin"], "live");
    assert_eq!(live["indexed_bytes"], turn.len());
    assert_eq!(live["indexed_messages"], 1);

    // Once kept, the same line is one result, and nothing is read again.
    stop(&world, &transcript);
    let kept = search(&world, &["zucchini"]);
    assert_eq!(count(&kept), 1, "{kept:#}");
    assert_eq!(kept["results"][0]["generation"], 1);
    assert_eq!(kept["indexed_bytes"], 0);

    // Phrases, prefixes and filters.
    assert_eq!(count(&search(&world, &["\"transcript renderer\""])), 1);
    assert_eq!(count(&search(&world, &["\"renderer transcript\""])), 0);
    assert_eq!(marked(&search(&world, &["avoc*"])), [["Avocado"]]);
    assert_eq!(
        count(&search(&world, &["avocado", "--role", "assistant"])),
        0
    );
    assert_eq!(
        count(&search(&world, &["avocado", "--session", &SESSION[..8]])),
        1
    );
    assert_eq!(
        count(&search(&world, &["avocado", "--project", "elsewhere"])),
        0
    );
    assert_eq!(
        count(&search(&world, &["zucchini", "--until", "2026-11-01"])),
        0
    );
    assert_eq!(
        count(&search(&world, &["zucchini", "--since", "2026-11-02"])),
        1
    );

    // Text output marks the match in brackets when stdout is not a terminal.
    world
        .ctxhooks(["search", "avocado"])
        .stdout_contains("[Avocado]")
        .success();

    // The live transcript gone (Claude Code deleted it), or no longer holding the line (its
    // bytes rewritten in place, the same length), the kept copy is read.
    let bytes = fs_err::read(&transcript).unwrap();
    let rewritten = String::from_utf8(bytes.clone())
        .unwrap()
        .replace("Avocado", "Avocadx");
    fs_err::write(&transcript, &rewritten).unwrap();
    let from_kept = search(&world, &["avocado"]);
    assert_eq!(from_kept["results"][0]["origin"], "kept", "{from_kept:#}");
    assert_eq!(marked(&from_kept), [["Avocado"]]);
    fs_err::remove_file(&transcript).unwrap();
    let from_kept = search(&world, &["zucchini"]);
    assert_eq!(count(&from_kept), 1, "{from_kept:#}");
    assert_eq!(from_kept["results"][0]["origin"], "kept");
    assert_eq!(marked(&from_kept), [["zucchini"]]);
}

#[test]
fn a_new_generation_and_a_rewritten_live_file_replace_their_rows() {
    let world = World::new("search-generations");
    let transcript = world.transcript_path(SESSION);
    let shared = user("u1", "2026-11-01T10:00:00.000Z", "the shared opening line");
    fs_err::write(
        &transcript,
        shared.clone() + &assistant("a1", "2026-11-01T10:00:01.000Z", "alpha was said first"),
    )
    .unwrap();
    stop(&world, &transcript);
    assert_eq!(count(&search(&world, &["alpha"])), 1);
    // A rewrite: the kept copy starts generation 2; generation 1 stays kept and searchable.
    fs_err::write(
        &transcript,
        shared + &assistant("a2", "2026-11-01T10:00:02.000Z", "beta replaced it"),
    )
    .unwrap();
    stop(&world, &transcript);
    let beta = search(&world, &["beta"]);
    assert_eq!(count(&beta), 1);
    assert_eq!(beta["results"][0]["generation"], 2);
    assert_eq!(beta["results"][0]["origin"], "live");
    let alpha = search(&world, &["alpha"]);
    assert_eq!(alpha["results"][0]["generation"], 1);
    // The live file carries generation 2 on, not 1: generation 1's line is read from the kept
    // copy.
    assert_eq!(alpha["results"][0]["origin"], "kept");
    assert_eq!(marked(&alpha), [["alpha"]]);
    // The line both generations hold is one result.
    assert_eq!(count(&search(&world, &["shared", "opening"])), 1);

    // A transcript ctxhooks does not keep, rewritten in place: its old words go.
    let other = "0f0e0d0c-0000-4000-8000-000000000001";
    let path = world.transcript_path(other);
    fs_err::write(&path, user("g1", "2026-11-03T10:00:00.000Z", "gamma ray")).unwrap();
    assert_eq!(search(&world, &["gamma"])["results"][0]["origin"], "live");
    fs_err::write(&path, user("g1", "2026-11-03T10:00:00.000Z", "delta wave")).unwrap();
    assert_eq!(count(&search(&world, &["gamma"])), 0);
    assert_eq!(count(&search(&world, &["delta"])), 1);
    // Deleted: gone from the index too.
    fs_err::remove_file(&path).unwrap();
    assert_eq!(count(&search(&world, &["delta"])), 0);
}

/// Every transcript replaced at once by a copy of itself (a projects folder restored from a
/// backup, or copied without its files' identities): each is read again, the index finds what
/// it found, and it holds what a fresh build of the same transcripts holds (FTS5 records within
/// a tenth). The rows that
/// no longer stand go before any new one is added: dropped between one source's new rows and
/// the next, each source cost FTS5 a segment of its own and a merge of it, and the index grew
/// half as large again (and took 8 times a fresh build's time) on the benches' corpus.
#[test]
fn transcripts_replaced_by_copies_are_read_again_into_an_index_like_a_fresh_one() {
    let world = World::new("search-replaced");
    let sessions: Vec<String> = (0..80)
        .map(|n| format!("0a0b0c0d-0000-4000-8000-{n:012}"))
        .collect();
    for (n, session) in sessions.iter().enumerate() {
        let lines: String = (0..40)
            .map(|m| {
                json!({"type": "user", "uuid": format!("u{n}-{m}"), "sessionId": session,
                    "cwd": "/work/demo", "timestamp": "2026-11-01T10:00:00.000Z",
                    "message": {"role": "user",
                        "content": format!("word{n}x{m} common{m} shared text of session {n}")}})
                .to_string()
                    + "\n"
            })
            .collect();
        fs_err::write(world.transcript_path(session), lines).unwrap();
    }
    let queries = [&["common7"][..], &["word3x4"], &["shared", "text"]];
    let before: Vec<Value> = queries
        .iter()
        .map(|query| search(&world, query)["results"].clone())
        .collect();
    assert_eq!(count(&search(&world, &["word3x4"])), 1);
    for session in &sessions {
        let path = world.transcript_path(session);
        let copy = path.with_extension("copy");
        fs_err::copy(&path, &copy).unwrap();
        fs_err::rename(&copy, &path).unwrap();
    }
    let after: Vec<Value> = queries
        .iter()
        .map(|query| search(&world, query)["results"].clone())
        .collect();
    assert_eq!(after, before);
    let index = world.state_dir().join("search").join("index.sqlite");
    let pages = |index: &Path| -> i64 {
        rusqlite::Connection::open(index)
            .unwrap()
            .query_row("SELECT count(*) FROM body_data", [], |row| row.get(0))
            .unwrap()
    };
    let replaced = pages(&index);
    fs_err::remove_file(&index).unwrap();
    assert_eq!(search(&world, queries[0])["results"], before[0]);
    let fresh = pages(&index);
    assert!(
        replaced <= fresh + fresh / 10,
        "the index after the copies holds {replaced} FTS5 records, a fresh one {fresh}"
    );
}

/// The check of what changed in the projects folder since the last search looks at each
/// transcript once: a new transcript, one appended to (its folder's listing unchanged), one
/// removed, and a project folder renamed (its transcripts the same files under a new path) are
/// all seen by the next search, and a renamed folder's transcripts are read where they are now.
#[test]
fn the_next_search_sees_a_new_an_appended_a_removed_transcript_and_a_renamed_project() {
    let world = World::new("search-fresh");
    let first = world.transcript_path(SESSION);
    let folder = first.parent().unwrap().to_path_buf();
    fs_err::write(
        &first,
        user("u1", "2026-11-01T10:00:00.000Z", "the first kumquat"),
    )
    .unwrap();
    assert_eq!(marked(&search(&world, &["kumquat"])), [["kumquat"]]);

    // A new transcript beside it.
    let other = "0f0e0d0c-0000-4000-8000-000000000002";
    let second = world.transcript_path(other);
    fs_err::write(
        &second,
        user("p1", "2026-11-01T11:00:00.000Z", "a new persimmon"),
    )
    .unwrap();
    let found = search(&world, &["persimmon"]);
    assert_eq!(marked(&found), [["persimmon"]], "{found:#}");
    assert_eq!(found["results"][0]["session"], other);

    // Appended to: the folder's listing is the same, the file is longer.
    let turn = assistant("a1", "2026-11-01T10:00:05.000Z", "then a tamarind");
    let mut file = fs_err::OpenOptions::new()
        .append(true)
        .open(&first)
        .unwrap();
    file.write_all(turn.as_bytes()).unwrap();
    drop(file);
    let found = search(&world, &["tamarind"]);
    assert_eq!(marked(&found), [["tamarind"]], "{found:#}");
    assert_eq!(found["indexed_bytes"], turn.len());

    // Removed.
    fs_err::remove_file(&second).unwrap();
    assert_eq!(count(&search(&world, &["persimmon"])), 0);

    // The project's folder renamed: the same files, found where they are now, their snippets
    // read from there, and what is appended there read too.
    let moved = folder.with_file_name("-moved-project");
    fs_err::rename(&folder, &moved).unwrap();
    let found = search(&world, &["kumquat"]);
    assert_eq!(marked(&found), [["kumquat"]], "{found:#}");
    assert_eq!(found["results"][0]["origin"], "live");
    assert_eq!(found["indexed_bytes"], 0, "{found:#}");
    let moved_first = moved.join(format!("{SESSION}.jsonl"));
    let turn = user("u2", "2026-11-01T10:01:00.000Z", "and a quince");
    let mut file = fs_err::OpenOptions::new()
        .append(true)
        .open(&moved_first)
        .unwrap();
    file.write_all(turn.as_bytes()).unwrap();
    drop(file);
    let found = search(&world, &["quince"]);
    assert_eq!(marked(&found), [["quince"]], "{found:#}");
    assert_eq!(found["indexed_bytes"], turn.len());
    assert_eq!(marked(&search(&world, &["tamarind"])), [["tamarind"]]);

    // A new project folder.
    let third = world
        .config_dir()
        .join("projects")
        .join("-another-project")
        .join("0f0e0d0c-0000-4000-8000-000000000003.jsonl");
    fs_err::create_dir_all(third.parent().unwrap()).unwrap();
    fs_err::write(
        &third,
        user("r1", "2026-11-01T12:00:00.000Z", "a rambutan at last"),
    )
    .unwrap();
    assert_eq!(marked(&search(&world, &["rambutan"])), [["rambutan"]]);
}

/// A 2.0.x sub-agent's file beside the sessions is under the session its lines name now. A
/// search with nothing new takes that session from the index while the file looks as it did
/// (the same answer, nothing read); rewritten to name another session, or replaced by another
/// file of the same size and modification time naming a third (another inode), its lines are
/// read again and its words found under the session they name.
#[test]
fn a_flat_sub_agent_file_is_under_the_session_its_lines_name_now() {
    let world = World::new("search-flat-agent");
    let main = world.transcript_path(SESSION);
    fs_err::write(
        &main,
        user("u1", "2026-11-01T10:00:00.000Z", "the main kumquat"),
    )
    .unwrap();
    let agent = main.with_file_name("agent-f1.jsonl");
    let line = |session: &str| {
        json!({"type": "user", "isSidechain": true, "uuid": "a1", "sessionId": session,
            "cwd": "/work/demo", "timestamp": "2026-11-01T10:00:05.000Z",
            "message": {"role": "user", "content": "a persimmon for the agent"}})
        .to_string()
            + "\n"
    };
    let found_in = |outcome: &Value| {
        assert_eq!(count(outcome), 1, "{outcome:#}");
        let result = &outcome["results"][0];
        assert_eq!(
            result["subagent"], "subagents/agent-f1.jsonl",
            "{outcome:#}"
        );
        result["session"].as_str().unwrap().to_owned()
    };
    fs_err::write(&agent, line(SESSION)).unwrap();
    assert_eq!(found_in(&search(&world, &["persimmon"])), SESSION);
    let again = search(&world, &["persimmon"]);
    assert_eq!(found_in(&again), SESSION);
    assert_eq!(again["indexed_bytes"], 0, "{again:#}");

    // Rewritten naming another session (the same length; its time set an hour back, so that
    // the look changes whatever the clock's grain).
    let other = "0f0e0d0c-0000-4000-8000-000000000002";
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    fs_err::write(&agent, line(other)).unwrap();
    set_modified(&agent, hour_ago);
    assert_eq!(found_in(&search(&world, &["persimmon"])), other);

    // Replaced by another file of the same size and modification time.
    let third = "0f0e0d0c-0000-4000-8000-000000000003";
    let beside = agent.with_file_name("agent-f1.new");
    fs_err::write(&beside, line(third)).unwrap();
    set_modified(&beside, hour_ago);
    fs_err::rename(&beside, &agent).unwrap();
    assert_eq!(found_in(&search(&world, &["persimmon"])), third);
    assert_eq!(found_in(&search(&world, &["persimmon"])), third);
}

/// A session's id in two project folders (resumed from another folder, or a project moved
/// and copied): both transcripts are searched, and a search with nothing new reads neither
/// again (one key for both read each in turn at every search and kept only the last's words).
#[test]
fn a_session_in_two_project_folders_is_two_transcripts_each_read_once() {
    let world = World::new("search-two-folders");
    let first = world.transcript_path(SESSION);
    fs_err::write(
        &first,
        user("u1", "2026-11-01T10:00:00.000Z", "a kumquat here"),
    )
    .unwrap();
    let second = world
        .config_dir()
        .join("projects")
        .join("-zz-elsewhere")
        .join(format!("{SESSION}.jsonl"));
    fs_err::create_dir_all(second.parent().unwrap()).unwrap();
    fs_err::write(
        &second,
        user("u2", "2026-11-02T10:00:00.000Z", "a persimmon there"),
    )
    .unwrap();
    for round in 0..3 {
        for word in ["kumquat", "persimmon"] {
            let found = search(&world, &[word]);
            assert_eq!(marked(&found), [[word]], "round {round}: {found:#}");
            assert_eq!(found["results"][0]["session"], SESSION);
            if round > 0 {
                assert_eq!(found["indexed_bytes"], 0, "round {round}: {found:#}");
            }
        }
    }
}

#[test]
fn a_damaged_or_deleted_index_is_rebuilt_and_a_link_is_refused() {
    let world = World::new("search-damage");
    let transcript = world.transcript_path(SESSION);
    fs_err::write(
        &transcript,
        user("u1", "2026-11-01T10:00:00.000Z", "the quokka smiles"),
    )
    .unwrap();
    stop(&world, &transcript);
    let index = world.state_dir().join("search").join("index.sqlite");
    assert_eq!(count(&search(&world, &["quokka"])), 1);
    assert_eq!(mode(&index), 0o600);
    assert_eq!(mode(index.parent().unwrap()), 0o700);

    // Not a database at all.
    fs_err::write(&index, vec![b'x'; 20_000]).unwrap();
    let rebuilt = search(&world, &["quokka"]);
    assert_eq!(count(&rebuilt), 1);
    assert!(rebuilt["rebuilt"].is_string(), "{rebuilt:#}");
    // Cut in half.
    let bytes = fs_err::read(&index).unwrap();
    fs_err::write(&index, &bytes[..bytes.len() / 2]).unwrap();
    let again = search(&world, &["quokka"]);
    assert_eq!(count(&again), 1, "{again:#}");
    // Deleted.
    fs_err::remove_file(&index).unwrap();
    assert_eq!(count(&search(&world, &["quokka"])), 1);
    assert_eq!(mode(&index), 0o600);

    // A link in its place is refused, and what it leads to is left alone (Unix only: Wine 8
    // makes no links).
    #[cfg(unix)]
    {
        fs_err::remove_file(&index).unwrap();
        let elsewhere = world.join("elsewhere.sqlite");
        fs_err::write(&elsewhere, b"not yours").unwrap();
        std::os::unix::fs::symlink(&elsewhere, &index).unwrap();
        world
            .ctxhooks(["search", "quokka"])
            .stderr_contains("symbolic link")
            .failure();
        assert_eq!(fs_err::read(&elsewhere).unwrap(), b"not yours");
    }
}

/// `SQLite` opens files beside the index (its hot-journal check opens `-journal` for reading):
/// a FIFO, a link or a folder there is refused with an error that names it, and left in place,
/// instead of a search that waits forever. The run's timeout (a bound against a hang, no timing
/// assertion) fails the test if the search waits. Unix only: no FIFO in a Windows file system.
#[cfg(unix)]
#[test]
fn a_fifo_or_a_link_where_sqlite_opens_a_side_file_is_refused_without_waiting() {
    let world = World::new("search-side-files");
    let transcript = world.transcript_path(SESSION);
    fs_err::write(
        &transcript,
        user("u1", "2026-11-01T10:00:00.000Z", "the wombat digs"),
    )
    .unwrap();
    stop(&world, &transcript);
    assert_eq!(count(&search(&world, &["wombat"])), 1);
    let index = world.state_dir().join("search").join("index.sqlite");
    for suffix in ["-journal", "-wal", "-shm"] {
        let side = index.with_file_name(format!("index.sqlite{suffix}"));
        make_fifo(&side);
        let outcome = world
            .ctxhooks(["search", "wombat"])
            .stderr_contains("not a regular file")
            .exit_code(1);
        let stderr = outcome.stderr_text();
        assert!(
            stderr.contains(&format!("index.sqlite{suffix}`")),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            fs_err::symlink_metadata(&side)
                .unwrap()
                .file_type()
                .is_fifo()
        );
        fs_err::remove_file(&side).unwrap();

        std::os::unix::fs::symlink(world.join("elsewhere"), &side).unwrap();
        world
            .ctxhooks(["search", "wombat"])
            .stderr_contains("symbolic link")
            .exit_code(1);
        assert!(!world.join("elsewhere").exists());
        fs_err::remove_file(&side).unwrap();
    }
    // Nothing was lost: the index answers as before.
    let found = search(&world, &["wombat"]);
    assert_eq!(count(&found), 1);
    assert!(found["rebuilt"].is_null(), "{found:#}");
}

#[test]
fn every_session_id_the_hooks_accept_filters_search_and_the_mcp_tool() {
    let world = World::new("search-session-ids");
    // Another session says the word too, so that the filter has something to leave out; the
    // one below is active after it, so `last` names that one.
    let other = world.transcript_path(SESSION);
    fs_err::write(
        &other,
        user("u1", "2026-11-01T09:00:00.000Z", "a kiwi elsewhere"),
    )
    .unwrap();
    stop(&world, &other);
    // An id of `[A-Za-z0-9_-]`, as the hooks take it (not a UUID), kept by the Stop hook.
    let id = "agent_run-42";
    let transcript = world.transcript_path(id);
    fs_err::write(
        &transcript,
        json!({"type": "user", "uuid": "k1", "sessionId": id, "cwd": "/work/demo",
            "timestamp": "2026-11-01T10:00:00.000Z",
            "message": {"role": "user", "content": "the kiwi from the underscored session"}})
        .to_string()
            + "\n",
    )
    .unwrap();
    world
        .hook(Hook::Stop)
        .stdin(
            json!({"session_id": id, "transcript_path": transcript,
                "hook_event_name": "Stop", "cwd": "/work/demo"})
            .to_string(),
        )
        .success();
    world
        .ctxhooks(["recall", "--session", id, "kiwi"])
        .stdout_contains("underscored session")
        .success();

    assert_eq!(count(&search(&world, &["kiwi"])), 2);
    for filter in [id, "agent_", "last"] {
        let found = search(&world, &["kiwi", "--session", filter]);
        assert_eq!(count(&found), 1, "--session {filter}: {found:#}");
        assert_eq!(found["results"][0]["session"], id, "--session {filter}");
    }
    world
        .ctxhooks(["search", "kiwi", "--session", "a/b"])
        .stderr_contains("invalid `--session`")
        .exit_code(1);

    let answers = mcp_exchange(
        &world,
        &[
            json!({"method": "tools/call", "params": {"name": "search",
                "arguments": {"query": "kiwi", "session": id}}}),
            json!({"method": "tools/call", "params": {"name": "search",
                "arguments": {"query": "kiwi", "session": "../x"}}}),
        ],
    );
    assert_eq!(answers[1]["result"]["isError"], false, "{:#}", answers[1]);
    let found = tool_text(&answers[1]);
    assert!(found.contains("underscored session"), "{found}");
    assert!(!found.contains("elsewhere"), "{found}");
    assert_eq!(answers[2]["result"]["isError"], true, "{:#}", answers[2]);
    assert!(tool_text(&answers[2]).contains("invalid `--session`"));
}

#[test]
fn a_bad_query_is_a_clear_error_that_writes_nothing() {
    let world = World::new("search-bad-query");
    let transcript = world.transcript_path(SESSION);
    fs_err::write(&transcript, user("u1", "2026-11-01T10:00:00.000Z", "words")).unwrap();
    for (query, says) in [
        ("\"unclosed", "does not close"),
        ("***", "no word to search for"),
        ("(alpha", "does not close"),
        ("alpha OR", "not valid"),
        ("NOT alpha", "not valid"),
    ] {
        let outcome = world.ctxhooks(["search", query]).exit_code(1);
        let stderr = outcome.stderr_text();
        assert!(stderr.contains(says), "{query}: {stderr}");
        assert!(!stderr.contains("panicked"), "{query}: {stderr}");
    }
    world
        .ctxhooks(["search", "words", "--since", "yesterday"])
        .stderr_contains("is not a day")
        .exit_code(1);
    world
        .ctxhooks(["search", "words", "--limit", "0"])
        .stderr_contains("--limit 0")
        .exit_code(1);
    // A NUL, which only the MCP tool's JSON can carry (FTS5 reads its expression up to one):
    // said as such, not as the index failing.
    let answers = mcp_exchange(
        &world,
        &[
            json!({"method": "tools/call", "params": {"name": "search",
                "arguments": {"query": "wo\u{0}rds"}}}),
            json!({"method": "tools/call", "params": {"name": "search",
                "arguments": {"query": "wo\u{0}rds OR more"}}}),
        ],
    );
    for answer in &answers[1..] {
        assert_eq!(answer["result"]["isError"], true, "{answer:#}");
        assert!(tool_text(answer).contains("NUL character"), "{answer:#}");
    }
    // Refused before the index is opened: FTS5's refusals too (checked against an empty table
    // in memory), so nothing was written, not even the index.
    assert_eq!(world.state_entries(), Vec::<String>::new());
    // A projects folder that is not there is said, and the kept sessions are still searched.
    let missing = world.join("no-such-projects");
    world
        .ctxhooks([
            "search".as_ref(),
            "words".as_ref(),
            "--projects".as_ref(),
            missing.as_os_str(),
        ])
        .stderr_contains("no-such-projects: nothing is there")
        .success();
    // The search that ran wrote only the index.
    for entry in world.state_entries() {
        assert!(entry.starts_with("search"), "{entry}");
    }
}

/// Talks to `ctxhooks mcp` in `world`: sends each request, returns each answer by id.
pub fn mcp_exchange(world: &World, calls: &[Value]) -> Vec<Value> {
    let mut command = world.ctxhooks(["mcp"]).command();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |message: &Value| {
        stdin.write_all(format!("{message}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    };
    let mut answers = Vec::new();
    send(
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}),
    );
    let mut read = || {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap()
    };
    answers.push(read());
    send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    for (id, call) in calls.iter().enumerate() {
        let mut request = call.clone();
        request["jsonrpc"] = json!("2.0");
        request["id"] = json!(id + 1);
        send(&request);
        answers.push(read());
    }
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "ctxhooks mcp exited with {status}");
    answers
}

pub fn tool_text(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn the_mcp_server_lists_its_tools_and_answers_each() {
    let world = World::new("search-mcp");
    let transcript = world.transcript_path(SESSION);
    fs_err::write(
        &transcript,
        user(
            "u1",
            "2026-11-01T10:00:00.000Z",
            "we chose the pangolin protocol",
        ) + &assistant("a1", "2026-11-01T10:00:01.000Z", "pangolin it is"),
    )
    .unwrap();
    stop(&world, &transcript);
    let answers = mcp_exchange(
        &world,
        &[
            json!({"method": "tools/list"}),
            json!({"method": "tools/call", "params": {"name": "search",
                "arguments": {"query": "\"pangolin protocol\""}}}),
            json!({"method": "tools/call", "params": {"name": "recall",
                "arguments": {"session": &SESSION[..8], "pattern": "pangolin"}}}),
            json!({"method": "tools/call", "params": {"name": "sessions", "arguments": {}}}),
            json!({"method": "tools/call", "params": {"name": "search",
                "arguments": {"query": "\"unclosed"}}}),
        ],
    );
    assert_eq!(answers[0]["result"]["serverInfo"]["name"], "ctxhooks");
    let mut tools: Vec<&str> = answers[1]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    tools.sort_unstable();
    assert_eq!(tools, ["gauge", "recall", "search", "sessions"]);
    let found = tool_text(&answers[2]);
    assert!(found.contains("[pangolin protocol]"), "{found}");
    assert!(found.contains(SESSION), "{found}");
    let recalled = tool_text(&answers[3]);
    assert!(recalled.contains("pangolin it is"), "{recalled}");
    assert!(tool_text(&answers[4]).contains(SESSION));
    assert_eq!(answers[5]["result"]["isError"], true);
    assert!(tool_text(&answers[5]).contains("does not close"));
}

/// JSON-RPC 2.0: a line that is not JSON is answered with a Parse error (`-32700`) whose `id`
/// is null, and the server goes on with the next line. Each answer is awaited within a bound
/// (a hang, no timing assertion): before, no answer came, and the test failed there.
#[test]
fn the_mcp_server_answers_a_line_that_is_not_json_with_a_parse_error_and_goes_on() {
    let world = World::new("search-mcp-parse-error");
    let mut child = world
        .ctxhooks(["mcp"])
        .command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (lines, answers) = std::sync::mpsc::channel();
    let reading = std::thread::spawn(move || {
        for line in stdout.lines() {
            if lines.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let next = || -> Value {
        let line = answers
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("ctxhooks mcp gave no answer");
        serde_json::from_str(&line).unwrap()
    };
    let mut send = |bytes: &[u8]| {
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    };
    send(
        format!(
            "{}\n",
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}}})
        )
        .as_bytes(),
    );
    assert_eq!(next()["id"], 0);
    send(b"{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}\n");
    for line in [
        &b"this is not json\n"[..],
        b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\"\n",
        b"\xff\xfe{}\n",
    ] {
        send(line);
        let answer = next();
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        assert_eq!(answer["error"]["code"], -32700, "{answer}");
        assert!(answer.as_object().unwrap()["id"].is_null(), "{answer}");
    }
    send(b"{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"tools/list\"}\n");
    let listed = next();
    assert_eq!(listed["id"], 2, "{listed}");
    assert!(listed["result"]["tools"].as_array().is_some(), "{listed}");
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "ctxhooks mcp exited with {status}");
    reading.join().unwrap();
    assert!(answers.try_recv().is_err(), "an answer nothing asked for");
}

/// Whether `path` holds `needle` (for checks that no transcript text leaked somewhere).
pub fn holds(path: &Path, needle: &[u8]) -> bool {
    fs_err::read(path).is_ok_and(|bytes| bytes.windows(needle.len()).any(|window| window == needle))
}

#[test]
fn install_mcp_registers_the_server_keeping_the_rest_and_uninstall_removes_exactly_it() {
    let world = World::new("search-install-mcp");
    let config = world.config_dir().join(".claude.json");
    fs_err::create_dir_all(world.config_dir()).unwrap();
    // Claude Code's own layout, and one member out of its usual order: kept byte for byte.
    let before = "{\n  \"numStartups\": 3,\n  \"projects\": {\"/x\": {\"allowedTools\": []}},\n  \"userID\": \"abc\"\n}\n";
    fs_err::write(&config, before).unwrap();
    let installed = world
        .ctxhooks(["install", "--mcp", "--json"])
        .success()
        .json();
    assert_eq!(installed["mcp"]["changed"], true, "{installed:#}");
    let text = fs_err::read_to_string(&config).unwrap();
    assert!(
        text.starts_with("{\n  \"numStartups\": 3,\n  \"projects\": {\"/x\": {\"allowedTools\": []}},\n  \"userID\": \"abc\",\n  \"mcpServers\": {"),
        "{text}"
    );
    let value: Value = serde_json::from_str(&text).unwrap();
    let entry = &value["mcpServers"]["ctxhooks"];
    assert_eq!(entry["type"], "stdio");
    assert_eq!(entry["args"], json!(["mcp"]));
    // The binary beside the one that installed it (on Windows its path may leave out `.exe`,
    // which Windows adds when it starts it).
    let command = entry["command"].as_str().unwrap();
    let name = ctxhooks_shared::platform::program::last_component(command);
    assert_eq!(
        ctxhooks_shared::platform::program::binary_name(name),
        "ctxhooks",
        "{command}"
    );
    // Again: nothing changes.
    let again = world
        .ctxhooks(["install", "--mcp", "--json"])
        .success()
        .json();
    assert_eq!(again["mcp"]["changed"], false);
    // Someone else's server under the same name is refused, and the file left as it is.
    let other = text.replace("\"mcp\"", "\"serve\"");
    fs_err::write(&config, &other).unwrap();
    world
        .ctxhooks(["install", "--mcp"])
        .stderr_contains("another MCP server")
        .exit_code(1);
    assert_eq!(fs_err::read_to_string(&config).unwrap(), other);
    world
        .ctxhooks(["uninstall", "--mcp"])
        .stdout_contains("does not run `ctxhooks mcp`")
        .success();
    assert_eq!(fs_err::read_to_string(&config).unwrap(), other);
    // Ours is removed, and the file is what it was.
    fs_err::write(&config, &text).unwrap();
    world.ctxhooks(["uninstall", "--mcp"]).success();
    assert_eq!(fs_err::read_to_string(&config).unwrap(), before);
}

#[test]
fn the_note_after_a_compaction_names_the_mcp_tool_once_the_server_is_registered() {
    let world = World::new("search-note");
    let transcript = world.transcript_path(SESSION);
    fs_err::write(&transcript, user("u1", "2026-11-01T10:00:00.000Z", "hello")).unwrap();
    let note = |world: &World| {
        let printed = world
            .program(crate::support::Hook::Session.binary())
            .stdin(
                json!({"session_id": SESSION, "transcript_path": &transcript,
                    "hook_event_name": "SessionStart", "source": "compact", "cwd": "/work/demo"})
                .to_string(),
            )
            .success()
            .stdout_text();
        let answer: Value = serde_json::from_str(&printed).unwrap();
        answer["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let without = note(&world);
    assert!(without.contains("search it with Bash"), "{without}");
    assert!(!without.contains("mcp__"), "{without}");
    world.ctxhooks(["install", "--mcp"]).success();
    let with = note(&world);
    assert!(
        with.contains(&format!("mcp__ctxhooks__recall with session \"{SESSION}\"")),
        "{with}"
    );
    assert!(!with.contains("Bash"), "{with}");
}

#[test]
fn doctor_says_whether_the_mcp_server_is_registered_and_answers() {
    let world = World::new("search-doctor");
    let before = world.ctxhooks(["doctor", "--json"]).output();
    let report: Value = serde_json::from_str(&before.stdout_text()).unwrap();
    assert!(report["mcp"]["registered"].is_null(), "{:#}", report["mcp"]);
    world.ctxhooks(["install", "--mcp"]).success();
    let after = world.ctxhooks(["doctor", "--json"]).output();
    let report: Value = serde_json::from_str(&after.stdout_text()).unwrap();
    let mcp = &report["mcp"];
    assert!(mcp["problem"].is_null(), "{mcp:#}");
    assert_eq!(
        mcp["tools"],
        json!(["gauge", "recall", "search", "sessions"]),
        "{mcp:#}"
    );
    world
        .ctxhooks(["doctor"])
        .output()
        .stdout_text()
        .contains("answers with tools: gauge, recall, search, sessions")
        .then_some(())
        .expect("doctor's text names the tools");
}

#[test]
fn an_old_snapshots_copy_is_searched_until_it_is_pruned() {
    let world = World::new("search-schema-1");
    let bytes = user(
        "u1",
        "2026-10-01T10:00:00.000Z",
        "the ocelot migration plan",
    );
    let name = "20261001T100000.000001Z-manual";
    let folder = world.session_dir(SESSION).join("archive").join(name);
    fs_err::create_dir_all(&folder).unwrap();
    fs_err::write(folder.join("transcript.jsonl"), &bytes).unwrap();
    use sha2::Digest;
    let sha = format!("{:x}", sha2::Sha256::digest(bytes.as_bytes()));
    let source = world.transcript_path(SESSION);
    fs_err::write(
        folder.join("snapshot.json"),
        json!({"schema": 1, "name": name, "session_id": SESSION, "trigger": "manual",
            "custom_instructions": null, "created_at": "2026-10-01T10:00:00.000001Z",
            "source_path": source, "size": bytes.len(), "sha256": sha,
            "files": [{"path": "transcript.jsonl", "source": source, "role": "transcript",
                "size": bytes.len(), "sha256": sha}]})
        .to_string(),
    )
    .unwrap();
    let found = search(&world, &["ocelot"]);
    assert_eq!(count(&found), 1, "{found:#}");
    assert_eq!(found["results"][0]["snapshot"], name);
    assert!(
        found["results"][0]["next"][0]
            .as_str()
            .unwrap()
            .ends_with(&format!("--snapshot {name}")),
        "{found:#}"
    );
    world
        .ctxhooks(["archives", "prune", "--keep", "0"])
        .success();
    assert_eq!(count(&search(&world, &["ocelot"])), 0);
}

#[test]
fn searches_at_once_index_each_line_once() {
    let world = World::new("search-concurrent");
    let transcript = world.transcript_path(SESSION);
    let mut lines = String::new();
    for turn in 0..200 {
        lines += &user(
            &format!("u{turn}"),
            "2026-11-01T10:00:00.000Z",
            &format!("turn {turn} of the wombat tale"),
        );
    }
    fs_err::write(&transcript, &lines).unwrap();
    let runs = (0..6).map(|_| world.ctxhooks(["search", "--json", "wombat", "--limit", "500"]));
    let mut indexed = 0;
    for running in crate::support::spawn_together(runs) {
        let outcome: Value = serde_json::from_str(&running.wait().success().stdout_text()).unwrap();
        assert_eq!(count(&outcome), 200, "every search sees every line once");
        indexed += outcome["indexed_messages"].as_u64().unwrap();
    }
    assert_eq!(indexed, 200, "the lines were indexed once in all");
}

/// Every file under `folder` (links not followed).
fn files_under(folder: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![folder.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in fs_err::read_dir(&folder).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                folders.push(entry.path());
            } else {
                files.push(entry.path());
            }
        }
    }
    files
}

#[test]
fn a_tool_calls_input_is_found_by_a_word_at_the_start_of_one_of_its_lines() {
    let world = World::new("search-tool-input");
    let transcript = world.transcript_path(SESSION);
    let call = json!({"type": "assistant", "uuid": "a1", "sessionId": SESSION, "cwd": "/work/demo",
        "timestamp": "2026-11-01T10:00:00.000Z", "message": {"id": "msg_a1", "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "Write",
            "input": {"file_path": "/work/demo/notes.md", "content": "# Notes\nkumquat trees\n\tmarmalade"}}]}})
    .to_string()
        + "\n";
    fs_err::write(&transcript, call).unwrap();
    for word in ["kumquat", "marmalade", "notes.md"] {
        let found = search(&world, &[word]);
        assert_eq!(count(&found), 1, "{word}: {found:#}");
        assert_eq!(found["results"][0]["role"], "assistant");
    }
    let snippet = search(&world, &["kumquat"])["results"][0]["snippet"]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        snippet.contains("content: # Notes kumquat trees"),
        "{snippet}"
    );
}

#[test]
fn times_are_compared_as_instants_whatever_offset_a_line_was_written_with() {
    let world = World::new("search-times");
    let transcript = world.transcript_path(SESSION);
    // 23:30 on 1 November in UTC, written in another offset as 01:30 on the 2nd.
    fs_err::write(
        &transcript,
        user("u1", "2026-11-02T01:30:00+02:00", "the persimmon ripens"),
    )
    .unwrap();
    let until_first = search(&world, &["persimmon", "--until", "2026-11-01"]);
    assert_eq!(count(&until_first), 1, "{until_first:#}");
    assert_eq!(
        until_first["results"][0]["time"],
        "2026-11-01T23:30:00.000Z"
    );
    assert_eq!(
        count(&search(&world, &["persimmon", "--since", "2026-11-02"])),
        0
    );
}

#[test]
fn no_transcript_text_outside_the_index_and_a_search_with_nothing_new_writes_nothing() {
    let world = World::new("search-private");
    let transcript = world.transcript_path(SESSION);
    fs_err::write(
        &transcript,
        user("u1", "2026-11-01T10:00:00.000Z", "the xylophonist plays")
            + &assistant("a1", "2026-11-01T10:00:01.000Z", "xylophonist noted"),
    )
    .unwrap();
    stop(&world, &transcript);
    let temporary = world.join("tmp");
    fs_err::create_dir_all(&temporary).unwrap();
    let searched = |world: &World| {
        let outcome = world
            .ctxhooks(["search", "--json", "xylophonist"])
            .env("TMPDIR", &temporary)
            .env("SQLITE_TMPDIR", &temporary)
            .success()
            .json();
        assert_eq!(count(&outcome), 2, "{outcome:#}");
    };
    let holding = |world: &World| -> Vec<std::path::PathBuf> {
        files_under(world.root())
            .into_iter()
            .filter(|file| holds(file, b"xylophonist"))
            .collect()
    };
    // What held the word before (the transcript, and what the hooks keep of it).
    let before = holding(&world);
    searched(&world);
    // Only the index in its folder, 0600: no journal, no write-ahead log, no temporary file
    // (beside it, the kept listings a search remembers once a kept folder is 2 s old, if this
    // one was: they hold no transcript text, as below shows).
    let index = world.state_dir().join("search").join("index.sqlite");
    let listing = world.state().search_kept_listing();
    let beside: Vec<_> = files_under(index.parent().unwrap())
        .into_iter()
        .filter(|file| *file != listing)
        .collect();
    assert_eq!(
        beside,
        std::slice::from_ref(&index),
        "what SQLite left beside the index"
    );
    assert_eq!(mode(&index), 0o600);
    assert!(files_under(&temporary).is_empty());
    // The search put the word in the index, and in no other file.
    let after = holding(&world);
    let added: Vec<_> = after.iter().filter(|file| !before.contains(file)).collect();
    assert_eq!(added, [&index], "{after:?}");
    assert!(before.contains(&transcript));

    // Nothing new: the index is not written at all (its time set an hour back first, so that a
    // write shows whatever the clock's grain).
    let modified = || fs_err::metadata(&index).unwrap().modified().unwrap();
    set_modified(
        &index,
        std::time::SystemTime::now() - std::time::Duration::from_secs(3600),
    );
    let before = modified();
    searched(&world);
    assert_eq!(
        modified(),
        before,
        "a search with nothing new wrote the index"
    );
}

#[test]
fn uninstall_removes_the_search_index_and_keeps_the_kept_copies() {
    let world = World::new("search-uninstall");
    let transcript = world.transcript_path(SESSION);
    fs_err::write(
        &transcript,
        user("u1", "2026-11-01T10:00:00.000Z", "tamarind"),
    )
    .unwrap();
    stop(&world, &transcript);
    assert_eq!(count(&search(&world, &["tamarind"])), 1);
    let index = world.state_dir().join("search").join("index.sqlite");
    // What searches remember of the kept folders goes with the index (written here: a kept
    // folder changed within the last 2 s is not remembered yet).
    let listing = world.state_dir().join("search").join("kept-listing.json");
    fs_err::write(&listing, "{}").unwrap();
    world
        .ctxhooks(["uninstall", "--dry-run"])
        .stdout_contains("would remove the search index")
        .success();
    assert!(index.exists());
    assert!(listing.exists());
    let outcome = world.ctxhooks(["uninstall", "--json"]).success().json();
    assert!(
        outcome["search_index"]["bytes"].as_u64().unwrap() > 0,
        "{outcome:#}"
    );
    assert!(!index.exists());
    assert!(!listing.exists());
    assert!(world.session_dir(SESSION).join("kept").exists());
    // Nothing there: said as null, and the next search builds it again.
    let again = world.ctxhooks(["uninstall", "--json"]).success().json();
    assert!(again["search_index"].is_null(), "{again:#}");
    assert_eq!(count(&search(&world, &["tamarind"])), 1);
}

/// `ctxhooks mcp` runs `ctxhooks-search` beside `ctxhooks`: without it, it says which file is
/// missing and how to get it, and writes nothing; `ctxhooks search` runs in `ctxhooks` itself and
/// needs nothing beside it.
#[test]
fn without_the_search_binary_beside_it_mcp_says_what_is_missing_and_search_runs() {
    let world = World::new("search-binary-missing");
    let alone = world.join("alone");
    fs_err::create_dir_all(&alone).unwrap();
    let copy = alone.join(ctxhooks_shared::platform::program::binary_file_name(
        "ctxhooks",
    ));
    fs_err::copy(CTXHOOKS, &copy).unwrap();
    for args in [&["mcp"][..], &["mcp", "--help"][..]] {
        let run = Run::program(&copy).world(&world).args(args);
        if args.contains(&"--help") {
            // Its `--help` is whole without it: `ctxhooks` parses the arguments itself.
            run.stdout_contains("MCP").success();
        } else {
            run.stderr_contains("ctxhooks-search")
                .stderr_contains("install/setup.sh")
                .failure();
        }
    }
    assert!(!world.state_dir().join("search").exists());
    let transcript = world.transcript_path(SESSION);
    fs_err::create_dir_all(transcript.parent().unwrap()).unwrap();
    fs_err::write(
        &transcript,
        user("u1", "2026-11-01T10:00:00.000Z", "the quokka smiles"),
    )
    .unwrap();
    let found = Run::program(&copy)
        .world(&world)
        .args(["search", "--json", "quokka"])
        .success()
        .json();
    assert_eq!(count(&found), 1, "{found:#}");
    assert!(world.state_dir().join("search").exists());
}

/// `ctxhooks mcp` hands its arguments to `ctxhooks-search` before parsing them (on Unix, where
/// it replaces itself with it): its help and its errors read the same as when `ctxhooks` parses
/// them itself (without `ctxhooks-search` beside it), under the name `ctxhooks`.
#[test]
fn mcp_reads_its_arguments_the_same_handed_over_or_not() {
    let world = World::new("search-binary-hand-over");
    let alone = world.join("alone");
    fs_err::create_dir_all(&alone).unwrap();
    let copy = alone.join(ctxhooks_shared::platform::program::binary_file_name(
        "ctxhooks",
    ));
    fs_err::copy(CTXHOOKS, &copy).unwrap();
    for args in [&["mcp", "--help"][..], &["mcp", "--bogus"][..]] {
        let handed = Run::program(CTXHOOKS).world(&world).args(args).output();
        let parsed_here = Run::program(&copy).world(&world).args(args).output();
        assert_eq!(handed.code(), parsed_here.code(), "{args:?}");
        assert_eq!(handed.stdout_text(), parsed_here.stdout_text(), "{args:?}");
        assert_eq!(handed.stderr_text(), parsed_here.stderr_text(), "{args:?}");
        // Named `ctxhooks` where it names itself (the help, a usage line; clap names a program
        // by its file, `ctxhooks.exe` on Windows).
        let said = handed.stdout_text() + &handed.stderr_text();
        assert!(!said.contains("ctxhooks-search"), "{args:?}: {said}");
        if said.contains("Usage:") {
            let usage = format!(
                "Usage: {} ",
                ctxhooks_shared::platform::program::binary_file_name("ctxhooks")
            );
            assert!(said.contains(&usage), "{args:?}: {said}");
        }
    }
    assert!(!world.state_dir().join("search").exists());
}

// Unix only: `nm` reads the symbols of an ELF or Mach-O binary.
/// The MCP server's runtime (rmcp, tokio) is linked into `ctxhooks-search` only: `ctxhooks`,
/// which the status line starts at every update, holds none of its code; `SQLite` is in both
/// (`ctxhooks search` runs in `ctxhooks`: BENCHMARKS.md, issue 32, weighs the status line's
/// start against a search's second process).
#[cfg(unix)]
#[test]
fn only_the_search_binary_holds_the_mcp_server() {
    let symbols = |binary: &str| {
        let output = std::process::Command::new("nm")
            .args(["--defined-only", binary])
            .output()
            .expect("nm runs (binutils, which linking needs anyway)");
        assert!(output.status.success(), "{output:?}");
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        (
            text.matches("sqlite3_").count(),
            text.matches("rmcp").count(),
            text.matches("tokio").count(),
        )
    };
    let (sqlite, mcp, runtime) = symbols(CTXHOOKS);
    assert!(sqlite > 0, "`ctxhooks search` runs in ctxhooks");
    assert_eq!((mcp, runtime), (0, 0));
    let (sqlite, mcp, runtime) = symbols(CTXHOOKS_SEARCH);
    assert!(
        sqlite > 0 && mcp > 0 && runtime > 0,
        "{sqlite} {mcp} {runtime}"
    );
}
