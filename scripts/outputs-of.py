#!/usr/bin/env python3
"""Writes every output of one ctxhooks build on every transcript the tests have, for comparing
two builds byte for byte (a refactor must change none): every command with its text and its
`--json` output (usage, report with its SVG, compactions, provenance, ledger-input per transcript;
history with its SVG and export over a projects folder of them all; sessions, archives (list,
verify, prune, restore), recall, gauge, search, statusline, install, uninstall, doctor and
mark-interrupt over a state folder the build's own hooks filled from the same transcripts; `view`'s
pages per transcript, per session, per snapshot and `--all`; the MCP server's answers to each of
its tools and to lines that are no request).

Usage: scripts/outputs-of.py CTXHOOKS OUT_DIR [--world DIR]
Then:  diff -r OUT_OLD OUT_NEW   (nothing printed: the same outputs)

The world (a home with Claude Code's projects folder, the state folder the hooks wrote, a
project) is built once by the hooks beside CTXHOOKS; what they write depends on the clock
(snapshot names, times), so two builds are compared over the same world: give both runs the same
`--world DIR` (made by the first, used as it is by the second, never changed). It is copied to
`DIR.live` for each group of commands (what the hooks recorded names that path), so two runs
must not use the same `--world` at once. Without `--world`, a world of its own in a scratch folder.
Put the two builds' binaries in folders whose paths are as long as each other (`/tmp/binA`,
`/tmp/binB`): `install` writes the binaries' paths into the state folder, and `doctor` shows
that folder's size in bytes.

Only the standard library; gzipped captures are decompressed. Outputs name the world `<world>`
and the binaries' folder `<bin>`; what depends on the clock of the run, not the world's, is
`<now>` (the time in a backup's or a replaced file's name), `<n>` (`mark-interrupt --json`'s
clock and process id) and `<ago>` (how long ago `doctor` saw the hooks at work).
"""

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(REPO, "tests", "fixtures")


def transcripts():
    """(name, bytes, sidecar bytes or None) of every transcript the tests read."""
    found = []
    for folder, _, names in sorted(os.walk(FIXTURES)):
        for name in sorted(names):
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, FIXTURES)
            if name.endswith(".jsonl.gz"):
                with gzip.open(path, "rb") as source:
                    data = source.read()
            elif name.endswith(".jsonl") and "provenance" not in name and "hooks" not in name:
                with open(path, "rb") as source:
                    data = source.read()
            else:
                continue
            if not data.lstrip().startswith(b"{"):
                continue
            sidecar = None
            if name == "transcript.jsonl":
                candidate = os.path.join(folder, "provenance.jsonl")
                if os.path.exists(candidate):
                    with open(candidate, "rb") as source:
                        sidecar = source.read()
            found.append((relative.replace(os.sep, "__").removesuffix(".gz"), data, sidecar))
    return found


def status_inputs():
    """Every status line input the captures hold (one JSON object a line)."""
    inputs = []
    for folder, _, names in sorted(os.walk(FIXTURES)):
        for name in sorted(names):
            if name.startswith("statusline") or "statusline" in folder and name.endswith(".jsonl"):
                with open(os.path.join(folder, name), "rb") as source:
                    inputs.extend(line for line in source.read().splitlines() if line.strip())
    return inputs


def session_of(data):
    for line in data.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("sessionId"), str):
            return record["sessionId"]
    return None


def layout(root):
    """(name, data, sidecar, session, path) of every transcript as the world lays it out in
    Claude Code's projects folder, one project folder each."""
    projects = os.path.join(root, "home", ".claude", "projects")
    for number, (name, data, sidecar) in enumerate(transcripts()):
        session = session_of(data) or f"{number:08d}-0000-4000-8000-000000000000"
        path = os.path.join(projects, f"p{number:02d}", f"{session}.jsonl")
        yield name, data, sidecar, session, path


class World:
    """The world's folders at `root` and how to run a program in it."""

    def __init__(self, root, bin_dir):
        self.root, self.bin_dir = root, bin_dir
        self.home = os.path.join(root, "home")
        self.projects = os.path.join(self.home, ".claude", "projects")
        self.state = os.path.join(root, "state")
        self.project = os.path.join(root, "project")
        self.env = dict(os.environ, HOME=self.home, NO_COLOR="1", TZ="UTC",
                        CLAUDE_CONFIG_DIR=os.path.join(self.home, ".claude"),
                        CTXHOOKS_HOME=self.state,
                        CTXHOOKS_MANAGED_SETTINGS_DIR=os.path.join(root, "managed"))

    def program(self, name, arguments, stdin=b""):
        return subprocess.run([os.path.join(self.bin_dir, name), *arguments], env=self.env,
                              cwd=self.project, input=stdin, capture_output=True)


def build_world(bin_dir, root):
    """Lays out every transcript in Claude Code's projects folder and runs the hooks over each
    as Claude Code would (PreCompact and PostCompact where it was compacted, Stop, the tool
    events of the SDK captures); then some transcripts are deleted, as Claude Code's cleanup
    does, and some made old enough to be due. Each transcript is also in `fixtures/`, as it
    is, for the commands that read a file."""
    world = World(root, bin_dir)
    fixtures = os.path.join(root, "fixtures")
    for folder in (world.state, world.project, fixtures, os.path.join(root, "managed")):
        os.makedirs(folder)
    laid_out = []
    for name, data, sidecar, session, path in layout(root):
        os.makedirs(os.path.dirname(path))
        for target_path in (path, os.path.join(fixtures, name)):
            with open(target_path, "wb") as target:
                target.write(data)
        laid_out.append((name, path))
        if sidecar is not None:
            sessions = os.path.join(world.state, "sessions", session)
            os.makedirs(sessions, exist_ok=True)
            with open(os.path.join(sessions, "provenance.jsonl"), "wb") as target:
                target.write(sidecar)
        common = {"session_id": session, "transcript_path": path, "cwd": world.project}
        if b'"compact_boundary"' in data:
            world.program("ctxhooks-precompact", [], json.dumps(dict(
                common, hook_event_name="PreCompact", trigger="auto",
                custom_instructions=None)).encode())
            world.program("ctxhooks-session", [], json.dumps(dict(
                common, hook_event_name="PostCompact", trigger="auto",
                compact_summary=f"Summary of {name}.\nSecond line.")).encode())
        world.program("ctxhooks-stop", [], json.dumps(dict(
            common, hook_event_name="Stop", stop_hook_active=False)).encode())
    # Claude Code's cleanup deleted every fifth transcript (kept here only), and every fifth
    # but one is 25 days old: due within the week of a 30-day cleanup.
    now = time.time()
    for number, (_, path) in enumerate(laid_out):
        if number % 5 == 2:
            os.remove(path)
        elif number % 5 == 3:
            os.utime(path, (now - 25 * 86400, now - 25 * 86400))


def main():
    arguments = sys.argv[1:]
    world_dir = None
    if "--world" in arguments:
        at = arguments.index("--world")
        world_dir = os.path.abspath(arguments[at + 1])
        del arguments[at:at + 2]
    binary, out = os.path.abspath(arguments[0]), os.path.abspath(arguments[1])
    bin_dir = os.path.dirname(os.path.realpath(binary))
    os.makedirs(out, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="ctxhooks-outputs-")
    world_dir = world_dir or os.path.join(scratch, "world")
    live = world_dir.rstrip("/") + ".live"
    try:
        if not os.path.exists(world_dir):
            shutil.rmtree(live, ignore_errors=True)
            build_world(bin_dir, live)
            shutil.copytree(live, world_dir, symlinks=True)
        write_outputs(bin_dir, world_dir, live, out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(live, ignore_errors=True)


def write_outputs(bin_dir, world_dir, live, out):
    state = {"world": None}

    def fresh():
        """The world as it was built, at `live`."""
        shutil.rmtree(live, ignore_errors=True)
        shutil.copytree(world_dir, live, symlinks=True)
        state["world"] = World(live, bin_dir)
        return state["world"]

    def run(name, arguments, stdin=b""):
        done = state["world"].program("ctxhooks", arguments, stdin)
        text = (b"exit %d\n--- stdout\n" % done.returncode) + done.stdout + b"\n--- stderr\n" + done.stderr
        text = text.replace(live.encode(), b"<world>").replace(bin_dir.encode(), b"<bin>")
        # What depends on the clock of this run, not the world's.
        text = re.sub(rb"(replaced/|\.json\.)\d{8}T\d{6}\.\d+Z", rb"\1<now>", text)
        if arguments[:1] == ["mark-interrupt"]:
            text = re.sub(rb'"(time_ms|pid)":\d+', rb'"\1":<n>', text)
        if arguments[:1] == ["doctor"]:
            text = re.sub(rb"\((just now|[^()]* ago)\)", rb"(<ago>)", text)
        with open(os.path.join(out, name), "wb") as target:
            target.write(text)

    def both(name, arguments):
        """The text and the `--json` output of one command."""
        run(f"{name}.txt", arguments)
        run(f"{name}.json", [*arguments, "--json"])

    def pages(name, arguments):
        """`view`'s text and `--json` output, and every page each run wrote (into a folder of
        its own), as `<name>.<txt|json>.page-<file>`."""
        for flag, suffix in (([], "txt"), (["--json"], "json")):
            folder = os.path.join(live, "pages", f"{name}-{suffix}")
            os.makedirs(folder)
            # `--all` writes its pages into the folder; one session's page is the file named.
            target = folder if "--all" in arguments else os.path.join(folder, "page.html")
            run(f"{name}.{suffix}", [*arguments, *flag, "--out", target])
            for at, _, files in sorted(os.walk(folder)):
                for file in sorted(files):
                    with open(os.path.join(at, file), "rb") as page:
                        data = page.read().replace(live.encode(), b"<world>")
                    relative = os.path.relpath(os.path.join(at, file), folder).replace(os.sep, "-")
                    with open(os.path.join(out, f"{name}.{suffix}.page-{relative}"), "wb") as copy:
                        copy.write(data)

    world = fresh()
    kept = sorted(os.listdir(os.path.join(world.state, "sessions")))
    # Per transcript, as it is.
    for name, _, _ in transcripts():
        path = os.path.join(live, "fixtures", name)
        both(f"{name}.usage", ["usage", "--transcript", path])
        both(f"{name}.report", ["report", "--transcript", path])
        svg = os.path.join(live, "report.svg")
        run(f"{name}.report-svg.txt", ["report", "--transcript", path, "--svg", svg])
        if os.path.exists(svg):
            shutil.move(svg, os.path.join(out, f"{name}.report.svg"))
        both(f"{name}.compactions", ["compactions", "--transcript", path])
        both(f"{name}.provenance", ["provenance", "--transcript", path])
        run(f"{name}.ledger-input.jsonl", ["ledger-input", "--transcript", path])
    # Per session the state folder knows.
    for session in kept:
        short = session[:8]
        both(f"session-{short}.usage", ["usage", "--session", session])
        both(f"session-{short}.report", ["report", "--session", session])
        both(f"session-{short}.compactions", ["compactions", "--session", short])
        both(f"session-{short}.gauge", ["gauge", "--session", session])
        both(f"session-{short}.recall", ["recall", "--session", session])
        both(f"session-{short}.recall-last-2", ["recall", "--session", session, "--last", "2"])
        both(f"session-{short}.recall-before-last",
             ["recall", "--session", session, "the", "--before-compaction", "last"])
        both(f"session-{short}.provenance", ["provenance", "--session", session])
        both(f"session-{short}.archives", ["archives", "--session", session])
    both("report-all", ["report", "--all"])
    both("sessions", ["sessions"])
    both("archives", ["archives"])
    both("archives-verify", ["archives", "verify"])
    run("ledger-input-prompt-rule.txt", ["ledger-input", "--prompt-rule"])
    both("history", ["history", "--projects", world.projects, "--no-cache"])
    both("history-filtered", ["history", "--projects", world.projects, "--no-cache",
                              "--since", "2026-01-01", "--project", "p0"])
    svg = os.path.join(live, "history.svg")
    run("history-svg.txt", ["history", "--projects", world.projects, "--svg", svg, "--no-cache"])
    if os.path.exists(svg):
        shutil.move(svg, os.path.join(out, "history.svg"))
    run("export.jsonl", ["export", "--projects", world.projects, "--host", "hostA", "--no-cache"])
    run("export-since.jsonl", ["export", "--projects", world.projects, "--host", "hostA",
                               "--no-cache", "--since", "2026-06-01"])
    for number, query in enumerate(["error", "hook OR file", "\"sleep 5\"", "zzzunfound"]):
        both(f"search-{number}", ["search", query])
        both(f"search-{number}-assistant", ["search", query, "--role", "assistant", "--limit", "3"])
    both("search-session", ["search", "the", "--session", kept[0]])
    both("doctor", ["doctor"])
    run("unknown-session.txt", ["recall", "--session", "ffffffff"])
    for name, _, _ in transcripts():
        pages(f"{name}.view", ["view", "--transcript", os.path.join(live, "fixtures", name)])
    for session in kept:
        pages(f"session-{session[:8]}.view", ["view", "--session", session])
        archive = os.path.join(world.state, "sessions", session, "archive")
        for snapshot in sorted(os.listdir(archive)) if os.path.isdir(archive) else []:
            pages(f"session-{session[:8]}.view-{snapshot}",
                  ["view", "--session", session, "--snapshot", snapshot])
    pages("view-all", ["view", "--all"])
    mcp(run, kept)
    # The status line last: it records each known session's window, which the report reads.
    for number, line in enumerate(status_inputs()):
        run(f"statusline-{number}.txt", ["statusline"], line)
        run(f"statusline-{number}-plain.txt", ["statusline", "--plain"], line)
    for number, session in enumerate(kept):
        line = json.dumps({"session_id": session, "model": {"id": "claude-opus-4-5"}, "version": "2.1.332",
                           "context_window": {"context_window_size": 200000}}).encode()
        run(f"statusline-session-{number}.txt", ["statusline", "--plain"], line)
        run(f"statusline-session-{number}-format.txt",
            ["statusline", "--format", "{context} of {trigger} ({percent}) {left} {compactions}"],
            line)
    run("statusline-bad-format.txt", ["statusline", "--format", "{nothing"], b"{}")

    # What changes the state folder or the settings, each from the world as it was built.
    for json_flag in ([], ["--json"]):
        suffix = ".json" if json_flag else ".txt"
        fresh()
        run(f"install-dry-run{suffix}", ["install", "--dry-run", *json_flag])
        run(f"install{suffix}", ["install", "--statusline", "--mcp", *json_flag])
        run(f"install-again{suffix}", ["install", "--scope", "user", *json_flag])
        run(f"install-project{suffix}", ["install", "--scope", "project", *json_flag])
        run(f"doctor-installed{suffix}", ["doctor", *json_flag])
        run(f"uninstall-dry-run{suffix}", ["uninstall", "--dry-run", *json_flag])
        run(f"uninstall{suffix}", ["uninstall", "--mcp", *json_flag])
        run(f"uninstall-again{suffix}", ["uninstall", *json_flag])
        for policy in (["--keep", "1"], ["--keep", "1", "--dry-run"],
                       ["--older-than", "36500"]):
            fresh()
            run(f"archives-prune{'-'.join(policy)}{suffix}", ["archives", "prune", *policy, *json_flag])
        for policy in (["--kept", "--older-than", "1"], ["--kept", "--max-size", "100KB"],
                       ["--kept", "--older-than", "1", "--yes"],
                       ["--session", kept[0], "--all"], ["--session", kept[0], "--all", "--yes"]):
            fresh()
            run(f"archives-prune{'-'.join(policy)}{suffix}", ["archives", "prune", *policy, *json_flag])
            both(f"archives-prune{'-'.join(policy)}-sessions-after{suffix}", ["sessions"])
        fresh()
        run(f"archives-restore-deleted{suffix}", ["archives", "restore", "--deleted", *json_flag])
        run(f"archives-restore-deleted-again{suffix}", ["archives", "restore", "--deleted", *json_flag])
        fresh()
        for number, session in enumerate(kept):
            run(f"archives-restore-{number}{suffix}", ["archives", "restore", "--session", session,
                                                      "--to", os.path.join(live, "restored"), *json_flag])
        run(f"archives-restore-existing{suffix}", ["archives", "restore", "--session", kept[0],
                                                   "--to", os.path.join(live, "restored"), *json_flag])
        run(f"archives-restore-force{suffix}", ["archives", "restore", "--session", kept[0],
                                                "--to", os.path.join(live, "restored"), "--force", *json_flag])
        fresh()
        run(f"mark-interrupt{suffix}", ["mark-interrupt", "--session", kept[0], "--reason",
                                        "context backstop", "--gauge-pct", "78", *json_flag])
        run(f"mark-interrupt-bad{suffix}", ["mark-interrupt", "--session", kept[0], "--reason",
                                            " ", *json_flag])


def mcp(run, kept):
    """The MCP server's answer to each of its tools, over stdio."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "outputs-of", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "sessions", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
         "params": {"name": "search", "arguments": {"query": "error"}}},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
         "params": {"name": "recall", "arguments": {"session": kept[0], "last": 3}}},
        {"jsonrpc": "2.0", "id": 6, "method": "tools/call",
         "params": {"name": "gauge", "arguments": {"session": kept[0]}}},
    ]
    # One call a run: the server may answer calls in any order.
    for call in requests[2:]:
        stdin = b"".join(json.dumps(request).encode() + b"\n" for request in [*requests[:2], call])
        run(f"mcp-{call['id']}.jsonl", ["mcp"], stdin)
    # Lines that are no request, each answered by the server itself: not JSON, too long, JSON
    # but no JSON-RPC message.
    for number, line in enumerate([b"not json", b"x" * (17 << 20), b'{"id": 7, "x": 1}']):
        run(f"mcp-unread-{number}.jsonl", ["mcp"], line + b"\n")


if __name__ == "__main__":
    main()
