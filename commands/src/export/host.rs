//! The machine's name for `ctxhooks export`: the kernel's, as `uname` gives it (Linux, macOS and
//! every Unix), else `/proc/sys/kernel/hostname` or `/etc/hostname`, else `unknown`.

/// The machine's name, as the kernel gives it.
pub fn machine_name() -> String {
    let kernel = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .trim()
        .to_owned();
    if !kernel.is_empty() {
        return kernel;
    }
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|path| {
            fs_err::read_to_string(path)
                .ok()
                .map(|text| text.trim().to_owned())
                .filter(|name| !name.is_empty())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_is_the_kernels() {
        let name = machine_name();
        assert!(!name.is_empty() && !name.contains('\n'));
        let uname = std::process::Command::new("uname")
            .arg("-n")
            .output()
            .unwrap();
        assert_eq!(name, String::from_utf8_lossy(&uname.stdout).trim());
    }
}
