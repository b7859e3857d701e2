//! Tests for how `ctxhooks search` ranks: by how a message matches (the exact phrase, the words
//! close together, all the words anywhere, and only when none of those matched, any of them),
//! then what a person or the model said before a tool's output, then BM25; quotes and operators
//! keep their meaning; a query that finds nothing says what it widened to or what would find
//! more; the same in the JSON, the text and the MCP tool.

use serde_json::{Value, json};

use crate::keep::{SESSION, stop};
use crate::search::{assistant, mcp_exchange, search, tool_text, user};
use crate::support::World;

/// A tool's result, as Claude Code writes it on a `user` line.
fn tool_result(uuid: &str, time: &str, text: &str) -> String {
    json!({"type": "user", "uuid": uuid, "sessionId": SESSION, "cwd": "/work/demo",
        "timestamp": time, "message": {"role": "user", "content": [{"type": "tool_result",
        "tool_use_id": format!("toolu_{uuid}"), "content": text}]}})
    .to_string()
        + "\n"
}

/// A world whose one kept session holds `lines`.
fn world_with(name: &str, lines: &[String]) -> World {
    let world = World::new(name);
    let transcript = world.transcript_path(SESSION);
    fs_err::write(&transcript, lines.concat()).unwrap();
    stop(&world, &transcript);
    world
}

/// Each result's (role, tier), best first.
fn ranked(outcome: &Value) -> Vec<(String, String)> {
    outcome["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|result| {
            (
                result["role"].as_str().unwrap().to_owned(),
                result["tier"].as_str().unwrap_or("(none)").to_owned(),
            )
        })
        .collect()
}

fn pair(role: &str, tier: &str) -> (String, String) {
    (role.to_owned(), tier.to_owned())
}

/// The prompt holds the phrase once in a long message; the answer holds its words again and
/// again, scattered, in a short one: BM25 prefers the answer (the query written with `AND` shows
/// it), and the plain query puts the prompt first, labelled `exact`.
#[test]
fn the_exact_phrase_outranks_the_words_scattered_even_when_bm25_prefers_them() {
    let world = world_with(
        "search-rank-exact",
        &[
            user(
                "u1",
                "2026-11-01T10:00:00.000Z",
                "before the release we should make sure that the existing LiveView tests still \
                 pass on the new router, and also look at the flaky upload case in the admin \
                 panel when there is time left over this week",
            ),
            assistant(
                "a1",
                "2026-11-01T10:00:05.000Z",
                "tests LiveView existing tests LiveView existing",
            ),
        ],
    );
    let written = search(&world, &["existing AND LiveView AND tests"]);
    assert_eq!(
        ranked(&written),
        [pair("assistant", "as_written"), pair("user", "as_written")],
        "{written:#}"
    );
    let found = search(&world, &["existing LiveView tests"]);
    assert_eq!(found["schema"], 2, "{found:#}");
    assert_eq!(
        ranked(&found),
        [pair("user", "exact"), pair("assistant", "near")],
        "{found:#}"
    );
    assert_eq!(
        found["results"][0]["why"],
        "holds the phrase \"existing LiveView tests\""
    );
    assert_eq!(
        found["results"][1]["why"],
        "holds all the words within 10 words of each other"
    );
    assert!(found["widened"].is_null(), "{found:#}");
    // The snippet marks the phrase the tier matched.
    let snippet = found["results"][0]["snippet"]["text"].as_str().unwrap();
    let matches = found["results"][0]["snippet"]["matches"]
        .as_array()
        .unwrap();
    let characters: Vec<char> = snippet.chars().collect();
    let first: String = characters[usize::try_from(matches[0][0].as_u64().unwrap()).unwrap()
        ..usize::try_from(matches[0][1].as_u64().unwrap()).unwrap()]
        .iter()
        .collect();
    assert_eq!(first, "existing LiveView tests", "{snippet}");

    // The words far apart are a tier of their own, after the words close together.
    let world = world_with(
        "search-rank-all",
        &[
            assistant(
                "a1",
                "2026-11-01T10:00:00.000Z",
                &format!("existing {} LiveView tests", "filler ".repeat(30)),
            ),
            assistant(
                "a2",
                "2026-11-01T10:00:01.000Z",
                "tests of LiveView existing",
            ),
        ],
    );
    let found = search(&world, &["existing LiveView tests"]);
    assert_eq!(
        ranked(&found),
        [pair("assistant", "near"), pair("assistant", "all")],
        "{found:#}"
    );
    world
        .ctxhooks(["search", "existing LiveView tests"])
        .stdout_contains("near: holds all the words within 10 words of each other\n1. ")
        .stdout_contains("all: holds all the words, farther apart\n2. ")
        .success();
}

/// In the same tier, a person's prompt and the model's answer come before a tool's output, even
/// when the output is shorter and holds the phrase more often (BM25's choice).
#[test]
fn a_prompt_outranks_tool_output_in_the_same_tier() {
    let world = world_with(
        "search-rank-role",
        &[
            user(
                "u1",
                "2026-11-01T10:00:00.000Z",
                "the deploy failed again, can you look at why the pangolin config loader keeps \
                 reading the stale file from last week before we ship the next build",
            ),
            tool_result(
                "t1",
                "2026-11-01T10:00:02.000Z",
                "pangolin config loader: pangolin config loader",
            ),
            assistant(
                "a1",
                "2026-11-01T10:00:03.000Z",
                "I read the log once more and then the whole pangolin config loader module, from \
                 top to bottom, and the stale path is set in one place only",
            ),
        ],
    );
    // Ranked by BM25 alone (before tiers), the tool's output came first.
    let found = search(&world, &["pangolin config loader"]);
    let ranked = ranked(&found);
    assert_eq!(ranked.len(), 3, "{found:#}");
    assert!(ranked.iter().all(|(_, tier)| tier == "exact"), "{found:#}");
    assert_eq!(ranked[2], pair("tool", "exact"), "{found:#}");
    // Within the prompt and the answer, BM25 then the newest decide: both come first.
    let mut first_two: Vec<&str> = ranked[..2].iter().map(|(role, _)| role.as_str()).collect();
    first_two.sort_unstable();
    assert_eq!(first_two, ["assistant", "user"]);
}

/// Any of the words (or the words they begin) is searched only when no message holds them all,
/// and the results and the JSON say so.
#[test]
fn any_of_the_words_only_when_nothing_held_them_all() {
    let world = world_with(
        "search-rank-any",
        &[
            user(
                "u1",
                "2026-11-01T10:00:00.000Z",
                "the walrus migration plan",
            ),
            assistant("a1", "2026-11-01T10:00:01.000Z", "walrus tusks measured"),
            assistant("a2", "2026-11-01T10:00:02.000Z", "migrations are done"),
        ],
    );
    // Both words in one message: that message alone, no widening.
    let found = search(&world, &["walrus migration"]);
    assert_eq!(ranked(&found), [pair("user", "exact")], "{found:#}");
    assert!(found["widened"].is_null());

    // No message holds `walrus` and `zeppelin`: any of them, said as such.
    let widened = search(&world, &["walrus zeppelin"]);
    let mut any = ranked(&widened);
    any.sort();
    assert_eq!(
        any,
        [pair("assistant", "any"), pair("user", "any")],
        "{widened:#}"
    );
    assert_eq!(
        widened["widened"],
        json!({"query": "\"walrus\"* OR \"zeppelin\"*", "ran": true})
    );
    // A word is widened to the words it begins.
    let prefix = search(&world, &["migration", "--role", "assistant"]);
    assert_eq!(ranked(&prefix), [pair("assistant", "any")], "{prefix:#}");
    world
        .ctxhooks(["search", "walrus zeppelin"])
        .stdout_contains(
            "nothing matched all the words of `walrus zeppelin`; these match any of them or the \
             words they begin (searched as `\"walrus\"* OR \"zeppelin\"*`)",
        )
        .success();

    // Nothing at all: said, with the widened query that ran.
    let none = search(&world, &["zeppelin blimp"]);
    assert_eq!(ranked(&none), []);
    assert_eq!(
        none["widened"],
        json!({"query": "\"zeppelin\"* OR \"blimp\"*", "ran": true})
    );
    world
        .ctxhooks(["search", "zeppelin blimp"])
        .stdout_contains(
            "nothing found for `zeppelin blimp`, nor for any of its words or the words they begin \
             (searched as `\"zeppelin\"* OR \"blimp\"*`)",
        )
        .success();
}

/// One word of three misspelt: the message holding the other two comes first, said as such, even
/// when BM25 prefers a short one holding one of them again and again.
#[test]
fn with_a_word_misspelt_the_messages_holding_all_the_others_come_first() {
    let world = world_with(
        "search-rank-misspelt",
        &[
            user(
                "u1",
                "2026-11-01T10:00:00.000Z",
                "we talked about the walrus migration plan at length yesterday, with the whole \
                 team, and agreed on nothing in particular",
            ),
            assistant("a1", "2026-11-01T10:00:01.000Z", "walrus walrus walrus"),
        ],
    );
    let written = search(&world, &["walrus OR migartion OR plan"]);
    assert_eq!(written["results"][0]["role"], "assistant", "{written:#}");
    let misspelt = search(&world, &["walrus migartion plan"]);
    assert_eq!(
        ranked(&misspelt),
        [pair("user", "any"), pair("assistant", "any")],
        "{misspelt:#}"
    );
    assert_eq!(
        misspelt["results"][0]["why"],
        "holds all the words but one (or words they begin) within 10 words of each other; none \
         held all"
    );
    assert_eq!(
        misspelt["results"][1]["why"],
        "holds some of the words or words they begin; none held all"
    );
}

/// Quotes, `OR`, `AND`, `NOT` and the filters keep their meaning: a query with operators runs as
/// written, a quoted phrase is never split or widened unasked, and a query of either that finds
/// nothing offers its words instead.
#[test]
fn quotes_operators_and_filters_keep_their_meaning() {
    let world = world_with(
        "search-rank-operators",
        &[
            user(
                "u1",
                "2026-11-01T10:00:00.000Z",
                "the walrus migration plan",
            ),
            assistant("a1", "2026-11-01T10:00:01.000Z", "walrus tusks measured"),
            tool_result("t1", "2026-11-01T10:00:02.000Z", "walrus tusks again"),
        ],
    );
    let not = search(&world, &["walrus NOT tusks"]);
    assert_eq!(ranked(&not), [pair("user", "as_written")], "{not:#}");
    assert_eq!(
        not["results"][0]["why"],
        "matches the query as written (OR, AND, NOT, parentheses)"
    );
    let or = search(&world, &["plan OR measured"]);
    let mut either = ranked(&or);
    either.sort();
    assert_eq!(
        either,
        [pair("assistant", "as_written"), pair("user", "as_written")],
        "{or:#}"
    );
    // Filters narrow every tier.
    let filtered = search(&world, &["walrus tusks", "--role", "tool"]);
    assert_eq!(ranked(&filtered), [pair("tool", "exact")], "{filtered:#}");

    // A quoted phrase that no message holds is not widened: its words are offered.
    let quoted = search(&world, &["\"walrus plan\""]);
    assert_eq!(ranked(&quoted), []);
    assert_eq!(
        quoted["widened"],
        json!({"query": "walrus plan", "ran": false})
    );
    world
        .ctxhooks(["search", "\"walrus plan\""])
        .stdout_contains(
            "nothing found for `\"walrus plan\"`; its words without operators or quotes would \
             find more: `walrus plan`",
        )
        .success();
    let written = search(&world, &["walrus AND zeppelin NOT tusks"]);
    assert_eq!(ranked(&written), []);
    assert_eq!(
        written["widened"],
        json!({"query": "walrus zeppelin", "ran": false})
    );
}

/// The MCP tool's results carry the tiers and the widening in its words.
#[test]
fn the_mcp_search_tool_names_each_tier_and_the_widening() {
    let world = world_with(
        "search-rank-mcp",
        &[
            user(
                "u1",
                "2026-11-01T10:00:00.000Z",
                "keep the otter cache warm between runs",
            ),
            assistant(
                "a1",
                "2026-11-01T10:00:01.000Z",
                "the cache for the otter is warm now",
            ),
        ],
    );
    let answers = mcp_exchange(
        &world,
        &[
            json!({"method": "tools/call", "params": {"name": "search",
                "arguments": {"query": "otter cache warm"}}}),
            json!({"method": "tools/call", "params": {"name": "search",
                "arguments": {"query": "otter zeppelin"}}}),
            json!({"method": "tools/call", "params": {"name": "search",
                "arguments": {"query": "zeppelin blimp"}}}),
        ],
    );
    let tiers = tool_text(&answers[1]);
    let exact = tiers
        .find("exact: holds the phrase \"otter cache warm\"\n1. ")
        .unwrap_or_else(|| panic!("{tiers}"));
    let near = tiers
        .find("near: holds all the words within 10 words of each other\n2. ")
        .unwrap_or_else(|| panic!("{tiers}"));
    assert!(exact < near, "{tiers}");
    assert!(tiers.contains("[otter cache warm]"), "{tiers}");
    let widened = tool_text(&answers[2]);
    assert!(
        widened.contains("nothing matched all the words of `otter zeppelin`"),
        "{widened}"
    );
    assert!(
        widened.contains("any: holds some of the words"),
        "{widened}"
    );
    let none = tool_text(&answers[3]);
    assert!(
        none.contains("nothing found for `zeppelin blimp`, nor for any of its words"),
        "{none}"
    );
}
