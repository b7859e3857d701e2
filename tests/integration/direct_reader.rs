//! The direct line reader against the serde reader: on every line of every real fixture, CLI
//! capture and SDK capture, and on those lines changed around every case the direct reader
//! leaves to serde (other types at every place the record reads, duplicated and escaped keys,
//! surrogates, odd numbers, deep nesting, control characters, cut lines, other whitespace), the
//! direct reader either gives up or gives serde's record. A property does the same for lines
//! built from the table of `transcript::schema` (its `transcript::shape::Shape`: every key at
//! its place, each with a value of its type or of another) and for objects of any values under
//! the table's keys, whole, with one byte replaced and cut short (2,000 cases; `PROPTEST_CASES`
//! raises it). And every key of the table is one the real lines hold at its place, but for a
//! named few.

use std::collections::BTreeSet;
use std::path::Path;

use ctxhooks_shared::transcript::record::{Record, read_record};
use ctxhooks_shared::transcript::shape::{Shape, Shaped};
use proptest::prelude::*;
use serde_json::Value;

use crate::support::Scratch;
use crate::support::fixtures::{all_captures, all_sdk_transcripts, all_transcript_fixtures};

/// Every line of every transcript the tests have (real fixtures, CLI captures laid out in
/// `folder`, SDK captures), with where it came from.
fn every_line(folder: &Path) -> Vec<(String, String)> {
    let mut files = all_transcript_fixtures();
    files.extend(all_captures(folder));
    files.extend(all_sdk_transcripts());
    let mut lines = Vec::new();
    for path in files {
        let bytes = fs_err::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        for (number, line) in text.lines().enumerate() {
            if !line.trim().is_empty() {
                lines.push((
                    format!("{}:{}", path.display(), number + 1),
                    line.to_owned(),
                ));
            }
        }
    }
    assert!(lines.len() > 1000, "{} lines", lines.len());
    lines
}

/// Checks one line; true when the direct reader answered.
fn agrees(place: &str, line: &str) -> bool {
    let serde: Option<Record> = serde_json::from_str(line).ok();
    match read_record(line) {
        Ok(direct) => {
            let serde = serde.unwrap_or_else(|| {
                panic!("{place}: the direct reader read a line serde refuses: {line}")
            });
            assert_eq!(
                format!("{direct:?}"),
                format!("{serde:?}"),
                "{place}: {line}"
            );
            true
        }
        Err(_) => false,
    }
}

/// Every place in a record a reader reads, as JSON pointers (an array's first element standing
/// for all of them), from the table.
fn places(shape: &Shape, at: &str, places: &mut Vec<String>) {
    match shape {
        Shape::Text | Shape::Flag | Shape::Count => {}
        Shape::Object(fields) => {
            for (key, shape) in fields {
                let place = format!("{at}/{key}");
                places.push(place.clone());
                self::places(shape, &place, places);
            }
        }
        Shape::Array(element) | Shape::TextOrArray(element) => {
            self::places(element, &format!("{at}/0"), places);
        }
    }
}

/// Values of every JSON type, and numbers a count may or may not be.
const ODD_VALUES: [&str; 14] = [
    "null",
    "true",
    "7",
    "0",
    "-1",
    "5.0",
    "1e3",
    "18446744073709551616",
    r#""text""#,
    r#""a\nb\u00e9\ud83d\ude00""#,
    "{}",
    r#"{"type":"text","text":"x"}"#,
    "[]",
    r#"[{"type":"text","text":"x"},"stray",{"text":5}]"#,
];

/// The line with the value at `pointer` replaced by `value`, when the line has that place.
fn with_value(line: &Value, pointer: &str, value: &str) -> Option<String> {
    let mut changed = line.clone();
    *changed.pointer_mut(pointer)? = serde_json::from_str(value).unwrap();
    Some(changed.to_string())
}

/// The line changed in its text: cut, keys doubled or escaped, surrogates, odd numbers, deep
/// nesting, a raw control character, other whitespace.
fn text_changes(line: &str) -> Vec<String> {
    let mut changed = Vec::new();
    for part in 1..6 {
        let mut cut = line.len() * part / 6;
        while !line.is_char_boundary(cut) {
            cut -= 1;
        }
        changed.push(line[..cut].to_owned());
    }
    for key in [
        "\"type\":",
        "\"uuid\":",
        "\"message\":",
        "\"usage\":",
        "\"input_tokens\":",
    ] {
        if let Some(at) = line.find(key) {
            // The same key twice in one object, and an escaped spelling of it.
            let value_end = line[at..].find(',').map_or(line.len(), |end| at + end);
            changed.push(format!(
                "{}{},{}",
                &line[..at],
                &line[at..value_end],
                &line[at..]
            ));
            let escaped = key.replacen('e', "\\u0065", 1);
            changed.push(line.replacen(key, &escaped, 1));
        }
    }
    changed.push(line.replacen(r#""timestamp":""#, r#""timestamp":"\ud83d\ude00"#, 1));
    changed.push(line.replacen(r#""timestamp":""#, r#""timestamp":"\ud83d"#, 1));
    changed.push(line.replacen(r#""timestamp":""#, r#""timestamp":"\ude00"#, 1));
    for skipped in [r"\ud83d\ude00", r"\ude00", r"\ud83d", r"\u001b[0m"] {
        changed.push(line.replacen('{', &format!("{{\"skipped\":\"{skipped}\","), 1));
    }
    changed.push(line.replacen(r#""timestamp":""#, r#""timestamp":"\u00e9\/\b\f\r\t"#, 1));
    changed.push(line.replacen(r#""timestamp":""#, "\"timestamp\":\"\t", 1));
    changed.push(line.replacen(r#""timestamp":""#, r#""timestamp":"\x"#, 1));
    changed.push(line.replacen(r#""input_tokens":"#, r#""input_tokens":0"#, 1));
    changed.push(line.replacen(r#""input_tokens":"#, r#""input_tokens":-"#, 1));
    changed.push(line.replacen(r#""output_tokens":"#, r#""output_tokens": 1e400, "x":"#, 1));
    let deep = format!("{}1{}", "[".repeat(130), "]".repeat(130));
    changed.push(line.replacen('{', &format!("{{\"deep\":{deep},"), 1));
    let nested = format!("{}1{}", "[".repeat(90), "]".repeat(90));
    changed.push(line.replacen('{', &format!("{{\"nested\":{nested},"), 1));
    changed.push(line.replacen(',', " ,\n\t", 3).replacen(':', " : ", 3));
    changed.push(format!(" {line} \r"));
    changed.push(format!("{line},"));
    changed.push(format!("{line}{{}}"));
    if let Ok(value) = serde_json::from_str::<Value>(line) {
        changed.push(serde_json::to_string_pretty(&value).unwrap());
    }
    changed
}

#[test]
fn every_line_reads_as_serde_reads_it() {
    let scratch = Scratch::new("direct-reader");
    let lines = every_line(scratch.path());
    let mut answered: usize = 0;
    for (place, line) in &lines {
        if agrees(place, line) {
            answered += 1;
        }
    }
    // The direct reader exists to answer for nearly every real line.
    assert!(
        answered * 50 > lines.len() * 49,
        "answered {answered} of {} lines",
        lines.len()
    );

    let mut pointers = Vec::new();
    places(&Record::shape(), "", &mut pointers);
    let mut changed_lines = 0;
    let mut changed_answered = 0;
    // Every 7th line, so that the test stays quick; every kind of line is among them.
    for (place, line) in lines.iter().step_by(7) {
        let mut variants = text_changes(line);
        if let Ok(value) = serde_json::from_str::<Value>(line) {
            for pointer in &pointers {
                for odd in ODD_VALUES {
                    variants.extend(with_value(&value, pointer, odd));
                }
            }
        }
        for variant in variants {
            changed_lines += 1;
            if agrees(place, &variant) {
                changed_answered += 1;
            }
        }
    }
    println!(
        "direct reader: answered {answered} of {} real lines; {changed_answered} of \
         {changed_lines} changed lines, the rest left to serde",
        lines.len()
    );
    assert!(changed_answered > 0 && changed_answered < changed_lines);
}

/// The places of the table that no line of the fixtures and captures holds, each ending in its
/// key as Claude Code spells it: a key misspelt in the table is a place of neither list. (The
/// microcompaction's metadata is read as the compaction's, whose keys the lines do hold.)
const PLACES_NO_LINE_HOLDS: [&str; 15] = [
    "/compactMetadata/tokensSaved",
    "/microcompactMetadata/postTokens",
    "/microcompactMetadata/durationMs",
    "/microcompactMetadata/cumulativeDroppedTokens",
    "/microcompactMetadata/preservedSegment",
    "/microcompactMetadata/preservedSegment/headUuid",
    "/microcompactMetadata/preservedSegment/anchorUuid",
    "/microcompactMetadata/preservedSegment/tailUuid",
    "/microcompactMetadata/preservedMessages",
    "/microcompactMetadata/preservedMessages/anchorUuid",
    "/microcompactMetadata/preservedMessages/uuids",
    "/message/content/0/input/notebook_path",
    "/relocatedCwd",
    "/sessionKind",
    "/interruptedMessageId",
];

/// Every place `value` holds, as JSON pointers (each array's elements at `/0`).
fn places_held(value: &Value, at: &str, held: &mut BTreeSet<String>) {
    match value {
        Value::Object(fields) => {
            for (key, value) in fields {
                let place = format!("{at}/{key}");
                places_held(value, &place, held);
                held.insert(place);
            }
        }
        Value::Array(elements) => {
            for element in elements {
                places_held(element, &format!("{at}/0"), held);
            }
        }
        _ => {}
    }
}

#[test]
fn every_key_of_the_table_is_one_claude_code_writes_at_its_place() {
    let scratch = Scratch::new("direct-reader-keys");
    let mut held = BTreeSet::new();
    for (_, line) in every_line(scratch.path()) {
        if let Ok(value) = serde_json::from_str::<Value>(&line) {
            places_held(&value, "", &mut held);
        }
    }
    let mut table = Vec::new();
    places(&Record::shape(), "", &mut table);
    let unheld: Vec<&str> = table
        .iter()
        .map(String::as_str)
        .filter(|place| !held.contains(*place))
        .collect();
    assert_eq!(unheld, PLACES_NO_LINE_HOLDS);
}

/// Every key the table reads, at every level, and one it does not.
fn record_keys() -> Vec<&'static str> {
    let mut keys = Record::shape().keys();
    keys.push("other");
    keys
}

/// The values a line's kinds are told by (of records, blocks and iterations).
const KINDS: [&str; 14] = [
    "user",
    "assistant",
    "system",
    "compact_boundary",
    "text",
    "tool_use",
    "tool_result",
    "server_tool_use",
    "advisor_tool_result",
    "thinking",
    "message",
    "advisor_message",
    "fallback_message",
    "advisor",
];

/// A string: mostly a kind, else any short text with escapes.
fn text() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => prop::sample::select(&KINDS[..]).prop_map(|word| Value::String(word.to_owned())),
        1 => "(.|\n|\"|\\\\){0,12}".prop_map(Value::String),
    ]
}

/// Any JSON value a few levels deep, its keys mostly ones the record reads.
fn record_like() -> BoxedStrategy<Value> {
    let keys = record_keys();
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|number| serde_json::json!(number)),
        any::<u64>().prop_map(|number| serde_json::json!(number)),
        any::<f64>()
            .prop_filter("JSON has no NaN or infinity", |number| number.is_finite())
            .prop_map(|number| serde_json::json!(number)),
        "(.|\n|\"|\\\\){0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(keys.clone()), inner), 0..6).prop_map(
                |entries| {
                    Value::Object(
                        entries
                            .into_iter()
                            .map(|(key, value)| (key.to_owned(), value))
                            .collect(),
                    )
                }
            ),
        ]
    })
    .boxed()
}

/// A value of `shape`: an object holds each of its keys or not, in any order, each value of
/// its key's shape (a `type` one of the kinds) or, now and then, any other value.
fn of_shape(shape: &Shape) -> BoxedStrategy<Value> {
    let elements = |element: &Shape| prop::collection::vec(of_shape(element), 0..4);
    match shape {
        Shape::Text => text().boxed(),
        Shape::Flag => any::<bool>().prop_map(Value::Bool).boxed(),
        Shape::Count => prop_oneof![0..1000_u64, any::<u64>()]
            .prop_map(|count| serde_json::json!(count))
            .boxed(),
        Shape::Object(fields) => {
            let entries: Vec<_> = fields
                .iter()
                .map(|(key, shape)| {
                    let key: &'static str = key;
                    let value = if key == "type" {
                        prop::sample::select(&KINDS[..])
                            .prop_map(|kind| Value::String(kind.to_owned()))
                            .boxed()
                    } else {
                        of_shape(shape)
                    };
                    let value = prop_oneof![30 => value, 1 => record_like()];
                    prop::option::weighted(0.7, value)
                        .prop_map(move |value| value.map(|value| (key.to_owned(), value)))
                })
                .collect();
            entries
                .prop_shuffle()
                .prop_map(|entries| Value::Object(entries.into_iter().flatten().collect()))
                .boxed()
        }
        Shape::Array(element) => elements(element).prop_map(Value::Array).boxed(),
        Shape::TextOrArray(element) => {
            prop_oneof![text(), elements(element).prop_map(Value::Array)].boxed()
        }
    }
}

/// A line built from the table: a record with every key the table reads at its place, or not,
/// each value of its type or, now and then, of another.
pub fn record_line() -> BoxedStrategy<Value> {
    of_shape(&Record::shape())
}

#[test]
fn any_object_or_any_damage_reads_as_serde_reads_it_or_is_left_to_serde() {
    use proptest::test_runner::{Config, TestRunner};
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(2000);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let answered = std::cell::Cell::new(0_u32);
    let any_object =
        prop::collection::vec((prop::sample::select(record_keys()), record_like()), 0..8).prop_map(
            |entries| {
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(key, value)| (key.to_owned(), value))
                        .collect(),
                )
            },
        );
    let object = prop_oneof![record_line(), any_object];
    runner
        .run(
            &(object, any::<usize>(), any::<u8>()),
            |(value, at, byte)| {
                let line = value.to_string();
                if agrees("generated", &line) {
                    answered.set(answered.get() + 1);
                }
                // One byte replaced, and the line cut there: damage serde refuses or reads.
                let mut bytes = line.clone().into_bytes();
                let at = at % bytes.len();
                bytes[at] = byte;
                if let Ok(damaged) = String::from_utf8(bytes) {
                    agrees("generated, one byte replaced", &damaged);
                }
                let mut cut = at;
                while !line.is_char_boundary(cut) {
                    cut -= 1;
                }
                agrees("generated, cut", &line[..cut]);
                Ok(())
            },
        )
        .unwrap();
    // The generated objects hold every kind of value under every key of the table: the direct
    // reader answers for some (plain ones) and leaves the rest to serde.
    println!(
        "direct reader: answered {} of {cases} generated objects",
        answered.get()
    );
    assert!(answered.get() > 0 && answered.get() < cases);
}

/// `message_parts`, which search's snippets read a line they know to be a message with (the
/// index read it as one, and its hash says it is the same line), gives the parts `read_entry`
/// gives on every line of every real transcript it reads as a message, in a main transcript and
/// in a sub-agent's; and those lines are most of the messages, or this would pass on nothing.
#[test]
fn message_parts_reads_every_message_as_read_entry_does() {
    use ctxhooks_shared::transcript::conversation::{Entry, message_parts, read_entry};
    let scratch = Scratch::new("message-parts");
    let mut compared = 0;
    for (place, line) in every_line(scratch.path()) {
        for subagent in [false, true] {
            if let Some(Entry::Message { parts, .. }) = read_entry(line.as_bytes(), subagent) {
                assert_eq!(message_parts(line.as_bytes()), Some(parts), "{place}");
                compared += 1;
            }
        }
    }
    assert!(compared > 500, "only {compared} messages compared");
}
