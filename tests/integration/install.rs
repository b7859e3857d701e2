//! Tests for `ctxhooks install` / `uninstall` on real settings files, run through the real
//! binary with `HOME`, `CLAUDE_CONFIG_DIR` and `CTXHOOKS_HOME` pointing into a per-test folder.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub(crate) use sandbox::{Sandbox, binaries_dir, ctxhooks_binary, installed_text, mode, restyle};

/// Helpers shared with the doctor tests (a `cfg(test)` module, so test lints apply).
#[cfg(test)]
pub(crate) mod sandbox {
    use std::os::unix::fs::PermissionsExt;
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output};
    use std::sync::atomic::{AtomicUsize, Ordering};

    static SANDBOX_COUNTER: AtomicUsize = AtomicUsize::new(0);

    /// A private folder per test: `home/`, `config/` (`CLAUDE_CONFIG_DIR`), `state/` (`CTXHOOKS_HOME`)
    /// and `project/` (the child's current folder).
    pub(crate) struct Sandbox {
        pub(crate) root: PathBuf,
    }

    impl Sandbox {
        pub(crate) fn new(name: &str) -> Self {
            let counter = SANDBOX_COUNTER.fetch_add(1, Ordering::Relaxed);
            let root = std::env::temp_dir().join(format!(
                "ctxhooks-install-{name}-{}-{counter}",
                std::process::id()
            ));
            let _ = fs_err::remove_dir_all(&root);
            fs_err::create_dir_all(root.join("home")).unwrap();
            fs_err::create_dir_all(root.join("project")).unwrap();
            Self { root }
        }

        pub(crate) fn config_dir(&self) -> PathBuf {
            self.root.join("config")
        }

        pub(crate) fn state_dir(&self) -> PathBuf {
            self.root.join("state")
        }

        pub(crate) fn project_dir(&self) -> PathBuf {
            self.root.join("project")
        }

        pub(crate) fn user_settings(&self) -> PathBuf {
            self.config_dir().join("settings.json")
        }

        pub(crate) fn write_user_settings(&self, text: &str) {
            fs_err::create_dir_all(self.config_dir()).unwrap();
            fs_err::write(self.user_settings(), text).unwrap();
        }

        /// Runs `program` (a ctxhooks binary) with `args` in the sandbox.
        pub(crate) fn run_program(&self, program: &Path, args: &[&str]) -> Output {
            Command::new(program)
                .args(args)
                .env("HOME", self.root.join("home"))
                .env("CLAUDE_CONFIG_DIR", self.config_dir())
                .env("CTXHOOKS_HOME", self.state_dir())
                .current_dir(self.project_dir())
                .output()
                .unwrap()
        }

        /// Runs `ctxhooks` with `args`; panics unless it succeeds.
        pub(crate) fn ctxhooks(&self, args: &[&str]) -> String {
            let output = self.run_program(Path::new(ctxhooks_binary()), args);
            assert!(
                output.status.success(),
                "ctxhooks {args:?} failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            String::from_utf8(output.stdout).unwrap()
        }

        pub(crate) fn backups(&self) -> Vec<PathBuf> {
            let dir = self.state_dir().join("backups");
            if !dir.exists() {
                return Vec::new();
            }
            let mut backups: Vec<PathBuf> = fs_err::read_dir(dir)
                .unwrap()
                .map(|entry| entry.unwrap().path())
                .collect();
            backups.sort();
            backups
        }
    }

    impl Drop for Sandbox {
        fn drop(&mut self) {
            if !std::thread::panicking() {
                let _ = fs_err::remove_dir_all(&self.root);
            }
        }
    }

    pub(crate) fn ctxhooks_binary() -> &'static str {
        env!("CARGO_BIN_EXE_ctxhooks")
    }

    /// The folder the hook binaries are registered from: the canonical folder of `ctxhooks`.
    pub(crate) fn binaries_dir() -> PathBuf {
        fs_err::canonicalize(ctxhooks_binary())
            .unwrap()
            .parent()
            .unwrap()
            .to_path_buf()
    }

    pub(crate) fn mode(path: &Path) -> u32 {
        fs_err::metadata(path).unwrap().permissions().mode() & 0o777
    }

    pub(crate) fn installed_text(binaries: &Path) -> String {
        let bin = serde_json::to_string(&binaries.display().to_string()).unwrap();
        super::INSTALLED.replace("BIN", bin.trim_matches('"'))
    }

    /// `text` with each 2-space indentation level replaced by `unit` and, if `final_newline` is
    /// false, without its final newline.
    pub(crate) fn restyle(text: &str, unit: &str, final_newline: bool) -> String {
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
/// `PreCompact` and `PostToolUse` arrays, and the four new event arrays follow the existing ones in
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
        let sandbox = Sandbox::new("roundtrip");
        let original = restyle(ORIGINAL, unit, final_newline);
        sandbox.write_user_settings(&original);
        let settings = sandbox.user_settings();
        fs_err::set_permissions(&settings, std::fs::Permissions::from_mode(0o644)).unwrap();

        sandbox.ctxhooks(&["install"]);
        let installed = fs_err::read_to_string(&settings).unwrap();
        assert_eq!(
            installed,
            restyle(&installed_text(&binaries_dir()), unit, final_newline),
            "indent {unit:?}, final newline {final_newline}"
        );
        assert_eq!(mode(&settings), 0o644, "the file's mode is kept");
        let backups = sandbox.backups();
        assert_eq!(backups.len(), 1);
        assert_eq!(fs_err::read_to_string(&backups[0]).unwrap(), original);
        assert_eq!(mode(&backups[0]), 0o600);
        assert!(sandbox.state_dir().join("installs.json").is_file());

        let again = sandbox.ctxhooks(&["install"]);
        assert!(again.contains("nothing changed"), "{again}");
        assert_eq!(fs_err::read_to_string(&settings).unwrap(), installed);
        assert_eq!(sandbox.backups().len(), 1, "no second backup");

        sandbox.ctxhooks(&["uninstall"]);
        assert_eq!(fs_err::read_to_string(&settings).unwrap(), original);
        let record: Value = serde_json::from_str(
            &fs_err::read_to_string(sandbox.state_dir().join("installs.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(record["settings_files"], serde_json::json!({}));
    }
}

#[test]
fn absent_file_is_created_then_deleted() {
    let sandbox = Sandbox::new("absent");
    let settings = sandbox.user_settings();
    sandbox.ctxhooks(&["install"]);
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
            "PostToolUseFailure"
        ]
    );
    assert_eq!(mode(&settings), 0o600);
    assert!(sandbox.backups().is_empty(), "nothing to back up");
    sandbox.ctxhooks(&["uninstall"]);
    assert!(!settings.exists());
}

#[test]
fn a_user_edit_between_install_and_uninstall_survives() {
    let sandbox = Sandbox::new("user-edit");
    sandbox.write_user_settings(ORIGINAL);
    let settings = sandbox.user_settings();
    sandbox.ctxhooks(&["install"]);
    let mut value: Value =
        serde_json::from_str(&fs_err::read_to_string(&settings).unwrap()).unwrap();
    value["theme"] = Value::from("dark");
    fs_err::write(&settings, serde_json::to_string_pretty(&value).unwrap()).unwrap();

    let output = sandbox.ctxhooks(&["uninstall"]);
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
        let sandbox = Sandbox::new("invalid");
        sandbox.write_user_settings(text);
        let output = sandbox.run_program(Path::new(ctxhooks_binary()), &["install"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "install accepted {text:?}");
        let expected = format!("{}:{position}", sandbox.user_settings().display());
        assert!(stderr.contains(&expected), "{stderr} lacks {expected}");
        assert_eq!(
            fs_err::read_to_string(sandbox.user_settings()).unwrap(),
            text
        );
        assert!(!sandbox.state_dir().exists(), "state written for {text:?}");
    }
}

#[test]
fn uninstall_refuses_a_file_broken_after_install() {
    let sandbox = Sandbox::new("broken-later");
    sandbox.write_user_settings(ORIGINAL);
    sandbox.ctxhooks(&["install"]);
    let broken = format!(
        "{}oops",
        fs_err::read_to_string(sandbox.user_settings()).unwrap()
    );
    fs_err::write(sandbox.user_settings(), &broken).unwrap();
    let output = sandbox.run_program(Path::new(ctxhooks_binary()), &["uninstall"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    // INSTALLED has 106 newline-terminated lines (counted with python3), so "oops" starts line 107.
    let expected = format!("{}:107:1", sandbox.user_settings().display());
    assert!(stderr.contains(&expected), "{stderr} lacks {expected}");
    assert_eq!(
        fs_err::read_to_string(sandbox.user_settings()).unwrap(),
        broken
    );
    let record = fs_err::read_to_string(sandbox.state_dir().join("installs.json")).unwrap();
    assert!(record.contains("ctxhooks-stop"), "the record is kept");
}

#[test]
fn dry_run_changes_nothing() {
    let sandbox = Sandbox::new("dry-run");
    sandbox.write_user_settings(ORIGINAL);
    let settings = sandbox.user_settings();
    let output = sandbox.ctxhooks(&["install", "--dry-run"]);
    assert!(output.contains("+            \"command\": \""), "{output}");
    assert!(output.contains("nothing was written"), "{output}");
    assert_eq!(fs_err::read_to_string(&settings).unwrap(), ORIGINAL);
    assert!(!sandbox.state_dir().exists());

    sandbox.ctxhooks(&["install"]);
    let installed = fs_err::read_to_string(&settings).unwrap();
    let output = sandbox.ctxhooks(&["uninstall", "--dry-run", "--json"]);
    let outcome: Value = serde_json::from_str(&output).unwrap();
    assert_eq!(outcome["changed"], true);
    assert_eq!(outcome["dry_run"], true);
    assert_eq!(outcome["removed"].as_array().unwrap().len(), 6);
    assert_eq!(fs_err::read_to_string(&settings).unwrap(), installed);
    assert_eq!(sandbox.backups().len(), 1);
    sandbox.ctxhooks(&["uninstall"]);
    assert_eq!(fs_err::read_to_string(&settings).unwrap(), ORIGINAL);
}

#[test]
fn json_outcome_names_path_handlers_and_backup() {
    let sandbox = Sandbox::new("json");
    sandbox.write_user_settings(ORIGINAL);
    let outcome: Value = serde_json::from_str(&sandbox.ctxhooks(&["install", "--json"])).unwrap();
    assert_eq!(
        outcome["path"],
        sandbox.user_settings().display().to_string()
    );
    assert_eq!(outcome["changed"], true);
    let added = outcome["added"].as_array().unwrap();
    assert_eq!(added.len(), 6);
    assert_eq!(
        added[0]["handler"],
        serde_json::json!({
            "type": "command",
            "command": binaries_dir().join("ctxhooks-precompact").display().to_string(),
            "args": [],
            "timeout": 120
        })
    );
    let backup = PathBuf::from(outcome["backup"].as_str().unwrap());
    assert_eq!(fs_err::read_to_string(backup).unwrap(), ORIGINAL);
    let again: Value = serde_json::from_str(&sandbox.ctxhooks(&["install", "--json"])).unwrap();
    assert_eq!(again["changed"], false);
    assert_eq!(again["added"], serde_json::json!([]));
    assert_eq!(again["backup"], Value::Null);
}

#[test]
fn project_and_local_scopes_write_under_the_current_folder() {
    let sandbox = Sandbox::new("scopes");
    sandbox.ctxhooks(&["install", "--scope", "project"]);
    sandbox.ctxhooks(&["install", "--scope", "local"]);
    let project = sandbox.project_dir().join(".claude/settings.json");
    let local = sandbox.project_dir().join(".claude/settings.local.json");
    for path in [&project, &local] {
        let text = fs_err::read_to_string(path).unwrap();
        assert!(text.contains("ctxhooks-precompact"), "{text}");
    }
    assert_eq!(mode(&project), 0o644, "the project file is shared");
    assert_eq!(mode(&local), 0o600);
    assert!(!sandbox.user_settings().exists());
    sandbox.ctxhooks(&["uninstall", "--scope", "project"]);
    assert!(!project.exists());
    assert!(local.exists());
    sandbox.ctxhooks(&["uninstall", "--scope", "local"]);
    assert!(!local.exists());
}

#[test]
fn a_moved_installation_replaces_its_old_handlers() {
    let sandbox = Sandbox::new("moved");
    sandbox.write_user_settings(ORIGINAL);
    sandbox.ctxhooks(&["install"]);
    // Reinstall from another folder: copies of the four binaries.
    let moved = sandbox.root.join("elsewhere/bin");
    fs_err::create_dir_all(&moved).unwrap();
    for name in [
        "ctxhooks",
        "ctxhooks-precompact",
        "ctxhooks-stop",
        "ctxhooks-tooluse",
    ] {
        fs_err::copy(binaries_dir().join(name), moved.join(name)).unwrap();
    }
    let output = sandbox.run_program(&moved.join("ctxhooks"), &["install"]);
    assert!(output.status.success());
    let text = fs_err::read_to_string(sandbox.user_settings()).unwrap();
    let moved = fs_err::canonicalize(&moved).unwrap();
    assert_eq!(text, installed_text(&moved));
    assert_eq!(sandbox.backups().len(), 2);
    let output = sandbox.run_program(&moved.join("ctxhooks"), &["uninstall"]);
    assert!(output.status.success());
    assert_eq!(
        fs_err::read_to_string(sandbox.user_settings()).unwrap(),
        ORIGINAL
    );
}

#[test]
fn uninstall_with_nothing_installed_says_so() {
    let sandbox = Sandbox::new("nothing");
    sandbox.write_user_settings(ORIGINAL);
    let output = sandbox.ctxhooks(&["uninstall"]);
    assert!(output.contains("nothing to uninstall"), "{output}");
    assert_eq!(
        fs_err::read_to_string(sandbox.user_settings()).unwrap(),
        ORIGINAL
    );
}

/// `install/setup.sh` end to end: release build, binaries in `$PREFIX/bin`, hooks registered in
/// the user settings, doctor run; a second run changes nothing. It runs a full release build in
/// its own target folder (over a minute on 2 cores), so it only runs with `--ignored`.
#[test]
#[ignore = "runs a release build; run with `cargo test --test integration -- --ignored setup`"]
fn setup_script_installs_and_is_safe_to_run_twice() {
    let sandbox = Sandbox::new("setup");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/install/setup.sh");
    let real_home = PathBuf::from(std::env::var_os("HOME").unwrap());
    let toolchain_var = |name: &str, default: &str| {
        std::env::var_os(name).unwrap_or_else(|| real_home.join(default).into_os_string())
    };
    let prefix = sandbox.root.join("prefix");
    let run = || {
        std::process::Command::new("bash")
            .arg(script)
            .env("HOME", sandbox.root.join("home"))
            .env("PREFIX", &prefix)
            .env("CARGO_TARGET_DIR", sandbox.root.join("target"))
            .env("RUSTUP_HOME", toolchain_var("RUSTUP_HOME", ".rustup"))
            .env("CARGO_HOME", toolchain_var("CARGO_HOME", ".cargo"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CTXHOOKS_HOME")
            .current_dir(sandbox.project_dir())
            .output()
            .unwrap()
    };
    let first = run();
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{stderr}");
    assert!(stderr.contains("is not on your PATH"), "{stderr}");
    let settings = sandbox.root.join("home/.claude/settings.json");
    let installed = fs_err::read_to_string(&settings).unwrap();
    let bin = fs_err::canonicalize(prefix.join("bin")).unwrap();
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
    ] {
        assert_eq!(mode(&bin.join(name)), 0o755, "{name}");
    }
    let second = run();
    assert!(second.status.success());
    assert!(String::from_utf8_lossy(&second.stdout).contains("nothing changed"));
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
fn our_group(indent: &str, binary: &Path, timeout: u64) -> String {
    format!(
        "{{\n{indent}  \"hooks\": [\n{indent}    {{\n{indent}      \"type\": \"command\",\n\
         {indent}      \"command\": \"{}\",\n{indent}      \"args\": [],\n\
         {indent}      \"timeout\": {timeout}\n{indent}    }}\n{indent}  ]\n{indent}}}",
        binary.display()
    )
}

#[test]
fn hand_formatting_is_kept_outside_our_additions() {
    let sandbox = Sandbox::new("hand");
    sandbox.write_user_settings(HAND_FORMATTED);
    sandbox.ctxhooks(&["install"]);
    let bin = binaries_dir();
    let new_event = |event: &str, name: &str, timeout: u64| {
        format!(
            ",\n    \"{event}\": [\n      {}\n    ]",
            our_group("      ", &bin.join(name), timeout)
        )
    };
    // Our PostToolUse group follows the user's one-line group; the new events follow
    // PostToolUse in registration order; nothing else moves.
    let expected = format!(
        "{{\n  \"statusLine\": {{\"type\": \"command\", \"command\": \"~/.claude/statusline.sh\"}},\n  \
         \"hooks\": {{\n    \"PostToolUse\": [\n      {{\"matcher\": \"Edit|Write\", \"hooks\": \
         [{{\"type\": \"command\", \"command\": \"prettier --write\"}}]}},\n      {}\n    ]{}{}{}{}{}\n  \
         }},\n  \"permissions\": {{\"allow\": [\"Bash(git status)\"]}}\n}}\n",
        our_group("      ", &bin.join("ctxhooks-tooluse"), 10),
        new_event("PreCompact", "ctxhooks-precompact", 120),
        new_event("Stop", "ctxhooks-stop", 60),
        new_event("SubagentStop", "ctxhooks-stop", 60),
        new_event("PreToolUse", "ctxhooks-tooluse", 10),
        new_event("PostToolUseFailure", "ctxhooks-tooluse", 10),
    );
    let installed = fs_err::read_to_string(sandbox.user_settings()).unwrap();
    assert_eq!(installed, expected);

    // The user adds a key by hand; uninstall keeps it and every one-line value as it was.
    let edited = installed.replacen(
        "{\n  \"statusLine\"",
        "{\n  \"theme\": \"dark\",\n  \"statusLine\"",
        1,
    );
    fs_err::write(sandbox.user_settings(), &edited).unwrap();
    sandbox.ctxhooks(&["uninstall"]);
    assert_eq!(
        fs_err::read_to_string(sandbox.user_settings()).unwrap(),
        HAND_FORMATTED.replacen("{\n", "{\n  \"theme\": \"dark\",\n", 1)
    );
}

#[test]
fn an_unreadable_ownership_record_stops_install_before_any_write() {
    let sandbox = Sandbox::new("bad-record");
    sandbox.write_user_settings(ORIGINAL);
    fs_err::create_dir_all(sandbox.state_dir()).unwrap();
    fs_err::write(sandbox.state_dir().join("installs.json"), "{not json").unwrap();
    let output = sandbox.run_program(Path::new(ctxhooks_binary()), &["install"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("installs.json"), "{stderr}");
    assert_eq!(
        fs_err::read_to_string(sandbox.user_settings()).unwrap(),
        ORIGINAL
    );
    assert!(sandbox.backups().is_empty());
    assert_eq!(
        fs_err::read_to_string(sandbox.state_dir().join("installs.json")).unwrap(),
        "{not json"
    );
}

#[test]
fn a_symlinked_settings_file_is_edited_where_it_lives() {
    let sandbox = Sandbox::new("symlink");
    let dotfiles = sandbox.root.join("dotfiles");
    fs_err::create_dir_all(&dotfiles).unwrap();
    fs_err::create_dir_all(sandbox.config_dir()).unwrap();
    fs_err::write(dotfiles.join("settings.json"), ORIGINAL).unwrap();
    std::os::unix::fs::symlink(dotfiles.join("settings.json"), sandbox.user_settings()).unwrap();
    sandbox.ctxhooks(&["install"]);
    assert!(
        fs_err::symlink_metadata(sandbox.user_settings())
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link was replaced by a file"
    );
    let target = fs_err::canonicalize(dotfiles.join("settings.json")).unwrap();
    assert_eq!(
        fs_err::read_to_string(&target).unwrap(),
        installed_text(&binaries_dir())
    );
    sandbox.ctxhooks(&["uninstall"]);
    assert_eq!(fs_err::read_to_string(&target).unwrap(), ORIGINAL);
}

// See: the fault issue, defect 1 (a dangling settings link was replaced, then deleted).
#[test]
fn a_settings_link_to_a_file_not_yet_created_is_written_through_and_survives() {
    let sandbox = Sandbox::new("dangling-link");
    let dotfiles = sandbox.root.join("dotfiles");
    fs_err::create_dir_all(&dotfiles).unwrap();
    fs_err::create_dir_all(sandbox.config_dir()).unwrap();
    std::os::unix::fs::symlink("../dotfiles/settings.json", sandbox.user_settings()).unwrap();
    let is_link = || {
        fs_err::symlink_metadata(sandbox.user_settings())
            .unwrap()
            .file_type()
            .is_symlink()
    };
    sandbox.ctxhooks(&["install"]);
    assert!(is_link(), "the link was replaced by a file");
    let target = dotfiles.join("settings.json");
    assert!(
        fs_err::read_to_string(&target)
            .unwrap()
            .contains("ctxhooks-precompact")
    );
    sandbox.ctxhooks(&["uninstall"]);
    assert!(is_link(), "uninstall removed the link");
    assert!(!target.exists(), "the file install created is still there");

    // A link whose target folder does not exist is refused, and nothing is written.
    fs_err::remove_file(sandbox.user_settings()).unwrap();
    std::os::unix::fs::symlink("../missing/settings.json", sandbox.user_settings()).unwrap();
    let output = sandbox.run_program(Path::new(ctxhooks_binary()), &["install"]);
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("whose folder does not exist"),
        "{output:?}"
    );
    assert!(is_link() && !sandbox.root.join("missing").exists());
}

// See: the fault issue, defect 3 (lock files created 0400 under umask 0277 locked everyone out).
#[test]
fn install_and_uninstall_work_under_a_restrictive_umask() {
    let sandbox = Sandbox::new("umask");
    let run = |args: &[&str]| {
        let mut all = vec!["-c", "umask 0277 && exec \"$0\" \"$@\"", ctxhooks_binary()];
        all.extend_from_slice(args);
        sandbox.run_program(Path::new("/bin/sh"), &all)
    };
    for args in [
        &["install"][..],
        &["install", "--dry-run"],
        &["uninstall"],
        &["install"],
    ] {
        let output = run(args);
        assert!(output.status.success(), "{args:?}: {output:?}");
    }
    assert_eq!(mode(&sandbox.state_dir().join("installs.lock")), 0o600);
    assert_eq!(mode(&sandbox.user_settings()), 0o600);
}

// See: the fault issue, defect 6 (a FIFO blocked install forever, /dev/zero grew without bound).
#[test]
fn only_a_regular_settings_file_of_sane_size_is_read() {
    let sandbox = Sandbox::new("special-files");
    let fifo = sandbox.root.join("settings.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    for special in [fifo.as_path(), Path::new("/dev/zero")] {
        let mut child = std::process::Command::new(ctxhooks_binary())
            .args(["install", "--settings"])
            .arg(special)
            .env("HOME", sandbox.root.join("home"))
            .env("CTXHOOKS_HOME", sandbox.state_dir())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let code =
            crate::support::process::wait_bounded(&mut child, std::time::Duration::from_secs(30));
        assert_eq!(
            code,
            Some(1),
            "install --settings {} did not refuse it",
            special.display()
        );
    }
    let big = sandbox.root.join("big.json");
    let file = fs_err::File::create(&big).unwrap();
    file.set_len(17 * 1024 * 1024).unwrap();
    let output = sandbox.run_program(
        Path::new(ctxhooks_binary()),
        &["install", "--settings", big.to_str().unwrap()],
    );
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("at most"),
        "{output:?}"
    );
}

#[test]
fn handlers_installed_by_a_lost_state_folder_are_adopted_and_removable() {
    let sandbox = Sandbox::new("adopt");
    sandbox.write_user_settings(ORIGINAL);
    sandbox.ctxhooks(&["install"]);
    let installed = fs_err::read_to_string(sandbox.user_settings()).unwrap();
    fs_err::remove_dir_all(sandbox.state_dir()).unwrap();

    let output = sandbox.ctxhooks(&["install"]);
    assert!(output.contains("now recorded as ours"), "{output}");
    assert_eq!(
        fs_err::read_to_string(sandbox.user_settings()).unwrap(),
        installed
    );
    sandbox.ctxhooks(&["uninstall"]);
    // The pre-install bytes went with the old state folder, so this is the in-place patch taking
    // our groups and the event arrays holding only them out, with their separators.
    assert_eq!(
        fs_err::read_to_string(sandbox.user_settings()).unwrap(),
        ORIGINAL
    );
}

#[test]
fn install_keeps_the_owner_of_someone_elses_settings_and_refuses_a_read_only_file() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let running_as_root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| output.stdout == b"0\n");

    let sandbox = Sandbox::new("owner");
    sandbox.write_user_settings("{\n  \"theme\": \"dark\"\n}\n");
    if !running_as_root {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "\nSKIPPED: the settings-owner check needs root (chown); the read-only check still runs\n"
        );
    }
    if running_as_root {
        // As `sudo ctxhooks install` would: the file stays its owner's.
        std::os::unix::fs::chown(sandbox.user_settings(), Some(65534), Some(65534)).unwrap();
        sandbox.ctxhooks(&["install"]);
        let metadata = fs_err::metadata(sandbox.user_settings()).unwrap();
        assert_eq!(
            (metadata.uid(), metadata.gid()),
            (65534, 65534),
            "install changed the owner"
        );
        sandbox.ctxhooks(&["uninstall"]);
        let metadata = fs_err::metadata(sandbox.user_settings()).unwrap();
        assert_eq!(
            (metadata.uid(), metadata.gid()),
            (65534, 65534),
            "uninstall changed the owner"
        );
    }

    let sandbox = Sandbox::new("read-only");
    sandbox.write_user_settings("{\n  \"theme\": \"dark\"\n}\n");
    fs_err::set_permissions(
        sandbox.user_settings(),
        std::fs::Permissions::from_mode(0o444),
    )
    .unwrap();
    let output = sandbox.run_program(Path::new(ctxhooks_binary()), &["install"]);
    assert!(
        !output.status.success(),
        "a read-only settings file was rewritten"
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("read-only"));
    assert_eq!(
        fs_err::read_to_string(sandbox.user_settings()).unwrap(),
        "{\n  \"theme\": \"dark\"\n}\n"
    );
    assert!(
        !sandbox.state_dir().join("installs.json").exists(),
        "state was written for a refused file"
    );
}
