//! Cost in dollars, as a person sees it: `report`, `history`, `export` and the status line's
//! `{cost}`, priced by the built-in table (Anthropic's published prices) or by `config.json`'s
//! `prices`, and a bad entry there refused with a clear error. Every expected amount is computed
//! by hand from the published prices ($ per million tokens), not by the code.

use serde_json::{Value, json};

use crate::support::World;
use crate::support::fixtures::{cli_capture, transcript_fixture};
use crate::support::run::Hook;

const SESSION: &str = "5b5c3a1e-0000-4000-8000-00000000c057";

/// `marot__spotter/tool_heavy.jsonl`: 4 requests of `claude-opus-4-6`, every cache write into
/// the 1-hour cache: input 54 × $5 + cache write 17,696 × $10 + cache read 88,231 × $0.50 +
/// output 212 × $25 = $0.00027 + $0.17696 + $0.0441155 + $0.0053 = $0.2266455 (ccusage 20.0.24
/// says the same), written to the millionth: 0.226646.
const TOOL_HEAVY_USD: f64 = 0.226_646;

fn tool_heavy() -> std::path::PathBuf {
    transcript_fixture("marot__spotter/tool_heavy.jsonl")
}

fn close(value: &Value, expected: f64) -> bool {
    value
        .as_f64()
        .is_some_and(|usd| (usd - expected).abs() < 1e-9)
}

#[test]
fn report_gives_the_cost_in_words_and_json() {
    let world = World::new("cost-report");
    let transcript = tool_heavy();
    let text = world
        .ctxhooks(["report", "--transcript"])
        .arg(&transcript)
        .success()
        .stdout_text();
    assert!(
        text.contains("  cost: $0.2266 (claude-opus-4-6 $0.2266)\n"),
        "{text}"
    );
    assert!(!text.contains("unpriced"), "{text}");
    let report = world
        .ctxhooks(["report", "--json", "--transcript"])
        .arg(&transcript)
        .json();
    assert_eq!(report["schema"], 3);
    let cost = &report["cost"];
    assert!(close(&cost["usd"], TOOL_HEAVY_USD), "{cost}");
    assert_eq!(cost["by_model"][0]["model"], "claude-opus-4-6");
    assert_eq!(cost["by_model"][0]["responses"], 4);
    assert_eq!(cost["unpriced"], json!([]));
}

/// The pinned CLI's advisor capture: `claude-opus-5` answers with `claude-fable-5` as its
/// advisor. The advisor's tokens are priced as Fable 5's ($10 input, $50 output): 207,281 ×
/// $10 + 7,495 × $50 = $2.07281 + $0.37475 = $2.44756. Opus 5's ($5, $0.50 hit, $6.25/$10
/// writes, $25 output): the first response 2 input, 216,786 read, 6,352 written to the 1-hour
/// cache (though it asked for 5 minutes: the API bills the bucket it wrote), 900 output, $0.194423;
/// the second (its top level 0, counted from its iteration) 2 input, 204,576 read, 87 written
/// with no split at the 5-minute price it asked for, 40 output: $0.00001 + $0.102288 +
/// $0.00054375 + $0.001 = $0.10384175. The first response and the advisor, $2.641983, are the
/// CLI's own `total_cost_usd` for this session.
#[test]
fn the_advisor_is_priced_as_its_own_model() {
    let world = World::new("cost-advisor");
    let transcript = cli_capture(world.root(), "today/advisor-print.jsonl.gz");
    let report = world
        .ctxhooks(["report", "--json", "--transcript"])
        .arg(&transcript)
        .json();
    let by_model = &report["cost"]["by_model"];
    assert_eq!(by_model[0]["model"], "claude-opus-5", "{by_model}");
    assert!(close(&by_model[0]["usd"], 0.298_265), "{by_model}");
    assert_eq!(by_model[1]["model"], "claude-fable-5", "{by_model}");
    assert!(close(&by_model[1]["usd"], 2.447_56), "{by_model}");
    assert!(close(&report["cost"]["usd"], 2.745_825), "{report:#}");
}

/// A projects folder with `tool_heavy.jsonl` as the one session's transcript.
fn one_session_world(name: &str) -> World {
    let world = World::new(name);
    world.write_transcript(
        format!("{SESSION}.jsonl"),
        fs_err::read(tool_heavy()).unwrap(),
    );
    world
}

#[test]
fn history_gives_the_cost_per_session_day_project_and_in_all() {
    let world = one_session_world("cost-history");
    let history = world.ctxhooks(["history", "--json"]).json();
    assert_eq!(history["schema"], 2);
    for cost in [
        &history["totals"]["cost"],
        &history["sessions"][0]["cost"],
        &history["days"][0]["cost"],
        &history["projects"][0]["cost"],
    ] {
        assert!(close(&cost["usd"], TOOL_HEAVY_USD), "{history:#}");
        assert_eq!(cost["by_model"][0]["model"], "claude-opus-4-6");
    }
    let text = world.ctxhooks(["history"]).success().stdout_text();
    assert!(
        text.contains("\ncost: $0.2266 (claude-opus-4-6 $0.2266)\n"),
        "{text}"
    );
    // The cost column of the session, day and project tables.
    assert_eq!(text.matches("   $0.2266").count(), 3, "{text}");
}

#[test]
fn export_prices_each_request_and_the_session() {
    let world = one_session_world("cost-export");
    let out = world
        .ctxhooks(["export", "--host", "h"])
        .success()
        .stdout_text();
    let records: Vec<Value> = out
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let requests: Vec<&Value> = records
        .iter()
        .filter(|record| record["kind"] == "request")
        .collect();
    assert_eq!(requests.len(), 4);
    let sum: f64 = requests
        .iter()
        .map(|record| record["cost_usd"].as_f64().unwrap())
        .sum();
    // Each request rounded to the millionth: the sum within 4 millionths.
    assert!((sum - 0.226_645_5).abs() < 4e-6, "{sum}");
    let session = records
        .iter()
        .find(|record| record["kind"] == "session")
        .unwrap();
    assert_eq!(session["schema"], 3);
    assert!(close(&session["cost"]["usd"], TOOL_HEAVY_USD), "{session}");
}

/// The status line input for `session` (only what `{cost}` needs).
fn status_json(world: &World, session: &str) -> String {
    json!({
        "session_id": session,
        "transcript_path": world.transcript_path(session),
        "model": {"id": "claude-opus-4-6", "display_name": "Opus 4.6"},
    })
    .to_string()
}

/// Runs the Stop hook over the session's transcript: its usage log.
fn stop(world: &World) {
    let payload = json!({
        "session_id": SESSION,
        "transcript_path": world.transcript_path(SESSION),
        "hook_event_name": "Stop",
        "stop_hook_active": false,
    });
    world.hook(Hook::Stop).stdin(payload.to_string()).success();
}

#[test]
fn the_status_line_shows_the_sessions_cost() {
    let world = one_session_world("cost-statusline");
    // No usage log yet: not known.
    world
        .ctxhooks(["statusline", "--plain", "--format", "{cost}"])
        .stdin(status_json(&world, SESSION))
        .stdout("?\n")
        .success();
    stop(&world);
    world
        .ctxhooks(["statusline", "--plain", "--format", "spent {cost}"])
        .stdin(status_json(&world, SESSION))
        .stdout("spent $0.2266\n")
        .success();
}

#[test]
fn config_prices_replace_the_built_in_ones_and_a_bad_entry_is_an_error() {
    let world = one_session_world("cost-config");
    stop(&world);
    let config = world.state_dir().join("config.json");
    // Opus 4.6 at $1 for everything: 54 + 17,696 + 88,231 + 212 = 106,193 tokens, $0.106193.
    fs_err::write(
        &config,
        r#"{"prices": {"claude-opus-4-6": {"input": 1, "output": 1, "cache_read": 1,
            "cache_write_5m": 1, "cache_write_1h": 1}}}"#,
    )
    .unwrap();
    let report = world
        .ctxhooks(["report", "--json", "--session", SESSION])
        .json();
    assert!(close(&report["cost"]["usd"], 0.106_193), "{report:#}");
    world
        .ctxhooks(["statusline", "--plain", "--format", "{cost}"])
        .stdin(status_json(&world, SESSION))
        .stdout("$0.1062\n")
        .success();

    // A price that is no number: every command that prices says which, and prints no cost.
    fs_err::write(
        &config,
        r#"{"prices": {"claude-opus-4-6": {"input": "cheap", "output": 1, "cache_read": 1,
            "cache_write_5m": 1, "cache_write_1h": 1}}}"#,
    )
    .unwrap();
    for command in [
        vec!["report", "--session", SESSION],
        vec!["history"],
        vec!["export"],
    ] {
        world
            .ctxhooks(&command)
            .stderr_contains("`prices.claude-opus-4-6` in `")
            .stderr_contains("is not a price: invalid type: string \"cheap\", expected f64")
            .exit_code(1);
    }
    let line = world
        .ctxhooks(["statusline", "--plain", "--format", "{cost}"])
        .stdin(status_json(&world, SESSION))
        .success()
        .stdout_text();
    assert!(
        line.starts_with("ctxhooks statusline: `prices.claude-opus-4-6` in `"),
        "{line}"
    );
    // A negative price is named with its field.
    fs_err::write(
        &config,
        r#"{"prices": {"claude-opus-4-6": {"input": -1, "output": 1, "cache_read": 1,
            "cache_write_5m": 1, "cache_write_1h": 1}}}"#,
    )
    .unwrap();
    world
        .ctxhooks(["report", "--session", SESSION])
        .stderr_contains("`prices.claude-opus-4-6.input` in `")
        .stderr_contains("is -1: a price is dollars per million tokens, from 0 to 1000000")
        .exit_code(1);
}

#[test]
fn a_config_file_that_is_no_configuration_costs_nothing_but_its_prices() {
    // `report`, `history` and `export` read config.json only for its prices: a file broken as a
    // whole (not JSON, or its storage limits of the wrong type) is said, and they go on with the
    // built-in prices as they did before they read it at all.
    let world = one_session_world("cost-bad-config");
    stop(&world);
    let config = world.state_dir().join("config.json");
    let built_in = world
        .ctxhooks(["report", "--json", "--session", SESSION])
        .json();
    for text in [
        "{ not json",
        r#"{"storage": {"kept_older_than_days": "ten"}}"#,
    ] {
        fs_err::write(&config, text).unwrap();
        for command in [
            vec!["report", "--session", SESSION],
            vec!["history"],
            vec!["export"],
        ] {
            world
                .ctxhooks(&command)
                .stderr_contains("costs use the built-in prices")
                .success();
        }
        let report = world
            .ctxhooks(["report", "--json", "--session", SESSION])
            .success()
            .json();
        assert_eq!(report["cost"], built_in["cost"], "{text}");
    }
}

#[test]
fn a_model_with_no_price_is_said_unpriced() {
    // Opus 4.6's model name changed to one the list does not price in full.
    let world = World::new("cost-unpriced");
    let text = fs_err::read_to_string(tool_heavy())
        .unwrap()
        .replace("\"claude-opus-4-6\"", "\"claude-opus-5-5\"");
    let transcript = world.write_transcript(format!("{SESSION}.jsonl"), text);
    let out = world
        .ctxhooks(["report", "--transcript"])
        .arg(&transcript)
        .success()
        .stdout_text();
    assert!(
        out.contains("  unpriced: claude-opus-5-5 (no price known"),
        "{out}"
    );
    assert!(!out.contains("  cost:"), "{out}");
    let report = world
        .ctxhooks(["report", "--json", "--transcript"])
        .arg(&transcript)
        .json();
    assert_eq!(report["cost"]["unpriced"], json!(["claude-opus-5-5"]));
    assert_eq!(report["cost"]["usd"], 0.0);
    assert_eq!(report["cost"]["by_model"][0]["usd"], Value::Null);
}
