#!/usr/bin/env python3
"""Builds a deterministic Claude Code projects folder for `ctxhooks history` and ccusage.

Usage: benches/history-corpus.py OUT_DIR [BYTES] [SESSIONS] [--with-captures]
       (defaults: 300000000, 110)

OUT_DIR becomes a Claude configuration folder: OUT_DIR/projects/<slug>/... Every session repeats
the lines of one real transcript (the real transcripts of tests/fixtures/transcripts, in turn; with
--with-captures also the CLI captures of tests/fixtures/cli-captures, whose token counts come
from a scripted model server: their flat cache_creation_input_tokens is set while the nested
cache_creation split is 0, which ccusage reads as no cache write) until it holds its share of BYTES, with every id made
unique per copy (uuid, parentUuid, logicalParentUuid, requestId, message.id, tool_use ids and the
tool_result ids that answer them), sessionId set to the session's, cwd to its project's folder,
and timestamps moved so that sessions spread over 60 days and the copies of one session follow
each other. The sub-agent transcripts of a template are laid out as the template's CLI did: flat
`agent-<id>.jsonl` beside the session (2.0.x), `<session>/subagents/agent-<id>.jsonl` (2.1.x);
1.0.x keeps its sidechains inline. The same arguments always give the same bytes.
"""

import gzip
import hashlib
import json
import os
import sys
from datetime import datetime, timedelta, timezone

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(REPO, "tests", "fixtures", "transcripts")
CAPTURES = os.path.join(REPO, "tests", "fixtures", "cli-captures")

# (main transcript, sub-agent transcripts, layout of the sub-agents: "flat" or "subagents")
TEMPLATES = [
    (f"{FIXTURES}/entireio__cli/a6/e4c2a0fbd1/0/full.jsonl", [], None),
    (f"{FIXTURES}/d-kimuson__claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl", [], None),
    (f"{FIXTURES}/lanegrid__agtrace/-Users-zawakin-agent-sample/7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9.jsonl",
     [f"{FIXTURES}/lanegrid__agtrace/-Users-zawakin-agent-sample/agent-0c4c3cf8.jsonl",
      f"{FIXTURES}/lanegrid__agtrace/-Users-zawakin-agent-sample/agent-90fa40b6.jsonl"], "flat"),
    (f"{FIXTURES}/marot__spotter/tool_heavy.jsonl",
     [f"{FIXTURES}/marot__spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl",
      f"{FIXTURES}/marot__spotter/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl"],
     "subagents"),
    (f"{FIXTURES}/entireio__cli/00/c9e2351016/3/full.jsonl", [], None),
    (f"{FIXTURES}/entireio__cli/b0/be9accda39/0/full.jsonl", [], None),
    (f"{FIXTURES}/marot__spotter/short.jsonl", [], None),
]
CAPTURE_TEMPLATES = [
    (f"{CAPTURES}/compaction/auto-manual.jsonl.gz", [], None),
    (f"{CAPTURES}/microcompact/p-2.1.42.jsonl.gz", [], None),
    (f"{CAPTURES}/model-switch-upgrade/upgrade.jsonl.gz", [], None),
    (f"{CAPTURES}/idle-gap/resumed-after-3h.jsonl.gz", [], None),
    (f"{CAPTURES}/compaction/reactive.jsonl.gz", [], None),
    (f"{CAPTURES}/resume-interactive/2.1.42.jsonl", [], None),
    (f"{CAPTURES}/microcompact/p-2.0.76.jsonl.gz", [], None),
]
PROJECTS = 12
START = datetime(2026, 9, 1, tzinfo=timezone.utc)
ID_KEYS = ("uuid", "parentUuid", "logicalParentUuid", "requestId")


def read_lines(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as source:
        return [json.loads(line) for line in source if line.strip()]


def parse_time(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def format_time(moment):
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def span(records):
    times = [parse_time(r["timestamp"]) for r in records if isinstance(r.get("timestamp"), str)]
    return (min(times), max(times)) if times else (START, START)


def uniq(value, tag):
    return f"{value}-{tag}" if isinstance(value, str) else value


def rewrite(record, tag, session, cwd, shift):
    for key in ID_KEYS:
        if key in record:
            record[key] = uniq(record[key], tag)
    if "sessionId" in record:
        record["sessionId"] = session
    if "cwd" in record:
        record["cwd"] = cwd
    if isinstance(record.get("timestamp"), str):
        record["timestamp"] = format_time(parse_time(record["timestamp"]) + shift)
    message = record.get("message")
    if isinstance(message, dict):
        if "id" in message:
            message["id"] = uniq(message["id"], tag)
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and "id" in block:
                block["id"] = uniq(block["id"], tag)
            if block.get("type") == "tool_result" and "tool_use_id" in block:
                block["tool_use_id"] = uniq(block["tool_use_id"], tag)
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"


def main():
    out = sys.argv[1]
    arguments = [argument for argument in sys.argv[1:] if argument != "--with-captures"]
    target = int(arguments[1]) if len(arguments) > 1 else 300_000_000
    sessions = int(arguments[2]) if len(arguments) > 2 else 110
    templates = TEMPLATES + (CAPTURE_TEMPLATES if "--with-captures" in sys.argv else [])
    per_session = target // sessions
    loaded = [(read_lines(main_path), [(os.path.basename(a).removesuffix(".jsonl"), read_lines(a)) for a in agents], layout)
              for main_path, agents, layout in templates]
    written = 0
    for index in range(sessions):
        main_records, agents, layout = loaded[index % len(loaded)]
        project = f"/home/dev/project-{index % PROJECTS:02d}"
        slug = project.replace("/", "-")
        folder = os.path.join(out, "projects", slug)
        os.makedirs(folder, exist_ok=True)
        digest = hashlib.sha256(f"ctxhooks-history-corpus-{index}".encode()).hexdigest()
        session = f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"
        first, last = span(main_records)
        step = (last - first) + timedelta(minutes=2)
        start = START + timedelta(days=index * 60 / sessions, minutes=index * 7)
        size, copy = 0, 0
        with open(os.path.join(folder, f"{session}.jsonl"), "w", encoding="utf-8") as transcript:
            while size < per_session:
                shift = start + copy * step - first
                for record in main_records:
                    line = rewrite(json.loads(json.dumps(record)), f"s{index}c{copy}", session, project, shift)
                    transcript.write(line)
                    size += len(line.encode())
                copy += 1
        for name, records in agents:
            agent_id = f"{name.removeprefix('agent-')}{index:04d}"
            if layout == "flat":
                path = os.path.join(folder, f"agent-{agent_id}.jsonl")
            else:
                path = os.path.join(folder, session, "subagents", f"agent-{agent_id}.jsonl")
                os.makedirs(os.path.dirname(path), exist_ok=True)
            shift = start - span(records)[0]
            with open(path, "w", encoding="utf-8") as agent:
                for record in records:
                    if "agentId" in record:
                        record = dict(record, agentId=agent_id)
                    line = rewrite(json.loads(json.dumps(record)), f"s{index}", session, project, shift)
                    agent.write(line)
                    size += len(line.encode())
        written += size
    print(f"wrote {written} bytes in {sessions} sessions under {out}/projects", file=sys.stderr)


if __name__ == "__main__":
    main()
