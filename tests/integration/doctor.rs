//! Tests for `ctxhooks doctor`: findings for people and for programs.

use serde_json::Value;

use crate::support::{World, shared_fixture};

fn codes(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|finding| finding["code"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn doctor_warns_about_retention_and_shows_recent_errors() {
    let world = World::new("doctor");
    world.ctxhooks(["install"]).success();
    let errors_log = world.state_dir().join("errors.log");
    fs_err::write(
        &errors_log,
        "{\"time\":\"2026-11-30T01:02:03.000Z\",\"hook\":\"ctxhooks-stop\",\"event\":\"Stop\",\
         \"session_id\":\"abc\",\"error\":[\"failed to read the transcript\",\"gone\"]}\n",
    )
    .unwrap();

    world
        .ctxhooks(["doctor"])
        .stdout_contains("cleanupPeriodDays")
        .stdout_contains("ctxhooks-stop Stop session abc: failed to read the transcript: gone")
        .stdout_contains(format!("less {}", errors_log.display()))
        .success();

    let report = world.ctxhooks(["doctor", "--json"]).json();
    let codes = codes(&report);
    assert!(
        codes.contains(&"cleanup_period_unset".to_owned()),
        "{codes:?}"
    );
    assert!(
        codes.contains(&"recent_hook_errors".to_owned()),
        "{codes:?}"
    );
    assert!(!codes.contains(&"not_installed".to_owned()), "{codes:?}");
    assert_eq!(report["state_dir"]["mode"], "0700");
    assert_eq!(report["snapshot_count"], 0);
    assert_eq!(report["settings"][0]["hooks"].as_array().unwrap().len(), 9);
    assert_eq!(report["recent_errors"][0]["session_id"], "abc");
}

#[test]
fn doctor_is_quiet_about_retention_once_set_warns_of_disabled_hooks_and_fails_on_a_missing_binary()
{
    let world = World::new("doctor-broken");
    world.write_user_settings(
        "{\n  \"cleanupPeriodDays\": 365,\n  \"disableAllHooks\": true,\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \
         \"hooks\": [\n          {\n            \"type\": \"command\",\n            \
         \"command\": \"/nowhere/ctxhooks-stop\"\n          }\n        ]\n      }\n    ]\n  }\n}\n",
    );
    // Exit 1: a hook that cannot run is broken.
    let report = world.ctxhooks(["doctor", "--json"]).exit_code(1).json();
    let codes = codes(&report);
    assert!(
        !codes.contains(&"cleanup_period_unset".to_owned()),
        "{codes:?}"
    );
    assert!(
        codes.contains(&"hook_binary_missing".to_owned()),
        "{codes:?}"
    );
    assert_eq!(report["settings"][0]["hooks"][0]["binary_exists"], false);
}

#[test]
fn doctor_warns_when_a_runtime_mark_has_no_interrupt_record_after_it() {
    let world = World::new("doctor-mark");
    world.ctxhooks(["install"]).success();
    let session = "0123abcd-0000-4000-8000-00000000abcd";
    // A transcript with no interrupt record at all, known to the sidecar through a hook event.
    let transcript = world.write_transcript(
        format!("{session}.jsonl"),
        fs_err::read(shared_fixture("entireio__cli/4c/02af2759b6/0/full.jsonl")).unwrap(),
    );
    fs_err::create_dir_all(world.session_dir(session)).unwrap();
    fs_err::write(
        world.sidecar(session),
        format!(
            "{{\"kind\":\"tool_event\",\"event\":\"started\",\"hook_event_name\":\"PreToolUse\",\"time_ms\":1796000000000,\"tool_use_id\":\"toolu_1\",\"tool_name\":\"Bash\",\"transcript_path\":{}}}\n\
             {{\"kind\":\"runtime_interrupt_mark\",\"time_ms\":1796000000100,\"reason\":\"context backstop at 78%\"}}\n",
            serde_json::to_string(&transcript).unwrap()
        ),
    )
    .unwrap();
    let report = world.ctxhooks(["doctor", "--json"]).json();
    let codes = codes(&report);
    assert!(
        codes.contains(&"runtime_mark_without_interrupt".to_owned()),
        "{codes:?}"
    );
    world
        .ctxhooks(["doctor"])
        .stdout_contains("context backstop at 78%")
        .stdout_contains(session)
        .success();
}
