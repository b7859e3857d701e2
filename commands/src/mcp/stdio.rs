//! The MCP server's stdio: what stands between stdin and stdout and `rmcp`'s transport. `rmcp`
//! drops a line that is not JSON without a word (it answers well-formed JSON of another shape
//! itself, and a client that sent a request on a line it cannot read would wait for its answer
//! forever); JSON-RPC 2.0 answers it with a Parse error (`-32700`) and `"id": null`, which is
//! what this does, and the server goes on with the next line. Every line is read within `rmcp`'s
//! own bound; a longer one is answered the same way and skipped.
//!
//! Two tasks: one reads stdin line by line and hands each JSON line on to `rmcp` (through a pipe
//! in memory), answering the others; one writes what `rmcp` writes to stdout, with those answers
//! between its lines, never inside one.

use std::io;

use rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
use serde_json::json;
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt as _, AsyncRead, AsyncReadExt as _, AsyncWrite,
    AsyncWriteExt as _, BufReader, DuplexStream,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// How many bytes of `rmcp`'s input or output the pipes between it and stdio hold before their
/// writer waits. Each pipe is a `DuplexStream` used one way: dropping one end is the other's end
/// of input (the halves of a `simplex` are not: the stream ends when both are dropped).
const PIPE_BYTES: usize = 64 * 1024;

/// The transport `rmcp` serves over, and the two tasks.
pub struct Stdio {
    /// What `rmcp` reads: stdin's JSON lines.
    pub input: DuplexStream,
    /// What `rmcp` writes, on its way to stdout.
    pub output: DuplexStream,
    /// The task that reads stdin; it ends at its end (or on an error reading it), which ends
    /// `rmcp`'s input.
    pub reader: JoinHandle<io::Result<()>>,
    /// The task that writes stdout; it ends when `rmcp` closes `output`, and is awaited then, so
    /// that every answer reaches stdout before the process exits.
    pub writer: JoinHandle<io::Result<()>>,
}

/// Starts the tasks between the process's stdin and stdout and `rmcp` (within a Tokio
/// runtime).
pub fn start() -> Stdio {
    start_over(tokio::io::stdin(), tokio::io::stdout())
}

/// [`start`] over `input` and `output`.
fn start_over(
    input: impl AsyncRead + Send + Unpin + 'static,
    output: impl AsyncWrite + Send + Unpin + 'static,
) -> Stdio {
    let (to_rmcp_read, to_rmcp_write) = tokio::io::duplex(PIPE_BYTES);
    let (from_rmcp_read, from_rmcp_write) = tokio::io::duplex(PIPE_BYTES);
    let (answers, answered) = mpsc::unbounded_channel();
    let reader = tokio::spawn(screen(BufReader::new(input), to_rmcp_write, answers));
    let writer = tokio::spawn(write_out(from_rmcp_read, answered, output));
    Stdio {
        input: to_rmcp_read,
        output: from_rmcp_write,
        reader,
        writer,
    }
}

/// Why a line was answered rather than handed on.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Unread {
    /// It is not JSON; why, as `serde_json` says it.
    NotJson(String),
    /// It is longer than [`DEFAULT_MAX_LINE_LENGTH`] bytes.
    TooLong,
    /// It is JSON but no JSON-RPC message an MCP client sends (a batch array, `params` that are
    /// not an object, an `id` that is neither a number nor a string); `id` is the request's own
    /// when it has one a client can match, else `null`. `rmcp` answers such a line without any
    /// `id` (JSON-RPC 2.0 wants one, `null` when it cannot be read), and so drops the id a client
    /// waits on.
    Invalid {
        /// The `id` to answer with.
        id: serde_json::Value,
        /// Why, as `serde_json` says it.
        reason: String,
    },
}

impl Unread {
    /// JSON-RPC 2.0's answer, as one line.
    fn answer(&self) -> Vec<u8> {
        let parse_error = |data| (serde_json::Value::Null, -32700, "Parse error", data);
        let (id, code, message, data) = match self {
            Self::NotJson(reason) => parse_error(format!("the line is not JSON: {reason}")),
            Self::TooLong => parse_error(format!(
                "the line is longer than {DEFAULT_MAX_LINE_LENGTH} bytes; it was not read"
            )),
            Self::Invalid { id, reason } => (
                id.clone(),
                -32600,
                "Invalid Request",
                format!("the line is no JSON-RPC message of an MCP client: {reason}"),
            ),
        };
        let error = json!({"code": code, "message": message, "data": data});
        let mut line = json!({"jsonrpc": "2.0", "id": id, "error": error})
            .to_string()
            .into_bytes();
        line.push(b'\n');
        line
    }
}

/// Reads `input` line by line: a JSON line goes on to `rmcp`, one that is not JSON (or is too
/// long to read) is answered, a blank one is skipped. Ends at the end of `input`, or when `rmcp`
/// reads no more.
async fn screen(
    mut input: impl AsyncBufRead + Unpin,
    mut to_rmcp: impl AsyncWrite + Unpin,
    answers: mpsc::UnboundedSender<Unread>,
) -> io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        let unread = match read_line_within(&mut input, &mut line, DEFAULT_MAX_LINE_LENGTH).await? {
            Line::End => return Ok(()),
            Line::TooLong => Some(Unread::TooLong),
            Line::Whole => judge(&line),
        };
        match unread {
            Some(unread) => {
                if answers.send(unread).is_err() {
                    return Ok(());
                }
            }
            None if is_blank(&line) => {}
            None => {
                // The last line may lack its newline: `rmcp` reads whole lines only.
                if line.last() != Some(&b'\n') {
                    line.push(b'\n');
                }
                to_rmcp.write_all(&line).await?;
            }
        }
    }
}

/// What [`read_line_within`] read.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A line, with its newline unless it ends the input.
    Whole,
    /// A line longer than the bound, read past and dropped.
    TooLong,
    /// The end of the input.
    End,
}

/// Reads one line of `input` into `line`, never holding more than `limit` bytes of it.
async fn read_line_within(
    input: &mut (impl AsyncBufRead + Unpin),
    line: &mut Vec<u8>,
    limit: usize,
) -> io::Result<Line> {
    let mut too_long = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(if too_long {
                Line::TooLong
            } else if line.is_empty() {
                Line::End
            } else {
                Line::Whole
            });
        }
        let newline = available.iter().position(|byte| *byte == b'\n');
        let take = newline.map_or(available.len(), |at| at + 1);
        if !too_long {
            if line.len().saturating_add(take) > limit {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(&available[..take]);
            }
        }
        input.consume(take);
        if newline.is_some() {
            return Ok(if too_long { Line::TooLong } else { Line::Whole });
        }
    }
}

/// Whether `line` holds nothing but white space (`rmcp` skips it; JSON-RPC has no message there).
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Why `line` is answered rather than handed on, or `None` when it is JSON (or blank). `rmcp`'s
/// reading is followed: a line's `\r` and a leading byte order mark are not part of its JSON.
fn judge(line: &[u8]) -> Option<Unread> {
    let text = line.strip_suffix(b"\n").unwrap_or(line);
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    if is_blank(text) {
        return None;
    }
    // JSON is UTF-8 (RFC 8259, 8.1), also inside a string, where a value ignored is not looked at.
    let Ok(text) = std::str::from_utf8(text) else {
        return Some(Unread::NotJson("it is not UTF-8".to_owned()));
    };
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) => invalid(text, &value),
        Err(error) => match error.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                Some(Unread::NotJson(error.to_string()))
            }
            // Not reached for a value ignored; `rmcp` judges anything else.
            serde_json::error::Category::Data | serde_json::error::Category::Io => None,
        },
    }
}

/// Why JSON `value` (the line `text`) is no message `rmcp` reads, or `None` when it is one, or
/// is a notification (an object with a `method` and no `id`): JSON-RPC answers no notification,
/// and `rmcp` passes over those it does not know.
fn invalid(text: &str, value: &serde_json::Value) -> Option<Unread> {
    let object = value.as_object();
    if object.is_some_and(|object| !object.contains_key("id") && object.contains_key("method")) {
        return None;
    }
    let error = serde_json::from_str::<rmcp::model::ClientJsonRpcMessage>(text).err()?;
    let id = object
        .and_then(|object| object.get("id"))
        .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
        .cloned()
        .unwrap_or(serde_json::Value::Null);
    Some(Unread::Invalid {
        id,
        reason: error.to_string(),
    })
}

/// Writes what `rmcp` writes to `output`, each answer to an unread line between two of its lines,
/// until `rmcp` closes its output; then what is still owed.
async fn write_out(
    mut from_rmcp: impl AsyncRead + Unpin,
    mut answered: mpsc::UnboundedReceiver<Unread>,
    mut output: impl AsyncWrite + Unpin,
) -> io::Result<()> {
    let mut buffer = vec![0; PIPE_BYTES];
    // Whether what was written so far ends a line of `rmcp`'s.
    let mut between_lines = true;
    // Answers waiting for the end of the line `rmcp` is writing.
    let mut held = Vec::new();
    let mut answers_open = true;
    loop {
        tokio::select! {
            biased;
            unread = answered.recv(), if answers_open => match unread {
                Some(unread) if between_lines => {
                    output.write_all(&unread.answer()).await?;
                    output.flush().await?;
                }
                Some(unread) => held.push(unread),
                None => answers_open = false,
            },
            read = from_rmcp.read(&mut buffer) => {
                let read = read?;
                if read == 0 {
                    break;
                }
                output.write_all(&buffer[..read]).await?;
                between_lines = buffer[read - 1] == b'\n';
                if between_lines {
                    for unread in held.drain(..) {
                        output.write_all(&unread.answer()).await?;
                    }
                }
                output.flush().await?;
            }
        }
    }
    while let Ok(unread) = answered.try_recv() {
        held.push(unread);
    }
    if !between_lines && !held.is_empty() {
        output.write_all(b"\n").await?;
    }
    for unread in held {
        output.write_all(&unread.answer()).await?;
    }
    output.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_that_is_not_json_is_judged_so_and_json_is_left_to_rmcp() {
        for json in [
            &b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}\n"[..],
            b"\xEF\xBB\xBF{\"jsonrpc\": \"2.0\", \"method\": \"notifications/whatever\"}\r\n",
            b"   \n",
            b"\n",
        ] {
            assert_eq!(judge(json), None, "{}", String::from_utf8_lossy(json));
        }
        for bad in [
            &b"not json\n"[..],
            b"{\"jsonrpc\": \"2.0\", \"id\": 1,\n",
            b"{} {}\n",
            b"\xff\xfe\n",
            b"\"\xff\"\n",
        ] {
            assert!(
                matches!(judge(bad), Some(Unread::NotJson(_))),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn json_that_is_no_message_is_an_invalid_request_answered_with_its_id() {
        for (line, id) in [
            (
                &b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":\"x\"}\n"[..],
                json!(4),
            ),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/list\",\"params\":[1]}",
                json!("a"),
            ),
            (
                b"[{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}]\n",
                json!(null),
            ),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}\n",
                json!(null),
            ),
            (b"{\"x\": 1}\r\n", json!(null)),
            (b"5\n", json!(null)),
        ] {
            let Some(unread @ Unread::Invalid { .. }) = judge(line) else {
                panic!("{}: {:?}", String::from_utf8_lossy(line), judge(line));
            };
            let answer: serde_json::Value = serde_json::from_slice(&unread.answer()).unwrap();
            assert_eq!(answer["error"]["code"], -32600);
            assert_eq!(answer.as_object().unwrap()["id"], id);
        }
    }

    #[test]
    fn the_answer_is_a_parse_error_with_a_null_id() {
        let answer: serde_json::Value =
            serde_json::from_slice(&Unread::NotJson("expected value".to_owned()).answer()).unwrap();
        assert_eq!(answer["jsonrpc"], "2.0");
        assert_eq!(answer["error"]["code"], -32700);
        assert!(answer.as_object().unwrap()["id"].is_null());
        assert!(Unread::TooLong.answer().ends_with(b"}\n"));
    }

    /// The lines `bytes` holds, each parsed.
    fn lines_of(bytes: &[u8]) -> Vec<serde_json::Value> {
        bytes
            .split(|byte| *byte == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| serde_json::from_slice(line).unwrap())
            .collect()
    }

    /// How long a test here may take before it counts as hung (a bound, no timing assertion).
    const HUNG: std::time::Duration = std::time::Duration::from_secs(60);

    #[tokio::test(flavor = "current_thread")]
    async fn json_goes_on_and_each_unread_line_is_answered_between_rmcps_lines() {
        tokio::time::timeout(HUNG, answered_between_lines())
            .await
            .expect("the pipes waited on each other");
    }

    async fn answered_between_lines() {
        let (mut client, stdin) = tokio::io::duplex(PIPE_BYTES);
        let (stdout, mut shown) = tokio::io::duplex(PIPE_BYTES);
        let Stdio {
            input: mut rmcp_input,
            output: mut rmcp_output,
            reader,
            writer,
        } = start_over(stdin, stdout);
        // `rmcp` is halfway through a line when an unread line comes.
        rmcp_output.write_all(b"{\"answer\":").await.unwrap();
        let mut bytes = vec![0; 10];
        shown.read_exact(&mut bytes).await.unwrap();
        assert_eq!(bytes, b"{\"answer\":");
        let ping = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
        client.write_all(b"not json\n\n").await.unwrap();
        client.write_all(ping).await.unwrap();
        let mut handed_on = vec![0; ping.len()];
        rmcp_input.read_exact(&mut handed_on).await.unwrap();
        assert_eq!(handed_on, ping);
        rmcp_output.write_all(b"1}\n").await.unwrap();
        // The client's last line, without its newline, then the end of its input.
        client.write_all(b"{oops").await.unwrap();
        drop(client);
        let mut rest = Vec::new();
        rmcp_input.read_to_end(&mut rest).await.unwrap();
        assert!(rest.is_empty());
        reader.await.unwrap().unwrap();
        drop(rmcp_output);
        writer.await.unwrap().unwrap();
        shown.read_to_end(&mut bytes).await.unwrap();
        let lines = lines_of(&bytes);
        assert_eq!(lines.len(), 3, "{}", String::from_utf8_lossy(&bytes));
        assert_eq!(lines[0], json!({"answer": 1}));
        for answer in &lines[1..] {
            assert_eq!(answer["error"]["code"], -32700, "{answer}");
            assert!(answer["id"].is_null(), "{answer}");
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn lines_are_read_within_the_bound_and_a_longer_one_is_skipped() {
        // Three bytes at a time: a line spans reads.
        let mut input = BufReader::with_capacity(3, &b"short\nthis one is long\nlast"[..]);
        let mut line = Vec::new();
        let mut lines = Vec::new();
        loop {
            line.clear();
            match read_line_within(&mut input, &mut line, 8).await.unwrap() {
                Line::End => break,
                read => lines.push((read, String::from_utf8(line.clone()).unwrap())),
            }
        }
        assert_eq!(
            lines,
            [
                (Line::Whole, "short\n".to_owned()),
                (Line::TooLong, String::new()),
                (Line::Whole, "last".to_owned()),
            ]
        );
    }
}
