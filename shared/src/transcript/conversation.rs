//! A transcript read as a conversation, for people and for the model to read back: each line
//! of the main chain becomes what was said (a person's prompt, the model's text, tool calls with
//! their whole input, tool results, a compaction's summary), and `compact_boundary` records
//! mark where each compaction cut the context. What a line means (a boundary, a summary, a
//! sidechain or meta record) is [`Record`]'s to say; the blocks' full content is read here.

use serde_json::Value;

use super::record::{BoundaryKind, Record};

/// Who said it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Speaker {
    /// A person (or the runtime speaking as one).
    User,
    /// The model.
    Assistant,
    /// Tool results returned to the model.
    Tool,
    /// The summary a compaction left in place of the conversation before it.
    Summary,
}

impl Speaker {
    /// The speaker as the text rendering names it.
    pub fn label(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::Tool => "tool result",
            Self::Summary => "compaction summary",
        }
    }
}

/// One part of a message.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// A tool call.
    ToolCall {
        /// The tool, such as `Bash`.
        name: String,
        /// Its whole input, as compact JSON.
        input: String,
        /// The block's `id`, which its result (and an interrupt's verdict) names; not written
        /// with the rest (`recall --json` says what was said).
        #[serde(skip)]
        id: Option<String>,
    },
    /// The model's thinking (read only when asked: [`read_entry_with_thinking`]).
    Thinking {
        /// Its text.
        text: String,
    },
    /// A tool's result.
    ToolResult {
        /// Its text (the parts' texts joined).
        text: String,
        /// Whether the tool reported an error.
        is_error: bool,
    },
}

impl Part {
    /// The part's text (a call's name and input).
    pub fn searchable(&self) -> String {
        match self {
            Self::Text { text } | Self::Thinking { text } | Self::ToolResult { text, .. } => {
                text.clone()
            }
            Self::ToolCall { name, input, .. } => format!("{name} {input}"),
        }
    }
}

/// One line of the transcript, read as a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// Something said.
    Message {
        /// Who said it.
        speaker: Speaker,
        /// When (the record's `timestamp`).
        time: Option<String>,
        /// The model's `message.id` (one response is written as one record per block).
        message_id: Option<String>,
        /// What was said.
        parts: Vec<Part>,
    },
    /// A compaction's boundary.
    Compaction,
}

/// Reads one transcript line. `None` for what is not part of the conversation: meta records,
/// system records other than a compaction boundary, thinking, lines that are not JSON, and
/// sub-agent (sidechain) records unless the line is one of a sub-agent's own transcript
/// (`subagent`), whose every record is a sidechain record.
pub fn read_entry(line: &[u8], subagent: bool) -> Option<Entry> {
    read_entry_with_thinking(line, subagent, false)
}

/// [`read_entry`], with the model's thinking blocks read too when `thinking` is true (a
/// response's thinking and its words are records of one `message.id`: the reader joining them
/// keeps them in one message).
pub fn read_entry_with_thinking(line: &[u8], subagent: bool, thinking: bool) -> Option<Entry> {
    let record = Record::parse(line)?;
    if record.is_sidechain() && !subagent {
        return None;
    }
    match record.kind() {
        Some("system") => match record.boundary() {
            Some((BoundaryKind::Compaction, _)) => Some(Entry::Compaction),
            _ => None,
        },
        Some(kind @ ("user" | "assistant")) => {
            if record.is_meta.is_true() {
                return None;
            }
            let (message_id, parts) = message_and_parts(line, thinking)?;
            let speaker = match kind {
                _ if record.is_compact_summary.is_true() => Speaker::Summary,
                "assistant" => Speaker::Assistant,
                _ if parts
                    .iter()
                    .all(|part| matches!(part, Part::ToolResult { .. })) =>
                {
                    Speaker::Tool
                }
                _ => Speaker::User,
            };
            Some(Entry::Message {
                speaker,
                time: record.timestamp.text().map(ToOwned::to_owned),
                message_id,
                parts,
            })
        }
        _ => None,
    }
}

/// The parts of a line [`read_entry`] reads as a message, as it reads them (thinking left out),
/// from its `message` alone: for a line known to be one (the same bytes read before, as search's
/// snippets know by the line's hash), without reading its record's other fields again. `None`
/// when it has none.
pub fn message_parts(line: &[u8]) -> Option<Vec<Part>> {
    message_and_parts(line, false).map(|(_, parts)| parts)
}

/// A line's `message.id` and the parts of its content (`None` when it has none; thinking read
/// when `thinking` is true). Read in one pass into the few members they are made of
/// ([`LineParts`]), strings borrowed from the line where they hold no escape, no
/// `serde_json::Value` built (a line is often a tool's output of hundreds of kilobytes). A line
/// that pass does not read exactly as the values do (a member of another type than Claude Code
/// writes, a key written twice, an input the values refuse) is read through the values
/// ([`by_values`]), so the two always agree where both read. Where only the pass reads, a
/// member it skips holds text the values refuse (a lone surrogate's escape or bytes that are not
/// UTF-8, in a member no part is made of): the message is read, where the values dropped it.
fn message_and_parts(line: &[u8], thinking: bool) -> Option<(Option<String>, Vec<Part>)> {
    match serde_json::from_slice::<LineParts>(line).map(|read| read.parts(thinking)) {
        Ok(Ok((id, parts))) => (!parts.is_empty()).then_some((id, parts)),
        Ok(Err(ByValues)) | Err(_) => by_values(line, thinking),
    }
}

/// A line's `message`, with only what [`by_values`] reads of it; every other member skipped.
#[derive(serde::Deserialize)]
struct LineParts<'a> {
    #[serde(borrow)]
    message: Option<MessageParts<'a>>,
}

#[derive(serde::Deserialize)]
struct MessageParts<'a> {
    #[serde(borrow)]
    id: Option<Text<'a>>,
    #[serde(borrow)]
    content: Option<Content<'a>>,
}

/// A message's `content`, or a tool result's: a string or blocks; anything else is refused
/// (read through the values instead).
enum Content<'a> {
    Text(Text<'a>),
    Blocks(Vec<Block<'a>>),
}

/// A block of a `content`, with the members [`part_of`] and [`result_text`] read.
#[derive(serde::Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Text<'a>>,
    #[serde(borrow)]
    text: Option<Text<'a>>,
    #[serde(borrow)]
    thinking: Option<Text<'a>>,
    #[serde(borrow)]
    name: Option<Text<'a>>,
    #[serde(borrow)]
    id: Option<Text<'a>>,
    #[serde(borrow, default)]
    input: Input<'a>,
    #[serde(borrow)]
    content: Option<Content<'a>>,
    is_error: Option<bool>,
}

/// A string, borrowed from the line where it holds no escape.
struct Text<'a>(std::borrow::Cow<'a, str>);

/// A tool call's `input` as written (`null` too), or its absence.
#[derive(Default)]
enum Input<'a> {
    #[default]
    Absent,
    Written(&'a serde_json::value::RawValue),
}

/// What only the values read as they do: a line without `message` or `content` (read as
/// before, whatever it is), a tool call's input the values do not read.
struct ByValues;

impl LineParts<'_> {
    /// The message's id and parts, as [`by_values`] reads them.
    fn parts(self, thinking: bool) -> Result<(Option<String>, Vec<Part>), ByValues> {
        let message = self.message.ok_or(ByValues)?;
        let id = message.id.map(|Text(id)| id.into_owned());
        let parts = match message.content.ok_or(ByValues)? {
            Content::Text(Text(text)) => {
                if text.trim().is_empty() {
                    Vec::new()
                } else {
                    vec![Part::Text {
                        text: text.into_owned(),
                    }]
                }
            }
            Content::Blocks(blocks) => blocks
                .into_iter()
                .map(|block| block.part(thinking))
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .flatten()
                .collect(),
        };
        Ok((id, parts))
    }
}

impl Block<'_> {
    /// The part [`part_of`] reads of this block, if any.
    fn part(self, thinking: bool) -> Result<Option<Part>, ByValues> {
        let said = |text: Option<Text>| {
            text.map(|Text(text)| text)
                .filter(|text| !text.trim().is_empty())
                .map(std::borrow::Cow::into_owned)
        };
        Ok(match self.kind.as_ref().map(|Text(kind)| kind.as_ref()) {
            Some("thinking") if thinking => said(self.thinking).map(|text| Part::Thinking { text }),
            Some("text") => said(self.text).map(|text| Part::Text { text }),
            Some("tool_use" | "server_tool_use") => Some(Part::ToolCall {
                name: self
                    .name
                    .map_or_else(|| "?".to_owned(), |Text(name)| name.into_owned()),
                input: match self.input {
                    Input::Absent => String::new(),
                    Input::Written(input) => serde_json::from_str::<Value>(input.get())
                        .map_err(|_| ByValues)?
                        .to_string(),
                },
                id: self.id.map(|Text(id)| id.into_owned()),
            }),
            Some("tool_result") => Some(Part::ToolResult {
                text: match self.content {
                    Some(Content::Text(Text(text))) => text.into_owned(),
                    Some(Content::Blocks(parts)) => parts
                        .into_iter()
                        .filter_map(|part| {
                            match part.kind.as_ref().map(|Text(kind)| kind.as_ref()) {
                                Some("text") => part.text.map(|Text(text)| text),
                                Some("image") => Some("[image]".into()),
                                _ => None,
                            }
                        })
                        .collect::<Vec<_>>()
                        .join("\n"),
                    None => String::new(),
                },
                is_error: self.is_error == Some(true),
            }),
            Some("image") => Some(Part::Text {
                text: "[image]".to_owned(),
            }),
            _ => None,
        })
    }
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Text<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = Text<'a>;
            fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
                formatter.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Text(text.into()))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Text(text.to_owned().into()))
            }
            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(Text(text.into()))
            }
        }
        deserializer.deserialize_str(Visit(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Content<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = Content<'a>;
            fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
                formatter.write_str("a string or blocks")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Text(text.into())))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Text(text.to_owned().into())))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(block) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(Content::Blocks(blocks))
            }
        }
        deserializer.deserialize_any(Visit(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Input<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <&serde_json::value::RawValue>::deserialize(deserializer).map(Input::Written)
    }
}

/// [`message_and_parts`] read through `serde_json::Value`s: the rules, for every line. Only
/// `message` is read into values: the rest of the line (a tool's result again in
/// `toolUseResult`, often as large) is skipped over.
fn by_values(line: &[u8], thinking: bool) -> Option<(Option<String>, Vec<Part>)> {
    let message = serde_json::from_slice::<MessageOnly>(line).ok()?.message?;
    let parts = parts_of(message.get("content")?, thinking);
    let id = message
        .get("id")
        .and_then(Value::as_str)
        .map(ToOwned::to_owned);
    (!parts.is_empty()).then_some((id, parts))
}

/// A line's `message`; every other member skipped.
#[derive(serde::Deserialize)]
struct MessageOnly {
    message: Option<Value>,
}

/// The parts of a message's `content` (a string, or blocks).
fn parts_of(content: &Value, thinking: bool) -> Vec<Part> {
    match content {
        Value::String(text) if !text.trim().is_empty() => vec![Part::Text { text: text.clone() }],
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| part_of(block, thinking))
            .collect(),
        _ => Vec::new(),
    }
}

fn part_of(block: &Value, thinking: bool) -> Option<Part> {
    let field = |key| block.get(key).and_then(Value::as_str);
    match field("type")? {
        "thinking" if thinking => {
            (field("thinking").filter(|text| !text.trim().is_empty())).map(|text| Part::Thinking {
                text: text.to_owned(),
            })
        }
        "text" => (field("text").filter(|text| !text.trim().is_empty())).map(|text| Part::Text {
            text: text.to_owned(),
        }),
        "tool_use" | "server_tool_use" => Some(Part::ToolCall {
            name: field("name").unwrap_or("?").to_owned(),
            input: block.get("input").map(Value::to_string).unwrap_or_default(),
            id: field("id").map(ToOwned::to_owned),
        }),
        "tool_result" => Some(Part::ToolResult {
            text: result_text(block.get("content")),
            is_error: block.get("is_error").and_then(Value::as_bool) == Some(true),
        }),
        "image" => Some(Part::Text {
            text: "[image]".to_owned(),
        }),
        _ => None,
    }
}

/// A `tool_result`'s text: the string, or the texts of its parts joined by newlines.
fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| match part.get("type").and_then(Value::as_str) {
                Some("text") => part.get("text").and_then(Value::as_str).map(str::to_owned),
                Some("image") => Some("[image]".to_owned()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_prompts_answers_calls_results_and_boundaries() {
        let prompt = br#"{"type":"user","timestamp":"t1","message":{"role":"user","content":"remember the word avocado"}}"#;
        let Some(Entry::Message { speaker, parts, .. }) = read_entry(prompt, false) else {
            panic!("no message");
        };
        assert_eq!(speaker, Speaker::User);
        assert_eq!(
            parts,
            [Part::Text {
                text: "remember the word avocado".into()
            }]
        );
        let call = br#"{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls -la"}}]}}"#;
        let Some(Entry::Message {
            speaker,
            parts,
            message_id,
            ..
        }) = read_entry(call, false)
        else {
            panic!("no message");
        };
        assert_eq!(
            (speaker, message_id.as_deref()),
            (Speaker::Assistant, Some("m1"))
        );
        assert_eq!(
            parts,
            [Part::ToolCall {
                name: "Bash".into(),
                input: r#"{"command":"ls -la"}"#.into(),
                id: Some("t".into()),
            }]
        );
        let result = br#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"a\nb"}],"is_error":true}]}}"#;
        assert!(matches!(
            read_entry(result, false),
            Some(Entry::Message { speaker: Speaker::Tool, ref parts, .. })
                if parts == &[Part::ToolResult { text: "a\nb".into(), is_error: true }]
        ));
        let boundary =
            br#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"manual"}}"#;
        assert_eq!(read_entry(boundary, false), Some(Entry::Compaction));
        let summary = br#"{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}"#;
        assert!(matches!(
            read_entry(summary, false),
            Some(Entry::Message {
                speaker: Speaker::Summary,
                ..
            })
        ));
        let side = br#"{"type":"user","isSidechain":true,"message":{"role":"user","content":"x"}}"#;
        assert_eq!(read_entry(side, false), None);
        assert!(matches!(
            read_entry(side, true),
            Some(Entry::Message {
                speaker: Speaker::User,
                ..
            })
        ));
        assert_eq!(read_entry(b"not json", false), None);
        // Thinking only when asked; an empty one (a redacted block) is none.
        let thought = br#"{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"thinking","thinking":"let me see"},{"type":"thinking","thinking":""}]}}"#;
        assert_eq!(read_entry(thought, false), None);
        assert!(matches!(
            read_entry_with_thinking(thought, false, true),
            Some(Entry::Message { ref parts, .. })
                if parts == &[Part::Thinking { text: "let me see".into() }]
        ));
    }

    /// Every `.jsonl` file under `folder`, at any depth.
    fn transcripts(folder: &std::path::Path, found: &mut Vec<std::path::PathBuf>) {
        for entry in fs_err::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                transcripts(&path, found);
            } else if path
                .extension()
                .is_some_and(|extension| extension == "jsonl")
            {
                found.push(path);
            }
        }
    }

    /// Messages (the value of `message`) that a transcript may hold or that try the reader's
    /// edges: escapes, surrogates, keys written twice, values of other types than expected,
    /// numbers a float's printing may change, nesting at `serde_json`'s limit.
    fn hostile_messages() -> Vec<String> {
        let deep = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let many: Vec<String> = (0..40)
            .map(|key| format!(r#""k{}":{key}"#, key % 25))
            .collect();
        let mut messages: Vec<String> = [
            r#"{"role":"user","content":"tab\tnew\nquote\" back\\ \u00e9 é \ud83d\ude00 😀 \u0000 \/"}"#,
            r#"{"role":"user","content":"a lone \ud800 surrogate"}"#,
            r#"{"role":"user","content":"a lone \udc00 trail"}"#,
            r#"{"role":"user","model":"\ud800","content":"lone surrogate in a member not used"}"#,
            r#"{"role":"user","content":[{"type":"text","text":"x","id":"\ud800"}]}"#,
            r#"{"role":"user","content":[{"type":"thinking","thinking":"\udfff","signature":"s"},{"type":"text","text":"x"}]}"#,
            r#"{"role":"user","content":"   "}"#,
            r#"{"role":"user","content":" \n\t "}"#,
            r#"{"role":"user","content":""}"#,
            r#"{"role":"user","content":[]}"#,
            r#"{"role":"user","content":{}}"#,
            r#"{"role":"user","content":{"type":"text","text":"an object"}}"#,
            r#"{"role":"user","content":5}"#,
            r#"{"role":"user","content":null}"#,
            r#"{"role":"user"}"#,
            r"{}",
            r#""a string""#,
            r#"[1,{"content":"x"}]"#,
            "5",
            "true",
            r#"{"content":"first","content":"second"}"#,
            r#"{"content":"first","content":5}"#,
            r#"{"content":[{"type":"text","text":"a"}],"content":"   "}"#,
            r#"{"cont\u0065nt":"escaped key"}"#,
            r#"{"content":[{"\u0074ype":"text","te\u0078t":"escaped keys"}]}"#,
            r#"{"content":[{"text":"type comes last","type":"text"}]}"#,
            r#"{"content":[{"type":"text","text":"one","text":"two"}]}"#,
            r#"{"content":[{"type":"text","text":"was text","type":"image"}]}"#,
            r#"{"content":[{"type":"text","text":"   "},{"type":"text","text":5},{"type":"text"}]}"#,
            r#"{"content":[{"type":"image","source":{"data":"abc"}},{"type":"text","text":"after"}]}"#,
            r#"{"content":[{"type":"thinking","thinking":"hidden","signature":"s"},{"type":"redacted_thinking","data":"x"}]}"#,
            r#"{"content":[{"type":"thinking","thinking":"hidden"},{"type":"text","text":"shown"}]}"#,
            r#"{"content":[5,"s",null,[],true,{"type":5},{"type":null},{"text":"no type"},{"type":"unknown","text":"x"}]}"#,
            r#"{"content":[{"type":"tool_use","id":"t","name":"Edit","input":{"a":{"b":[1,2.5,{"c":null,"d":true}],"e":false},"f":-3,"g":1e3,"h":1.0000000000000002,"i":"x\ny","j":[],"k":{},"l":"\u00e9\t"}}]}"#,
            r#"{"content":[{"type":"tool_use","id":"t","name":"Bash"}]}"#,
            r#"{"content":[{"type":"tool_use","id":"t","name":"Bash"},{"type":"text","text":"after a call without input"}]}"#,
            r#"{"content":[{"type":"tool_use","id":"t","input":{"command":"ls"}}]}"#,
            r#"{"content":[{"type":"tool_use","name":5,"input":{"command":"ls"}}]}"#,
            r#"{"content":[{"type":"tool_use","name":"X","input":"a string"}]}"#,
            r#"{"content":[{"type":"tool_use","name":"X","input":null}]}"#,
            r#"{"content":[{"type":"tool_use","name":"X","input":12.5}]}"#,
            r#"{"content":[{"type":"tool_use","name":"X","input":[1,"two",[3,{"four":4}],null,false]}]}"#,
            r#"{"content":[{"type":"tool_use","name":"X","input":{"a":1,"b":2,"a":3,"c":{"d":1,"d":{"e":2}}}}]}"#,
            r#"{"content":[{"type":"tool_use","name":"X","input":{"a":1},"input":{"b":2}}]}"#,
            r#"{"content":[{"type":"tool_use","name":"X","input":{"\u006b":"escaped key","k":"again"}}]}"#,
            r#"{"content":[{"type":"server_tool_use","id":"s","name":"web_search","input":{"query":"q"}}]}"#,
            r#"{"content":[{"type":"tool_use","name":"X","input":{"n":[0.1,1e-7,123456789.123456789,5e-324,1.7976931348623157e308,-0.0,2.2250738585072011e-308,9007199254740993,18446744073709551615,-9223372036854775808,1E2,1.5e+2,0.30000000000000004,2.47032822920623272e-324,7.038531e-26,1.448997445238699,8.41e21,9.9e-5,0.000001,1e16,12345678901234567890123]}}]}"#,
            r#"{"content":[{"type":"tool_use","name":"X","input":{"n":1e400}}]}"#,
            r#"{"content":[{"type":"tool_use","name":"X","input":{"n":18446744073709551616}}]}"#,
            r#"{"content":[{"tool_use_id":"t","type":"tool_result","content":"out\nput","is_error":false}]}"#,
            r#"{"content":[{"type":"tool_result","content":"   "}]}"#,
            r#"{"content":[{"type":"tool_result","content":""},{"type":"text","text":"after an empty result"}]}"#,
            r#"{"content":[{"type":"tool_result"},{"type":"tool_result","content":5},{"type":"tool_result","content":{"text":"x"}}]}"#,
            r#"{"content":[{"type":"tool_result","content":[]}]}"#,
            r#"{"content":[{"type":"tool_result","content":[{"type":"text","text":"a"},{"type":"image","source":{}},{"type":"text","text":5},{"type":"other","text":"b"},7,{"text":"c"},{"type":"text","text":"d\ne"},{"text":"f","type":"text"},{"type":"text","text":"g","text":"h"}]}]}"#,
            r#"{"content":[{"type":"tool_result","content":[{"type":"text","text":"only"}]},{"type":"tool_result","content":"second"}]}"#,
            r#"{"content":[{"type":"tool_result","content":[{"type":"text","text":"a"},{"type":"image","source":{}},{"type":"other","text":"b"},{"text":"c"},{"type":"text","text":"d\ne"},{"text":"f","type":"text"},{"type":"text","text":"  "}]}]}"#,
            r#"{"content":[{"type":"tool_result","content":"x","content":[{"type":"text","text":"last"}]}]}"#,
            "{\"content\":\"private \u{E000} use \u{E001} marks \\ue000 \\ue001\"}",
            "{\"content\":[{\"type\":\"text\",\"text\":\"a \u{E000}b\u{E001}\"},{\"type\":\"tool_use\",\"name\":\"\\ue000\",\"input\":{\"\\ue001\":\"\u{E000}\"}}]}",
            "{\"content\":\"raw control\ttab\"}",
            "{\"content\":\"raw newline\nin a string\"}",
            r#"{"content":"a","usage":{"input_tokens":1e400}}"#,
            r#"{"content":"a","usage":{"input_tokens":-5,"x":[1.5,null,true,{"y":"z"}]}}"#,
            r#"{"content":"a" , "role" : "user" }"#,
            r#"{"content":"a",}"#,
            r#"{"content":[{"type":"text","text":"a"},]}"#,
            r#"{"content":[{"type":"text","text":"a"} {"type":"text","text":"b"}]}"#,
            r#"{"content":"bad escape \x"}"#,
            r#"{"content":"short escape \u12"}"#,
        ]
        .iter()
        .map(|message| (*message).to_owned())
        .collect();
        messages.push(format!(
            r#"{{"content":[{{"type":"tool_use","name":"X","input":{{{}}}}}]}}"#,
            many.join(",")
        ));
        for depth in [100, 120, 123, 124, 125, 126, 127, 128, 200] {
            messages.push(format!(
                r#"{{"content":[{{"type":"tool_use","name":"X","input":{}}}]}}"#,
                deep(depth)
            ));
            messages.push(format!(
                r#"{{"content":[{{"type":"tool_result","content":[{{"type":"text","text":"a","x":{}}}]}}]}}"#,
                deep(depth)
            ));
            messages.push(format!(
                r#"{{"content":"deep elsewhere","x":{}}}"#,
                deep(depth)
            ));
        }
        messages
    }

    /// Lines around [`hostile_messages`], and lines that are not what they should be.
    fn hostile_lines() -> Vec<Vec<u8>> {
        let mut lines: Vec<Vec<u8>> = Vec::new();
        for message in hostile_messages() {
            let line =
                format!(r#"{{"type":"user","uuid":"u","message":{message},"timestamp":"t"}}"#);
            // Cut short at every byte (a character's middle too), for the short ones.
            if line.len() < 160 {
                for end in 0..line.len() {
                    lines.push(line.as_bytes()[..end].to_vec());
                }
            }
            lines.push(format!("{line} trailing").into_bytes());
            lines.push(format!(r#"{{"message":{message},"message":{message}}}"#).into_bytes());
            lines.push(format!(r#"{{"message":{message},"other":"\ud800"}}"#).into_bytes());
            lines.push(format!(r#"{{"x":[{{"message":5}}],"message":{message}}}"#).into_bytes());
            lines.push(format!("  {line}\t\r\n").into_bytes());
            lines.push(line.into_bytes());
        }
        lines.extend(
            [
                &b"not json"[..],
                b"",
                b"{}",
                b"[]",
                b"null",
                br#"{"message":null}"#,
                br#"{"message":"text"}"#,
                br#"{"message":[1,2]}"#,
                br#"[{"content":"a line as an array"}]"#,
                br#"[{"role":"user","content":"a line as an array"}]"#,
                b"{\"message\":{\"content\":\"invalid \xff utf-8\"}}",
                b"{\"message\":{\"content\":\"ok\"},\"x\":\"invalid \xff utf-8 elsewhere\"}",
                b"{\"message\":{\"content\":\"ok\",\"x\":\"invalid \xff utf-8 in message\"}}",
                b"{\"message\":{\"content\":\"ok\",\"\xff\":1}}",
            ]
            .iter()
            .map(|line| line.to_vec()),
        );
        lines
    }

    #[test]
    fn a_lines_message_read_in_one_pass_is_the_message_the_values_read() {
        let mut files = Vec::new();
        transcripts(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures"),
            &mut files,
        );
        assert!(files.len() > 10, "{files:?}");
        let mut lines: Vec<(String, Vec<u8>)> = Vec::new();
        for path in &files {
            let bytes = fs_err::read(path).unwrap();
            for (number, line) in bytes.split(|byte| *byte == b'\n').enumerate() {
                lines.push((format!("{}:{}", path.display(), number + 1), line.to_vec()));
            }
        }
        let fixtures = lines.len();
        lines.extend(
            hostile_lines()
                .into_iter()
                .map(|line| (String::from_utf8_lossy(&line).into_owned(), line)),
        );
        let (mut messages, mut in_one_pass) = (0, 0);
        for (index, (place, line)) in lines.iter().enumerate() {
            // Every line the values read, whether or not it has parts, with thinking and
            // without.
            if serde_json::from_slice::<MessageOnly>(line).is_err() {
                continue;
            }
            for thinking in [false, true] {
                let expected = by_values(line, thinking);
                assert_eq!(
                    message_and_parts(line, thinking),
                    expected,
                    "{place} (thinking: {thinking})"
                );
                if index < fixtures && expected.is_some() {
                    messages += 1;
                    in_one_pass += usize::from(matches!(
                        serde_json::from_slice::<LineParts>(line).map(|read| read.parts(thinking)),
                        Ok(Ok(_))
                    ));
                }
            }
        }
        // The one pass reads the transcripts' messages itself; the values only what it cannot.
        assert!(messages > 200, "only {messages} messages");
        assert_eq!(in_one_pass, messages, "of {messages} messages");
    }
}
