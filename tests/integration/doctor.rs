//! Tests for `ctxhooks doctor`: findings for people and for programs.

use serde_json::Value;

use crate::support::{World, transcript_fixture};

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
        fs_err::read(transcript_fixture(
            "entireio__cli/4c/02af2759b6/0/full.jsonl",
        ))
        .unwrap(),
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

#[test]
fn doctor_shows_the_hooks_at_work_and_readable_times() {
    let world = World::new("doctor-at-work");
    world.ctxhooks(["install"]).success();
    // A Stop on a real transcript, a tool hook given garbage, a runtime mark no interrupt follows.
    let transcript = world.write_transcript(
        "at-work.jsonl",
        fs_err::read(transcript_fixture("marot__spotter/short.jsonl")).unwrap(),
    );
    world
        .hook(crate::support::Hook::Stop)
        .stdin(
            serde_json::json!({"session_id": "at-work", "transcript_path": transcript,
                "hook_event_name": "Stop"})
            .to_string(),
        )
        .success();
    world
        .ctxhooks([
            "mark-interrupt",
            "--session",
            "at-work",
            "--reason",
            "backstop",
        ])
        .success();
    // After the mark (which writes the sidecar too; set an hour back, so that the error comes
    // after it whatever the clock's grain): the tool hook's last run is the error.
    ctxhooks_shared::test_support::set_modified(
        &world.sidecar("at-work"),
        std::time::SystemTime::now() - std::time::Duration::from_secs(3600),
    );
    world
        .hook(crate::support::Hook::ToolUse)
        .stdin("not a payload")
        .success();
    let report = world.ctxhooks(["doctor", "--json"]).json();
    let hooks = report["activity"]["hooks"].as_array().unwrap();
    let hook = |name: &str| {
        hooks
            .iter()
            .find(|hook| hook["hook"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(hook("ctxhooks-stop")["outcome"], "ok");
    assert!(
        hook("ctxhooks-stop")["last_trace"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );
    assert_eq!(hook("ctxhooks-tooluse")["outcome"], "error");
    assert_eq!(hook("ctxhooks-tooluse")["errors"], 1);
    assert_eq!(hook("ctxhooks-precompact")["outcome"], "no_trace");
    assert_eq!(report["activity"]["sessions_logged"], 1);
    assert_eq!(report["activity"]["sessions_kept"], 1);
    let text = world.ctxhooks(["doctor"]).success().stdout_text();
    assert!(
        text.contains("hooks at work  1 session(s) logged, 1 kept, 0 with snapshots"),
        "{text}"
    );
    assert!(text.contains(" UTC (just now)"), "{text}");
    // No time in epoch milliseconds anywhere: the mark's time is a date.
    let mark = text
        .lines()
        .find(|line| line.contains("the runtime mark of"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(mark.contains(" UTC (backstop)"), "{mark}");
    assert!(!mark.contains(" ms "), "{mark}");
}

#[test]
fn doctor_finds_our_entries_gone_from_a_settings_file_and_names_the_command_that_restores_them() {
    let world = World::new("doctor-entries-gone");
    world.ctxhooks(["install", "--statusline"]).success();
    let settings = world.user_settings();
    // What a settings writer that drops `hooks` leaves.
    let mut value: Value = serde_json::from_slice(&fs_err::read(&settings).unwrap()).unwrap();
    value.as_object_mut().unwrap().remove("hooks");
    value.as_object_mut().unwrap().remove("statusLine");
    value["cleanupPeriodDays"] = 365.into();
    fs_err::write(&settings, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    let outcome = world.ctxhooks(["doctor"]).exit_code(1);
    let text = outcome.stdout_text();
    let real = ctxhooks_shared::platform::canonical::canonicalize(&settings).unwrap();
    assert!(
        text.contains(&format!(
            "Put them back with `ctxhooks install --settings {} --statusline`",
            real.display()
        )),
        "{text}"
    );
    assert!(
        text.contains("the hooks for PreCompact, Stop, SubagentStop"),
        "{text}"
    );
    let report: Value =
        serde_json::from_slice(world.ctxhooks(["doctor", "--json"]).exit_code(1).stdout()).unwrap();
    assert!(codes(&report).contains(&"hooks_removed_from_settings".to_owned()));
    world
        .ctxhooks(["install", "--settings"])
        .arg(&real)
        .arg("--statusline")
        .success();
    let report = world.ctxhooks(["doctor", "--json"]).json();
    assert!(!codes(&report).contains(&"hooks_removed_from_settings".to_owned()));
    world.ctxhooks(["doctor"]).success();
}

#[test]
fn doctor_reports_the_plugins_hooks_and_warns_when_they_are_registered_twice() {
    use crate::support::fixtures::repository_file;
    let world = World::new("doctor-plugin");
    // What `claude plugin install ctxhooks@ctxhooks` leaves (2.1.332's layout, seen in the
    // plugin's end-to-end test): the record of installed plugins, a copy of the plugin, and
    // `enabledPlugins` in the user settings.
    let cache = world
        .config_dir()
        .join("plugins/cache/ctxhooks/ctxhooks/0.1.0");
    fs_err::create_dir_all(cache.join("hooks")).unwrap();
    fs_err::copy(
        repository_file("plugin/hooks/hooks.json"),
        cache.join("hooks/hooks.json"),
    )
    .unwrap();
    fs_err::write(
        world.config_dir().join("plugins/installed_plugins.json"),
        serde_json::json!({"version": 2, "plugins": {"ctxhooks@ctxhooks": [
            {"scope": "user", "installPath": cache, "version": "0.1.0"}]}})
        .to_string(),
    )
    .unwrap();
    world.write_user_settings(
        "{\n  \"cleanupPeriodDays\": 365,\n  \"enabledPlugins\": {\n    \"ctxhooks@ctxhooks\": true\n  }\n}\n",
    );
    let binaries = ctxhooks_shared::platform::canonical::canonicalize(crate::support::CTXHOOKS)
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let report = world
        .ctxhooks(["doctor", "--json"])
        .env("CTXHOOKS_BIN_DIR", &binaries)
        .json();
    let plugin = &report["plugins"][0];
    assert_eq!(plugin["id"], "ctxhooks@ctxhooks");
    assert_eq!(plugin["enabled"], true);
    let hooks = plugin["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 9);
    assert!(
        hooks.iter().all(|hook| hook["binary_exists"] == true),
        "{hooks:#?}"
    );
    // Installed by the plugin alone: nothing to warn about (only facts).
    let serious: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["severity"] != "info")
        .collect();
    assert!(serious.is_empty(), "{serious:#?}");
    world
        .ctxhooks(["doctor"])
        .env("CTXHOOKS_BIN_DIR", &binaries)
        .stdout_contains("ctxhooks@ctxhooks  (enabled, user scope")
        .success();
    // The binaries not where the plugin looks: broken.
    let missing = world
        .ctxhooks(["doctor", "--json"])
        .env("CTXHOOKS_BIN_DIR", world.join("nowhere"))
        .exit_code(1);
    let missing: Value = serde_json::from_slice(missing.stdout()).unwrap();
    assert!(codes(&missing).contains(&"plugin_hook_binary_missing".to_owned()));
    // The settings route as well: every hook would run twice.
    world.ctxhooks(["install"]).success();
    let twice = world
        .ctxhooks(["doctor"])
        .env("CTXHOOKS_BIN_DIR", &binaries)
        .stdout_contains("are registered twice, by the plugin ctxhooks@ctxhooks")
        .success();
    let _ = twice;
}
