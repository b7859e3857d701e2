//! The npm packages end to end: the launcher's and this platform's tarballs (`npm/pack.sh`),
//! installed offline with `npm install -g` into a fresh prefix and `HOME`; `ctxhooks install`
//! through the launcher registers the native hook binaries of the platform package by their
//! absolute paths (no hook starts Node); the pinned CLI runs them on a turn; `ctxhooks uninstall`
//! takes them out again. `tests/release/npm.sh` makes the tarballs and runs this test with
//! `CTXHOOKS_NPM_LAUNCHER` and `CTXHOOKS_NPM_PLATFORM` naming them; without them it is skipped.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use serde_json::Value;

use crate::support::claude::Sandbox;
use crate::support::model_server::{ModelServer, Scripted, Usage};
use crate::support::run::Run;
use crate::support::summary::{group_of, record_group};

/// Every `command` of the hook handlers in a settings document.
fn hook_commands(settings: &Value) -> Vec<String> {
    settings["hooks"]
        .as_object()
        .into_iter()
        .flat_map(|events| events.values())
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|group| group["hooks"].as_array())
        .flatten()
        .filter_map(|handler| handler["command"].as_str())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_npm_packages_install_native_hooks_that_the_cli_runs() {
    let (Some(launcher), Some(platform)) = (
        std::env::var_os("CTXHOOKS_NPM_LAUNCHER"),
        std::env::var_os("CTXHOOKS_NPM_PLATFORM"),
    ) else {
        record_group(
            &group_of(file!()),
            "skipped: no npm tarballs (tests/release/npm.sh makes them and runs this test)",
        );
        return;
    };
    let Some(sandbox) = Sandbox::new("npm") else {
        return;
    };
    let world = sandbox.world();
    let prefix = world.join("npm prefix");
    // Offline, from an empty cache: the other platforms' optional packages cannot be fetched and
    // are left out, as npm leaves out those whose `os`/`cpu` do not match.
    Run::program("npm")
        .world(world)
        .args([
            "install",
            "--global",
            "--offline",
            "--no-audit",
            "--no-fund",
        ])
        .arg("--prefix")
        .arg(&prefix)
        .arg(&launcher)
        .arg(&platform)
        .env("npm_config_cache", world.join("npm-cache"))
        .env("npm_config_update_notifier", "false")
        .success();
    let ctxhooks = prefix.join("bin/ctxhooks");
    let version = Run::program(&ctxhooks)
        .world(world)
        .arg("--version")
        .success()
        .stdout_text();
    assert!(version.starts_with("ctxhooks "), "{version}");

    // The hooks are the platform package's native binaries, by their absolute paths.
    Run::program(&ctxhooks)
        .world(world)
        .arg("install")
        .success();
    let settings_file = sandbox.home.join(".claude/settings.json");
    let settings: Value = serde_json::from_slice(&fs_err::read(&settings_file).unwrap()).unwrap();
    let commands = hook_commands(&settings);
    assert!(!commands.is_empty(), "no hook registered: {settings:#}");
    let package_bin: PathBuf = fs_err::canonicalize(prefix.join("lib/node_modules/@ctxhooks"))
        .unwrap()
        .join(PathBuf::from(&platform).file_name().map_or_else(
            || panic!("{}", platform.to_string_lossy()),
            |name| {
                // ctxhooks-<os>-<cpu>-<version>.tgz, packed from @ctxhooks/<os>-<cpu>.
                let name = name.to_string_lossy();
                let stem = name.trim_start_matches("ctxhooks-");
                stem[..stem.rfind('-').unwrap()].to_owned()
            },
        ))
        .join("bin");
    for command in &commands {
        let path = PathBuf::from(command);
        assert!(
            path.is_absolute() && path.parent() == Some(package_bin.as_path()),
            "{command} is not a binary of {}",
            package_bin.display()
        );
        let mode = fs_err::metadata(&path).unwrap().permissions().mode();
        assert!(mode & 0o111 != 0, "{command} is not executable");
        let head = fs_err::read(&path).unwrap();
        // A native program, not a script (`#!`): no Node between Claude Code and the hook.
        assert!(
            head.len() > 4 && !head.starts_with(b"#!"),
            "{command} is not a native binary"
        );
    }

    // The pinned CLI runs them: the tool hook marks the call, the Stop hook logs the turn.
    let server = ModelServer::start();
    server.push([
        Scripted::bash("echo from-npm", Usage::context(30_000)),
        Scripted::text("Done.", Usage::context(31_000)),
    ]);
    let first = sandbox.prompt(&server, "run it", None);
    let session = first["session_id"].as_str().unwrap().to_owned();
    let usage = Run::program(&ctxhooks)
        .world(world)
        .args(["usage", "--session", &session, "--json"])
        .json();
    let contexts: Vec<u64> = usage["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["context_tokens"].as_u64().unwrap())
        .collect();
    assert_eq!(contexts, [30_000, 31_000], "the Stop hook logged usage");
    let sidecar = fs_err::read_to_string(
        sandbox
            .state_dir()
            .join(format!("sessions/{session}/provenance.jsonl")),
    )
    .unwrap();
    assert!(sidecar.contains("PostToolUse"), "{sidecar}");
    assert_eq!(sandbox.problems(), Vec::<String>::new());

    // Uninstall: the settings file did not exist before, so it is gone.
    Run::program(&ctxhooks)
        .world(world)
        .arg("uninstall")
        .success();
    assert!(
        !settings_file.exists(),
        "ctxhooks uninstall left the settings"
    );
}
