//! Property-based tests (proptest) of the three readers and writers every run goes through: the
//! payload reader, the transcript line reader with the record and the usage ingest behind it, and
//! the settings merge. Each property runs a bounded number of generated cases (`PROPTEST_CASES`
//! raises it) and prints one line; a failure prints the smallest case proptest found.

use std::io::BufReader;
use std::ops::ControlFlow;
use std::path::Path;

use ctxhooks_commands::install::handlers::planned_handlers;
use ctxhooks_commands::install::installer::{InstallRequest, install, uninstall};
use ctxhooks_commands::install::merge::{
    add_handler, contains_handler, drop_emptied_containers, remove_handler,
};
use ctxhooks_commands::install::status_line::{StatusLineAction, StatusLinePlan};
use ctxhooks_commands::settings::style::TextStyle;
use ctxhooks_shared::hook::payload::{parse, read_first_object};
use ctxhooks_shared::hook::precompact::PreCompactInput;
use ctxhooks_shared::hook::stop::StopInput;
use ctxhooks_shared::hook::table::HOOK_BINARIES;
use ctxhooks_shared::hook::tooluse::ToolUseInput;
use ctxhooks_shared::store::state_dir::StateDir;
use ctxhooks_shared::store::usage_record::UsageRecord;
use ctxhooks_shared::transcript::lines::{read_bounded_lines, split_lines};
use ctxhooks_shared::transcript::origin::Origin;
use ctxhooks_shared::transcript::record::Record;
use ctxhooks_shared::transcript::shape::Shaped;
use ctxhooks_shared::usage::ingest::{Ingest, SourceState};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};

use crate::direct_reader::record_line;
use crate::support::{Scratch, say_held};

/// The cases each property runs unless `PROPTEST_CASES` says otherwise: enough to find the
/// faults these readers had, few enough that the group stays a few seconds on two cores.
fn runner(cases: u32) -> TestRunner {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(cases);
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// Field names the hooks' payloads have, and a few no reader looks at (the transcript's are the
/// table's: [`transcript_keys`]).
const KEYS: [&str; 16] = [
    "session_id",
    "transcript_path",
    "hook_event_name",
    "trigger",
    "custom_instructions",
    "cwd",
    "tool_name",
    "tool_input",
    "tool_use_id",
    "tool_response",
    "duration_ms",
    "is_interrupt",
    "agent_id",
    "agent_transcript_path",
    "interrupted",
    "other",
];

/// Any JSON value, a few levels deep, its object keys mostly ones the readers look at.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|number| json!(number)),
        any::<u64>().prop_map(|number| json!(number)),
        any::<f64>()
            .prop_filter("JSON has no NaN or infinity", |number| number.is_finite())
            .prop_map(|number| json!(number)),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

/// Every key the transcript reader reads, at any level: the table's.
fn transcript_keys() -> Vec<&'static str> {
    Record::shape().keys()
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(KEYS.to_vec()).prop_map(str::to_owned),
        2 => prop::sample::select(transcript_keys()).prop_map(str::to_owned),
        1 => "[a-z_]{0,8}",
    ]
}

/// A JSON object with any values under the payload's field names.
fn json_object() -> impl Strategy<Value = Value> {
    prop::collection::vec((key(), json_value()), 0..10)
        .prop_map(|entries| Value::Object(entries.into_iter().collect()))
}

#[test]
fn the_payload_reader_takes_exactly_the_first_object_and_never_panics() {
    // Any bytes: never a panic; what is taken is a prefix that starts with `{`.
    let bytes = prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(b"{}[]\":,\\ \n0a-".to_vec()),
            1 => any::<u8>(),
        ],
        0..512,
    );
    runner(512)
        .run(&bytes, |bytes| {
            if let Ok(taken) = read_first_object(&bytes[..], |_| {}) {
                prop_assert!(bytes.starts_with(&taken));
                let first = taken.iter().find(|byte| !byte.is_ascii_whitespace());
                prop_assert_eq!(first, Some(&b'{'));
                let _ = parse::<StopInput>(&taken);
                let _ = parse::<PreCompactInput>(&taken);
                let _ = parse::<ToolUseInput>(&taken);
            }
            Ok(())
        })
        .unwrap();
    // Any object, whatever follows it and however the pipe cuts it: exactly its bytes, and no
    // field of an odd type fails the payload.
    let cases = (
        json_object(),
        prop::collection::vec(any::<u8>(), 0..64),
        1..64usize,
        prop::sample::select(vec!["", " ", "\n\t "]),
    );
    runner(256)
        .run(&cases, |(object, tail, chunk, blank)| {
            let text = format!("{blank}{object}");
            let mut input = text.clone().into_bytes();
            input.extend_from_slice(&tail);
            let reader = BufReader::with_capacity(chunk, &input[..]);
            let taken = read_first_object(reader, |_| {}).unwrap();
            prop_assert_eq!(&taken, text.as_bytes());
            let stop: StopInput = parse(&taken).unwrap();
            prop_assert!(parse::<PreCompactInput>(&taken).is_ok());
            prop_assert!(parse::<ToolUseInput>(&taken).is_ok());
            let session = object.get("session_id").and_then(Value::as_str);
            prop_assert_eq!(
                stop.session_id.non_empty(),
                session.filter(|text| !text.is_empty())
            );
            Ok(())
        })
        .unwrap();
    say_held(
        "properties",
        "payload reader: 512 runs of any bytes never panicked and took only a prefix that starts \
         with `{`; 256 objects of any field types, with any tail, in chunks of any size: exactly \
         the object taken, no field of an odd type failed a hook's payload",
    );
}

/// A transcript's bytes: lines of any bytes but a newline (some longer than the limit), the
/// last one maybe without its newline.
fn transcript_bytes() -> impl Strategy<Value = Vec<u8>> {
    let line = prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(b"{}\":,ab ".to_vec()),
            1 => any::<u8>().prop_filter("no newline", |byte| *byte != b'\n'),
        ],
        0..40,
    );
    (prop::collection::vec(line, 0..12), any::<bool>()).prop_map(|(lines, terminated)| {
        let mut bytes = lines.join(&b'\n');
        if terminated && !lines.is_empty() {
            bytes.push(b'\n');
        }
        bytes
    })
}

/// A line and the offset it starts at.
type Placed = (u64, Vec<u8>);

/// The complete lines of `bytes` (each with its offset), and the unterminated last one.
fn lines_of(bytes: &[u8]) -> (Vec<Placed>, Option<Placed>) {
    let mut complete = Vec::new();
    let mut start = 0;
    for (index, byte) in bytes.iter().enumerate() {
        if *byte == b'\n' {
            complete.push((start as u64, bytes[start..index].to_vec()));
            start = index + 1;
        }
    }
    let rest = (start < bytes.len()).then(|| (start as u64, bytes[start..].to_vec()));
    (complete, rest)
}

#[test]
fn the_line_reader_hands_whole_lines_once_in_order() {
    let scratch = Scratch::new("faults-properties-lines");
    let path = scratch.join("t.jsonl");
    let cases = (transcript_bytes(), 1..48usize, any::<prop::sample::Index>());
    runner(384)
        .run(&cases, |(bytes, max_line, cut)| {
            let (complete, rest) = lines_of(&bytes);
            let fits = |line: &Vec<u8>| line.len() <= max_line;
            // One pass over a file at rest, the unterminated line left or taken.
            for take_unterminated in [false, true] {
                let mut handed = Vec::new();
                let read = split_lines(&bytes[..], 0, take_unterminated, max_line, |line| {
                    handed.push((line.offset, line.bytes.map(<[u8]>::to_vec), line.length));
                    ControlFlow::Continue(())
                })
                .unwrap();
                let mut expected: Vec<(u64, Vec<u8>)> = complete.clone();
                if take_unterminated && let Some(last) = &rest {
                    expected.push(last.clone());
                }
                prop_assert_eq!(handed.len(), expected.len());
                for ((offset, line, length), (start, whole)) in handed.iter().zip(&expected) {
                    prop_assert_eq!(offset, start);
                    prop_assert_eq!(*length, whole.len() as u64);
                    // Whole, or (past the limit) not at all.
                    prop_assert_eq!(line.as_ref(), fits(whole).then_some(whole));
                }
                let overlong = expected.iter().filter(|(_, line)| !fits(line)).count();
                prop_assert_eq!(read.overlong_lines, overlong as u64);
                let end = if take_unterminated {
                    bytes.len()
                } else {
                    bytes.len() - rest.as_ref().map_or(0, |(_, line)| line.len())
                };
                prop_assert_eq!(read.offset, end as u64);
            }
            // The file read while it grows: up to a cut anywhere, then on from where the first
            // pass stopped. Each complete line is handed once, in order; offsets only grow.
            fs_err::write(&path, &bytes).unwrap();
            let mut file = fs_err::File::open(&path).unwrap();
            let cut = cut.index(bytes.len() + 1) as u64;
            let mut handed = Vec::new();
            let first = read_bounded_lines(&mut file, 0, cut, false, max_line, |offset, line| {
                handed.push((offset, line.to_vec()));
            })
            .unwrap();
            prop_assert!(first.offset <= cut);
            let before = usize::try_from(first.offset).unwrap().checked_sub(1);
            prop_assert!(before.is_none_or(|index| bytes[index] == b'\n'));
            let second = read_bounded_lines(
                &mut file,
                first.offset,
                bytes.len() as u64,
                false,
                max_line,
                |offset, line| handed.push((offset, line.to_vec())),
            )
            .unwrap();
            let expected: Vec<(u64, Vec<u8>)> = complete
                .iter()
                .filter(|(_, line)| fits(line))
                .cloned()
                .collect();
            prop_assert_eq!(&handed, &expected);
            prop_assert!(handed.windows(2).all(|pair| pair[0].0 < pair[1].0));
            prop_assert_eq!(
                first.overlong_lines + second.overlong_lines,
                complete.iter().filter(|(_, line)| !fits(line)).count() as u64
            );
            Ok(())
        })
        .unwrap();
    say_held(
        "properties",
        "line reader: 384 transcripts of any bytes with lines past the limit, read at rest and \
         while growing (cut anywhere): only whole lines, each once, in order, offsets only \
         growing, an unterminated last line never read unless at rest",
    );
}

/// An assistant line of one request whose usage holds `usage`, or any JSON put where a usage
/// field goes.
fn usage_line(id: u8, usage: &Value) -> String {
    json!({"type": "assistant", "uuid": format!("u{id}"), "requestId": format!("r{id}"),
           "message": {"id": format!("m{id}"), "model": "claude", "usage": usage}})
    .to_string()
}

/// `line` without `message.usage.iterations`: the context of a response that has them is its
/// last `message` iteration's, not the top-level sum the property below checks.
fn without_iterations(mut line: Value) -> Value {
    if let Some(usage) = line
        .pointer_mut("/message/usage")
        .and_then(Value::as_object_mut)
    {
        usage.remove("iterations");
    }
    line
}

#[test]
fn the_record_reader_and_the_usage_ingest_never_panic_and_never_wrap() {
    let counts = (any::<u64>(), any::<u64>(), any::<u64>(), any::<u64>());
    let usage = prop_oneof![
        counts.prop_map(|(input, write, read, output)| json!({"input_tokens": input,
            "cache_creation_input_tokens": write, "cache_read_input_tokens": read,
            "output_tokens": output})),
        json_value(),
    ];
    let lines = prop::collection::vec(
        prop_oneof![
            3 => (any::<u8>(), usage).prop_map(|(id, usage)| usage_line(id % 8, &usage).into_bytes()),
            1 => prop::collection::vec(any::<u8>(), 0..64),
            1 => json_object().prop_map(|object| object.to_string().into_bytes()),
            2 => record_line().prop_map(|line| without_iterations(line).to_string().into_bytes()),
        ],
        0..24,
    );
    let origin = Origin::from_file_name(Path::new("/t/session.jsonl"));
    runner(384)
        .run(&lines, |lines| {
            let mut ingest = Ingest::new(&origin, SourceState::default());
            for line in &lines {
                let _ = Record::parse(line);
                ingest.feed(line);
            }
            let (records, _) = ingest.finish();
            for record in records {
                if let UsageRecord::Request(row) = record {
                    let sum = u128::from(row.tokens.input_tokens)
                        + u128::from(row.tokens.cache_creation_input_tokens)
                        + u128::from(row.tokens.cache_read_input_tokens);
                    let saturated = u64::try_from(sum).unwrap_or(u64::MAX);
                    prop_assert_eq!(row.context_tokens, saturated);
                }
            }
            Ok(())
        })
        .unwrap();
    say_held(
        "properties",
        "record reader and usage ingest: 384 runs of lines of any bytes, any objects, lines \
         built from the transcript table and usage counts anywhere in 0..2^64: never a panic, \
         every context the saturated sum",
    );
}

/// A settings value: keys of any kind, and a `hooks` object whose events (ours among them)
/// hold other tools' handlers.
fn settings_value() -> impl Strategy<Value = Value> {
    let events = prop::sample::select(vec![
        "PreCompact",
        "Stop",
        "SubagentStop",
        "PreToolUse",
        "PostToolUse",
        "Notification",
    ]);
    let handler = "[a-z/]{1,12}".prop_map(|command| json!({"type": "command", "command": command}));
    let group = (
        prop::option::of("[A-Za-z|]{1,6}"),
        prop::collection::vec(handler, 0..3),
    )
        .prop_map(|(matcher, handlers)| {
            let mut group = Map::new();
            if let Some(matcher) = matcher {
                group.insert("matcher".to_owned(), json!(matcher));
            }
            group.insert("hooks".to_owned(), Value::Array(handlers));
            Value::Object(group)
        });
    let hooks = prop::collection::btree_map(events, prop::collection::vec(group, 0..3), 0..4);
    (
        prop::collection::vec(("[a-z]{1,8}", json_value()), 0..5),
        prop::option::of(hooks),
    )
        .prop_map(|(keys, hooks)| {
            let mut settings = Map::new();
            for (key, value) in keys {
                if key != "hooks" {
                    settings.insert(key, value);
                }
            }
            if let Some(hooks) = hooks {
                let events: Map<String, Value> = hooks
                    .into_iter()
                    .map(|(event, groups)| (event.to_owned(), Value::Array(groups)))
                    .collect();
                settings.insert("hooks".to_owned(), Value::Object(events));
            }
            Value::Object(settings)
        })
}

/// A text style a person might keep: indentation, line endings, a final newline, or one line.
fn text_style() -> impl Strategy<Value = Option<TextStyle>> {
    prop::option::of(
        (
            prop::sample::select(vec!["  ", "    ", "\t"]),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(indent, final_newline, crlf)| TextStyle {
                indent: indent.to_owned(),
                final_newline,
                crlf,
            }),
    )
}

#[test]
fn the_settings_merge_restores_every_byte_and_touches_nothing_else() {
    // The binaries a settings file names, as empty files.
    let scratch = Scratch::new("faults-properties-settings");
    let binaries = scratch.join("bin");
    fs_err::create_dir_all(&binaries).unwrap();
    for binary in HOOK_BINARIES {
        fs_err::write(binaries.join(binary.name), "").unwrap();
    }
    let planned = planned_handlers(&binaries);
    let plain = StatusLinePlan::default();
    fn request<'a>(
        settings: &'a Path,
        binaries: &'a Path,
        plan: &'a StatusLinePlan,
    ) -> InstallRequest<'a> {
        InstallRequest {
            settings_path: settings,
            binaries_dir: binaries,
            omitted: &[],
            new_file_mode: 0o600,
            dry_run: false,
            status_line: plan,
        }
    }
    // The merge on values: adding then removing our handlers gives the value back.
    runner(256)
        .run(&settings_value(), |original| {
            let mut value = original.clone();
            let mut created_arrays = Vec::new();
            let mut created_hooks = false;
            for handler in &planned {
                let created = add_handler(&mut value, handler);
                created_hooks |= created.hooks_object;
                if created.event_array {
                    created_arrays.push(handler.event.clone());
                }
                prop_assert!(contains_handler(&value, handler));
            }
            for handler in &planned {
                prop_assert!(remove_handler(&mut value, handler));
            }
            drop_emptied_containers(&mut value, &created_arrays, created_hooks);
            prop_assert_eq!(value, original);
            Ok(())
        })
        .unwrap();
    // The installer on files: a second install changes nothing, uninstall restores every byte,
    // and what install wrote holds the file's own keys and other tools' handlers as they were.
    let case = std::sync::atomic::AtomicUsize::new(0);
    runner(64)
        .run(&(settings_value(), text_style()), |(original, style)| {
            let number = case.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let folder = scratch.join(format!("case-{number}"));
            fs_err::create_dir_all(&folder).unwrap();
            let state = StateDir::at(folder.join("state"));
            let settings = folder.join("settings.json");
            let text = match &style {
                Some(style) => style.render(&original).unwrap(),
                None => original.to_string(),
            };
            fs_err::write(&settings, &text).unwrap();
            let first = install(&state, &request(&settings, &binaries, &plain)).unwrap();
            prop_assert!(first.changed);
            let installed = fs_err::read(&settings).unwrap();
            let mut value: Value = serde_json::from_slice(&installed).unwrap();
            for handler in &planned {
                prop_assert!(contains_handler(&value, handler));
                remove_handler(&mut value, handler);
            }
            let created: Vec<String> = planned.iter().map(|owned| owned.event.clone()).collect();
            let created_hooks = original.get("hooks").is_none();
            let original_events: Vec<String> = original
                .get("hooks")
                .and_then(Value::as_object)
                .map(|events| events.keys().cloned().collect())
                .unwrap_or_default();
            let ours: Vec<String> = created
                .into_iter()
                .filter(|event| !original_events.contains(event))
                .collect();
            drop_emptied_containers(&mut value, &ours, created_hooks);
            // Compared with the file as read, not with the generated value: numbers are what
            // the file says.
            let before: Value = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(&value, &before);
            let second = install(&state, &request(&settings, &binaries, &plain)).unwrap();
            prop_assert!(!second.changed);
            prop_assert_eq!(fs_err::read(&settings).unwrap(), installed);
            uninstall(&state, &settings, false).unwrap();
            prop_assert_eq!(&fs_err::read_to_string(&settings).unwrap(), &text);
            // With the status line: set where there was none, a second run changes no byte,
            // uninstall restores every byte.
            let plan = StatusLinePlan {
                requested: true,
                elsewhere: Vec::new(),
            };
            let with_line = install(&state, &request(&settings, &binaries, &plan)).unwrap();
            prop_assert_eq!(
                with_line.status_line.map(|line| line.action),
                Some(StatusLineAction::Added)
            );
            let installed = fs_err::read(&settings).unwrap();
            let again = install(&state, &request(&settings, &binaries, &plan)).unwrap();
            prop_assert!(!again.changed);
            prop_assert_eq!(fs_err::read(&settings).unwrap(), installed);
            uninstall(&state, &settings, false).unwrap();
            prop_assert_eq!(fs_err::read_to_string(&settings).unwrap(), text);
            fs_err::remove_dir_all(&folder).unwrap();
            Ok(())
        })
        .unwrap();
    say_held(
        "properties",
        "settings merge: 256 settings values, add then remove gave each back; 64 settings files \
         in any style (2 or 4 spaces, tabs, CRLF, one line, with or without a final newline): \
         install kept every other key and tool's handler, a second install changed no byte, \
         uninstall restored every byte; the same with the status line set",
    );
}
