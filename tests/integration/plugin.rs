//! The repository as a Claude Code plugin marketplace: its manifests agree with each other and
//! with the package, and the plugin's hooks file registers exactly the hook table.

use ctxhooks_shared::hook::table::HOOK_BINARIES;
use serde_json::Value;

use crate::support::fixtures::repository_file;

fn json_file(relative: &str) -> Value {
    serde_json::from_slice(&fs_err::read(repository_file(relative)).unwrap())
        .unwrap_or_else(|error| panic!("{relative}: {error}"))
}

#[test]
fn the_plugins_hooks_file_registers_exactly_the_hook_table() {
    let hooks = json_file("plugin/hooks/hooks.json");
    let events = hooks["hooks"].as_object().unwrap();
    let mut expected = 0;
    for binary in HOOK_BINARIES {
        for event in binary.events {
            expected += 1;
            let groups = events[event.name()].as_array().unwrap();
            assert_eq!(groups.len(), 1, "{}", event.name());
            assert!(groups[0].get("matcher").is_none(), "every occurrence");
            let handlers = groups[0]["hooks"].as_array().unwrap();
            assert_eq!(
                handlers,
                &[serde_json::json!({
                    "type": "command",
                    // Shell form: a plugin's exec-form command does not expand $HOME (2.1.332).
                    "command": format!("\"${{CTXHOOKS_BIN_DIR:-$HOME/.local/bin}}/{}\"", binary.name),
                    "timeout": binary.timeout_seconds,
                })],
                "{}",
                event.name()
            );
        }
    }
    assert_eq!(events.len(), expected);
}

#[test]
fn the_marketplace_and_the_plugin_agree_with_the_package() {
    let marketplace = json_file(".claude-plugin/marketplace.json");
    let plugin = json_file("plugin/.claude-plugin/plugin.json");
    assert_eq!(marketplace["name"], "ctxhooks");
    let listed = &marketplace["plugins"][0];
    assert_eq!(listed["name"], plugin["name"]);
    assert_eq!(listed["source"], "./plugin");
    assert_eq!(listed["version"], plugin["version"]);
    assert_eq!(plugin["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(plugin["license"], "MIT");
}

#[test]
fn the_plugin_registers_the_mcp_server_from_the_installed_binaries() {
    let servers = json_file("plugin/.mcp.json");
    let server = &servers["mcpServers"]["ctxhooks"];
    assert_eq!(server["command"], "sh");
    // The same folder as the hooks', and the `mcp` subcommand.
    assert_eq!(
        server["args"],
        serde_json::json!([
            "-c",
            "exec \"${CTXHOOKS_BIN_DIR:-$HOME/.local/bin}/ctxhooks\" mcp"
        ])
    );
}
