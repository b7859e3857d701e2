//! Cross-check with ccusage (pinned, installed by `tests/e2e/install-tools.sh`): for every real
//! transcript fixture, the input-side totals ctxhooks logs (input, cache read, cache write) equal
//! what `ccusage session --offline --json` reports for the same file.

use std::path::{Path, PathBuf};
use std::process::Command;

use ctxhooks_shared::command::usage::log::log_from_transcript;
use serde_json::Value;

use crate::support::claude::repository_root;
use crate::support::scratch::Scratch;

fn fixtures_dir() -> PathBuf {
    repository_root().join("../shared/transcript-fixtures")
}

fn collect_transcripts(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in fs_err::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_transcripts(&path, found);
        } else if path
            .extension()
            .is_some_and(|extension| extension == "jsonl")
        {
            found.push(path);
        }
    }
}

/// The pinned ccusage, or `None` (with a visible note) when it is not installed and the
/// end-to-end tools are not required.
fn ccusage() -> Option<PathBuf> {
    let path = repository_root().join(".e2e/node_modules/.bin/ccusage");
    if path.exists() {
        return Some(path);
    }
    let required = std::env::var("CTXHOOKS_E2E").is_ok_and(|value| value == "require");
    assert!(
        !required,
        "CTXHOOKS_E2E=require but ccusage is missing: run tests/e2e/install-tools.sh"
    );
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "\nSKIPPED: the ccusage cross-check (no ccusage in .e2e/); run tests/run.sh\n"
    );
    None
}

#[test]
fn input_side_totals_equal_ccusage_for_every_fixture() {
    let Some(ccusage) = ccusage() else { return };
    let mut transcripts = Vec::new();
    collect_transcripts(&fixtures_dir(), &mut transcripts);
    transcripts.sort();
    assert!(transcripts.len() >= 12, "fixtures missing: {transcripts:?}");
    for transcript in transcripts {
        // ccusage reads `$CLAUDE_CONFIG_DIR/projects/**`: give it this one file alone.
        let scratch = Scratch::new("ccusage");
        let project = scratch.join("projects/fixture");
        fs_err::create_dir_all(&project).unwrap();
        fs_err::copy(&transcript, project.join(transcript.file_name().unwrap())).unwrap();
        let output = Command::new(&ccusage)
            .args(["session", "--offline", "--json"])
            .env("CLAUDE_CONFIG_DIR", scratch.path())
            .env_remove("CCUSAGE_DATA_DIR")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "ccusage failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let theirs: Value = serde_json::from_slice(&output.stdout).unwrap();
        let totals = &theirs["totals"];
        let theirs = (
            totals["inputTokens"].as_u64().unwrap_or(0),
            totals["cacheReadTokens"].as_u64().unwrap_or(0),
            totals["cacheCreationTokens"].as_u64().unwrap_or(0),
        );

        let log = log_from_transcript(&transcript).unwrap();
        let rows = log.rows();
        let ours = (
            rows.iter().map(|row| row.input_tokens).sum::<u64>(),
            rows.iter()
                .map(|row| row.cache_read_input_tokens)
                .sum::<u64>(),
            rows.iter()
                .map(|row| row.cache_creation_input_tokens)
                .sum::<u64>(),
        );
        assert!(
            ours.0 + ours.1 + ours.2 > 0,
            "{} gave no usage",
            transcript.display()
        );
        assert_eq!(
            ours,
            theirs,
            "input, cache read, cache write of {}",
            transcript.display()
        );
    }
}
