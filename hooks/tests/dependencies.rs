//! The hook binaries start on every tool call and every turn: they link `ctxhooks-shared` and
//! nothing a command needs. The compiler holds the edge (`hooks/Cargo.toml` names no other
//! package of ours); this test holds what that brings in, from `cargo tree` (for the target it
//! runs on: the packages in question are the same on every one).

#![allow(clippy::unwrap_used, reason = "a test fails loudly")]

// Unix only: cargo runs where the tests are built, not under Wine, which runs the Windows build
// of this test.
#[cfg(unix)]
#[test]
fn the_hooks_link_no_parser_database_runtime_or_thread_pool() {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let output = std::process::Command::new(env!("CARGO"))
        .args(["tree", "--locked", "--offline", "--manifest-path", manifest])
        .args(["--package", "ctxhooks-hooks", "--edges", "normal"])
        .args(["--prefix", "none", "--format", "{p}"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "cargo tree failed: {stderr}");
    let tree = String::from_utf8(output.stdout).unwrap();
    let packages: Vec<&str> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert!(packages.contains(&"ctxhooks-shared"), "{tree}");
    for unwanted in [
        "ctxhooks-commands",
        "clap",
        "rusqlite",
        "libsqlite3-sys",
        "tokio",
        "rmcp",
        "rayon",
        "indicatif",
    ] {
        assert!(
            !packages.contains(&unwanted),
            "the hooks link `{unwanted}`:\n{tree}"
        );
    }
}
