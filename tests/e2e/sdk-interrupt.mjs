// Drives the real Claude Agent SDK through one interrupt scenario against a scripted model
// server, the way a runtime with its own compaction backstop would, and prints what it did as
// one JSON object on stdout.
//
// usage: node tests/e2e/sdk-interrupt.mjs SERVER_URL SCENARIO PROJECT_DIR
//
// SCENARIO: marked-interrupt | unmarked-interrupt | earlier-genuine-then-marked |
//           permission-deny | permission-deny-interrupt | parallel-marked |
//           marked-streaming (interrupt while the model is still answering, no tool call)
//
// The scripted server must answer a user text containing `RUN:sleep` with one Bash `tool_use`
// running `sleep 5`, `RUN:parallel` with three parallel `sleep 5 && echo N`, `RUN:touch` with
// `touch created-by-model.txt`, `RUN:echo` with `echo hello`, `RUN:slowtext` with text that
// pauses mid-stream for several seconds, and any request whose last message
// holds a tool_result (or without a Bash tool) with plain text.
//
// Environment:
//   CTXHOOKS_HOME        required: the state folder; marks are appended to
//                        $CTXHOOKS_HOME/sessions/<id>/provenance.jsonl in the documented format
//   CTXHOOKS_TOOLUSE_BIN optional: the ctxhooks-tooluse binary; when set, the project's
//                        .claude/settings.json is written to register it for PreToolUse,
//                        PostToolUse and PostToolUseFailure; when unset, the settings are
//                        left as they are
//   CTXHOOKS_MARK_BIN    optional: the ctxhooks binary; when set, marks are written with
//                        `ctxhooks mark-interrupt` instead of by this script
//   CTXHOOKS_SDK_MODULE  optional: path of the SDK's sdk.mjs (default: .e2e/node_modules/... of
//                        the repository this script lives in)
//   CTXHOOKS_E2E_HOME    optional: the throwaway HOME for the CLI (default PROJECT_DIR + ".home")
//
// Output: {"scenario", "home", "sessions": [{"session_id", "transcript_path", "marks": [...],
//          "interrupted": bool, "messages": [types...], "result": {...}}]}

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [serverUrl, scenario, projectArg] = process.argv.slice(2);
if (!serverUrl || !scenario || !projectArg) {
  process.stderr.write("usage: sdk-interrupt.mjs SERVER_URL SCENARIO PROJECT_DIR\n");
  process.exit(2);
}
const stateHome = process.env.CTXHOOKS_HOME;
if (!stateHome) {
  process.stderr.write("CTXHOOKS_HOME must be set\n");
  process.exit(2);
}
const projectDir = path.resolve(projectArg);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const sdkModule =
  process.env.CTXHOOKS_SDK_MODULE ??
  path.join(repoRoot, ".e2e/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs");
const { query } = await import(pathToFileURL(sdkModule).href);
const home = path.resolve(process.env.CTXHOOKS_E2E_HOME ?? `${projectDir}.home`);

fs.mkdirSync(path.join(projectDir, ".claude"), { recursive: true });
fs.mkdirSync(home, { recursive: true });
fs.writeFileSync(
  path.join(home, ".claude.json"),
  JSON.stringify({ hasCompletedOnboarding: true, projects: { [projectDir]: { hasTrustDialogAccepted: true } } }),
);
// Without CTXHOOKS_TOOLUSE_BIN the project's settings are left as they are (the Rust end-to-end
// tests install the hooks with the real `ctxhooks install --scope project` first).
if (process.env.CTXHOOKS_TOOLUSE_BIN) {
  const entry = [{ matcher: "*", hooks: [{ type: "command", command: process.env.CTXHOOKS_TOOLUSE_BIN, timeout: 10 }] }];
  const settings = { hooks: { PreToolUse: entry, PostToolUse: entry, PostToolUseFailure: entry } };
  fs.writeFileSync(path.join(projectDir, ".claude/settings.json"), JSON.stringify(settings, null, 2));
}

// Whether ctxhooks-tooluse records tool events in this run (the Rust tests install it with
// `ctxhooks install --scope project`; the capture runs register it above).
const projectSettings = path.join(projectDir, ".claude/settings.json");
const hooksInstalled =
  fs.existsSync(projectSettings) && fs.readFileSync(projectSettings, "utf8").includes("ctxhooks-tooluse");

const env = {
  ...process.env,
  HOME: home,
  ANTHROPIC_BASE_URL: serverUrl,
  ANTHROPIC_API_KEY: "scripted-server-key",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
  CTXHOOKS_HOME: stateHome,
};
delete env.CLAUDE_CONFIG_DIR;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Waits (at most `limitMs`) until the PreToolUse hook has recorded every call in `ids` in the
// session's sidecar: the scenarios cut calls that are running, and on a loaded machine the hook
// process may start later than the 300 ms the cut waits after the tool_use arrives. Without the
// hooks installed (the capture runs), there is nothing to wait for.
async function waitUntilStarted(sessionId, ids, limitMs) {
  const sidecar = path.join(stateHome, "sessions", sessionId ?? "", "provenance.jsonl");
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    const text = fs.existsSync(sidecar) ? fs.readFileSync(sidecar, "utf8") : "";
    if (ids.every((id) => text.includes(`"tool_use_id":"${id}"`))) return;
    await sleep(25);
  }
}

// The documented mark: one JSON line, appended with one write, BEFORE interrupt().
function writeMark(sessionId, reason, gaugePct) {
  if (process.env.CTXHOOKS_MARK_BIN) {
    const printed = execFileSync(
      process.env.CTXHOOKS_MARK_BIN,
      ["mark-interrupt", "--session", sessionId, "--reason", reason, "--source", "sdk-interrupt.mjs",
       "--gauge-pct", String(gaugePct), "--json"],
      { env: { ...process.env, CTXHOOKS_HOME: stateHome } },
    );
    return { kind: "runtime_interrupt_mark", ...JSON.parse(printed.toString()) };
  }
  const dir = path.join(stateHome, "sessions", sessionId);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mark = {
    kind: "runtime_interrupt_mark",
    time_ms: Date.now(),
    reason,
    source: "sdk-interrupt.mjs",
    gauge_pct: gaugePct,
    pid: process.pid,
  };
  fs.appendFileSync(path.join(dir, "provenance.jsonl"), JSON.stringify(mark) + "\n", { mode: 0o600 });
  return mark;
}

// Runs one query; `interruptAfter` (ms after the first assistant tool_use) and `mark` decide
// whether and how the turn is cut.
async function runTurn({ prompt, resume, interruptAfter, interruptAt, mark, deny, allowBash = true }) {
  const options = {
    cwd: projectDir,
    env,
    settingSources: ["project"],
    allowedTools: allowBash ? ["Bash"] : [],
    ...(resume ? { resume } : {}),
    ...(deny
      ? {
          canUseTool: async () => ({
            behavior: "deny",
            message: "Not allowed by policy",
            ...(deny === "interrupt" ? { interrupt: true } : {}),
          }),
        }
      : {}),
  };
  const q = query({ prompt, options });
  const record = { session_id: resume ?? null, transcript_path: null, marks: [], interrupted: false, messages: [], result: null };
  let cut = null;
  const cutTurn = async () => {
    if (mark) record.marks.push(writeMark(record.session_id, mark, 78.4));
    record.interrupted = true;
    await q.interrupt();
  };
  if (interruptAt !== undefined) {
    // Measured from the start of the query: for cuts while the model is still streaming.
    cut = sleep(interruptAt).then(cutTurn);
  }
  try {
  for await (const message of q) {
    record.messages.push(message.subtype ? `${message.type}:${message.subtype}` : message.type);
    if (message.session_id) record.session_id = message.session_id;
    if (message.type === "system" && message.subtype === "init" && message.transcript_path) {
      record.transcript_path = message.transcript_path;
    }
    const toolUseIds =
      message.type === "assistant"
        ? (message.message?.content ?? []).filter((block) => block.type === "tool_use").map((block) => block.id)
        : [];
    if (toolUseIds.length > 0 && interruptAfter !== undefined && !cut) {
      const waitForHooks = hooksInstalled ? waitUntilStarted(record.session_id, toolUseIds, 120000) : Promise.resolve();
      cut = waitForHooks.then(() => sleep(interruptAfter)).then(cutTurn);
    }
    if (message.type === "result") {
      record.result = { subtype: message.subtype, terminal_reason: message.terminal_reason ?? null, is_error: message.is_error };
    }
  }
  } catch (error) {
    // After interrupt() the SDK ends the query with an error result; keep it as evidence.
    record.error = String(error?.message ?? error).split("\n")[0];
  }
  if (cut) await cut;
  return record;
}

const sessions = [];
switch (scenario) {
  case "marked-interrupt":
    sessions.push(await runTurn({ prompt: "Please wait. RUN:sleep", interruptAfter: 300, mark: "context backstop at 78%" }));
    break;
  case "unmarked-interrupt":
    sessions.push(await runTurn({ prompt: "Please wait. RUN:sleep", interruptAfter: 300 }));
    break;
  case "earlier-genuine-then-marked": {
    const first = await runTurn({ prompt: "Please wait. RUN:sleep", interruptAfter: 300 });
    sessions.push(first);
    sessions.push(await runTurn({ prompt: "Say hello. RUN:echo", resume: first.session_id }));
    sessions.push(
      await runTurn({ prompt: "Wait again. RUN:sleep", resume: first.session_id, interruptAfter: 300, mark: "context backstop at 78%" }),
    );
    break;
  }
  case "permission-deny":
    sessions.push(await runTurn({ prompt: "Create a file. RUN:touch", deny: true, allowBash: false }));
    break;
  case "permission-deny-interrupt":
    sessions.push(await runTurn({ prompt: "Create a file. RUN:touch", deny: "interrupt", allowBash: false }));
    break;
  case "marked-streaming":
    sessions.push(await runTurn({ prompt: "Think slowly. RUN:slowtext", interruptAt: 3000, mark: "context backstop at 78%" }));
    break;
  case "parallel-marked":
    sessions.push(await runTurn({ prompt: "Wait three times. RUN:parallel", interruptAfter: 600, mark: "context backstop at 78%" }));
    break;
  default:
    process.stderr.write(`unknown scenario ${scenario}\n`);
    process.exit(2);
}
for (const session of sessions) {
  if (!session.transcript_path && session.session_id) {
    const projects = path.join(home, ".claude", "projects");
    for (const slug of fs.existsSync(projects) ? fs.readdirSync(projects) : []) {
      const candidate = path.join(projects, slug, `${session.session_id}.jsonl`);
      if (fs.existsSync(candidate)) session.transcript_path = candidate;
    }
  }
}
process.stdout.write(JSON.stringify({ scenario, home, project: projectDir, sessions }) + "\n");
