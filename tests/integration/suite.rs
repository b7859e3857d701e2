//! The suite's own promises: a test that needs root passes when the suite does not run as root,
//! and is counted as skipped in the summary `tests/run.sh` ends with (its `root` line), never
//! passed in silence. Checked by running every such test again as `nobody`.

use std::os::unix::fs::PermissionsExt as _;

use crate::support::root::ROOT_GROUP;
use crate::support::summary::SUMMARY_VARIABLE;
use crate::support::{AS_NOBODY, SETPRIV, World, needs_root_and_setpriv};

/// Every test that needs root (each asks `support::root::needs_root` first).
const ROOT_TESTS: [&str; 9] = [
    "faults::a_transcript_in_a_folder_that_cannot_be_listed_is_archived",
    "faults::filesystem::a_disk_full_at_any_step_loses_nothing_and_the_next_run_catches_up",
    "faults::filesystem::a_read_only_state_folder_changes_nothing_and_the_hooks_say_why",
    "faults::filesystem::a_state_folder_of_another_user_changes_nothing_and_the_hooks_say_why",
    "fleet::the_host_is_the_kernels_name_even_without_proc_or_etc_hostname",
    "install::install_keeps_the_owner_of_someone_elses_settings_and_refuses_a_read_only_file",
    "precompact::a_full_disk_leaves_nothing_under_a_final_name",
    "precompact::a_log_line_that_does_not_fit_leaves_no_fragment",
    "precompact::an_unreadable_agent_file_costs_only_itself",
];

#[test]
fn the_tests_that_need_root_pass_as_another_user_and_are_counted_as_skipped() {
    let Some(root) = needs_root_and_setpriv("running the root tests as nobody (setpriv)") else {
        return;
    };
    let world = World::new("root-tests-as-nobody");
    // This test binary, run again as `nobody`: a temporary folder and a summary file it may
    // write, and nothing of the summary this run writes.
    let this_binary = std::env::current_exe().unwrap();
    let folder = world.join("nobody");
    fs_err::create_dir_all(&folder).unwrap();
    fs_err::set_permissions(&folder, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let reachable = world
        .program(SETPRIV)
        .args(AS_NOBODY)
        .args(["test", "-x"])
        .arg(&this_binary)
        .output();
    if !reachable.into_output().status.success() {
        return root.skip("nobody may not run the test binary where it was built");
    }
    let summary = folder.join("summary");
    world
        .program(SETPRIV)
        .args(AS_NOBODY)
        .arg(&this_binary)
        .args(ROOT_TESTS)
        .args(["--exact", "--test-threads", "2"])
        .env("TMPDIR", &folder)
        .env(SUMMARY_VARIABLE, &summary)
        .stdout_contains(format!("test result: ok. {} passed", ROOT_TESTS.len()))
        .success();
    let recorded = fs_err::read_to_string(&summary).unwrap_or_default();
    assert_eq!(
        recorded.lines().collect::<Vec<_>>(),
        vec![format!("{ROOT_GROUP}\tskipped: not root"); ROOT_TESTS.len()],
        "{recorded}"
    );
}
