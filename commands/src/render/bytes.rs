//! Sizes for people.

/// Bytes as a person reads them, in powers of 1,000 to one decimal place: `950 B`, `31.2 kB`,
/// `1.2 MB`, `3.0 GB`.
pub fn human_bytes(bytes: u64) -> String {
    #[expect(
        clippy::cast_precision_loss,
        reason = "a size shown to one decimal place"
    )]
    let value = bytes as f64;
    match [(1e9, "GB"), (1e6, "MB"), (1e3, "kB")]
        .iter()
        .find(|(unit, _)| value >= *unit)
    {
        Some((unit, name)) => format!("{:.1} {name}", value / unit),
        None => format!("{bytes} B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_is_said_in_its_largest_unit() {
        assert_eq!(human_bytes(950), "950 B");
        assert_eq!(human_bytes(31_200), "31.2 kB");
        assert_eq!(human_bytes(1_250_000), "1.2 MB");
        assert_eq!(human_bytes(3_000_000_000), "3.0 GB");
    }
}
