//! Programs on disk: what counts as executable, where `PATH` finds one, and the binaries'
//! file names (`ctxhooks-stop`, on Windows `ctxhooks-stop.exe`).

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};

/// The file name of the binary `name` on this platform (`.exe` added on Windows).
pub fn binary_file_name(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

/// Whether [`run_in_place`] replaces this process (Unix's `exec`), so that the program it runs
/// sees the name this process was started by (`argv[0]`) as its own.
pub const REPLACES_PROCESS: bool = cfg!(unix);

/// Runs `program` with `arguments` in this process's place, with its standard streams. On Unix
/// it replaces this process (`exec`), which it starts under `name` (its `argv[0]`; `None`: its
/// path): its signals and exit status are the caller's, and this returns only the error that
/// kept it from starting. Windows has no `exec`: it runs it (`name` is not passed: Windows gives
/// it its path), waits, and returns its exit status (1 when it has none).
pub fn run_in_place(
    program: &Path,
    name: Option<&OsStr>,
    arguments: &[OsString],
) -> io::Result<i32> {
    let mut command = std::process::Command::new(program);
    command.args(arguments);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        if let Some(name) = name {
            command.arg0(name);
        }
        Err(command.exec())
    }
    #[cfg(windows)]
    {
        let _ = name;
        Ok(command.status()?.code().unwrap_or(1))
    }
}

/// The binary's name in a file name: as it is, or on Windows without its `.exe` (in any case).
pub fn binary_name(file_name: &str) -> &str {
    #[cfg(windows)]
    {
        let cut = file_name.len().saturating_sub(4);
        if file_name.is_char_boundary(cut) && file_name[cut..].eq_ignore_ascii_case(".exe") {
            return &file_name[..cut];
        }
    }
    file_name
}

/// The last component of a command's program, split at `/` (and on Windows at `\` too).
pub fn last_component(program: &str) -> &str {
    let separators: &[char] = if cfg!(windows) { &['/', '\\'] } else { &['/'] };
    program.rsplit(separators).next().unwrap_or(program)
}

/// `path` as the shell that runs Claude Code's shell-form commands takes it: as it is on Unix
/// (`sh`); on Windows, where that shell is Git Bash, with forward slashes (`C:/Users/me/...`),
/// since Bash reads a backslash as an escape. Quoting it is the caller's.
pub fn shell_path(path: &Path) -> String {
    let text = path.to_string_lossy();
    if cfg!(windows) {
        text.replace('\\', "/")
    } else {
        text.into_owned()
    }
}

/// Whether a command naming `path` finds a program there: the file itself, or on Windows, for a
/// name without an extension, the file with `.exe` added (which both Windows and Git Bash run
/// for it).
pub fn names_a_program(path: &Path) -> bool {
    path.is_file()
        || (cfg!(windows) && path.extension().is_none() && path.with_extension("exe").is_file())
}

/// Whether `path` is a file this platform would run: an executable bit on Unix; on Windows a
/// file whose extension is one `PATHEXT` names (`.exe`, `.cmd`, ...).
pub fn is_executable(path: &Path) -> bool {
    let Ok(metadata) = fs_err::metadata(path) else {
        return false;
    };
    if !metadata.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        metadata.permissions().mode() & 0o111 != 0
    }
    #[cfg(windows)]
    {
        path.extension().is_some_and(|extension| {
            executable_extensions()
                .iter()
                .any(|known| extension.eq_ignore_ascii_case(known))
        })
    }
}

/// The first executable `program` in `PATH`'s absolute folders (on Windows with each of
/// `PATHEXT`'s extensions tried, as the shell does).
pub fn find_on_path(program: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .filter(|folder| folder.is_absolute())
        .flat_map(|folder| candidates(&folder, program))
        .find(|candidate| is_executable(candidate))
}

fn candidates(folder: &Path, program: &str) -> Vec<PathBuf> {
    #[cfg(unix)]
    {
        vec![folder.join(program)]
    }
    #[cfg(windows)]
    {
        executable_extensions()
            .iter()
            .map(|extension| folder.join(format!("{program}.{extension}")))
            .collect()
    }
}

/// `PATHEXT`'s extensions without their dots, else Windows' own default.
#[cfg(windows)]
fn executable_extensions() -> Vec<String> {
    let listed = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".to_owned());
    listed
        .split(';')
        .map(|extension| extension.trim().trim_start_matches('.').to_owned())
        .filter(|extension| !extension.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_names_carry_the_platforms_suffix_and_are_found_without_it() {
        let file_name = binary_file_name("ctxhooks-stop");
        assert_eq!(binary_name(&file_name), "ctxhooks-stop");
        assert_eq!(last_component("/opt/bin/ctxhooks-stop"), "ctxhooks-stop");
        assert_eq!(shell_path(Path::new("/opt/my bin/x")), "/opt/my bin/x");
        #[cfg(windows)]
        {
            assert_eq!(
                shell_path(Path::new(r"C:\Users\Jane Doe\bin\ctxhooks.exe")),
                "C:/Users/Jane Doe/bin/ctxhooks.exe"
            );
            assert_eq!(file_name, "ctxhooks-stop.exe");
            assert_eq!(binary_name("CTXHOOKS-STOP.EXE"), "CTXHOOKS-STOP");
            assert_eq!(
                last_component(r"C:\Users\me\bin\ctxhooks-stop.exe"),
                "ctxhooks-stop.exe"
            );
        }
    }

    #[test]
    fn only_what_would_run_is_executable() {
        let scratch = crate::test_support::TempFolder::new("executable");
        let program = scratch.join(binary_file_name("tool"));
        fs_err::write(&program, "").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            assert!(!is_executable(&program));
            fs_err::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        assert!(is_executable(&program));
        assert!(!is_executable(scratch.path()));
        let plain = scratch.join("notes.txt");
        fs_err::write(&plain, "").unwrap();
        assert!(!is_executable(&plain));
    }
}
