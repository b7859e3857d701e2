//! The machine's name, for `ctxhooks export`: the kernel's, as `uname` gives it (Linux, macOS and
//! every Unix), else `/proc/sys/kernel/hostname` or `/etc/hostname` (Linux); on Windows the
//! computer's name (`COMPUTERNAME`, which Windows sets for every process); else `unknown`.

/// The machine's name, as the system gives it.
pub fn machine_name() -> String {
    given_name().unwrap_or_else(|| "unknown".to_owned())
}

#[cfg(unix)]
fn given_name() -> Option<String> {
    let kernel = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .trim()
        .to_owned();
    if !kernel.is_empty() {
        return Some(kernel);
    }
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|path| {
            fs_err::read_to_string(path)
                .ok()
                .map(|text| text.trim().to_owned())
                .filter(|name| !name.is_empty())
        })
}

#[cfg(windows)]
fn given_name() -> Option<String> {
    std::env::var("COMPUTERNAME")
        .ok()
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_is_the_systems() {
        let name = machine_name();
        assert!(!name.is_empty() && !name.contains('\n'));
        #[cfg(unix)]
        {
            let uname = std::process::Command::new("uname")
                .arg("-n")
                .output()
                .unwrap();
            assert_eq!(name, String::from_utf8_lossy(&uname.stdout).trim());
        }
        #[cfg(windows)]
        assert_eq!(name, std::env::var("COMPUTERNAME").unwrap().trim());
    }
}
