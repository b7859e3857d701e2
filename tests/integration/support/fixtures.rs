//! Where the tests find what they read: the real transcripts of public repositories in
//! `tests/fixtures/transcripts`, this repository's own captures, and files of the repository
//! itself. No other file builds these paths.

use std::path::{Path, PathBuf};

/// The repository root (the `ctxhooks` package).
pub fn repository_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file of this repository, such as `install/setup.sh`.
pub fn repository_file(relative: &str) -> PathBuf {
    repository_root().join(relative)
}

/// A real transcript from a public repository, in `tests/fixtures/transcripts` (provenance and
/// licences in its `PROVENANCE.md`), such as `marot__spotter/short.jsonl`.
pub fn transcript_fixture(relative: &str) -> PathBuf {
    transcript_fixtures_root().join(relative)
}

/// A capture of this repository's `tests/fixtures`, such as
/// `sdk-0.3.332/marked-interrupt/transcript.jsonl`.
pub fn project_fixture(relative: &str) -> PathBuf {
    repository_root().join("tests/fixtures").join(relative)
}

/// A real CLI capture from `tests/fixtures/cli-captures`, such as
/// `compaction/auto-manual.jsonl.gz`, laid out as a plain file in `folder`: decompressed
/// when it is gzipped (named without `.gz`), else copied.
pub fn cli_capture(folder: &Path, relative: &str) -> PathBuf {
    let source = project_fixture("cli-captures").join(relative);
    let name = relative.replace('/', "-");
    if let Some(plain) = name.strip_suffix(".gz") {
        let target = folder.join(plain);
        let mut plain_bytes = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::MultiGzDecoder::new(fs_err::File::open(&source).unwrap()),
            &mut plain_bytes,
        )
        .unwrap_or_else(|error| panic!("`{}` is not gzip: {error}", source.display()));
        fs_err::write(&target, plain_bytes).unwrap();
        target
    } else {
        let target = folder.join(&name);
        fs_err::copy(&source, &target).unwrap();
        target
    }
}

/// Every `.jsonl` file of `tests/fixtures/transcripts`, sorted.
pub fn all_transcript_fixtures() -> Vec<PathBuf> {
    let mut found = Vec::new();
    collect_jsonl(&transcript_fixtures_root(), &mut found);
    found.sort();
    found
}

/// Every CLI capture of `tests/fixtures/cli-captures`, laid out plainly in `folder`.
pub fn all_captures(folder: &Path) -> Vec<PathBuf> {
    let root = project_fixture("cli-captures");
    let mut found = Vec::new();
    for scenario in fs_err::read_dir(&root).unwrap() {
        let scenario = scenario.unwrap().path();
        for file in fs_err::read_dir(&scenario).unwrap() {
            let file = file.unwrap().path();
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            let transcript = Path::new(name.trim_end_matches(".gz"))
                .extension()
                .is_some_and(|extension| extension.eq_ignore_ascii_case("jsonl"));
            if transcript {
                let relative =
                    format!("{}/{name}", scenario.file_name().unwrap().to_string_lossy());
                found.push(cli_capture(folder, &relative));
            }
        }
    }
    found.sort();
    found
}

/// Every SDK capture's transcript.
pub fn all_sdk_transcripts() -> Vec<PathBuf> {
    let root = project_fixture("sdk-0.3.332");
    let mut found: Vec<PathBuf> = fs_err::read_dir(root)
        .unwrap()
        .map(|entry| entry.unwrap().path().join("transcript.jsonl"))
        .collect();
    found.sort();
    found
}

fn transcript_fixtures_root() -> PathBuf {
    project_fixture("transcripts")
}

fn collect_jsonl(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in fs_err::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_jsonl(&path, found);
        } else if path
            .extension()
            .is_some_and(|extension| extension == "jsonl")
        {
            found.push(path);
        }
    }
}
