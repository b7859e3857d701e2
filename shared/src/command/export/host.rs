//! The machine's name for `ctxhooks export`: `/proc/sys/kernel/hostname`, else `/etc/hostname`,
//! else `unknown`.

/// The machine's name, as the kernel or `/etc/hostname` gives it.
pub fn machine_name() -> String {
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
