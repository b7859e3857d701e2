#!/usr/bin/env python3
"""Writes every output of one ctxhooks build on every transcript the tests have, for comparing
two builds byte for byte (a refactor must change none): `usage`, `report` (text, JSON, SVG),
`provenance` (text, JSON, with each SDK capture's sidecar), `ledger-input`, and `history` and
`export` over a projects folder laid out from the same transcripts.

Usage: scripts/outputs-of.py CTXHOOKS OUT_DIR
Then:  diff -r OUT_OLD OUT_NEW   (nothing printed: the same outputs)

Only the standard library; the transcripts are laid out in a scratch folder, gzipped captures
decompressed. The outputs that name that folder name it as `<scratch>`.
"""

import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

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


def main():
    binary, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="ctxhooks-outputs-")
    try:
        env = dict(os.environ, HOME=os.path.join(scratch, "home"), NO_COLOR="1",
                   CTXHOOKS_HOME=os.path.join(scratch, "state"), TZ="UTC")
        env.pop("CLAUDE_CONFIG_DIR", None)

        def run(name, arguments, cwd=scratch):
            done = subprocess.run([binary, *arguments], env=env, cwd=cwd, capture_output=True)
            text = (b"exit %d\n--- stdout\n" % done.returncode) + done.stdout + b"\n--- stderr\n" + done.stderr
            text = text.replace(scratch.encode(), b"<scratch>")
            with open(os.path.join(out, name), "wb") as target:
                target.write(text)

        projects = os.path.join(scratch, "projects")
        for number, (name, data, sidecar) in enumerate(transcripts()):
            folder = os.path.join(projects, f"p{number:02d}")
            os.makedirs(folder)
            session = session_of(data) or f"s{number}"
            path = os.path.join(folder, f"{session}.jsonl")
            if os.path.exists(path):
                path = os.path.join(folder, f"{session}-{number}.jsonl")
            with open(path, "wb") as target:
                target.write(data)
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
        run("history.json", ["history", "--projects", projects, "--json", "--no-cache"])
        run("history.txt", ["history", "--projects", projects, "--no-cache"])
        svg = os.path.join(scratch, "history.svg")
        run("history-svg.txt", ["history", "--projects", projects, "--svg", svg, "--no-cache"])
        if os.path.exists(svg):
            shutil.move(svg, os.path.join(out, "history.svg"))
        run("export.jsonl", ["export", "--projects", projects, "--host", "hostA", "--no-cache"])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
