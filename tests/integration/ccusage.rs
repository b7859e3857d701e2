//! Cross-check with ccusage (pinned, installed by `tests/e2e/install-tools.sh`): for every real
//! transcript fixture, the input-side totals ctxhooks logs (input, cache read, cache write) equal
//! what `ccusage session --offline --json` reports for the same file, and the cost in dollars
//! agrees within 1 %; and the script that runs the same comparison by hand,
//! `scripts/ccusage-crosscheck.sh`.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use ctxhooks_commands::facts::log::log_from_transcript;
use ctxhooks_commands::facts::tally::request_cost;
use ctxhooks_commands::prices::{Cost, Prices};
use ctxhooks_shared::store::usage_record::UsageRow;

use crate::support::fixtures::{all_transcript_fixtures, cli_capture, repository_file};
use crate::support::summary::record_group;
use crate::support::{World, say_skipped};

/// The pinned ccusage, or `None` (with a visible note) when it is not installed and the
/// end-to-end tools are not required.
fn ccusage() -> Option<PathBuf> {
    let path = repository_file(".e2e/node_modules/.bin/ccusage");
    if path.exists() {
        record_group("ccusage", "ran");
        return Some(path);
    }
    let required = std::env::var("CTXHOOKS_E2E").is_ok_and(|value| value == "require");
    assert!(
        !required,
        "CTXHOOKS_E2E=require but ccusage is missing: run tests/e2e/install-tools.sh"
    );
    say_skipped("the ccusage cross-check (no ccusage in .e2e/); run tests/run.sh");
    record_group("ccusage", "skipped: no ccusage in .e2e/");
    None
}

#[test]
fn input_side_totals_equal_ccusage_for_every_fixture() {
    let Some(ccusage) = ccusage() else { return };
    let transcripts = all_transcript_fixtures();
    assert!(transcripts.len() >= 12, "fixtures missing: {transcripts:?}");
    for transcript in transcripts {
        assert_input_side_equals_ccusage(&ccusage, &transcript);
    }
}

/// Responses with `usage.iterations`, as the pinned CLI writes what the API sends (the capture
/// `today/advisor-print`): an advisor response (two `message` iterations around an
/// `advisor_message` one; the top level their sum) and one whose top level is all 0. ccusage counts
/// the top level for the session's model (0 for the second) and each `advisor_message` iteration
/// as its own model's; ctxhooks' rows hold the first's top level and the second's `message`
/// iteration (its top level holds nothing), `advisor_usage` the advisor's. So the sums agree
/// model by model but for the second response, which ccusage counts as 0: the difference
/// `docs/usage.md` gives.
#[test]
fn advisor_iterations_are_counted_apart_as_ccusage_counts_them() {
    let Some(ccusage) = ccusage() else { return };
    let world = World::new("ccusage-advisor");
    let transcript = cli_capture(world.root(), "today/advisor-print.jsonl.gz");
    let sums = assert_input_side_equals_ccusage(&ccusage, &transcript);
    assert_eq!(sums.session, (4, 421_362, 6_439));
    assert_eq!(sums.from_iterations, (2, 204_576, 87));
    assert_eq!(sums.advisor, (207_281, 0, 0));
}

/// (input, cache read, cache write) summed: of the rows (`session`), of the rows whose counts
/// are their iterations' because the top level held none (`from_iterations`, in `session`
/// too), of the advisor's.
struct Sums {
    session: (u64, u64, u64),
    from_iterations: (u64, u64, u64),
    advisor: (u64, u64, u64),
}

/// Lays `transcript` alone in a Claude config folder, and checks that ccusage's totals equal the
/// rows' sums plus the advisor's, less the rows ccusage counts as 0 (a top level that holds
/// nothing; ctxhooks reads them from their iterations).
fn assert_input_side_equals_ccusage(ccusage: &Path, transcript: &Path) -> Sums {
    // ccusage reads `$CLAUDE_CONFIG_DIR/projects/**`: give it this one file alone.
    let world = World::new("ccusage");
    world.write_transcript(
        transcript.file_name().unwrap(),
        fs_err::read(transcript).unwrap(),
    );
    let theirs = world
        .program(ccusage)
        .args(["session", "--offline", "--json"])
        .env_remove("CCUSAGE_DATA_DIR")
        .json();
    let totals = &theirs["totals"];
    let their_cost = totals["totalCost"].as_f64().unwrap_or(0.0);
    let theirs = (
        totals["inputTokens"].as_u64().unwrap_or(0),
        totals["cacheReadTokens"].as_u64().unwrap_or(0),
        totals["cacheCreationTokens"].as_u64().unwrap_or(0),
    );

    let log = log_from_transcript(transcript).unwrap();
    let rows = log.rows();
    let sum = |rows: &mut dyn Iterator<Item = &UsageRow>| {
        rows.fold((0, 0, 0), |sum, row| {
            (
                sum.0 + row.tokens.input_tokens,
                sum.1 + row.tokens.cache_read_input_tokens,
                sum.2 + row.tokens.cache_creation_input_tokens,
            )
        })
    };
    let session = sum(&mut rows.iter());
    let from_iterations = sum(&mut rows.iter().filter(|row| row.facts.counts_from_iterations));
    let advisor = rows
        .iter()
        .flat_map(|row| &row.advisor_usage)
        .fold((0, 0, 0), |sum, usage| {
            (
                sum.0 + usage.tokens.input_tokens,
                sum.1 + usage.tokens.cache_read_input_tokens,
                sum.2 + usage.tokens.cache_creation_input_tokens,
            )
        });
    assert!(
        session.0 + session.1 + session.2 > 0,
        "{} gave no usage",
        transcript.display()
    );
    assert_eq!(
        (
            session.0 - from_iterations.0 + advisor.0,
            session.1 - from_iterations.1 + advisor.1,
            session.2 - from_iterations.2 + advisor.2
        ),
        theirs,
        "input, cache read, cache write of {}",
        transcript.display()
    );
    // The cost: ccusage prices each model from its own (LiteLLM's) table, offline; ctxhooks from
    // Anthropic's list. Equal within 1 % once the responses ccusage counts as 0 are left out
    // (docs/usage.md, "Cost in dollars").
    let prices = Prices::built_in();
    let ours = rows
        .iter()
        .filter(|row| !row.facts.counts_from_iterations)
        .map(|row| request_cost(row, &prices))
        .fold(Cost::default(), |sum, (cost, priced)| {
            assert!(priced, "a model of {} has no price", transcript.display());
            sum.saturating_add(cost)
        })
        .usd();
    assert!(
        (ours - their_cost).abs() <= their_cost * 0.01,
        "cost of {}: ctxhooks ${ours}, ccusage ${their_cost}",
        transcript.display()
    );
    Sums {
        session,
        from_iterations,
        advisor,
    }
}

/// Writes an executable shell script.
fn write_script(path: &Path, body: &str) {
    fs_err::create_dir_all(path.parent().unwrap()).unwrap();
    fs_err::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs_err::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn the_crosscheck_script_runs_the_build_in_a_relative_cargo_target_dir() {
    // A fake `cargo` (the build is not the point), a fake ccusage and a fake `ctxhooks` in a
    // RELATIVE CARGO_TARGET_DIR that leaves a mark when run: the script must run that one, not
    // `<repo>/target/debug/ctxhooks`.
    let world = World::new("target-dir");
    let bin = world.join("bin");
    write_script(&bin.join("cargo"), "exit 0");
    let ccusage = world.join("ccusage");
    write_script(
        &ccusage,
        r#"if [ "$1" = --version ]; then echo fake; else echo '{"totals":{}}'; fi"#,
    );
    let mark = world.join("ran");
    // Relative to the script's current folder, the world's project.
    write_script(
        &world.project().join("elsewhere/debug/ctxhooks"),
        &format!("touch '{}'; echo '{{\"rows\":[]}}'", mark.display()),
    );
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    world
        .program("bash")
        .arg(repository_file("scripts/ccusage-crosscheck.sh"))
        .arg(&ccusage)
        .env("PATH", path)
        .env("CARGO_TARGET_DIR", "elsewhere")
        .success();
    assert!(
        mark.exists(),
        "the script did not run CARGO_TARGET_DIR's build"
    );
}
