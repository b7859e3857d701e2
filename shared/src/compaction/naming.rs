//! The one rule for whether a compaction's summary names an item (docs/compactions.md says it
//! in words): the summary's own text (the wrapper Claude Code puts around it left out) holds one
//! of the item's names as a whole phrase, ignoring ASCII case and how white space is laid out.
//! An item's names:
//!
//! - a file: its path as the call gave it, or its file name (`src/main.rs` is named by
//!   `main.rs`, and by `crates/x/src/main.rs`, but not by `domain.rs` or `main.rs.bak`);
//! - a command: its first words: the program and, when it is a plain word (a subcommand such as
//!   `test` in `cargo test --all`), the word after it, past a leading `cd DIR &&` and `NAME=value`
//!   assignments; for a program given by path, its file name too;
//! - a prompt: its first [`PROMPT_WORDS`] words;
//! - an error: the first [`ERROR_WORDS`] words of its message.
//!
//! A phrase is whole when the characters around it do not continue it: a letter, a digit, `_`
//! or `-`, or a `.` followed (or preceded) by one of those.

use memchr::memmem;

/// How many of a prompt's first words name it.
pub const PROMPT_WORDS: usize = 8;

/// How many of an error message's first words name it.
pub const ERROR_WORDS: usize = 6;

/// What can be named.
#[derive(Debug, Clone, Copy)]
pub enum Named<'a> {
    /// A file read, edited or written, by its path.
    File(&'a str),
    /// A command run.
    Command(&'a str),
    /// A prompt the person typed.
    Prompt(&'a str),
    /// An error's message.
    Error(&'a str),
}

/// A summary as the rule reads it: its own text, ASCII letters in lower case, every run of
/// white space one space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryText {
    /// The summary's own text, as written.
    own: String,
    /// `own` as the rule reads it.
    folded: String,
}

/// The wrapper's sentence that ends with the path of the whole transcript (2.1.x): a path that
/// would name any file of the project folder.
const TRANSCRIPT_SENTENCE: &str = "read the full transcript at:";

/// How the wrapper's first line starts.
const WRAPPER_OPENING: &str = "This session is being continued from a previous conversation";

impl SummaryText {
    /// The summary `text` as written in the transcript's summary record or given to
    /// `PostCompact`: its wrapper's first line, its system reminders (they list tools) and the
    /// line naming the transcript's path are left out.
    pub fn new(text: &str) -> Self {
        let mut own = String::with_capacity(text.len());
        let mut in_reminder = false;
        for (number, line) in text.lines().enumerate() {
            let trimmed = line.trim();
            if number == 0 && trimmed.starts_with(WRAPPER_OPENING) {
                continue;
            }
            if trimmed.starts_with("<system-reminder>") {
                in_reminder = true;
            }
            if in_reminder {
                in_reminder = !trimmed.ends_with("</system-reminder>");
                continue;
            }
            if line.contains(TRANSCRIPT_SENTENCE) {
                continue;
            }
            own.push_str(line);
            own.push('\n');
        }
        let own = own.trim().to_owned();
        Self {
            folded: fold(&own),
            own,
        }
    }

    /// The summary's own text (the wrapper left out), as written.
    pub fn text(&self) -> &str {
        &self.own
    }

    /// Returns true if and only if the summary has no text of its own.
    pub fn is_empty(&self) -> bool {
        self.folded.is_empty()
    }

    /// Returns true if and only if the summary names `item`.
    pub fn names(&self, item: Named) -> bool {
        names_of(item)
            .iter()
            .any(|name| self.holds_phrase(&fold(name)))
    }

    /// Returns true if and only if `phrase` (folded) is in the summary as a whole phrase.
    fn holds_phrase(&self, phrase: &str) -> bool {
        if phrase.is_empty() {
            return false;
        }
        let text = self.folded.as_bytes();
        let needle = phrase.as_bytes();
        memmem::find_iter(text, needle).any(|start| {
            let end = start + needle.len();
            let before_whole = !continues(needle[0]) || start == 0 || !joins_before(text, start);
            let after_whole = !continues(needle[needle.len() - 1])
                || end == text.len()
                || !joins_after(text, end);
            before_whole && after_whole
        })
    }
}

/// Returns true if and only if `byte` is a character a name continues with.
fn continues(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-'
}

/// Returns true if and only if the text before `start` continues a phrase starting there.
fn joins_before(text: &[u8], start: usize) -> bool {
    let previous = text[start - 1];
    continues(previous) || (previous == b'.' && start >= 2 && continues(text[start - 2]))
}

/// Returns true if and only if the text from `end` continues a phrase ending there.
fn joins_after(text: &[u8], end: usize) -> bool {
    let next = text[end];
    continues(next) || (next == b'.' && text.get(end + 1).copied().is_some_and(continues))
}

/// ASCII letters in lower case, every run of white space one space, no space at either end.
fn fold(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !folded.is_empty() {
            folded.push(' ');
        }
        for character in word.chars() {
            folded.push(character.to_ascii_lowercase());
        }
    }
    folded
}

/// The names of an item (see the module's documentation).
pub fn names_of(item: Named) -> Vec<String> {
    match item {
        Named::File(path) => {
            let mut names = vec![path.trim().to_owned()];
            if let Some(name) = file_name(path)
                && name != path.trim()
            {
                names.push(name.to_owned());
            }
            names
        }
        Named::Command(command) => command_names(command),
        Named::Prompt(text) => vec![first_words(text, PROMPT_WORDS)],
        Named::Error(message) => vec![first_words(message, ERROR_WORDS)],
    }
    .into_iter()
    .filter(|name| !name.is_empty())
    .collect()
}

/// How many of a prompt's or an error's first words a look-up searches for: fewer than name it,
/// as the look-up finds them in the text as written, where a line may break after any word.
pub const LOOKUP_WORDS: usize = 4;

/// The most characters of a command a look-up searches for (whole words, at least one).
pub const LOOKUP_COMMAND_CHARS: usize = 40;

/// The words a look-up (`ctxhooks recall`'s pattern, a text searched for as it is) finds an item
/// by in the conversation: a file's name; a command's leading words, up to
/// [`LOOKUP_COMMAND_CHARS`] characters (its first word alone, `cat`, would find too much); a
/// prompt's or an error's first [`LOOKUP_WORDS`] words.
pub fn lookup_name(item: Named) -> String {
    match item {
        Named::Prompt(text) | Named::Error(text) => first_words(text, LOOKUP_WORDS),
        Named::Command(command) => {
            let mut words = String::new();
            for word in command.split_whitespace() {
                let length =
                    words.chars().count() + usize::from(!words.is_empty()) + word.chars().count();
                if !words.is_empty() && length > LOOKUP_COMMAND_CHARS {
                    break;
                }
                if !words.is_empty() {
                    words.push(' ');
                }
                words.push_str(word);
            }
            words
        }
        Named::File(_) => names_of(item)
            .into_iter()
            .min_by_key(String::len)
            .unwrap_or_default(),
    }
}

/// The last component of a path (`/` or `\` separated), when it is one.
fn file_name(path: &str) -> Option<&str> {
    let name = path.trim().rsplit(['/', '\\']).next()?;
    (!name.is_empty() && name != "." && name != "..").then_some(name)
}

/// A command's first words (see the module's documentation).
fn command_names(command: &str) -> Vec<String> {
    let mut words: Vec<&str> = command.split_whitespace().collect();
    // `cd DIR && ...` or `cd DIR; ...`.
    if words.first() == Some(&"cd") && words.len() > 3 {
        if words[1].ends_with(';') {
            words.drain(..2);
        } else if matches!(words[2], "&&" | ";") {
            words.drain(..3);
        }
    }
    while words.first().is_some_and(|word| is_assignment(word)) {
        words.remove(0);
    }
    let Some(program) = words.first() else {
        return Vec::new();
    };
    let mut first = (*program).to_owned();
    if let Some(next) = words.get(1).filter(|next| is_plain_word(next)) {
        first.push(' ');
        first.push_str(next);
    }
    let mut names = vec![first];
    if program.contains('/')
        && let Some(name) = file_name(program)
    {
        let mut short = name.to_owned();
        if let Some(next) = words.get(1).filter(|next| is_plain_word(next)) {
            short.push(' ');
            short.push_str(next);
        }
        names.push(short);
    }
    names
}

/// `NAME=value`: a shell assignment before a command.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
    })
}

/// A subcommand-like word: letters, digits, `-`, `_` or `:`, starting with a letter.
fn is_plain_word(word: &str) -> bool {
    word.bytes()
        .next()
        .is_some_and(|byte| byte.is_ascii_alphabetic())
        && word
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b':'))
}

/// The first `count` words of `text`, one space apart.
fn first_words(text: &str, count: usize) -> String {
    text.split_whitespace()
        .take(count)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(summary: &str, item: Named) -> bool {
        SummaryText::new(summary).names(item)
    }

    #[test]
    fn a_file_is_named_by_its_path_or_its_file_name_as_a_whole_word() {
        let file = Named::File("/home/p/src/main.rs");
        assert!(named("Edited `src/main.rs` to fix it.", file));
        assert!(named("edited MAIN.RS", file));
        assert!(named("the file /home/p/src/main.rs.", file));
        assert!(!named("edited domain.rs", file));
        assert!(!named("edited my-main.rs", file));
        assert!(!named("kept main.rs.bak", file));
        assert!(!named("the main function", file));
        // A path that is only a file name.
        assert!(named("read README.md first", Named::File("README.md")));
    }

    #[test]
    fn a_command_is_named_by_its_first_words() {
        let command = Named::Command("cd /p && RUST_LOG=debug cargo test --workspace -- x");
        assert_eq!(names_of(command), ["cargo test"]);
        assert!(named("ran cargo  test, which failed", command));
        assert!(!named("ran cargo build", command));
        assert!(!named("ran cargo testing", command));
        assert_eq!(names_of(Named::Command("ls -la /tmp")), ["ls"]);
        assert_eq!(
            names_of(Named::Command("./scripts/check.sh all")),
            ["./scripts/check.sh all", "check.sh all"]
        );
        assert_eq!(names_of(Named::Command("  ")), Vec::<String>::new());
        assert!(!named("anything", Named::Command("")));
    }

    #[test]
    fn prompts_and_errors_are_named_by_their_first_words() {
        let prompt = Named::Prompt("please fix the flaky test in the parser module today");
        assert!(named(
            "User: \"Please fix the flaky test in the parser module\"",
            prompt
        ));
        assert!(!named("the user asked to fix a test", prompt));
        let error = Named::Error("error[E0425]: cannot find value `z` in this scope");
        assert!(named(
            "hit error[E0425]: cannot find value `z` in scope",
            error
        ));
    }

    #[test]
    fn a_look_up_searches_for_enough_of_a_command_to_find_it() {
        assert_eq!(
            lookup_name(Named::Command("cat quokka-missing-41.txt")),
            "cat quokka-missing-41.txt"
        );
        assert_eq!(
            lookup_name(Named::Command(
                "cargo test --workspace --locked -- --nocapture compactions"
            )),
            "cargo test --workspace --locked --"
        );
        assert_eq!(lookup_name(Named::Command(&"x".repeat(50))), "x".repeat(50));
        assert_eq!(lookup_name(Named::File("/p/src/main.rs")), "main.rs");
        assert_eq!(
            lookup_name(Named::Prompt("please fix the parser today")),
            "please fix the parser"
        );
    }

    #[test]
    fn the_wrapper_names_nothing() {
        let summary = "This session is being continued from a previous conversation that ran out of context.\n\n<system-reminder>\n<tools-used-before-summary>Bash</tools-used-before-summary>\n</system-reminder>\nSummary:\nThe user asked for work.\n\nIf you need specific details from before compaction, read the full transcript at: /home/u/.claude/projects/-p/s.jsonl\nContinue.";
        let text = SummaryText::new(summary);
        assert!(text.names(Named::Prompt("The user asked")));
        assert!(!text.names(Named::File("/p/s.jsonl")));
        assert!(!text.names(Named::Command("Bash")));
        assert!(!text.names(Named::Prompt("This session is being continued")));
        assert!(SummaryText::new("  \n").is_empty());
    }
}
