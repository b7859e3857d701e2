//! `ctxhooks search`'s remembered kept listings (`<state>/search/kept-listing.json`): what each
//! kept session's folder gave the last search, used while its folders look the same. A new
//! generation and a new sub-agent's copy kept by the real hooks are found through it, a search
//! prints the same bytes with it and without it, and a file there that cannot be believed (or a
//! link, a FIFO, a folder) is ignored, never followed or waited on, and replaced.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::keep::{SESSION, stop};
use crate::search::{assistant, search, user};
use crate::support::{Hook, World, mode, wait_until};

/// The remembered listings' file.
fn listing_file(world: &World) -> PathBuf {
    world.state().search_kept_listing()
}

/// Its JSON, `null` when it is not there or not JSON.
fn remembered(world: &World) -> Value {
    fs_err::read(listing_file(world))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or(Value::Null)
}

/// A sub-agent's line.
fn sidechain(uuid: &str, text: &str) -> String {
    json!({"type": "user", "uuid": uuid, "sessionId": SESSION, "cwd": "/work/demo",
        "isSidechain": true, "timestamp": "2026-11-01T10:00:30.000Z",
        "message": {"role": "user", "content": text}})
    .to_string()
        + "\n"
}

/// Keeps the sub-agent `agent` of `transcript`, holding `text`, as `SubagentStop` does.
fn keep_sub_agent(world: &World, transcript: &Path, agent: &str, text: &str) {
    let path = world.write_transcript(
        format!("{SESSION}/subagents/agent-{agent}.jsonl"),
        sidechain(&format!("s-{agent}"), text),
    );
    world
        .hook(Hook::Stop)
        .stdin(
            json!({"session_id": SESSION, "transcript_path": transcript,
                "hook_event_name": "SubagentStop", "agent_id": agent,
                "agent_transcript_path": path})
            .to_string(),
        )
        .success();
}

/// Searches until the file remembers the session with `names` kept names: a folder is remembered
/// only once its last change is 2 s old (a bound against hangs, no timing assertion).
fn wait_until_remembered(world: &World, names: usize) {
    wait_until("the kept listing remembered", || {
        search(world, &["nothingatall"]);
        let found = remembered(world)["sessions"][SESSION]["names"]
            .as_array()
            .map(Vec::len);
        (found == Some(names)).then_some(())
    });
}

/// The only result of `query`: its generation, origin and sub-agent.
fn only(world: &World, query: &str) -> (u64, String, Value) {
    let outcome = search(world, &[query]);
    let results = outcome["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{outcome:#}");
    (
        results[0]["generation"].as_u64().unwrap(),
        results[0]["origin"].as_str().unwrap().to_owned(),
        results[0]["subagent"].clone(),
    )
}

/// With the listing remembered, what the hooks keep next is found through it: a new sub-agent
/// (a file in `subagents/`, the kept folder unchanged) as its kept copy, a rewrite as generation 2.
/// A listing remembered without looking at the folders (or at the kept folder only) would miss
/// both: the sub-agent would be found only as a live transcript ctxhooks does not keep
/// (generation 0), and the rewrite's words not at all (generation 1 does not carry them, and its
/// live file no longer continues it).
#[test]
fn a_new_sub_agent_and_a_new_generation_are_found_with_the_listing_remembered() {
    let world = World::new("search-kept-listing");
    let transcript = world.transcript_path(SESSION);
    let opening = user("u1", "2026-11-01T10:00:00.000Z", "the shared opening line");
    fs_err::write(
        &transcript,
        opening.clone() + &assistant("a1", "2026-11-01T10:00:01.000Z", "alpha was said"),
    )
    .unwrap();
    keep_sub_agent(&world, &transcript, "aaa", "the first helper hums");
    stop(&world, &transcript);
    wait_until_remembered(&world, 2);
    assert_eq!(mode(&listing_file(&world)), 0o600);

    // The same bytes with the listing remembered and without it, text and JSON.
    let outputs = |world: &World| -> Vec<Vec<u8>> {
        [
            vec!["search", "alpha"],
            vec!["search", "--json", "alpha"],
            vec!["search", "--json", "helper"],
        ]
        .into_iter()
        .map(|args| world.ctxhooks(args).success().stdout().to_vec())
        .collect()
    };
    let with = outputs(&world);
    fs_err::remove_file(listing_file(&world)).unwrap();
    assert_eq!(outputs(&world), with);

    wait_until_remembered(&world, 2);
    keep_sub_agent(&world, &transcript, "bbb", "the pangolin helper digs");
    assert_eq!(
        only(&world, "pangolin"),
        // Generation 1 of its kept copy (a listing remembered wrongly finds it as a transcript
        // ctxhooks does not keep, generation 0), read from the live file that still holds it.
        (1, "live".to_owned(), json!("subagents/agent-bbb.jsonl"))
    );

    wait_until_remembered(&world, 3);
    fs_err::write(
        &transcript,
        opening + &assistant("a2", "2026-11-01T10:00:02.000Z", "beta replaced it"),
    )
    .unwrap();
    stop(&world, &transcript);
    assert_eq!(only(&world, "beta"), (2, "live".to_owned(), Value::Null));
    assert_eq!(only(&world, "alpha"), (1, "kept".to_owned(), Value::Null));
}

/// A file at the listing's path that cannot be believed (not JSON, of another version, past its
/// bound), a link (what it leads to is left alone) or a FIFO (never waited on: the run's timeout
/// fails the test if it is) is ignored and replaced with a listing; a folder there is left, and
/// the search goes on. Each search finds what it found before.
#[test]
fn a_listing_file_that_cannot_be_believed_is_ignored_and_replaced() {
    let world = World::new("search-kept-listing-bad");
    let transcript = world.transcript_path(SESSION);
    fs_err::write(
        &transcript,
        user("u1", "2026-11-01T10:00:00.000Z", "the quokka smiles"),
    )
    .unwrap();
    stop(&world, &transcript);
    let expected = search(&world, &["quokka"])["results"].clone();
    assert_eq!(expected.as_array().unwrap().len(), 1);
    let path = listing_file(&world);
    let found = |world: &World| {
        assert_eq!(search(world, &["quokka"])["results"], expected);
    };
    let replaced = |world: &World| {
        let metadata = fs_err::symlink_metadata(&path).unwrap();
        assert!(metadata.is_file(), "{metadata:?}");
        assert_eq!(remembered(world)["schema"], 1);
    };

    let mut oversized = br#"{"schema":1,"kept_schema":1,"sessions":{}}"#.to_vec();
    oversized.resize(2 * 1024 * 1024, b' ');
    for bad in [
        b"not json at all".to_vec(),
        br#"{"schema":2,"kept_schema":1,"sessions":{}}"#.to_vec(),
        br#"{"schema":1,"kept_schema":99,"sessions":{}}"#.to_vec(),
        oversized,
    ] {
        fs_err::write(&path, &bad).unwrap();
        found(&world);
        replaced(&world);
    }

    #[cfg(unix)]
    {
        fs_err::remove_file(&path).unwrap();
        let elsewhere = world.join("elsewhere.json");
        fs_err::write(&elsewhere, b"not yours").unwrap();
        std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
        found(&world);
        replaced(&world);
        assert_eq!(fs_err::read(&elsewhere).unwrap(), b"not yours");

        fs_err::remove_file(&path).unwrap();
        crate::support::make_fifo(&path);
        found(&world);
        replaced(&world);
    }

    fs_err::remove_file(&path).unwrap();
    fs_err::create_dir(&path).unwrap();
    found(&world);
    assert!(path.is_dir());
}
