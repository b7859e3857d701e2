//! One session's page, written as HTML text: its facts, its context curve, then its conversation
//! message by message (handed over one at a time, never all held), with a divider at each
//! compaction. Every text from a transcript goes through [`escape_into`] or the Markdown writer;
//! folds are `<details>`, so the page reads with scripts off.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use crate::compactions::ledger::{CompactionEntry, Judged, Ledger, Summary};
use crate::compactions::text::{at_a_glance, command_text, error_text, file_text, prompt_text};
use crate::facts::drops::MainChain;
use crate::facts::log::SessionLog;
use crate::facts::report::SessionReport;
use crate::facts::summary::SessionSummary;
use crate::output::Emit as _;
use crate::provenance::verdict::CallReport;
use crate::recall::conversation::Message;
use crate::render::cost::{cost_cell, usd_text};
use crate::render::html::{escape, escape_into};
use crate::render::numbers::thousands;
use crate::render::shell::shell_word;
use crate::render::time::readable_time;
use crate::usage::chart::render_svg;
use crate::usage::json::PrintedReport;
use crate::usage::text::tokens_text;
use ctxhooks_shared::compaction::verdict::Verdict as ItemVerdict;
use ctxhooks_shared::transcript::conversation::{Part, Speaker};

use super::agents::Agents;
use super::markdown::push_markdown;

/// The most characters of a tool result, a tool call's input or any other text shown on the
/// page; the rest is named by the `recall` command that prints it.
pub const TEXT_BOUND: usize = 2_000;

/// The most characters of a prompt or an answer shown (they are rarely longer: a prompt with a
/// file pasted in).
pub const SAID_BOUND: usize = 20_000;

/// Messages laid out together: a group is drawn only when it nears the screen
/// (`content-visibility: auto`), so that a long session loads and scrolls without laying out every
/// message (one group per message costs more than it saves: BENCHMARKS.md).
const CHUNK: usize = 32;

/// The bytes of a sub-agent's fold besides its messages (its summary line, the line saying what
/// is cut and where it is), kept out of the quarter of its transcript it may show.
const AGENT_FRAME: usize = 1_024;

/// The bytes a sub-agent may show however short its transcript: a quarter of a short one is
/// hardly its prompt, and a short one is shown whole within this (each of its lines carries far
/// more than the page draws of it).
const AGENT_FLOOR: usize = 8 * 1024;

/// The characters of a call's input shown on its folded line.
const CALL_LINE: usize = 120;

/// Where the messages come from, for the command that prints what the page cut.
pub enum Source<'a> {
    /// A session ctxhooks keeps: `recall --session ID --message N` prints a message whole.
    Session(&'a str),
    /// A transcript file named on the command line.
    Transcript(&'a str),
    /// A compaction's snapshot of a session: `archives restore` writes its transcript back.
    Snapshot { session: &'a str, name: &'a str },
}

/// What the page shows besides the messages, read before them.
pub struct Inputs<'a> {
    pub source: Source<'a>,
    /// The session's facts.
    pub report: &'a SessionReport,
    pub log: &'a SessionLog,
    pub summary: &'a SessionSummary,
    /// Every compaction with what the conversation before it held, or why it could not be read.
    pub ledger: Result<&'a Ledger, String>,
    /// Every tool call that did not complete normally, or why they could not be judged.
    pub interrupts: Result<&'a [CallReport], String>,
    /// The session's sub-agents, each drawn under the call that started it (or at the end).
    pub agents: Agents,
}

/// Counts of what the page shows, for `--json` and the tests.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Shown {
    pub messages: usize,
    pub compactions: usize,
    pub tool_calls: usize,
    pub tool_results: usize,
    pub interrupts: usize,
    /// Texts cut at a bound.
    pub cut: usize,
    /// Sub-agents drawn (under their calls or at the end).
    pub subagents: usize,
    /// Of those, the ones drawn under the call that started them.
    pub subagents_nested: usize,
}

/// A page being written.
pub struct Page<'a> {
    out: String,
    inputs: Inputs<'a>,
    /// The main-chain request number (from 1) of each answer's `message.id`.
    requests: HashMap<String, usize>,
    calls: HashMap<&'a str, &'a CallReport>,
    /// Compaction dividers written so far.
    dividers: usize,
    shown: Shown,
    /// The sub-agent (its place in [`Agents::list`]) being drawn, if any.
    in_agent: Option<usize>,
}

impl<'a> Page<'a> {
    /// Begins the page: everything before the first message.
    pub fn begin(inputs: Inputs<'a>) -> Self {
        let chain = MainChain::of(inputs.log);
        let mut requests = HashMap::new();
        for (index, row) in chain.requests.iter().enumerate() {
            if let Some(id) = &row.message_id {
                requests.entry(id.clone()).or_insert(index + 1);
            }
        }
        let interrupts = inputs.interrupts.iter().copied().flatten();
        let calls = interrupts
            .map(|call| (call.tool_use_id.as_str(), call))
            .collect();
        let mut page = Self {
            out: String::with_capacity(64 * 1024),
            inputs,
            requests,
            calls,
            dividers: 0,
            shown: Shown::default(),
            in_agent: None,
        };
        page.head();
        page.facts();
        page.curve();
        page.out.push_str(FILTER);
        page.out.push_str("<main id=\"conversation\">\n");
        page
    }

    /// Writes one message, after the dividers of the compactions before it.
    pub fn message(&mut self, message: &Message) {
        if self.shown.messages.is_multiple_of(CHUNK) {
            if self.shown.messages > 0 {
                self.out.push_str("</div>\n");
            }
            self.out.push_str("<div class=\"c\">\n");
        }
        while self.dividers < message.compactions_before {
            self.divider();
        }
        self.shown.messages += 1;
        let kind = kind_of(message.speaker);
        let error = message
            .parts
            .iter()
            .any(|part| matches!(part, Part::ToolResult { is_error: true, .. }));
        let number = message.number;
        let _ = write!(
            self.out,
            "<article class=\"m {kind}\" id=\"m-{number}\" data-k=\"{kind}\" data-e=\"{}\">",
            u8::from(error)
        );
        if let Some(request) = message
            .message_id
            .as_deref()
            .and_then(|id| self.requests.get(id))
        {
            let _ = write!(self.out, "<span id=\"r-{request}\"></span>");
        }
        let _ = write!(
            self.out,
            "<div class=\"h\"><a href=\"#m-{number}\">#{number}</a> {}",
            message.speaker.label()
        );
        self.message_rest(message);
    }

    /// Ends the page (the dividers of compactions no message followed) and returns it.
    pub fn finish(mut self, compactions: usize) -> (String, Shown) {
        while self.dividers < compactions {
            self.divider();
        }
        if self.shown.messages > 0 {
            self.out.push_str("</div>\n");
        }
        self.out.push_str("</main>\n");
        if self.shown.messages == 0 {
            self.out
                .push_str("<p class=\"note\">The transcript holds no message.</p>\n");
        }
        self.loose_agents();
        self.out.push_str("<script>");
        self.out.push_str(SCRIPT_BODY);
        self.out.push_str("</script>\n</body>\n</html>\n");
        (self.out, self.shown)
    }

    fn head(&mut self) {
        let summary = self.inputs.summary;
        let title = summary.title.as_deref().unwrap_or(&summary.session_id);
        self.out.push_str(HEAD_START);
        self.out.push_str(&policy());
        self.out.push_str(HEAD_REST);
        self.escaped("", title, " · ctxhooks view</title>\n<style>");
        self.out.push_str(STYLE);
        let open = "</style>\n</head>\n<body>\n<header class=\"top\"><h1>";
        self.escaped(open, title, "</h1></header>\n");
    }

    fn facts(&mut self) {
        let (report, summary) = (self.inputs.report, self.inputs.summary);
        let tally = &report.tally;
        let mut rows: Vec<(&str, String)> = Vec::new();
        let text = |value: Option<&str>| escape(value.unwrap_or("unknown"));
        rows.push(("session", escape(&summary.session_id)));
        rows.push(("project", text(summary.cwd.as_deref())));
        let times = format!(
            "{} → {}",
            readable_time(summary.first_time.as_ref()),
            readable_time(summary.last_time.as_ref())
        );
        rows.push(("times", escape(&times)));
        let chain = MainChain::of(self.inputs.log);
        let versions: BTreeSet<&str> = chain
            .requests
            .iter()
            .filter_map(|row| row.facts.version.as_deref())
            .collect();
        let versions = if versions.is_empty() {
            text(summary.version.as_deref())
        } else {
            escape(&versions.into_iter().collect::<Vec<_>>().join(", "))
        };
        rows.push(("CLI versions", versions));
        let models: Vec<String> = tally
            .cost
            .by_model
            .iter()
            .map(|model| {
                let cost = model.cost.map_or_else(|| "unpriced".to_owned(), usd_text);
                format!(
                    "{} ({} responses, {cost})",
                    model.model.as_deref().unwrap_or("(model unnamed)"),
                    thousands(model.responses as u64)
                )
            })
            .collect();
        rows.push(("models", escape(&models.join("; "))));
        let requests = format!(
            "{} ({} main chain, {} sub-agents)",
            thousands(tally.requests as u64),
            thousands(tally.main_requests as u64),
            thousands(tally.sidechain_requests() as u64)
        );
        rows.push(("requests", requests));
        rows.push(("tokens", tokens_text(&tally.tokens, " · ")));
        let unpriced: Vec<&str> = (tally.cost.unpriced())
            .map(|model| model.unwrap_or("(model unnamed)"))
            .collect();
        let mut cost = cost_cell(&tally.cost);
        if !unpriced.is_empty() {
            let _ = write!(cost, " (unpriced: {})", unpriced.join(", "));
        }
        rows.push(("cost", escape(&cost)));
        rows.push(("compactions", thousands(report.compactions.len() as u64)));
        let trigger = report.estimates.trigger.tokens;
        let peak = match (&report.peak, trigger) {
            (Some(peak), Some(trigger)) => format!(
                "{} at request {} = {:.0} % of T {} (window {})",
                thousands(peak.context_tokens),
                peak.request,
                report.peak_to_trigger().unwrap_or(0.0) * 100.0,
                thousands(trigger),
                thousands(report.estimates.cap.tokens)
            ),
            (Some(peak), None) => format!(
                "{} at request {} (T unknown; window {})",
                thousands(peak.context_tokens),
                peak.request,
                thousands(report.estimates.cap.tokens)
            ),
            (None, _) => "no request".to_owned(),
        };
        rows.push(("peak context", peak));
        self.out
            .push_str("<section id=\"facts\"><h2>Facts</h2>\n<dl class=\"facts\">\n");
        for (name, value) in rows {
            let _ = writeln!(self.out, "<dt>{name}</dt><dd>{value}</dd>");
        }
        let open = "</dl>\n<details class=\"report\"><summary>the whole report (<code>ctxhooks report</code>)</summary><pre>";
        let text = PrintedReport(report).text();
        self.escaped(open, &text, "</pre></details>\n</section>\n");
    }

    fn curve(&mut self) {
        let report = self.inputs.report;
        self.out.push_str(
            "<section id=\"context\"><h2>Context per request</h2>\n<div class=\"curve\">",
        );
        self.out.push_str(&render_svg(report));
        self.out.push_str("</div>\n");
        match self.inputs.ledger.clone() {
            Ok(ledger) if !ledger.compactions.is_empty() => {
                self.out
                    .push_str("<h3>Compactions</h3>\n<ol class=\"marks\">\n");
                for entry in &ledger.compactions {
                    let _ = write!(
                        self.out,
                        "<li><a href=\"#compaction-{0}\">compaction {0}</a>: ",
                        entry.number
                    );
                    self.escaped("", &at_a_glance(entry, "→"), "</li>\n");
                }
                self.out.push_str("</ol>\n");
            }
            Ok(_) => {}
            Err(error) => self.note("The compactions could not be read: ", &error),
        }
        let explained: Vec<_> = report
            .drops
            .iter()
            .filter(|drop| drop.explains_fall)
            .collect();
        if !explained.is_empty() {
            self.out.push_str("<h3>Drops</h3>\n<ol class=\"marks\">\n");
            for drop in explained {
                let _ = writeln!(
                    self.out,
                    "<li><a href=\"#r-{0}\">request {0}</a>: {1} → {2} tokens, {3} ({4})</li>",
                    drop.request_after,
                    thousands(drop.context_before),
                    thousands(drop.context_after),
                    drop.class,
                    <&str>::from(drop.basis),
                );
            }
            self.out.push_str("</ol>\n");
        }
        if let Err(error) = self.inputs.interrupts.clone() {
            self.note("Interrupted tool calls could not be judged: ", &error);
        }
        self.out.push_str("</section>\n");
    }

    fn divider(&mut self) {
        self.dividers += 1;
        self.shown.compactions += 1;
        let number = self.dividers;
        let _ = writeln!(
            self.out,
            "<section class=\"compaction\" id=\"compaction-{number}\"><h2>Compaction {number}</h2>"
        );
        let ledger = self.inputs.ledger.as_ref().ok();
        let Some(entry) = ledger.and_then(|ledger| ledger.compactions.get(number - 1)) else {
            self.out
                .push_str("<p>Its record could not be read.</p></section>\n");
            return;
        };
        self.escaped("<p class=\"what\">", &at_a_glance(entry, "→"), "</p>\n");
        match &entry.summary {
            Summary::Read { text } => {
                let _ = write!(
                    self.out,
                    "<details class=\"sum\"><summary>its summary ({} characters)</summary><div class=\"md\">",
                    thousands(text.chars().count() as u64)
                );
                push_markdown(&mut self.out, text);
                self.out.push_str("</div></details>\n");
            }
            Summary::Missing => self
                .out
                .push_str("<p>No summary record follows the boundary.</p>\n"),
            Summary::Unreadable => self
                .out
                .push_str("<p>The summary's record is damaged.</p>\n"),
        }
        let left_out = left_out_items(entry);
        if !entry.before_in_transcript {
            self.out
                .push_str("<p>The transcript holds nothing of the conversation before it.</p>\n");
        } else if left_out.is_empty() {
            self.out
                .push_str("<p>The summary names everything the conversation before it held.</p>\n");
        } else {
            let _ = write!(
                self.out,
                "<details class=\"left\" open><summary>left out of the summary: {} of {} items</summary><ul>",
                left_out.len(),
                entry.counts.items
            );
            for item in left_out {
                self.escaped("<li>", &item, "</li>");
            }
            self.out.push_str("</ul></details>\n");
        }
        self.out.push_str("</section>\n");
    }

    fn part(&mut self, message: &Message, part: &Part) {
        match part {
            Part::Text { text } => match message.speaker {
                Speaker::Assistant => {
                    self.out.push_str("<div class=\"md\">");
                    let (shown, rest) = cut(text, SAID_BOUND);
                    push_markdown(&mut self.out, shown);
                    self.out.push_str("</div>\n");
                    self.rest_of(message, rest, false);
                }
                Speaker::Summary => {
                    let _ = write!(
                        self.out,
                        "<details class=\"sum\"><summary>compaction summary ({} characters)</summary><div class=\"md\">",
                        thousands(text.chars().count() as u64)
                    );
                    let (shown, rest) = cut(text, SAID_BOUND);
                    push_markdown(&mut self.out, shown);
                    self.out.push_str("</div>");
                    self.rest_of(message, rest, false);
                    self.out.push_str("</details>\n");
                }
                Speaker::User | Speaker::Tool => {
                    self.out.push_str("<div class=\"t\">");
                    self.escaped_cut(message, (text, SAID_BOUND), "</div>\n", false);
                }
            },
            Part::Thinking { text } => {
                let _ = write!(
                    self.out,
                    "<details class=\"think\"><summary>thinking ({} characters)</summary><div class=\"t\">",
                    thousands(text.chars().count() as u64)
                );
                self.escaped_cut(message, (text, TEXT_BOUND), "</div>", true);
                self.out.push_str("</details>\n");
            }
            Part::ToolCall { name, input, id } => {
                self.shown.tool_calls += usize::from(self.in_agent.is_none());
                self.escaped("<details class=\"call\"><summary><b>", name, "</b> <code>");
                let (line, _) = cut(input, CALL_LINE);
                self.escaped("", line, "</code></summary><pre>");
                self.escaped_cut(message, (input, TEXT_BOUND), "</pre>", false);
                self.out.push_str("</details>\n");
                let call = id.as_deref().and_then(|id| self.calls.get(id)).copied();
                if let Some(call) = call {
                    self.interrupt(call);
                }
                if self.in_agent.is_none()
                    && let Some(at) = self.inputs.agents.started_by(id.as_deref(), name, input)
                {
                    self.shown.subagents_nested += 1;
                    self.agent(at);
                }
            }
            Part::ToolResult { text, is_error } => {
                self.shown.tool_results += usize::from(self.in_agent.is_none());
                let error = if *is_error { " err" } else { "" };
                let _ = write!(
                    self.out,
                    "<details class=\"result{error}\"><summary>result · {} characters{}</summary><pre>",
                    thousands(text.chars().count() as u64),
                    if *is_error { " · error" } else { "" }
                );
                self.escaped_cut(message, (text, TEXT_BOUND), "</pre>", false);
                self.out.push_str("</details>\n");
            }
        }
    }

    /// An interrupted call's verdict and state, with their evidence, shown unfolded.
    fn interrupt(&mut self, call: &CallReport) {
        self.shown.interrupts += 1;
        let verdict: &str = call.verdict.into();
        let state: &str = call.state.into();
        let _ = write!(
            self.out,
            "<div class=\"interrupt\" data-verdict=\"{verdict}\">interrupted · verdict <b>{verdict}</b> · tool state <b>{state}</b><ul>"
        );
        let verdicts = call.verdict_evidence.iter().map(ToString::to_string);
        for evidence in verdicts.chain(call.state_evidence.iter().map(ToString::to_string)) {
            self.escaped("<li>", &evidence, "</li>");
        }
        self.out.push_str("</ul></div>\n");
    }

    /// `before`, then `text` escaped, then `after`.
    fn escaped(&mut self, before: &str, text: &str, after: &str) {
        self.out.push_str(before);
        escape_into(&mut self.out, text);
        self.out.push_str(after);
    }

    /// A note that something could not be read: `what`, then `error` escaped.
    fn note(&mut self, what: &str, error: &str) {
        self.escaped(&format!("<p class=\"note\">{what}"), error, "</p>\n");
    }

    /// `text` escaped up to `bound` characters, `close`, then what [`Self::rest_of`] says of
    /// the rest (of the model's `thinking` or not).
    fn escaped_cut(
        &mut self,
        message: &Message,
        (text, bound): (&str, usize),
        close: &str,
        thinking: bool,
    ) {
        let (shown, rest) = cut(text, bound);
        self.escaped("", shown, close);
        self.rest_of(message, rest, thinking);
    }

    /// Says how much of a text (the model's `thinking` or not) was cut, and how to read it
    /// whole.
    fn rest_of(&mut self, message: &Message, rest: usize, thinking: bool) {
        if rest == 0 {
            return;
        }
        self.shown.cut += 1;
        let _ = write!(
            self.out,
            "<p class=\"cut\">… {} more characters not shown: ",
            thousands(rest as u64)
        );
        if let Some(at) = self.in_agent {
            let _ = write!(
                self.out,
                "message #{} of the sub-agent's transcript ",
                message.number
            );
            let shown = self.inputs.agents.list[at].shown.clone();
            self.escaped("<code>", &shown, "</code> holds it whole (<code>ctxhooks recall</code> reads the main conversation only)</p>");
            return;
        }
        match self.inputs.source {
            Source::Session(session) => {
                let command = format!(
                    "ctxhooks recall --session {} --message {}{}",
                    shell_word(session),
                    message.number,
                    if thinking { " --thinking" } else { "" }
                );
                self.escaped("<code>", &command, "</code> prints it whole");
            }
            Source::Snapshot { session, name } => {
                let _ = write!(
                    self.out,
                    "message #{} of the snapshot holds it whole; ",
                    message.number
                );
                let command = format!(
                    "ctxhooks archives restore --session {} --snapshot {} --to DIR",
                    shell_word(session),
                    shell_word(name)
                );
                self.escaped("<code>", &command, "</code> writes it back");
            }
            Source::Transcript(path) => {
                let _ = write!(self.out, "message #{} of ", message.number);
                self.escaped("<code>", path, "</code> holds it whole");
            }
        }
        self.out.push_str("</p>");
    }
}

impl Page<'_> {
    /// Draws the sub-agent `at` folded: its conversation, message by message, up to a quarter of
    /// its transcript's bytes or [`AGENT_FLOOR`] (at least its first message); what is past that
    /// is counted and where it is named.
    fn agent(&mut self, at: usize) {
        let agent = self.inputs.agents.list[at].clone();
        self.shown.subagents += 1;
        let open = "<details class=\"agent\"><summary>sub-agent <code>";
        self.escaped(open, &agent.id, "</code> · its conversation</summary>\n");
        let start = self.out.len();
        // A quarter of its transcript (at least `AGENT_FLOOR`: a short sub-agent whole), less
        // room for the fold and the line saying what is cut.
        let budget = usize::try_from(agent.bytes / 4)
            .unwrap_or(usize::MAX)
            .max(AGENT_FLOOR)
            .saturating_sub(AGENT_FRAME);
        let (mut drawn, mut left) = (0_usize, 0_usize);
        self.in_agent = Some(at);
        let read = agent.each_message(&mut |message| {
            if left == 0 {
                let (before, shown) = (self.out.len(), self.shown);
                self.agent_message(at, &message);
                if drawn == 0 || self.out.len() - start <= budget {
                    drawn += 1;
                    return Ok(());
                }
                // Past the bound: this message and every later one are counted, not drawn.
                self.out.truncate(before);
                self.shown = shown;
            }
            left += 1;
            Ok(())
        });
        self.in_agent = None;
        if left > 0 {
            self.shown.cut += 1;
            let _ = write!(
                self.out,
                "<p class=\"cut\">… {} more messages of this sub-agent not shown (the page shows at most a quarter of a sub-agent's transcript, or 8 KB): its transcript <code>",
                thousands(left as u64)
            );
            let rest = "</code> holds them (<code>ctxhooks recall</code> reads the main conversation only)</p>\n";
            self.escaped("", &agent.shown, rest);
        }
        if let Err(error) = read {
            self.note(
                "The sub-agent's transcript could not be read: ",
                &format!("{error:#}"),
            );
        } else if drawn == 0 {
            self.out
                .push_str("<p class=\"note\">The sub-agent's transcript holds no message.</p>\n");
        }
        self.out.push_str("</details>\n");
    }

    /// The rest of a message after its number and speaker: its time, its parts, its end.
    fn message_rest(&mut self, message: &Message) {
        if let Some(time) = &message.time {
            self.escaped(" · ", time, "");
        }
        self.out.push_str("</div>\n");
        for part in &message.parts {
            self.part(message, part);
        }
        self.out.push_str("</article>\n");
    }

    /// One message of the sub-agent `at`.
    fn agent_message(&mut self, at: usize, message: &Message) {
        let kind = kind_of(message.speaker);
        let number = message.number;
        let _ = write!(
            self.out,
            "<article class=\"s {kind}\" id=\"a{at}-m{number}\"><div class=\"h\">#{number} {}",
            message.speaker.label()
        );
        self.message_rest(message);
    }

    /// The sub-agents no call was found for, in a section of their own, and those that could
    /// not be read.
    fn loose_agents(&mut self) {
        let left = self.inputs.agents.not_drawn();
        let unreadable = std::mem::take(&mut self.inputs.agents.unreadable);
        if left.is_empty() && unreadable.is_empty() {
            return;
        }
        self.out.push_str(
            "<section id=\"subagents\"><h2>Sub-agents</h2>\n<p>Sub-agents of this session not tied to a call in the conversation above.</p>\n",
        );
        for at in left {
            self.agent(at);
        }
        for sentence in unreadable {
            self.note("A sub-agent's transcript could not be read: ", &sentence);
        }
        self.out.push_str("</section>\n");
    }
}

/// A message's kind, as its article's class names it.
fn kind_of(speaker: Speaker) -> &'static str {
    match speaker {
        Speaker::User => "user",
        Speaker::Assistant => "assistant",
        Speaker::Tool => "tool",
        Speaker::Summary => "summary",
    }
}

/// `text` up to `limit` characters, and how many characters are left out.
pub fn cut(text: &str, limit: usize) -> (&str, usize) {
    match text.char_indices().nth(limit) {
        None => (text, 0),
        Some((at, _)) => (&text[..at], text[at..].chars().count()),
    }
}

/// What the conversation before a compaction held that its summary did not name, in the
/// `compactions` command's words.
fn left_out_items(entry: &CompactionEntry) -> Vec<String> {
    let items = &entry.items;
    let mut found = Vec::new();
    left_out(&mut found, "file edited", &items.edited, file_text);
    left_out(&mut found, "file read", &items.read, file_text);
    left_out(&mut found, "command", &items.commands, command_text);
    left_out(&mut found, "error", &items.errors, error_text);
    left_out(&mut found, "prompt", &items.prompts, prompt_text);
    found
}

/// Adds to `found` each of `items` left out, as `kind: item`.
fn left_out<T>(found: &mut Vec<String>, kind: &str, items: &[Judged<T>], show: fn(&T) -> String) {
    let left = items
        .iter()
        .filter(|judged| judged.verdict == ItemVerdict::LeftOut);
    found.extend(left.map(|judged| format!("{kind}: {}", show(&judged.item))));
}

const HEAD_START: &str = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";

/// After the policy: no referrer, the viewport, the title's start.
const HEAD_REST: &str = "<meta name=\"referrer\" content=\"no-referrer\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";

/// The page's Content-Security-Policy: no request leaves it (`default-src 'none'`), its own
/// style, and of scripts only [`SCRIPT_BODY`], allowed by its SHA-256: were a transcript's text
/// ever to reach the page unescaped, its `<script>` or `onload=` would not run.
fn policy() -> String {
    let hash = base64::Engine::encode(
        &base64::engine::general_purpose::STANDARD,
        <sha2::Sha256 as sha2::Digest>::digest(SCRIPT_BODY.as_bytes()),
    );
    format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'sha256-{hash}'; img-src data:\">\n"
    )
}

/// The page's style: plain, readable, each group of [`CHUNK`] messages kept out of layout work
/// until it nears the screen (`content-visibility`), so that a long session scrolls smoothly.
pub const STYLE: &str = "\
body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;margin:0 auto;max-width:1100px;padding:0 16px 64px;color:#111827;background:#fff}\
h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:22px 0 8px}h3{font-size:15px;margin:14px 0 6px}\
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0}dt{color:#6b7280}dd{margin:0}\
.curve svg{max-width:100%;height:auto}ol.marks{margin:0;padding-left:22px}\
pre{white-space:pre-wrap;word-break:break-word;background:#f9fafb;border:1px solid #e5e7eb;padding:6px 8px;margin:4px 0;font-size:13px}\
code{font-size:13px}\
div.c{content-visibility:auto;contain-intrinsic-size:auto 3000px}\
article.m,article.s{border-left:4px solid #d1d5db;padding:4px 10px;margin:10px 0}\
details.agent{border:1px dashed #9ca3af;padding:2px 8px;margin:4px 0}details.agent>summary{color:#0f766e}\
article.user{border-color:#2563eb;background:#eff6ff}article.assistant{border-color:#16a34a}\
article.tool{border-color:#9ca3af}article.summary{border-color:#dc2626}\
.h{color:#6b7280;font-size:12px}.h a{color:inherit}.t{white-space:pre-wrap;word-break:break-word}\
details>summary{cursor:pointer;color:#374151}details.call>summary code{color:#6b7280}\
details.result.err>summary{color:#b91c1c}details.think>summary{color:#7c3aed}\
.interrupt{border:1px solid #f59e0b;background:#fffbeb;padding:4px 8px;margin:4px 0;font-size:13px}\
.interrupt ul{margin:2px 0;padding-left:20px}\
section.compaction{border:2px solid #dc2626;border-width:2px 0;margin:18px 0;padding:4px 0;background:#fef2f2}\
section.compaction h2{color:#dc2626;margin:4px 0}.cut{color:#6b7280;font-size:12px;margin:2px 0}\
.note{color:#92400e}form.filter{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid #e5e7eb;z-index:1}\
[hidden]{display:none!important}";

/// The filter box: hidden until the script shows it (with scripts off there is nothing to work it).
const FILTER: &str = "<form class=\"filter\" id=\"filter\" hidden>\
<label><input type=\"checkbox\" id=\"f-prompts\"> prompts only</label> \
<label><input type=\"checkbox\" id=\"f-errors\"> errors only</label> \
<input type=\"search\" id=\"f-word\" placeholder=\"a word\" aria-label=\"a word\"> \
<span id=\"f-count\"></span></form>\n";

/// The page's one script, the filter box: what goes between `<script>` and `</script>`, byte for
/// byte as [`policy`] hashes it.
const SCRIPT_BODY: &str = "\n(function(){\
var form=document.getElementById('filter');form.hidden=false;\
form.addEventListener('submit',function(e){e.preventDefault();});\
var prompts=document.getElementById('f-prompts'),errors=document.getElementById('f-errors'),\
word=document.getElementById('f-word'),count=document.getElementById('f-count');\
var all=Array.prototype.slice.call(document.querySelectorAll('article.m'));\
var texts=null;\
function apply(){var w=word.value.trim().toLowerCase();\
if(w&&!texts){texts=all.map(function(m){return m.textContent.toLowerCase();});}\
var n=0;for(var i=0;i<all.length;i++){var m=all[i];\
var show=(!prompts.checked||m.dataset.k==='user')&&(!errors.checked||m.dataset.e==='1')&&(!w||texts[i].indexOf(w)>=0);\
m.hidden=!show;if(show){n++;}}\
count.textContent=(prompts.checked||errors.checked||w)?n+' of '+all.length+' messages':'';}\
var timer=0;word.addEventListener('input',function(){clearTimeout(timer);timer=setTimeout(apply,150);});\
prompts.addEventListener('change',apply);errors.addEventListener('change',apply);\
})();\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_cut_at_a_character_and_says_how_many_are_left() {
        assert_eq!(cut("short", 10), ("short", 0));
        assert_eq!(cut("ééééé", 2), ("éé", 3));
        assert_eq!(cut("", 0), ("", 0));
        assert_eq!(cut("ab", 0), ("", 2));
    }
}
