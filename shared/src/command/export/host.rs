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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_is_the_kernels() {
        let name = machine_name();
        assert!(!name.is_empty() && !name.contains('\n'));
        if let Ok(kernel) = fs_err::read_to_string("/proc/sys/kernel/hostname") {
            assert_eq!(name, kernel.trim());
        }
    }
}
