//! Tests for `ctxhooks install` / `uninstall` on real settings files, run through the real
//! binary in a [`World`]: `HOME`, `CLAUDE_CONFIG_DIR` and `CTXHOOKS_HOME` point into a per-test
//! folder.

#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ctxhooks_shared::store::env_vars;
use serde_json::Value;

use crate::support::fixtures::repository_file;
#[cfg(unix)]
use crate::support::make_fifo;
use crate::support::{CTXHOOKS, Hook, World, mode, needs_root};
use ctxhooks_shared::platform::program::{binary_file_name, shell_path};

/// The folder the hook binaries are registered from: the canonical folder of `ctxhooks`.
fn binaries_dir() -> PathBuf {
    ctxhooks_shared::platform::canonical::canonicalize(CTXHOOKS)
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The command `install` writes for the binary `name` in `binaries` (on Windows its `.exe`,
/// with forward slashes).
fn command_of(binaries: &Path, name: &str) -> String {
    shell_path(&binaries.join(binary_file_name(name)))
}

/// [`INSTALLED`] with the binaries' commands filled in.
fn installed_text(binaries: &Path) -> String {
    let mut text = INSTALLED.to_owned();
    for hook in Hook::ALL {
        let command = serde_json::to_string(&command_of(binaries, hook.name())).unwrap();
        text = text.replace(&format!("\"BIN/{}\"", hook.name()), &command);
    }
    text
}

/// `text` with each 2-space indentation level replaced by `unit` and, if `final_newline` is
/// false, without its final newline.
fn restyle(text: &str, unit: &str, final_newline: bool) -> String {
    let mut lines: Vec<String> = text
        .lines()
        .map(|line| {
            let trimmed = line.trim_start_matches(' ');
            let levels = (line.len() - trimmed.len()) / 2;
            format!("{}{trimmed}", unit.repeat(levels))
        })
        .collect();
    if final_newline {
        lines.push(String::new());
    }
    lines.join("\n")
}

/// A user settings file as Claude Code writes it (2 spaces, final newline), already holding
/// another tool's `PreCompact` and `PostToolUse` hooks, a `statusLine` and other keys.
const ORIGINAL: &str = r#"{
  "model": "opus",
  "statusLine": {
    "type": "command",
    "command": "~/.claude/statusline.sh",
    "padding": 0
  },
  "hooks": {
    "PreCompact": [
      {
        "matcher": "auto",
        "hooks": [
          {
            "type": "command",
            "command": "other-tool backup"
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "prettier --write",
            "timeout": 30
          }
        ]
      }
    ]
  },
  "permissions": {
    "allow": [
      "Bash(git status)"
    ]
  }
}
"#;

/// `ORIGINAL` after install, written by hand: our groups are appended to the existing
/// `PreCompact` and `PostToolUse` arrays, and the seven new event arrays follow the existing ones in
/// registration order. BIN stands for the binaries' folder.
const INSTALLED: &str = r#"{
  "model": "opus",
  "statusLine": {
    "type": "command",
    "command": "~/.claude/statusline.sh",
    "padding": 0
  },
  "hooks": {
    "PreCompact": [
      {
        "matcher": "auto",
        "hooks": [
          {
            "type": "command",
            "command": "other-tool backup"
          }
        ]
      },
      {
        "hooks": [
          {
            "type": "command",
            "command": "BIN/ctxhooks-precompact",
            "args": [],
            "timeout": 120
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "prettier --write",
            "timeout": 30
          }
        ]
      },
      {
        "hooks": [
          {
            "type": "command",
            "command": "BIN/ctxhooks-tooluse",
            "args": [],
            "timeout": 10
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "BIN/ctxhooks-stop",
            "args": [],
            "timeout": 60
          }
        ]
      }
    ],
    "SubagentStop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "BIN/ctxhooks-stop",
            "args": [],
            "timeout": 60
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "BIN/ctxhooks-tooluse",
            "args": [],
            "timeout": 10
          }
        ]
      }
    ],
    "PostToolUseFailure": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "BIN/ctxhooks-tooluse",
            "args": [],
            "timeout": 10
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "BIN/ctxhooks-session",
            "args": [],
            "timeout": 1
          }
        ]
      }
    ],
    "PostCompact": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "BIN/ctxhooks-session",
            "args": [],
            "timeout": 1
          }
        ]
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "BIN/ctxhooks-session",
            "args": [],
            "timeout": 1
          }
        ]
      }
    ]
  },
  "permissions": {
    "allow": [
      "Bash(git status)"
    ]
  }
}
"#;

#[test]
fn install_merges_is_idempotent_and_uninstall_restores_every_byte() {
    for (unit, final_newline) in [("  ", true), ("    ", true), ("    ", false), ("\t", true)] {
        let world = World::new("roundtrip");
        let original = restyle(ORIGINAL, unit, final_newline);
        world.write_user_settings(&original);
        let settings = world.user_settings();
        #[cfg(unix)]
        fs_err::set_permissions(&settings, std::fs::Permissions::from_mode(0o644)).unwrap();
        let mode_before = mode(&settings);

        world.ctxhooks(["install"]).success();
        let installed = fs_err::read_to_string(&settings).unwrap();
        assert_eq!(
            installed,
            restyle(&installed_text(&binaries_dir()), unit, final_newline),
            "indent {unit:?}, final newline {final_newline}"
        );
        assert_eq!(mode(&settings), mode_before, "the file's mode is kept");
        let backups = world.backups();
        assert_eq!(backups.len(), 1);
        assert_eq!(fs_err::read_to_string(&backups[0]).unwrap(), original);
        assert_eq!(mode(&backups[0]), 0o600);
        assert!(world.state_dir().join("installs.json").is_file());

        let again = world.ctxhooks(["install"]).success().stdout_text();
        assert!(again.contains("nothing changed"), "{again}");
        assert_eq!(fs_err::read_to_string(&settings).unwrap(), installed);
        assert_eq!(world.backups().len(), 1, "no second backup");

        world.ctxhooks(["uninstall"]).success();
        assert_eq!(fs_err::read_to_string(&settings).unwrap(), original);
        let record: Value = serde_json::from_str(
            &fs_err::read_to_string(world.state_dir().join("installs.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(record["settings_files"], serde_json::json!({}));
    }
}

#[test]
fn absent_file_is_created_then_deleted() {
    let world = World::new("absent");
    let settings = world.user_settings();
    world.ctxhooks(["install"]).success();
    let value: Value = serde_json::from_str(&fs_err::read_to_string(&settings).unwrap()).unwrap();
    let events: Vec<&String> = value["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(
        events,
        [
            "PreCompact",
            "Stop",
            "SubagentStop",
            "PreToolUse",
            "PostToolUse",
            "PostToolUseFailure",
            "SessionStart",
            "PostCompact",
            "SessionEnd"
        ]
    );
    assert_eq!(mode(&settings), 0o600);
    assert!(world.backups().is_empty(), "nothing to back up");
    world.ctxhooks(["uninstall"]).success();
    assert!(!settings.exists());
}

#[test]
fn a_user_edit_between_install_and_uninstall_survives() {
    let world = World::new("user-edit");
    world.write_user_settings(ORIGINAL);
    let settings = world.user_settings();
    world.ctxhooks(["install"]).success();
    let mut value: Value =
        serde_json::from_str(&fs_err::read_to_string(&settings).unwrap()).unwrap();
    value["theme"] = Value::from("dark");
    fs_err::write(&settings, serde_json::to_string_pretty(&value).unwrap()).unwrap();

    let output = world.ctxhooks(["uninstall"]).success().stdout_text();
    assert!(!output.contains("restored"), "{output}");
    let text = fs_err::read_to_string(&settings).unwrap();
    let mut expected: Value = serde_json::from_str(ORIGINAL).unwrap();
    expected["theme"] = Value::from("dark");
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), expected);
    assert!(!text.contains("ctxhooks-"), "{text}");
}

#[test]
fn invalid_settings_are_refused_with_file_and_position() {
    let cases = [
        // A trailing comma: serde_json stops at the closing brace, line 4 column 1.
        ("{\n  \"model\": \"opus\",\n  \"x\": 1,\n}\n", "4:1"),
        // `hooks` is an array: its `[` is the 12th character of line 2.
        ("{\n  \"hooks\": []\n}\n", "2:12"),
        // An event's value is an object: its `{` is the 13th character of line 3.
        ("{\n  \"hooks\": {\n    \"Stop\": {}\n  }\n}\n", "3:13"),
        // The top level is an array.
        ("[]\n", "1:1"),
    ];
    for (text, position) in cases {
        let world = World::new("invalid");
        world.write_user_settings(text);
        // Refused (exit 1), with the file and the position named, and the file as it was.
        world
            .ctxhooks(["install"])
            .stderr_contains(format!("{}:{position}", world.user_settings().display()))
            .expect_file(world.user_settings(), text)
            .exit_code(1);
        assert!(!world.state_dir().exists(), "state written for {text:?}");
    }
}

#[test]
fn uninstall_refuses_a_file_broken_after_install() {
    let world = World::new("broken-later");
    world.write_user_settings(ORIGINAL);
    world.ctxhooks(["install"]).success();
    let broken = format!(
        "{}oops",
        fs_err::read_to_string(world.user_settings()).unwrap()
    );
    fs_err::write(world.user_settings(), &broken).unwrap();
    // INSTALLED has 142 newline-terminated lines (counted with python3), so "oops" starts line 143.
    world
        .ctxhooks(["uninstall"])
        .stderr_contains(format!("{}:143:1", world.user_settings().display()))
        .expect_file(world.user_settings(), &broken)
        .exit_code(1);
    let record = fs_err::read_to_string(world.state_dir().join("installs.json")).unwrap();
    assert!(record.contains("ctxhooks-stop"), "the record is kept");
}

#[test]
fn dry_run_changes_nothing() {
    let world = World::new("dry-run");
    world.write_user_settings(ORIGINAL);
    let settings = world.user_settings();
    let output = world
        .ctxhooks(["install", "--dry-run"])
        .success()
        .stdout_text();
    assert!(output.contains("+            \"command\": \""), "{output}");
    assert!(output.contains("nothing was written"), "{output}");
    assert_eq!(fs_err::read_to_string(&settings).unwrap(), ORIGINAL);
    assert!(!world.state_dir().exists());

    world.ctxhooks(["install"]).success();
    let installed = fs_err::read_to_string(&settings).unwrap();
    let output = world
        .ctxhooks(["uninstall", "--dry-run", "--json"])
        .success()
        .stdout_text();
    let outcome: Value = serde_json::from_str(&output).unwrap();
    assert_eq!(outcome["changed"], true);
    assert_eq!(outcome["dry_run"], true);
    assert_eq!(outcome["removed"].as_array().unwrap().len(), 9);
    assert_eq!(fs_err::read_to_string(&settings).unwrap(), installed);
    assert_eq!(world.backups().len(), 1);
    world.ctxhooks(["uninstall"]).success();
    assert_eq!(fs_err::read_to_string(&settings).unwrap(), ORIGINAL);
}

#[test]
fn json_outcome_names_path_handlers_and_backup() {
    let world = World::new("json");
    world.write_user_settings(ORIGINAL);
    let outcome: Value = world.ctxhooks(["install", "--json"]).json();
    assert_eq!(outcome["path"], world.user_settings().display().to_string());
    assert_eq!(outcome["changed"], true);
    let added = outcome["added"].as_array().unwrap();
    assert_eq!(added.len(), 9);
    assert_eq!(
        added[0]["handler"],
        serde_json::json!({
            "type": "command",
            "command": command_of(&binaries_dir(), "ctxhooks-precompact"),
            "args": [],
            "timeout": 120
        })
    );
    let backup = PathBuf::from(outcome["backup"].as_str().unwrap());
    assert_eq!(fs_err::read_to_string(backup).unwrap(), ORIGINAL);
    let again: Value = world.ctxhooks(["install", "--json"]).json();
    assert_eq!(again["changed"], false);
    assert_eq!(again["added"], serde_json::json!([]));
    assert_eq!(again["backup"], Value::Null);
}

#[test]
fn project_and_local_scopes_write_under_the_current_folder() {
    let world = World::new("scopes");
    world.ctxhooks(["install", "--scope", "project"]).success();
    world.ctxhooks(["install", "--scope", "local"]).success();
    let project = world.project().join(".claude/settings.json");
    let local = world.project().join(".claude/settings.local.json");
    for path in [&project, &local] {
        let text = fs_err::read_to_string(path).unwrap();
        assert!(text.contains("ctxhooks-precompact"), "{text}");
    }
    // On Windows a shared file keeps the access list its folder gives (0666 as `mode` reads it).
    let shared = if cfg!(windows) { 0o666 } else { 0o644 };
    assert_eq!(mode(&project), shared, "the project file is shared");
    assert_eq!(mode(&local), 0o600);
    assert!(!world.user_settings().exists());
    world
        .ctxhooks(["uninstall", "--scope", "project"])
        .success();
    assert!(!project.exists());
    assert!(local.exists());
    world.ctxhooks(["uninstall", "--scope", "local"]).success();
    assert!(!local.exists());
}

#[test]
fn a_moved_installation_replaces_its_old_handlers() {
    let world = World::new("moved");
    world.write_user_settings(ORIGINAL);
    world.ctxhooks(["install"]).success();
    // Reinstall from another folder: copies of the four binaries.
    let moved = world.join("elsewhere/bin");
    fs_err::create_dir_all(&moved).unwrap();
    fs_err::copy(CTXHOOKS, moved.join(binary_file_name("ctxhooks"))).unwrap();
    for hook in Hook::ALL {
        fs_err::copy(hook.binary(), moved.join(binary_file_name(hook.name()))).unwrap();
    }
    world
        .program(moved.join("ctxhooks"))
        .arg("install")
        .success();
    let text = fs_err::read_to_string(world.user_settings()).unwrap();
    let moved = ctxhooks_shared::platform::canonical::canonicalize(&moved).unwrap();
    assert_eq!(text, installed_text(&moved));
    assert_eq!(world.backups().len(), 2);
    world
        .program(moved.join("ctxhooks"))
        .arg("uninstall")
        .success();
    assert_eq!(
        fs_err::read_to_string(world.user_settings()).unwrap(),
        ORIGINAL
    );
}

#[test]
fn uninstall_with_nothing_installed_says_so() {
    let world = World::new("nothing");
    world.write_user_settings(ORIGINAL);
    let output = world.ctxhooks(["uninstall"]).success().stdout_text();
    assert!(output.contains("nothing to uninstall"), "{output}");
    assert_eq!(
        fs_err::read_to_string(world.user_settings()).unwrap(),
        ORIGINAL
    );
}

/// `install/setup.sh` end to end: release build, binaries in `$PREFIX/bin`, hooks registered in
/// the user settings, doctor run; a second run changes nothing. It runs a full release build in
/// its own target folder (over a minute on 2 cores), so it only runs with `--ignored`.
#[test]
#[ignore = "runs a release build; run with `cargo test --test integration -- --ignored setup`"]
fn setup_script_installs_and_is_safe_to_run_twice() {
    let world = World::new("setup");
    let script = repository_file("install/setup.sh");
    let real_home = PathBuf::from(std::env::var_os("HOME").unwrap());
    let toolchain_var = |name: &str, default: &str| {
        std::env::var_os(name).unwrap_or_else(|| real_home.join(default).into_os_string())
    };
    let prefix = world.join("prefix");
    // As a user runs it: the state and config folders found from HOME, the real toolchain.
    let run = || {
        world
            .program("bash")
            .arg(&script)
            .env_remove(env_vars::CLAUDE_CONFIG_DIR)
            .env_remove(env_vars::CTXHOOKS_HOME)
            .env("PREFIX", &prefix)
            .env("CARGO_TARGET_DIR", world.join("target"))
            .env("RUSTUP_HOME", toolchain_var("RUSTUP_HOME", ".rustup"))
            .env("CARGO_HOME", toolchain_var("CARGO_HOME", ".cargo"))
            .timeout(Duration::from_secs(3600))
    };
    run().stderr_contains("is not on your PATH").success();
    let settings = world.user_settings();
    let installed = fs_err::read_to_string(&settings).unwrap();
    let bin = ctxhooks_shared::platform::canonical::canonicalize(prefix.join("bin")).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&installed).unwrap(),
        serde_json::from_str::<Value>(&installed_text(&bin)).unwrap()["hooks"]
            .as_object()
            .map(|hooks| {
                // INSTALLED minus the other tool's hooks and keys, starting from an absent file.
                let mut ours = serde_json::Map::new();
                for event in [
                    "PreCompact",
                    "Stop",
                    "SubagentStop",
                    "PreToolUse",
                    "PostToolUse",
                    "PostToolUseFailure",
                    "SessionStart",
                    "PostCompact",
                    "SessionEnd",
                ] {
                    let groups = hooks[event].as_array().unwrap();
                    ours.insert(
                        event.into(),
                        Value::Array(vec![groups.last().unwrap().clone()]),
                    );
                }
                serde_json::json!({ "hooks": ours })
            })
            .unwrap()
    );
    for name in [
        "ctxhooks",
        "ctxhooks-precompact",
        "ctxhooks-stop",
        "ctxhooks-tooluse",
        "ctxhooks-session",
    ] {
        assert_eq!(mode(&bin.join(name)), 0o755, "{name}");
    }
    run().stdout_contains("nothing changed").success();
    assert_eq!(fs_err::read_to_string(&settings).unwrap(), installed);
}

/// A hand-formatted settings file: one-line objects and arrays that a pretty printer would
/// spread over many lines.
const HAND_FORMATTED: &str = r#"{
  "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"},
  "hooks": {
    "PostToolUse": [
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier --write"}]}
    ]
  },
  "permissions": {"allow": ["Bash(git status)"]}
}
"#;

/// One of our matcher groups as the pretty printer writes it at 2-space indentation, starting
/// at `indent`.
fn our_group(indent: &str, command: &str, timeout: u64) -> String {
    format!(
        "{{\n{indent}  \"hooks\": [\n{indent}    {{\n{indent}      \"type\": \"command\",\n\
         {indent}      \"command\": \"{command}\",\n{indent}      \"args\": [],\n\
         {indent}      \"timeout\": {timeout}\n{indent}    }}\n{indent}  ]\n{indent}}}"
    )
}

#[test]
fn hand_formatting_is_kept_outside_our_additions() {
    let world = World::new("hand");
    world.write_user_settings(HAND_FORMATTED);
    world.ctxhooks(["install"]).success();
    let bin = binaries_dir();
    let new_event = |event: &str, name: &str, timeout: u64| {
        format!(
            ",\n    \"{event}\": [\n      {}\n    ]",
            our_group("      ", &command_of(&bin, name), timeout)
        )
    };
    // Our PostToolUse group follows the user's one-line group; the new events follow
    // PostToolUse in registration order; nothing else moves.
    let expected = format!(
        "{{\n  \"statusLine\": {{\"type\": \"command\", \"command\": \"~/.claude/statusline.sh\"}},\n  \
         \"hooks\": {{\n    \"PostToolUse\": [\n      {{\"matcher\": \"Edit|Write\", \"hooks\": \
         [{{\"type\": \"command\", \"command\": \"prettier --write\"}}]}},\n      {}\n    ]{}{}{}{}{}{}{}{}\n  \
         }},\n  \"permissions\": {{\"allow\": [\"Bash(git status)\"]}}\n}}\n",
        our_group("      ", &command_of(&bin, "ctxhooks-tooluse"), 10),
        new_event("PreCompact", "ctxhooks-precompact", 120),
        new_event("Stop", "ctxhooks-stop", 60),
        new_event("SubagentStop", "ctxhooks-stop", 60),
        new_event("PreToolUse", "ctxhooks-tooluse", 10),
        new_event("PostToolUseFailure", "ctxhooks-tooluse", 10),
        new_event("SessionStart", "ctxhooks-session", 1),
        new_event("PostCompact", "ctxhooks-session", 1),
        new_event("SessionEnd", "ctxhooks-session", 1),
    );
    let installed = fs_err::read_to_string(world.user_settings()).unwrap();
    assert_eq!(installed, expected);

    // The user adds a key by hand; uninstall keeps it and every one-line value as it was.
    let edited = installed.replacen(
        "{\n  \"statusLine\"",
        "{\n  \"theme\": \"dark\",\n  \"statusLine\"",
        1,
    );
    fs_err::write(world.user_settings(), &edited).unwrap();
    world.ctxhooks(["uninstall"]).success();
    assert_eq!(
        fs_err::read_to_string(world.user_settings()).unwrap(),
        HAND_FORMATTED.replacen("{\n", "{\n  \"theme\": \"dark\",\n", 1)
    );
}

#[test]
fn an_unreadable_ownership_record_stops_install_before_any_write() {
    let world = World::new("bad-record");
    world.write_user_settings(ORIGINAL);
    fs_err::create_dir_all(world.state_dir()).unwrap();
    fs_err::write(world.state_dir().join("installs.json"), "{not json").unwrap();
    world
        .ctxhooks(["install"])
        .stderr_contains("installs.json")
        .expect_file(world.user_settings(), ORIGINAL)
        .expect_file(world.state_dir().join("installs.json"), "{not json")
        .exit_code(1);
    assert!(world.backups().is_empty());
}

// Unix only: a symbolic link (Wine 8 makes none that reads back as one).
#[cfg(unix)]
#[test]
fn a_symlinked_settings_file_is_edited_where_it_lives() {
    let world = World::new("symlink");
    let dotfiles = world.join("dotfiles");
    fs_err::create_dir_all(&dotfiles).unwrap();
    fs_err::create_dir_all(world.config_dir()).unwrap();
    fs_err::write(dotfiles.join("settings.json"), ORIGINAL).unwrap();
    std::os::unix::fs::symlink(dotfiles.join("settings.json"), world.user_settings()).unwrap();
    world.ctxhooks(["install"]).success();
    assert!(
        fs_err::symlink_metadata(world.user_settings())
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link was replaced by a file"
    );
    let target =
        ctxhooks_shared::platform::canonical::canonicalize(dotfiles.join("settings.json")).unwrap();
    assert_eq!(
        fs_err::read_to_string(&target).unwrap(),
        installed_text(&binaries_dir())
    );
    world.ctxhooks(["uninstall"]).success();
    assert_eq!(fs_err::read_to_string(&target).unwrap(), ORIGINAL);
}

// See: the fault issue, defect 1 (a dangling settings link was replaced, then deleted).
// Unix only: a symbolic link (Wine 8 makes none that reads back as one).
#[cfg(unix)]
#[test]
fn a_settings_link_to_a_file_not_yet_created_is_written_through_and_survives() {
    let world = World::new("dangling-link");
    // A folder beside the config folder, named by a relative link.
    let dotfiles = world.home().join("dotfiles");
    fs_err::create_dir_all(&dotfiles).unwrap();
    fs_err::create_dir_all(world.config_dir()).unwrap();
    std::os::unix::fs::symlink("../dotfiles/settings.json", world.user_settings()).unwrap();
    let is_link = || {
        fs_err::symlink_metadata(world.user_settings())
            .unwrap()
            .file_type()
            .is_symlink()
    };
    world.ctxhooks(["install"]).success();
    assert!(is_link(), "the link was replaced by a file");
    let target = dotfiles.join("settings.json");
    assert!(
        fs_err::read_to_string(&target)
            .unwrap()
            .contains("ctxhooks-precompact")
    );
    world.ctxhooks(["uninstall"]).success();
    assert!(is_link(), "uninstall removed the link");
    assert!(!target.exists(), "the file install created is still there");

    // A link whose target folder does not exist is refused, and nothing is written.
    fs_err::remove_file(world.user_settings()).unwrap();
    std::os::unix::fs::symlink("../missing/settings.json", world.user_settings()).unwrap();
    world
        .ctxhooks(["install"])
        .stderr_contains("whose folder does not exist")
        .exit_code(1);
    assert!(is_link() && !world.home().join("missing").exists());
}

// See: the fault issue, defect 3 (lock files created 0400 under umask 0277 locked everyone out).
// Unix only: run through `/bin/sh` (a umask or a memory limit).
#[cfg(unix)]
#[test]
fn install_and_uninstall_work_under_a_restrictive_umask() {
    let world = World::new("umask");
    for args in [
        &["install"][..],
        &["install", "--dry-run"],
        &["uninstall"],
        &["install"],
    ] {
        world
            .ctxhooks(args)
            .via("/bin/sh", ["-c", "umask 0277 && exec \"$0\" \"$@\""])
            .success();
    }
    assert_eq!(mode(&world.state_dir().join("installs.lock")), 0o600);
    assert_eq!(mode(&world.user_settings()), 0o600);
}

// See: the fault issue, defect 6 (a FIFO blocked install forever, /dev/zero grew without bound).
// Unix only: a FIFO.
#[cfg(unix)]
#[test]
fn only_a_regular_settings_file_of_sane_size_is_read() {
    let world = World::new("special-files");
    let fifo = world.join("settings.fifo");
    make_fifo(&fifo);
    // Each run is bounded against a hang: one that blocks on the FIFO fails the test.
    for special in [fifo.as_path(), Path::new("/dev/zero")] {
        world
            .ctxhooks(["install", "--settings"])
            .arg(special)
            .exit_code(1);
    }
    let big = world.join("big.json");
    let file = fs_err::File::create(&big).unwrap();
    file.set_len(17 * 1024 * 1024).unwrap();
    world
        .ctxhooks(["install", "--settings"])
        .arg(&big)
        .stderr_contains("at most")
        .exit_code(1);
}

#[test]
fn handlers_installed_by_a_lost_state_folder_are_adopted_and_removable() {
    let world = World::new("adopt");
    world.write_user_settings(ORIGINAL);
    world.ctxhooks(["install"]).success();
    let installed = fs_err::read_to_string(world.user_settings()).unwrap();
    fs_err::remove_dir_all(world.state_dir()).unwrap();

    let output = world.ctxhooks(["install"]).success().stdout_text();
    assert!(output.contains("now recorded as ours"), "{output}");
    assert_eq!(
        fs_err::read_to_string(world.user_settings()).unwrap(),
        installed
    );
    world.ctxhooks(["uninstall"]).success();
    // The pre-install bytes went with the old state folder, so this is the in-place patch taking
    // our groups and the event arrays holding only them out, with their separators.
    assert_eq!(
        fs_err::read_to_string(world.user_settings()).unwrap(),
        ORIGINAL
    );
}

// Unix only: Unix modes and owners, root and `setpriv`, a file's inode.
#[cfg(unix)]
#[test]
fn install_keeps_the_owner_of_someone_elses_settings_and_refuses_a_read_only_file() {
    use std::os::unix::fs::MetadataExt;
    let world = World::new("owner");
    world.write_user_settings("{\n  \"theme\": \"dark\"\n}\n");
    // The read-only check below runs whoever runs the tests.
    if let Some(_root) = needs_root("the settings-owner check (chown)") {
        // As `sudo ctxhooks install` would: the file stays its owner's.
        std::os::unix::fs::chown(world.user_settings(), Some(65534), Some(65534)).unwrap();
        world.ctxhooks(["install"]).success();
        let metadata = fs_err::metadata(world.user_settings()).unwrap();
        assert_eq!(
            (metadata.uid(), metadata.gid()),
            (65534, 65534),
            "install changed the owner"
        );
        world.ctxhooks(["uninstall"]).success();
        let metadata = fs_err::metadata(world.user_settings()).unwrap();
        assert_eq!(
            (metadata.uid(), metadata.gid()),
            (65534, 65534),
            "uninstall changed the owner"
        );
    }

    let world = World::new("read-only");
    world.write_user_settings("{\n  \"theme\": \"dark\"\n}\n");
    fs_err::set_permissions(
        world.user_settings(),
        std::fs::Permissions::from_mode(0o444),
    )
    .unwrap();
    // Refused: a read-only settings file is not rewritten.
    world
        .ctxhooks(["install"])
        .stderr_contains("read-only")
        .expect_file(world.user_settings(), "{\n  \"theme\": \"dark\"\n}\n")
        .exit_code(1);
    assert!(
        !world.state_dir().join("installs.json").exists(),
        "state was written for a refused file"
    );
}

#[test]
fn install_statusline_sets_it_only_where_none_is_and_uninstall_restores_every_byte() {
    let world = World::new("install-statusline");
    let settings = world.user_settings();
    // A file with no status line: it is set, recorded, kept by a second run, and taken out
    // again byte for byte.
    let before = "{\n  \"model\": \"opus\"\n}\n";
    world.write_user_settings(before);
    let outcome: Value = world.ctxhooks(["install", "--statusline", "--json"]).json();
    assert_eq!(outcome["status_line"]["action"], "added");
    let ours = format!(
        "{} statusline",
        shell_path(&binaries_dir().join("ctxhooks"))
    );
    let written: Value = serde_json::from_slice(&fs_err::read(&settings).unwrap()).unwrap();
    assert_eq!(
        written["statusLine"],
        serde_json::json!({"type": "command", "command": ours})
    );
    let records: Value =
        serde_json::from_slice(&fs_err::read(world.state_dir().join("installs.json")).unwrap())
            .unwrap();
    let record =
        &records["settings_files"][ctxhooks_shared::platform::canonical::canonicalize(&settings)
            .unwrap()
            .to_str()
            .unwrap()];
    assert_eq!(record["status_line"], written["statusLine"]);
    let after_first = fs_err::read(&settings).unwrap();
    let again: Value = world.ctxhooks(["install", "--statusline", "--json"]).json();
    assert_eq!(
        (
            again["changed"].as_bool(),
            again["status_line"]["action"].as_str()
        ),
        (Some(false), Some("kept"))
    );
    // Without the flag, a later install (setup.sh run again) keeps it.
    world.ctxhooks(["install"]).success();
    assert_eq!(fs_err::read(&settings).unwrap(), after_first);
    let removed: Value = world.ctxhooks(["uninstall", "--json"]).json();
    assert_eq!(removed["status_line"]["action"], "removed");
    assert_eq!(fs_err::read_to_string(&settings).unwrap(), before);

    // A status line of someone else's: left alone, with the exact command to compose, in this
    // file and in another scope's.
    world.write_user_settings(ORIGINAL);
    let left = world
        .ctxhooks(["install", "--statusline"])
        .stdout_contains("a status line is configured in")
        .stdout_contains("`~/.claude/statusline.sh`; nothing was changed")
        .stdout_contains("| ~/.claude/statusline.sh)")
        .success();
    let _ = left;
    let written: Value = serde_json::from_slice(&fs_err::read(&settings).unwrap()).unwrap();
    assert_eq!(written["statusLine"]["command"], "~/.claude/statusline.sh");
    let project: Value = world
        .ctxhooks(["install", "--statusline", "--scope", "project", "--json"])
        .in_dir(world.project())
        .json();
    assert_eq!(project["status_line"]["action"], "left_alone");
    assert!(
        project["status_line"]["configured_in"]
            .as_str()
            .unwrap()
            .replace('\\', "/")
            .ends_with("/.claude/settings.json")
    );
    let project_file = world.project().join(".claude/settings.json");
    let project_settings: Value =
        serde_json::from_slice(&fs_err::read(&project_file).unwrap()).unwrap();
    assert!(project_settings.get("statusLine").is_none());
    world
        .ctxhooks(["uninstall", "--scope", "project"])
        .in_dir(world.project())
        .success();
    world.ctxhooks(["uninstall"]).success();
    assert_eq!(fs_err::read_to_string(&settings).unwrap(), ORIGINAL);
}

#[test]
fn a_status_line_changed_after_install_is_left_to_its_new_owner() {
    let world = World::new("install-statusline-changed");
    let settings = world.user_settings();
    world.ctxhooks(["install", "--statusline"]).success();
    let mut value: Value = serde_json::from_slice(&fs_err::read(&settings).unwrap()).unwrap();
    value["statusLine"] = serde_json::json!({"type": "command", "command": "my-line"});
    fs_err::write(&settings, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    world
        .ctxhooks(["uninstall"])
        .stdout_contains("was changed since; it is left as it is")
        .success();
    let after: Value = serde_json::from_slice(&fs_err::read(&settings).unwrap()).unwrap();
    assert_eq!(
        after,
        serde_json::json!({"statusLine": {"type": "command", "command": "my-line"}})
    );
}
