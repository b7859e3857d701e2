//! The fleet export: `ctxhooks export` of three simulated hosts, built from real fixtures and
//! captures (transcripts in projects folders; snapshots the real `PreCompact` hook takes; SDK
//! captures' sidecars for tool events and verdicts), every line validated against its JSON
//! Schema with Python's jsonschema, and the SQL shipped in `docs/fleet/` run by `DuckDB`'s Python
//! package, its answers checked against the same figures computed here from the lines. Both
//! packages come from the venv `tests/e2e/install-tools.sh` makes (`.e2e/python`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::fixtures::{project_fixture, repository_file};
use crate::support::summary::record_group;
use crate::support::{
    Hook, World, cli_capture, make_fifo, mode, needs_root, say_skipped, transcript_fixture,
};

/// The venv's Python with duckdb and jsonschema, or `None` (said loudly) when it is missing and
/// the end-to-end tools are not required.
fn python() -> Option<PathBuf> {
    let python = repository_file(".e2e/python/bin/python");
    let usable = python.exists()
        && std::process::Command::new(&python)
            .args(["-c", "import duckdb, jsonschema"])
            .status()
            .is_ok_and(|status| status.success());
    if usable {
        record_group("fleet", "ran");
        return Some(python);
    }
    let required = std::env::var("CTXHOOKS_E2E").is_ok_and(|value| value == "require");
    assert!(
        !required,
        "CTXHOOKS_E2E=require but `{}` cannot import duckdb and jsonschema: run tests/e2e/install-tools.sh",
        python.display()
    );
    say_skipped(
        "the fleet export's schema and DuckDB checks (no .e2e/python with duckdb and jsonschema); run tests/run.sh",
    );
    record_group(
        "fleet",
        "skipped: no .e2e/python with duckdb and jsonschema",
    );
    None
}

/// One simulated machine: its projects folder and state folder.
struct Host {
    name: &'static str,
    projects: PathBuf,
    state: PathBuf,
}

impl Host {
    fn new(world: &World, name: &'static str) -> Self {
        let host = Self {
            name,
            projects: world.join(format!("{name}/projects")),
            state: world.join(format!("{name}/state")),
        };
        fs_err::create_dir_all(&host.projects).unwrap();
        host
    }

    /// Lays a transcript in a project folder under a session id, and returns its path.
    fn transcript(&self, project: &str, session: &str, from: &Path) -> PathBuf {
        let path = self.projects.join(project).join(format!("{session}.jsonl"));
        fs_err::create_dir_all(path.parent().unwrap()).unwrap();
        fs_err::copy(from, &path).unwrap();
        path
    }

    /// Lays an SDK capture's transcript and sidecar as its session left them.
    fn sdk_capture(&self, scenario: &str) {
        let folder = project_fixture(&format!("sdk-0.3.332/{scenario}"));
        let transcript = folder.join("transcript.jsonl");
        let first = fs_err::read_to_string(&transcript).unwrap();
        let first: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
        let session = first["sessionId"].as_str().unwrap();
        self.transcript("-sdk-project", session, &transcript);
        let sessions = self.state.join("sessions").join(session);
        fs_err::create_dir_all(&sessions).unwrap();
        fs_err::copy(
            folder.join("provenance.jsonl"),
            sessions.join("provenance.jsonl"),
        )
        .unwrap();
    }

    /// Runs `ctxhooks export` for this host.
    fn export(&self, world: &World, out: &Path, since: Option<&str>) {
        let mut run = world
            .ctxhooks(["export", "--host", self.name, "--projects"])
            .arg(&self.projects)
            .arg("--out")
            .arg(out)
            .env("CTXHOOKS_HOME", &self.state);
        if let Some(since) = since {
            run = run.args(["--since", since]);
        }
        run.stderr_contains(format!("for host {}", self.name))
            .success();
    }
}

fn lines(path: &Path) -> Vec<Value> {
    fs_err::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Three hosts: alpha (compactions of 2.1.332 and 2.0.76, sub-agents, a snapshot the real
/// `PreCompact` hook took, a runtime-marked interrupt), beta (a reactive compaction, unlogged
/// micro-compactions, 1.0.x inline sidechains, a permission refusal and a person's interrupt),
/// gamma (the same 2.0.76 session on another machine, 2.0.x flat sub-agents, a resume, three
/// parallel marked calls and an earlier genuine interrupt).
fn fleet(world: &World) -> Vec<Host> {
    let scratch = world.join("captures");
    fs_err::create_dir_all(&scratch).unwrap();
    let alpha = Host::new(world, "alpha");
    alpha.transcript(
        "-home-dev-capture",
        "9c8d7e6f-0000-4000-8000-00000000a001",
        &cli_capture(&scratch, "compaction/auto-manual.jsonl.gz"),
    );
    let compacted = alpha.transcript(
        "-home-dev-entire",
        "a6e4c2a0-0000-4000-8000-000000000000",
        &transcript_fixture("entireio__cli/a6/e4c2a0fbd1/0/full.jsonl"),
    );
    alpha.transcript(
        "-home-dev-spotter",
        "ae4a77f8-aedd-4bc1-888f-c94edc91af04",
        &transcript_fixture("marot__spotter/tool_heavy.jsonl"),
    );
    let subagent = alpha
        .projects
        .join("-home-dev-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents");
    fs_err::create_dir_all(&subagent).unwrap();
    fs_err::copy(
        transcript_fixture(
            "marot__spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl",
        ),
        subagent.join("agent-aac57f5.jsonl"),
    )
    .unwrap();
    alpha.sdk_capture("marked-interrupt");
    // The real PreCompact hook snapshots the 2.0.76 session into alpha's state folder.
    world
        .hook(Hook::PreCompact)
        .env("CTXHOOKS_HOME", &alpha.state)
        .stdin(
            json!({"session_id": "a6e4c2a0-0000-4000-8000-000000000000",
                   "transcript_path": compacted, "cwd": "/work/demo",
                   "hook_event_name": "PreCompact", "trigger": "auto"})
            .to_string(),
        )
        .success();

    let beta = Host::new(world, "beta");
    beta.transcript(
        "-home-dev-capture",
        "9c8d7e6f-0000-4000-8000-00000000b001",
        &cli_capture(&scratch, "compaction/reactive.jsonl.gz"),
    );
    beta.transcript(
        "-home-dev-capture",
        "9c8d7e6f-0000-4000-8000-00000000b002",
        &cli_capture(&scratch, "microcompact/p-2.1.42.jsonl.gz"),
    );
    beta.transcript(
        "-path-to-Demo",
        "5c0375b4-57a5-4f26-b12d-d022ee4e51b7",
        &transcript_fixture(
            "d-kimuson__claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
        ),
    );
    beta.sdk_capture("permission-deny");
    beta.sdk_capture("unmarked-interrupt");

    let gamma = Host::new(world, "gamma");
    gamma.transcript(
        "-home-dev-entire",
        "a6e4c2a0-0000-4000-8000-000000000000",
        &transcript_fixture("entireio__cli/a6/e4c2a0fbd1/0/full.jsonl"),
    );
    let lanegrid = "lanegrid__agtrace/-Users-zawakin-agent-sample";
    for file in [
        "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9.jsonl",
        "agent-0c4c3cf8.jsonl",
        "agent-90fa40b6.jsonl",
    ] {
        let target = gamma
            .projects
            .join("-Users-zawakin-agent-sample")
            .join(file);
        fs_err::create_dir_all(target.parent().unwrap()).unwrap();
        fs_err::copy(transcript_fixture(&format!("{lanegrid}/{file}")), target).unwrap();
    }
    gamma.transcript(
        "-home-dev-capture",
        "9c8d7e6f-0000-4000-8000-00000000c001",
        &cli_capture(&scratch, "resume-interactive/2.1.42.jsonl"),
    );
    gamma.sdk_capture("parallel-marked");
    gamma.sdk_capture("earlier-genuine-then-marked");
    vec![alpha, beta, gamma]
}

/// Runs `tests/fleet/check.py` and parses what it prints.
fn check(world: &World, python: &Path, args: &[&Path]) -> Value {
    world
        .program(python)
        .arg(repository_file("tests/fleet/check.py"))
        .args(args)
        .json()
}

/// The records `DuckDB` should see: one per (host, id), the copy with the latest time.
fn deduplicated(records: Vec<Value>) -> Vec<Value> {
    let mut latest: HashMap<(String, String), Value> = HashMap::new();
    for record in records {
        let key = (
            record["host"].as_str().unwrap().to_owned(),
            record["id"].as_str().unwrap().to_owned(),
        );
        let newer = latest.get(&key).is_none_or(|known| {
            record["time"].as_str().unwrap_or("") > known["time"].as_str().unwrap_or("")
        });
        if newer {
            latest.insert(key, record);
        }
    }
    latest.into_values().collect()
}

#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "a handful of sessions' token counts, and an index"
)]
/// Linear-interpolation quantile, as `DuckDB`'s `quantile_cont`.
fn quantile(values: &mut [f64], q: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let position = q * (values.len() - 1) as f64;
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "an index"
    )]
    let low = position.floor() as usize;
    let high = (low + 1).min(values.len() - 1);
    values[low] + (position - low as f64) * (values[high] - values[low])
}

#[test]
fn three_hosts_exports_validate_and_duckdb_answers_the_fleet_questions() {
    let Some(python) = python() else { return };
    let world = World::new("fleet");
    let hosts = fleet(&world);
    let exports = world.join("fleet-exports");
    fs_err::create_dir_all(&exports).unwrap();
    let mut files = Vec::new();
    for host in &hosts {
        let out = exports.join(format!("{}.jsonl", host.name));
        host.export(&world, &out, None);
        files.push(out);
    }
    // gamma ships again incrementally: only records at or after a time, overlapping the first.
    let since = "2026-01-07T12:00:00Z";
    let incremental = exports.join("gamma-incremental.jsonl");
    hosts[2].export(&world, &incremental, Some(since));
    let full: Vec<Value> = lines(&files[2]);
    let later = lines(&incremental);
    assert!(
        !later.is_empty() && later.len() < full.len(),
        "{} of {}",
        later.len(),
        full.len()
    );
    for record in &later {
        assert!(
            record["time"].as_str().unwrap() >= "2026-01-07T12:00:00",
            "{record}"
        );
    }
    let expected_ids: BTreeSet<&str> = full
        .iter()
        .filter(|record| {
            record["time"]
                .as_str()
                .is_some_and(|time| time >= "2026-01-07T12:00:00")
        })
        .map(|record| record["id"].as_str().unwrap())
        .collect();
    let shipped_ids: BTreeSet<&str> = later
        .iter()
        .map(|record| record["id"].as_str().unwrap())
        .collect();
    assert_eq!(shipped_ids, expected_ids);
    files.push(incremental);

    // Every line carries host, project, session, kind and schema, and validates.
    let mut records = Vec::new();
    for file in &files {
        records.extend(lines(file));
    }
    let mut kinds = BTreeSet::new();
    for record in &records {
        assert_eq!(record["schema"], 3, "{record}");
        assert!(
            record["host"].is_string() && record["session"].is_string(),
            "{record}"
        );
        kinds.insert(record["kind"].as_str().unwrap().to_owned());
    }
    let kinds: Vec<&str> = kinds.iter().map(String::as_str).collect();
    assert_eq!(
        kinds,
        [
            "compaction",
            "drop",
            "provenance",
            "request",
            "session",
            "snapshot",
            "tool_event"
        ]
    );
    let mut arguments: Vec<&Path> = vec![Path::new("validate")];
    let schemas = repository_file("docs/schema");
    arguments.push(&schemas);
    arguments.extend(files.iter().map(PathBuf::as_path));
    let validated = check(&world, &python, &arguments);
    assert_eq!(validated["errors"], json!([]), "{validated:#}");
    assert_eq!(validated["lines"].as_u64().unwrap(), records.len() as u64);

    // DuckDB over every host's files, against the same figures computed from the lines.
    let pattern = exports.join("*.jsonl");
    let sql = repository_file("docs/fleet");
    let answers = check(&world, &python, &[Path::new("query"), &sql, &pattern]);
    let records = deduplicated(records);
    let of_kind = |kind: &'static str| records.iter().filter(move |record| record["kind"] == kind);

    let mut per_day: BTreeMap<(String, String), u64> = BTreeMap::new();
    for compaction in of_kind("compaction") {
        let day = compaction["time"].as_str().unwrap()[..10].to_owned();
        *per_day
            .entry((compaction["host"].as_str().unwrap().to_owned(), day))
            .or_default() += 1;
    }
    let theirs: BTreeMap<(String, String), u64> = answers["compactions_per_host_per_day.sql"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                (
                    row["host"].as_str().unwrap().to_owned(),
                    row["day"].as_str().unwrap().to_owned(),
                ),
                row["compactions"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(theirs, per_day);
    let hosts_with_compactions: BTreeSet<&str> =
        per_day.keys().map(|(host, _)| host.as_str()).collect();
    assert_eq!(
        hosts_with_compactions,
        BTreeSet::from(["alpha", "beta", "gamma"])
    );

    let mut near: Vec<(String, String)> = of_kind("session")
        .filter(|session| {
            session["peak_to_trigger"]
                .as_f64()
                .is_some_and(|ratio| ratio >= 0.9)
        })
        .map(|session| {
            (
                session["host"].as_str().unwrap().to_owned(),
                session["session"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    near.sort();
    let mut theirs: Vec<(String, String)> = answers["sessions_near_trigger.sql"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["host"].as_str().unwrap().to_owned(),
                row["session"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    theirs.sort();
    assert_eq!(theirs, near);
    assert!(near.len() >= 3, "{near:?}");

    let p95 = answers["p95_peak_context.sql"].as_array().unwrap();
    let mut fleet_peaks = Vec::new();
    for host in ["alpha", "beta", "gamma"] {
        let mut peaks: Vec<f64> = of_kind("session")
            .filter(|session| session["host"] == host)
            .filter_map(|session| session["peak_context"].as_f64())
            .collect();
        fleet_peaks.extend(peaks.iter().copied());
        let row = p95.iter().find(|row| row["host"] == host).unwrap();
        assert_eq!(row["sessions"].as_u64().unwrap(), peaks.len() as u64);
        let expected = quantile(&mut peaks, 0.95);
        assert!(
            (row["p95_peak_context"].as_f64().unwrap() - expected).abs() < 1e-6,
            "{row} vs {expected}"
        );
    }
    let fleet_row = p95.iter().find(|row| row["host"].is_null()).unwrap();
    let expected = quantile(&mut fleet_peaks, 0.95);
    assert!((fleet_row["p95_peak_context"].as_f64().unwrap() - expected).abs() < 1e-6);

    let mut verdicts: BTreeMap<(String, String, String), u64> = BTreeMap::new();
    for call in of_kind("provenance") {
        *verdicts
            .entry((
                call["host"].as_str().unwrap().to_owned(),
                call["verdict"].as_str().unwrap().to_owned(),
                call["state"].as_str().unwrap().to_owned(),
            ))
            .or_default() += 1;
    }
    let theirs: BTreeMap<(String, String, String), u64> = answers["interrupts_by_verdict.sql"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                (
                    row["host"].as_str().unwrap().to_owned(),
                    row["verdict"].as_str().unwrap().to_owned(),
                    row["state"].as_str().unwrap().to_owned(),
                ),
                row["calls"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(theirs, verdicts);
    // The captures' own verdicts: a runtime-marked call, a refusal, a person's stop.
    for verdict in ["runtime", "permission_denied", "user"] {
        assert!(
            verdicts.keys().any(|(_, seen, _)| seen == verdict),
            "{verdicts:?}"
        );
    }
}

// See: issue 17 (`export --out` replaced a FIFO, or a link to `/proc/self/fd/1`, with a regular
// file: the shipper reading the pipe got nothing, and as root `--out /dev/stdout` would have
// replaced the system's link).
#[test]
fn out_writes_into_a_fifo_or_a_link_to_stdout_and_through_a_link_to_a_file() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt, symlink};
    let world = World::new("fleet-out");
    let host = Host::new(&world, "alpha");
    host.transcript(
        "-home-dev-entire",
        "a6e4c2a0-0000-4000-8000-000000000000",
        &transcript_fixture("entireio__cli/a6/e4c2a0fbd1/0/full.jsonl"),
    );
    let export = || {
        world
            .ctxhooks(["export", "--host", "alpha", "--projects"])
            .arg(&host.projects)
    };
    let expected = export().success().stdout().to_vec();
    assert!(
        expected.len() > 1000,
        "{}",
        String::from_utf8_lossy(&expected)
    );

    // A FIFO a shipper reads: written into, and still a FIFO.
    let fifo = world.join("pipe");
    make_fifo(&fifo);
    let shipper = world.program("/bin/cat").arg(&fifo).spawn();
    export().arg("--out").arg(&fifo).success();
    let (shipped, hung) = shipper.kill_after(std::time::Duration::from_secs(10));
    assert!(!hung, "the shipper reading the FIFO never got a writer");
    assert_eq!(shipped.stdout(), expected);
    assert!(
        fs_err::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );

    // A link to the process's own stdout (`/dev/stdout` is one): the lines go there, the link
    // stays.
    let stdout = world.join("stdout");
    symlink("/proc/self/fd/1", &stdout).unwrap();
    let outcome = export().arg("--out").arg(&stdout).success();
    assert_eq!(outcome.stdout(), expected);
    assert!(fs_err::symlink_metadata(&stdout).unwrap().is_symlink());

    // A link to a regular file: the file is replaced (0600), the link stays.
    let shipped = world.join("shipped.jsonl");
    fs_err::write(&shipped, "earlier\n").unwrap();
    fs_err::set_permissions(&shipped, std::fs::Permissions::from_mode(0o644)).unwrap();
    let current = world.join("current.jsonl");
    symlink(&shipped, &current).unwrap();
    export().arg("--out").arg(&current).success();
    assert!(fs_err::symlink_metadata(&current).unwrap().is_symlink());
    assert_eq!(fs_err::read(&shipped).unwrap(), expected);
    assert_eq!(mode(&shipped), 0o600);

    // A folder is refused, and nothing is written in it.
    let folder = world.join("folder");
    fs_err::create_dir_all(&folder).unwrap();
    export()
        .arg("--out")
        .arg(&folder)
        .stderr_contains("is a folder")
        .failure();
    assert_eq!(fs_err::read_dir(&folder).unwrap().count(), 0);
}

// See: issue 30 (review: `export` turned a state folder it could not read into an empty list,
// and dropped snapshots and sidecar lines it could not read, all without a word).
#[test]
fn what_export_cannot_read_of_the_state_folder_it_says() {
    let world = World::new("fleet-state-problems");
    let host = Host::new(&world, "alpha");
    let session = "a6e4c2a0-0000-4000-8000-000000000000";
    host.transcript(
        "-home-dev-entire",
        session,
        &transcript_fixture("entireio__cli/a6/e4c2a0fbd1/0/full.jsonl"),
    );
    let export = |projects: &Path| {
        world
            .ctxhooks(["export", "--host", "alpha", "--projects"])
            .arg(projects)
            .env("CTXHOOKS_HOME", &host.state)
    };
    // The state folder's list of sessions cannot be read (a file where its folder is): said;
    // the transcripts are still exported.
    fs_err::create_dir_all(&host.state).unwrap();
    let sessions = host.state.join("sessions");
    fs_err::write(&sessions, "not a folder").unwrap();
    let unreadable_state = format!(
        "the state folder {} could not be read",
        host.state.display()
    );
    let outcome = export(&host.projects)
        .stderr_contains(&unreadable_state)
        .success();
    assert!(outcome.stdout_text().contains("\"kind\":\"request\""));
    // With nothing else read, nothing was: an error, exit 1, no line.
    let outcome = export(&world.join("missing"))
        .stderr_contains("nothing is there")
        .stderr_contains(&unreadable_state)
        .failure();
    assert_eq!(outcome.code(), Some(1));
    assert!(outcome.stdout().is_empty());
    // A state folder in place that is no folder: said too.
    let outcome = world
        .ctxhooks(["export", "--projects"])
        .arg(&host.projects)
        .env("CTXHOOKS_HOME", &sessions)
        .stderr_contains("is not a folder")
        .success();
    assert!(!outcome.stdout().is_empty());

    // A snapshot whose `snapshot.json` is damaged, and a sidecar with a line that is no record
    // among two tool events: each said, and what can be read is exported.
    fs_err::remove_file(&sessions).unwrap();
    let folder = sessions.join(session);
    let snapshot = folder.join("archive/20261202T100000Z-auto");
    fs_err::create_dir_all(&snapshot).unwrap();
    fs_err::write(snapshot.join("snapshot.json"), "{\"schema\": 2,").unwrap();
    let event = |time: u64| {
        json!({"kind": "tool_event", "event": "started", "hook_event_name": "PreToolUse",
               "time_ms": time, "tool_use_id": format!("toolu_{time}"), "tool_name": "Bash"})
        .to_string()
    };
    fs_err::write(
        folder.join("provenance.jsonl"),
        format!(
            "{}\nnot json at all\n{}\n",
            event(1_796_012_585_132),
            event(1_796_012_585_999)
        ),
    )
    .unwrap();
    let outcome = export(&host.projects)
        .stderr_contains(format!(
            "the snapshot {} could not be read",
            snapshot.display()
        ))
        .stderr_contains(
            "1 line(s) of the provenance sidecar could not be read (the first, line 2:",
        )
        .success();
    let records: Vec<Value> = outcome
        .stdout_text()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let tool_events = records
        .iter()
        .filter(|record| record["kind"] == "tool_event")
        .count();
    assert_eq!(tool_events, 2);
    assert!(
        records
            .iter()
            .all(|record| record.as_object().is_some_and(|fields| fields.len() > 8)),
        "a record without its kind's fields"
    );
}

// See: issue 17 (the host name came from `/proc/sys/kernel/hostname` or `/etc/hostname` only,
// and macOS has neither: every record said `unknown`).
#[test]
fn the_host_is_the_kernels_name_even_without_proc_or_etc_hostname() {
    let Some(root) = needs_root("the host name without /proc or /etc/hostname (unshare)") else {
        return;
    };
    if !Path::new("/usr/bin/unshare").exists() {
        return root.skip("unshare is not installed");
    }
    let world = World::new("fleet-host-name");
    let host = Host::new(&world, "alpha");
    host.transcript(
        "-home-dev-entire",
        "a6e4c2a0-0000-4000-8000-000000000000",
        &transcript_fixture("entireio__cli/a6/e4c2a0fbd1/0/full.jsonl"),
    );
    // In namespaces of its own: the kernel's name set, both files emptied (as on a system that
    // has neither).
    let empty = world.join("empty");
    fs_err::write(&empty, "").unwrap();
    let script = format!(
        "hostname ctxhooks-uts-name && mount --bind '{empty}' /proc/sys/kernel/hostname && \
         mount --bind '{empty}' /etc/hostname && exec \"$0\" \"$@\"",
        empty = empty.display()
    );
    let outcome = world
        .ctxhooks(["export", "--projects"])
        .arg(&host.projects)
        .via(
            "/usr/bin/unshare",
            ["--uts", "--mount", "/bin/sh", "-c", &script],
        )
        .success();
    let first: Value = serde_json::from_str(outcome.stdout_text().lines().next().unwrap()).unwrap();
    assert_eq!(first["host"], "ctxhooks-uts-name");
}
