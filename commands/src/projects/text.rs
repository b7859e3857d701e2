//! What could not be read in the projects folders, in words (`history` prints it, `export` says
//! it on stderr, and both end with it when nothing could be read).

use super::discover::{Problem, ProblemKind};

/// A problem in one sentence.
pub fn problem_text(problem: &Problem) -> String {
    let path = problem.path.display();
    match &problem.kind {
        ProblemKind::Missing => format!("{path}: nothing is there (no projects folder)"),
        ProblemKind::NotAFolder => format!("{path}: a file, not a projects folder"),
        ProblemKind::NotAProjectsFolder {
            holds_transcripts: true,
        } => format!(
            "{path}: not a projects folder: it holds transcripts itself, so it looks like one \
             project's folder (give the folder above it, such as ~/.claude/projects)"
        ),
        ProblemKind::NotAProjectsFolder {
            holds_transcripts: false,
        } => format!("{path}: not a projects folder: no <project>/<session>.jsonl under it"),
        ProblemKind::Unreadable { error } => format!("{path}: could not be read: {error}"),
        ProblemKind::NotATranscript { unreadable_lines } => format!(
            "{path}: not a Claude Code transcript: no line is a record of one \
             ({unreadable_lines} not JSON objects); skipped"
        ),
    }
}

/// What `history` and `export` end with when not one projects folder could be read, given each
/// refusal in words ([`problem_text`]).
pub fn nothing_read_text(refusals: &[String]) -> String {
    format!("no projects folder could be read: {}", refusals.join("; "))
}
