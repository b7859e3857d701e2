//! The Claude Code plugins that register ctxhooks hooks: read from Claude Code's own record of
//! installed plugins (`<config>/plugins/installed_plugins.json`, version 2 as 2.1.332 writes it:
//! `{"version": 2, "plugins": {"<name>@<marketplace>": [{"scope", "installPath", "version",
//! ...}]}}`), each plugin's `hooks/hooks.json` in its install folder, and `enabledPlugins` in the
//! settings files.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::Value;

use crate::install::merge::handlers;
use ctxhooks_shared::hook::table::HOOK_BINARIES;
use ctxhooks_shared::platform::program::{binary_name, last_component, names_a_program};
use ctxhooks_shared::settings_file::read_settings_bytes;
use ctxhooks_shared::store::state_dir::home_dir;

/// The variable the plugin's hooks read for the binaries' folder (default `$HOME/.local/bin`).
pub const BIN_DIR_VARIABLE: &str = "CTXHOOKS_BIN_DIR";

/// A ctxhooks hook a plugin registers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PluginHook {
    pub event: String,
    /// The handler's `command`, as written.
    pub command: String,
    /// The program it runs, as this process's environment expands it (`None` when the command
    /// cannot be read so).
    pub program: Option<PathBuf>,
    pub binary_exists: bool,
}

/// One installed plugin that registers ctxhooks hooks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PluginCheck {
    /// `<name>@<marketplace>`.
    pub id: String,
    /// The scope it was installed in (`user`, `project`, `local`).
    pub scope: Option<String>,
    /// Where Claude Code installed it.
    pub install_path: PathBuf,
    /// Whether a settings file enables it (`enabledPlugins`).
    pub enabled: bool,
    /// The ctxhooks hooks its hooks file registers.
    pub hooks: Vec<PluginHook>,
}

/// The installed plugins whose hooks file registers one of our binaries. `enabled` lists the
/// plugin ids enabled in any settings file. A missing record means none; an unreadable one is an
/// error.
pub fn plugins_with_ctxhooks(config_dir: &Path, enabled: &[String]) -> Result<Vec<PluginCheck>> {
    let record_path = config_dir.join("plugins").join("installed_plugins.json");
    let Some(bytes) = read_settings_bytes(&record_path)? else {
        return Ok(Vec::new());
    };
    let record: Value = serde_json::from_slice(&bytes)
        .with_context(|| format!("`{}` is not JSON", record_path.display()))?;
    let Some(plugins) = record.get("plugins").and_then(Value::as_object) else {
        bail!(
            "`{}` has no `plugins` object (a layout this ctxhooks does not know)",
            record_path.display()
        );
    };
    let mut found = Vec::new();
    for (id, installs) in plugins {
        for install in installs.as_array().into_iter().flatten() {
            let path = install.get("installPath").and_then(Value::as_str);
            let Some(install_path) = path.map(PathBuf::from) else {
                continue;
            };
            let hooks = plugin_hooks(&install_path);
            if hooks.is_empty() {
                continue;
            }
            let scope = install.get("scope").and_then(Value::as_str);
            found.push(PluginCheck {
                id: id.clone(),
                scope: scope.map(ToOwned::to_owned),
                enabled: enabled.contains(id),
                install_path,
                hooks,
            });
        }
    }
    Ok(found)
}

/// The ctxhooks hooks in `<plugin>/hooks/hooks.json` (none when it cannot be read).
fn plugin_hooks(plugin: &Path) -> Vec<PluginHook> {
    // A file that cannot be read holds nothing (null).
    let value: Value = read_settings_bytes(&plugin.join("hooks").join("hooks.json"))
        .ok()
        .flatten()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    handlers(&value)
        .filter_map(|(event, handler)| {
            let command = handler.get("command").and_then(Value::as_str)?;
            names_ctxhooks_binary(command)?;
            let program = expand_program(command, plugin);
            Some(PluginHook {
                event: event.clone(),
                command: command.to_owned(),
                binary_exists: program.as_deref().is_some_and(names_a_program),
                program,
            })
        })
        .collect()
}

/// The binary a command runs, when its program's file name is one of ours: `/b/ctxhooks-stop`,
/// `"${CTXHOOKS_BIN_DIR:-$HOME/.local/bin}/ctxhooks-stop"`.
pub fn names_ctxhooks_binary(command: &str) -> Option<&'static str> {
    let program = first_word(command);
    let name = binary_name(last_component(program));
    HOOK_BINARIES
        .iter()
        .map(|binary| binary.name)
        .find(|binary| *binary == name)
}

/// The command's first word, without the double quotes around it.
fn first_word(command: &str) -> &str {
    let command = command.trim_start();
    if let Some(rest) = command.strip_prefix('"') {
        return rest.split('"').next().unwrap_or(rest);
    }
    command.split_whitespace().next().unwrap_or(command)
}

/// The program of a plugin command, with the variables a plugin's hooks use expanded as this
/// process sees them: `${CTXHOOKS_BIN_DIR:-$HOME/.local/bin}`, `$HOME`, `${CLAUDE_PLUGIN_ROOT}`,
/// the home being the one every ctxhooks path starts from (`home_dir`: `HOME`, on Windows
/// `USERPROFILE` when `HOME` is unset). `None` when another variable is left, or the home is
/// named and there is none.
pub fn expand_program(command: &str, plugin_root: &Path) -> Option<PathBuf> {
    let bin_dir = ctxhooks_shared::store::env_vars::non_empty(BIN_DIR_VARIABLE);
    expand_program_in(
        command,
        plugin_root,
        home_dir().as_deref(),
        bin_dir.as_deref(),
    )
}

/// [`expand_program`] with the home and `CTXHOOKS_BIN_DIR` (unset or empty: `None`) given.
fn expand_program_in(
    command: &str,
    plugin_root: &Path,
    home: Option<&Path>,
    bin_dir: Option<&OsStr>,
) -> Option<PathBuf> {
    const DEFAULT_BIN_DIR: &str = "${CTXHOOKS_BIN_DIR:-$HOME/.local/bin}";
    let mut rest = first_word(command);
    let mut expanded = OsString::new();
    while let Some(at) = rest.find('$') {
        expanded.push(&rest[..at]);
        let variable = &rest[at..];
        let (value, length) = if variable.starts_with(DEFAULT_BIN_DIR) {
            let value = match bin_dir {
                Some(dir) => dir.to_owned(),
                None => home?.join(".local").join("bin").into_os_string(),
            };
            (value, DEFAULT_BIN_DIR.len())
        } else if variable.starts_with("${CLAUDE_PLUGIN_ROOT}") {
            (
                plugin_root.as_os_str().to_owned(),
                "${CLAUDE_PLUGIN_ROOT}".len(),
            )
        } else if variable.starts_with("${HOME}") {
            (home?.as_os_str().to_owned(), "${HOME}".len())
        } else if variable.starts_with("$HOME")
            && !variable["$HOME".len()..]
                .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        {
            (home?.as_os_str().to_owned(), "$HOME".len())
        } else {
            // Another variable: what it holds for the hook's shell is not known here.
            return None;
        };
        expanded.push(value);
        rest = &variable[length..];
    }
    expanded.push(rest);
    Some(PathBuf::from(expanded))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxhooks_shared::test_support::TempFolder;

    #[test]
    fn the_plugins_hooks_are_found_with_their_programs() {
        assert_eq!(
            names_ctxhooks_binary("\"${CTXHOOKS_BIN_DIR:-$HOME/.local/bin}/ctxhooks-stop\""),
            Some("ctxhooks-stop")
        );
        assert_eq!(names_ctxhooks_binary("/usr/bin/other --x"), None);
        let temp = TempFolder::new("plugins");
        let config = temp.path().join("config");
        let plugin = temp.path().join("cache/ctxhooks");
        fs_err::create_dir_all(plugin.join("hooks")).unwrap();
        fs_err::create_dir_all(config.join("plugins")).unwrap();
        let binary = temp.path().join("ctxhooks-stop");
        fs_err::write(&binary, "").unwrap();
        let hooks = serde_json::json!({"hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": format!("\"{}\"", binary.display())}]}],
            "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
        }});
        fs_err::write(plugin.join("hooks/hooks.json"), hooks.to_string()).unwrap();
        let record = serde_json::json!({"version": 2, "plugins": {
            "ctxhooks@ctxhooks": [{"scope": "user", "installPath": plugin}],
            "other@x": [{"scope": "user", "installPath": temp.path().join("none")}],
        }});
        fs_err::write(
            config.join("plugins/installed_plugins.json"),
            record.to_string(),
        )
        .unwrap();
        let found = plugins_with_ctxhooks(&config, &["ctxhooks@ctxhooks".to_owned()]).unwrap();
        assert_eq!(found.len(), 1);
        assert!(found[0].enabled);
        assert_eq!(found[0].hooks.len(), 1);
        assert!(found[0].hooks[0].binary_exists);
        assert!(
            plugins_with_ctxhooks(&temp.path().join("nothing"), &[])
                .unwrap()
                .is_empty()
        );
    }

    /// The home is the one `home_dir` gives (on Windows `USERPROFILE` when `HOME` is unset),
    /// taken as it is (a name that is not UTF-8 too); with no home, a program under it is not
    /// known (it was `/.local/bin/…`, a file that is not the hook's).
    #[test]
    fn a_plugins_program_is_expanded_with_the_home_ctxhooks_uses_or_not_at_all() {
        let root = Path::new("/plugins/ctxhooks");
        let home = Path::new("/users/me");
        let expand = |command: &str, home: Option<&Path>, bin_dir: Option<&str>| {
            expand_program_in(command, root, home, bin_dir.map(OsStr::new))
        };
        let default = "\"${CTXHOOKS_BIN_DIR:-$HOME/.local/bin}/ctxhooks-stop\"";
        assert_eq!(
            expand(default, Some(home), None),
            Some(home.join(".local").join("bin").join("ctxhooks-stop"))
        );
        assert_eq!(
            expand(default, None, Some("/opt/bin")),
            Some(PathBuf::from("/opt/bin/ctxhooks-stop"))
        );
        assert_eq!(expand(default, None, None), None);
        assert_eq!(expand("$HOME/b/ctxhooks-stop", None, None), None);
        assert_eq!(
            expand("${HOME}/b/ctxhooks-stop x", Some(home), None),
            Some(PathBuf::from("/users/me/b/ctxhooks-stop"))
        );
        assert_eq!(
            expand("${CLAUDE_PLUGIN_ROOT}/bin/ctxhooks-stop", None, None),
            Some(PathBuf::from("/plugins/ctxhooks/bin/ctxhooks-stop"))
        );
        // `$HOMEDIR` is another variable, not `$HOME` followed by `DIR`.
        assert_eq!(expand("$HOMEDIR/ctxhooks-stop", Some(home), None), None);
        assert_eq!(expand("$OTHER/ctxhooks-stop", Some(home), None), None);
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt as _;
            let odd = Path::new(std::ffi::OsStr::from_bytes(b"/home/caf\xe9"));
            assert_eq!(
                expand("$HOME/ctxhooks-stop", Some(odd), None),
                Some(odd.join("ctxhooks-stop"))
            );
        }
    }
}
