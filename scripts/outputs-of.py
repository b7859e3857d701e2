#!/usr/bin/env python3
"""Writes every output of one ctxhooks build on every transcript the tests have, for comparing
two builds byte for byte (a refactor must change none): `usage`, `report` (text, JSON, SVG),
`provenance` (text, JSON, with each SDK capture's sidecar), `ledger-input` and `compactions`, and
`history` and `export` over a projects folder laid out from the same transcripts; then, once the
build's own Stop hook has kept every main transcript (and its PreCompact hook snapshotted every
third), what the state folder gives: `sessions`, `archives` (list, verify), `report --all`,
`compactions --session`, and, with some transcripts deleted as Claude Code's cleanup would,
`sessions`, `export` and `archives restore --deleted` again.

Usage: scripts/outputs-of.py CTXHOOKS OUT_DIR   (the hooks' binaries beside CTXHOOKS)
Then:  diff -r OUT_OLD OUT_NEW   (nothing printed: the same outputs)

Only the standard library; the transcripts are laid out in a scratch folder, gzipped captures
decompressed. The outputs that name that folder name it as `<scratch>`. In what the state folder
gives, a time of the day the script runs (a snapshot's name, a kept copy's start) is written
`<now>`, and every file of the state folder is given one fixed modification time once the hooks
are done, so that two runs compare equal.
"""

import datetime
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


def session_of(data):
    for line in data.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("sessionId"), str):
            return record["sessionId"]
    return None


def times_of_the_run(start):
    """A pattern for the times written while the script runs, from `start` (UTC) to a day after:
    RFC 3339 (`2026-12-07T10:11:12.123Z`, `+00:00`) and a snapshot name's (`20261207T101112.123456Z`)."""
    days = {start.date(), (start + datetime.timedelta(days=1)).date()}
    dashed = "|".join(day.strftime("%Y-%m-%d") for day in days)
    compact = "|".join(day.strftime("%Y%m%d") for day in days)
    return re.compile(
        (r"(?:(?:%s)T\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?"
         r"|(?:%s)T\d{6}(?:\.\d+)?Z)" % (dashed, compact)).encode())


def main():
    binary, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    hooks = os.path.dirname(binary)
    os.makedirs(out, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="ctxhooks-outputs-")
    now = times_of_the_run(datetime.datetime.now(datetime.timezone.utc))
    try:
        state = os.path.join(scratch, "state")
        env = dict(os.environ, HOME=os.path.join(scratch, "home"), NO_COLOR="1",
                   CTXHOOKS_HOME=state, TZ="UTC")
        env.pop("CLAUDE_CONFIG_DIR", None)

        def run(name, arguments, cwd=scratch, redact=False):
            done = subprocess.run([binary, *arguments], env=env, cwd=cwd, capture_output=True)
            text = (b"exit %d\n--- stdout\n" % done.returncode) + done.stdout + b"\n--- stderr\n" + done.stderr
            text = text.replace(scratch.encode(), b"<scratch>")
            if redact:
                text = now.sub(b"<now>", text)
            with open(os.path.join(out, name), "wb") as target:
                target.write(text)

        def hook(program, payload):
            subprocess.run([os.path.join(hooks, program)], env=env, cwd=scratch, check=True,
                           input=json.dumps(payload).encode(), capture_output=True)

        # Claude Code's own projects folder, where `archives restore` writes back.
        projects = os.path.join(scratch, "home", ".claude", "projects")
        main_transcripts = []
        for number, (name, data, sidecar) in enumerate(transcripts()):
            folder = os.path.join(projects, f"p{number:02d}")
            os.makedirs(folder)
            session = session_of(data) or f"s{number}"
            path = os.path.join(folder, f"{session}.jsonl")
            if os.path.exists(path):
                path = os.path.join(folder, f"{session}-{number}.jsonl")
            with open(path, "wb") as target:
                target.write(data)
            if not os.path.basename(path).startswith("agent-") and all(
                    kept != session for kept, _ in main_transcripts):
                main_transcripts.append((session, path))
            if sidecar is not None:
                sessions = os.path.join(scratch, "state", "sessions", session)
                os.makedirs(sessions, exist_ok=True)
                with open(os.path.join(sessions, "provenance.jsonl"), "wb") as target:
                    target.write(sidecar)
            run(f"{name}.usage.json", ["usage", "--transcript", path, "--json"])
            run(f"{name}.usage.txt", ["usage", "--transcript", path])
            run(f"{name}.report.json", ["report", "--transcript", path, "--json"])
            run(f"{name}.report.txt", ["report", "--transcript", path])
            svg = os.path.join(scratch, "report.svg")
            run(f"{name}.report-svg.txt", ["report", "--transcript", path, "--svg", svg])
            if os.path.exists(svg):
                shutil.move(svg, os.path.join(out, f"{name}.report.svg"))
            run(f"{name}.provenance.json", ["provenance", "--transcript", path, "--json"])
            run(f"{name}.provenance.txt", ["provenance", "--transcript", path])
            run(f"{name}.ledger-input.jsonl", ["ledger-input", "--transcript", path])
            run(f"{name}.compactions.txt", ["compactions", "--transcript", path])
            run(f"{name}.compactions.json", ["compactions", "--transcript", path, "--json"])
        run("history.json", ["history", "--projects", projects, "--json", "--no-cache"])
        run("history.txt", ["history", "--projects", projects, "--no-cache"])
        svg = os.path.join(scratch, "history.svg")
        run("history-svg.txt", ["history", "--projects", projects, "--svg", svg, "--no-cache"])
        if os.path.exists(svg):
            shutil.move(svg, os.path.join(out, "history.svg"))
        run("export.jsonl", ["export", "--projects", projects, "--host", "hostA", "--no-cache"])

        # The state folder, as the hooks keep it: every main transcript kept by a Stop, every
        # third snapshotted by a PreCompact first.
        for number, (session, path) in enumerate(main_transcripts):
            payload = {"session_id": session, "transcript_path": path, "cwd": scratch}
            if number % 3 == 0:
                hook("ctxhooks-precompact", dict(payload, hook_event_name="PreCompact",
                                                 trigger="manual", custom_instructions=None))
            hook("ctxhooks-stop", dict(payload, hook_event_name="Stop"))
        # One modification time for everything the hooks wrote (`sessions` orders by it).
        fixed = datetime.datetime(2026, 6, 1, tzinfo=datetime.timezone.utc).timestamp()
        for folder, names, files in os.walk(state, topdown=False):
            for entry in files + names:
                os.utime(os.path.join(folder, entry), (fixed, fixed), follow_symlinks=False)
            os.utime(folder, (fixed, fixed))
        # Every transcript last written at the start of the day (UTC), every fifth 25 days
        # before: due for Claude Code's cleanup in 5 days (the others in 30), whenever in the day
        # the script runs.
        midnight = int(time.time()) // 86_400 * 86_400
        for number, (_, path) in enumerate(main_transcripts):
            written = midnight - (25 * 86_400 if number % 5 == 1 else 0)
            os.utime(path, (written, written))
        run("state.sessions.txt", ["sessions"], redact=True)
        run("state.sessions.json", ["sessions", "--json"], redact=True)
        run("state.archives.txt", ["archives"], redact=True)
        run("state.archives.json", ["archives", "--json"], redact=True)
        run("state.archives-verify.txt", ["archives", "verify"], redact=True)
        run("state.archives-verify.json", ["archives", "verify", "--json"], redact=True)
        run("state.report-all.txt", ["report", "--all"], redact=True)
        run("state.report-all.json", ["report", "--all", "--json"], redact=True)
        for session, _ in main_transcripts:
            run(f"state.{session}.compactions.txt", ["compactions", "--session", session], redact=True)
            run(f"state.{session}.compactions.json", ["compactions", "--session", session, "--json"], redact=True)
            run(f"state.{session}.report.json", ["report", "--session", session, "--json"], redact=True)
        # Every fourth transcript deleted, as Claude Code's cleanup does: kept only here.
        for number, (session, path) in enumerate(main_transcripts):
            if number % 4 == 2:
                os.remove(path)
                run(f"deleted.{session}.compactions.txt", ["compactions", "--session", session], redact=True)
        run("deleted.sessions.txt", ["sessions"], redact=True)
        run("deleted.sessions.json", ["sessions", "--json"], redact=True)
        run("deleted.export.jsonl", ["export", "--projects", projects, "--host", "hostA", "--no-cache"], redact=True)
        run("deleted.history.json", ["history", "--projects", projects, "--json", "--no-cache"], redact=True)
        run("deleted.restore.json", ["archives", "restore", "--deleted", "--json"], redact=True)
        run("restored.sessions.txt", ["sessions"], redact=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
