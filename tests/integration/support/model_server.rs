//! A scripted Anthropic Messages API server on loopback: it answers `POST /v1/messages` with the
//! SSE stream of the next scripted response, sends a `request-id` header, and logs what it served.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

/// Token counts the server reports in `message_start` (input side) and `message_delta` (output).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub output_tokens: u64,
}

impl Usage {
    /// A usage whose context (input + cache read + cache creation) is `context`, mostly cached.
    pub fn context(context: u64) -> Self {
        let creation = context.min(2_000);
        Self {
            input_tokens: 3.min(context),
            cache_creation_input_tokens: creation.saturating_sub(3.min(context)),
            cache_read_input_tokens: context - creation,
            output_tokens: 50,
        }
    }

    /// input + cache read + cache creation.
    pub fn context_tokens(&self) -> u64 {
        self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }
}

/// One content block of a scripted response.
#[derive(Debug, Clone)]
pub enum Block {
    Text(String),
    ToolUse { name: String, input: Value },
}

/// One scripted response.
#[derive(Debug, Clone)]
pub struct Scripted {
    pub blocks: Vec<Block>,
    pub usage: Usage,
}

impl Scripted {
    /// A text answer.
    pub fn text(text: &str, usage: Usage) -> Self {
        Self {
            blocks: vec![Block::Text(text.to_owned())],
            usage,
        }
    }

    /// A response that runs one Bash command.
    pub fn bash(command: &str, usage: Usage) -> Self {
        Self::bash_many(&[command], usage)
    }

    /// A response with one Bash `tool_use` block per command (parallel calls).
    pub fn bash_many(commands: &[&str], usage: Usage) -> Self {
        let blocks = commands
            .iter()
            .map(|command| Block::ToolUse {
                name: "Bash".to_owned(),
                input: json!({"command": command, "description": "scripted command"}),
            })
            .collect();
        Self { blocks, usage }
    }
}

/// What kind of request the server answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// A conversation turn, answered from the script.
    Scripted,
    /// A compaction's summary request, answered with a canned summary.
    Summary,
    /// A turn that arrived after the script ran out, answered with a short text.
    Fallback,
}

/// One streamed response the server sent.
#[derive(Debug, Clone)]
pub struct Served {
    pub kind: RequestKind,
    pub request_id: String,
    pub message_id: String,
    pub usage: Usage,
    pub model: String,
    /// The request's JSON body.
    pub body: Value,
}

/// Chooses a response from the request body once the script has run out.
pub type Responder = Box<dyn Fn(&Value) -> Option<Scripted> + Send>;

#[derive(Default)]
struct Shared {
    responder: Option<Responder>,
    script: VecDeque<Scripted>,
    served: Vec<Served>,
    summary_usage: Option<Usage>,
    summary_text: Option<String>,
    fallback_usage: Option<Usage>,
    counter: u64,
    other_requests: Vec<String>,
}

/// The running server; stops when dropped.
pub struct ModelServer {
    port: u16,
    shared: Arc<Mutex<Shared>>,
    stop: Arc<AtomicBool>,
}

impl ModelServer {
    /// Starts a server on 127.0.0.1 with an empty script.
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let shared = Arc::new(Mutex::new(Shared::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let (thread_shared, thread_stop) = (shared.clone(), stop.clone());
        thread::spawn(move || {
            while !thread_stop.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let shared = thread_shared.clone();
                        thread::spawn(move || {
                            let _ = serve_connection(stream, &shared);
                        });
                    }
                    Err(_) => thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Self { port, shared, stop }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Appends responses to the script.
    pub fn push(&self, responses: impl IntoIterator<Item = Scripted>) {
        self.shared.lock().unwrap().script.extend(responses);
    }

    /// The usage reported for compaction summary requests (default: a small context).
    pub fn set_summary_usage(&self, usage: Usage) {
        self.shared.lock().unwrap().summary_usage = Some(usage);
    }

    /// The text of the summary compaction requests get (default: [`SUMMARY_TEXT`]).
    pub fn set_summary_text(&self, text: &str) {
        self.shared.lock().unwrap().summary_text = Some(text.to_owned());
    }

    /// The usage reported once the script has run out (default: a small context).
    pub fn set_fallback_usage(&self, usage: Usage) {
        self.shared.lock().unwrap().fallback_usage = Some(usage);
    }

    /// Answers requests the script does not cover with `responder` (before the fallback).
    pub fn set_responder(&self, responder: Responder) {
        self.shared.lock().unwrap().responder = Some(responder);
    }

    /// Every streamed response so far, in order.
    pub fn served(&self) -> Vec<Served> {
        self.shared.lock().unwrap().served.clone()
    }

    /// Scripted responses not yet served.
    pub fn remaining(&self) -> usize {
        self.shared.lock().unwrap().script.len()
    }

    /// Request lines of everything that was not a streamed message request.
    pub fn other_requests(&self) -> Vec<String> {
        self.shared.lock().unwrap().other_requests.clone()
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

struct Request {
    method: String,
    path: String,
    body: Vec<u8>,
}

fn serve_connection(stream: TcpStream, shared: &Arc<Mutex<Shared>>) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(120)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = stream;
    while let Some(request) = read_request(&mut reader)? {
        respond(&mut writer, &request, shared)?;
    }
    Ok(())
}

fn read_request(reader: &mut impl BufRead) -> std::io::Result<Option<Request>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let mut content_length = 0usize;
    let mut chunked = false;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 {
            return Ok(None);
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let name = name.trim().to_ascii_lowercase();
            if name == "content-length" {
                content_length = value.trim().parse().unwrap_or(0);
            } else if name == "transfer-encoding" && value.to_ascii_lowercase().contains("chunked")
            {
                chunked = true;
            }
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size_line = String::new();
            reader.read_line(&mut size_line)?;
            let size = usize::from_str_radix(size_line.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk)?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        body.resize(content_length, 0);
        reader.read_exact(&mut body)?;
    }
    Ok(Some(Request { method, path, body }))
}

fn respond(
    writer: &mut TcpStream,
    request: &Request,
    shared: &Arc<Mutex<Shared>>,
) -> std::io::Result<()> {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let is_messages = request.method == "POST"
        && request.path.starts_with("/v1/messages")
        && !request.path.contains("count_tokens");
    if !is_messages {
        shared
            .lock()
            .unwrap()
            .other_requests
            .push(format!("{} {}", request.method, request.path));
        let answer = if request.path.contains("count_tokens") {
            json!({"input_tokens": 1000})
        } else {
            json!({})
        };
        return write_json(writer, &answer);
    }

    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("claude-sonnet-4-5")
        .to_owned();
    let (kind, scripted, request_id, message_id) = {
        let mut state = shared.lock().unwrap();
        state.counter += 1;
        let number = state.counter;
        let (kind, scripted) = if is_summary_request(&body) {
            let usage = state
                .summary_usage
                .unwrap_or_else(|| Usage::context(20_000));
            let text = state.summary_text.as_deref().unwrap_or(SUMMARY_TEXT);
            (RequestKind::Summary, Scripted::text(text, usage))
        } else if let Some(next) = state.script.pop_front() {
            (RequestKind::Scripted, next)
        } else if let Some(answer) = state.responder.as_ref().and_then(|respond| respond(&body)) {
            (RequestKind::Scripted, answer)
        } else {
            let usage = state
                .fallback_usage
                .unwrap_or_else(|| Usage::context(10_000));
            (RequestKind::Fallback, Scripted::text("Done.", usage))
        };
        let request_id = format!("req_ctxhooks_{number:04}");
        let message_id = format!("msg_ctxhooks_{number:04}");
        state.served.push(Served {
            kind,
            request_id: request_id.clone(),
            message_id: message_id.clone(),
            usage: scripted.usage,
            model: model.clone(),
            body: body.clone(),
        });
        (kind, scripted, request_id, message_id)
    };
    let _ = kind;
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    if stream {
        write_sse(writer, &scripted, &request_id, &message_id, &model)
    } else {
        write_message_json(writer, &scripted, &request_id, &message_id, &model)
    }
}

/// The canned compaction summary.
pub const SUMMARY_TEXT: &str =
    "<summary>The user asked for scripted work; it was done. Keep the file ids.</summary>";

/// Returns true if and only if the request asks for a conversation summary (a compaction).
fn is_summary_request(body: &Value) -> bool {
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return false;
    };
    let Some(last) = messages.last() else {
        return false;
    };
    let text = last
        .get("content")
        .map(Value::to_string)
        .unwrap_or_default();
    text.contains("detailed summary of the conversation")
        || text.contains("summary of the conversation so far")
        || text.contains("Your task is to create a detailed summary")
}

fn usage_json(usage: &Usage, output: u64) -> Value {
    json!({
        "input_tokens": usage.input_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "output_tokens": output,
        "service_tier": "standard"
    })
}

fn tool_use_id(message_id: &str, index: usize) -> String {
    format!("toolu_{}_{index}", message_id.trim_start_matches("msg_"))
}

fn stop_reason(scripted: &Scripted) -> &'static str {
    if scripted
        .blocks
        .iter()
        .any(|block| matches!(block, Block::ToolUse { .. }))
    {
        "tool_use"
    } else {
        "end_turn"
    }
}

fn write_sse(
    writer: &mut TcpStream,
    scripted: &Scripted,
    request_id: &str,
    message_id: &str,
    model: &str,
) -> std::io::Result<()> {
    let mut events = Vec::new();
    events.push(json!({"type": "message_start", "message": {
        "id": message_id, "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": usage_json(&scripted.usage, 1)
    }}));
    for (index, block) in scripted.blocks.iter().enumerate() {
        match block {
            Block::Text(text) => {
                events.push(json!({"type": "content_block_start", "index": index,
                    "content_block": {"type": "text", "text": ""}}));
                events.push(json!({"type": "content_block_delta", "index": index,
                    "delta": {"type": "text_delta", "text": text}}));
            }
            Block::ToolUse { name, input } => {
                events.push(json!({"type": "content_block_start", "index": index,
                    "content_block": {"type": "tool_use", "id": tool_use_id(message_id, index),
                        "name": name, "input": {}}}));
                events.push(json!({"type": "content_block_delta", "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}));
            }
        }
        events.push(json!({"type": "content_block_stop", "index": index}));
    }
    events.push(json!({"type": "message_delta",
        "delta": {"stop_reason": stop_reason(scripted), "stop_sequence": null},
        "usage": {"output_tokens": scripted.usage.output_tokens}}));
    events.push(json!({"type": "message_stop"}));

    let mut body = String::new();
    for event in events {
        let name = event["type"].as_str().unwrap_or_default().to_owned();
        let _ = write!(body, "event: {name}\ndata: {event}\n\n");
    }
    write_response(writer, "text/event-stream", Some(request_id), &body)
}

fn write_message_json(
    writer: &mut TcpStream,
    scripted: &Scripted,
    request_id: &str,
    message_id: &str,
    model: &str,
) -> std::io::Result<()> {
    let content: Vec<Value> = scripted
        .blocks
        .iter()
        .enumerate()
        .map(|(index, block)| match block {
            Block::Text(text) => json!({"type": "text", "text": text}),
            Block::ToolUse { name, input } => json!({"type": "tool_use",
                "id": tool_use_id(message_id, index), "name": name, "input": input}),
        })
        .collect();
    let message = json!({"id": message_id, "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": stop_reason(scripted), "stop_sequence": null,
        "usage": usage_json(&scripted.usage, scripted.usage.output_tokens)});
    write_response(
        writer,
        "application/json",
        Some(request_id),
        &message.to_string(),
    )
}

fn write_json(writer: &mut TcpStream, value: &Value) -> std::io::Result<()> {
    write_response(writer, "application/json", None, &value.to_string())
}

/// Writes one whole HTTP response and closes the connection.
fn write_response(
    writer: &mut TcpStream,
    content_type: &str,
    request_id: Option<&str>,
    body: &str,
) -> std::io::Result<()> {
    let request_id = request_id
        .map(|id| format!("request-id: {id}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncache-control: no-cache\r\n{request_id}content-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    writer.write_all(head.as_bytes())?;
    writer.write_all(body.as_bytes())?;
    writer.flush()?;
    writer.shutdown(std::net::Shutdown::Both)
}

/// The text of a request's last message (every text and tool-result block joined).
pub fn last_message_text(body: &Value) -> String {
    body.get("messages")
        .and_then(Value::as_array)
        .and_then(|messages| messages.last())
        .map(|message| message["content"].to_string())
        .unwrap_or_default()
}

/// Returns true if and only if the request's last message carries a `tool_result` block.
pub fn last_message_has_tool_result(body: &Value) -> bool {
    body.get("messages")
        .and_then(Value::as_array)
        .and_then(|messages| messages.last())
        .and_then(|message| message["content"].as_array())
        .is_some_and(|blocks| blocks.iter().any(|block| block["type"] == "tool_result"))
}

/// The replies `tests/e2e/sdk-interrupt.mjs` expects: `RUN:sleep` runs `sleep 5`, `RUN:parallel`
/// three parallel sleeps, `RUN:touch` a command that needs permission, `RUN:echo` `echo hello`;
/// a request answering a tool call gets plain text.
pub fn sdk_driver_responder() -> Responder {
    Box::new(|body| {
        let usage = Usage::context(20_000);
        if last_message_has_tool_result(body) {
            return Some(Scripted::text("Done.", usage));
        }
        // The newest `RUN:` instruction anywhere in the conversation (the CLI may put its own
        // reminder blocks after the prompt).
        let conversation = body["messages"].to_string();
        let text = conversation
            .rfind("RUN:")
            .map_or("", |start| &conversation[start..]);
        let reply = if text.starts_with("RUN:parallel") {
            Scripted::bash_many(
                &[
                    "sleep 5 && echo 1",
                    "sleep 5 && echo 2",
                    "sleep 5 && echo 3",
                ],
                usage,
            )
        } else if text.starts_with("RUN:sleep") {
            Scripted::bash("sleep 5", usage)
        } else if text.starts_with("RUN:touch") {
            Scripted::bash("touch created-by-model.txt", usage)
        } else if text.starts_with("RUN:echo") {
            Scripted::bash("echo hello", usage)
        } else {
            Scripted::text("Nothing to run.", usage)
        };
        Some(reply)
    })
}
