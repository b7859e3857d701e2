#!/usr/bin/env python3
"""Measures `ctxhooks search` for benches/search.sh (which builds the binaries and the corpus).

    benches/search.py RELEASE_DIR WORK_DIR RUNS

WORK_DIR/corpus/projects is the projects folder. Every time is a wall-clock time and the CPU time
(user + system) of the same run; the machine is shared, so its load average is printed beside
each part, and `rg` runs interleaved with `ctxhooks search` so that both meet the same load.

SEARCH_PARTS=1 runs part 1 alone (the Stop hook's replay of part 2 takes minutes).
SEARCH_BASELINE=DIR (a folder holding another build's `ctxhooks` and `ctxhooks-search`) indexes
the same projects folder with that build too, in a state folder of its own, and runs its warm
queries interleaved with this build's and rg's: both builds meet the same load.

Where a C compiler is found (`cc`, or $CC), benches/floor.c is built statically and run
interleaved with the warm queries too: an empty process, and one that lists every folder of the
projects folder and looks at each transcript once (what any search that sees every append must
do at least). Its times are the floor each query's time is shown against.
"""

import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

release, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
ctxhooks = os.path.join(release, "ctxhooks")
stop = os.path.join(release, "ctxhooks-stop")
projects = os.path.join(work, "corpus", "projects")
QUERIES = ["compaction", '"transcript renderer"', "AshComputer", "run the tests", "existing tests pass"]
PARTS = os.environ.get("SEARCH_PARTS", "1,2").split(",")
BASELINE = os.environ.get("SEARCH_BASELINE")


def load():
    return open("/proc/loadavg").read().split()[0]


def timed(command, env=None, ok=(0,)):
    """Runs `command`; returns (wall seconds, CPU seconds, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in ok:
        sys.exit(f"{command} failed ({done.returncode}): {done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def transcripts(folder):
    for path, _, names in os.walk(folder):
        for name in names:
            if name.endswith(".jsonl"):
                yield os.path.join(path, name)


def size_of(paths):
    return sum(os.path.getsize(path) for path in paths)


def ms(seconds):
    return f"{seconds * 1e3:.1f} ms"


class Part:
    """One state folder searched over one projects folder."""

    def __init__(self, name, state, folder, program=None):
        self.name, self.state, self.folder = name, state, folder
        self.program = program or ctxhooks
        self.env = dict(os.environ, CTXHOOKS_HOME=state)

    def search(self, *args):
        return timed([self.program, "search", "--projects", self.folder, *args], self.env)

    def first_build(self, size):
        wall, cpu, _ = self.search("--limit", "1", "zzzqqqnothing")
        print(f"first build: {wall:.2f} s wall ({size / 1e6 / wall:.0f} MB/s of transcript), "
              f"{cpu:.2f} s CPU ({size / 1e6 / cpu:.0f} MB/s); load {load()}")

    def new_turns(self, rounds=7):
        largest = max((p for p in transcripts(self.folder) if "subagents" not in p
                       and not os.path.basename(p).startswith("agent-")), key=os.path.getsize)
        first = json.loads(open(largest, encoding="utf-8").readline())
        walls, cpus = [], []
        for turn in range(1, rounds + 1):
            added = ""
            for kind, text in (("user", f"new turn {turn}: where is the kumquat{turn} config?"),
                               ("assistant", f"The kumquat{turn} config lives in settings.toml. " * 40)):
                line = {"type": kind, "uuid": f"bench-{kind}-{turn}", "sessionId": first.get("sessionId"),
                        "cwd": first.get("cwd"), "timestamp": "2026-12-02T00:00:00.000Z",
                        "message": {"role": kind, "content": text if kind == "user"
                                    else [{"type": "text", "text": text}]}}
                added += json.dumps(line) + "\n"
            with open(largest, "a", encoding="utf-8") as file:
                file.write(added)
            wall, cpu, out = self.search("--json", f"kumquat{turn}")
            outcome = json.loads(out)
            assert len(outcome["results"]) == 2, outcome
            assert outcome["indexed_bytes"] == len(added.encode()), outcome
            walls.append(wall)
            cpus.append(cpu)
        print(f"one new turn ({len(added)} bytes appended to a {os.path.getsize(largest) / 1e6:.0f} MB "
              f"transcript, indexed, then searched for): median {ms(statistics.median(walls))} wall, "
              f"{ms(statistics.median(cpus))} CPU over {rounds} turns (wall {[round(w * 1e3) for w in walls]} ms); "
              f"load {load()}")

    def warm(self, against_rg, baseline=None, floor=None):
        print(f"warm queries ({runs} runs each, interleaved with rg; load {load()}):")
        for query in QUERIES:
            ours, base, counts, files, lines, empty, looks = [], [], [], [], [], [], []
            words = query.strip('"')
            for _ in range(2):
                self.search("--limit", "10", query)
                if baseline:
                    baseline.search("--limit", "10", query)
            for _ in range(runs):
                ours.append(self.search("--limit", "10", query)[:2])
                if baseline:
                    base.append(baseline.search("--limit", "10", query)[:2])
                if floor:
                    empty.append(timed([floor])[:2])
                    looks.append(timed([floor, self.folder])[:2])
                if against_rg:
                    # The count of matching lines per file, the files that hold it (rg stops at
                    # each file's first match), and the lines themselves, as a person reads them
                    # (through a pipe).
                    counts.append(timed(["rg", "-i", "-c", words, projects], ok=(0, 1))[:2])
                    files.append(timed(["rg", "-i", "-l", words, projects], ok=(0, 1))[:2])
                    lines.append(timed(["rg", "-i", words, projects], ok=(0, 1))[:2])
            wall = statistics.median(w for w, _ in ours)
            cpu = statistics.median(c for _, c in ours)
            print(f"  ctxhooks search --limit 10 {query}: median {ms(wall)} wall, {ms(cpu)} CPU")
            if base:
                base_wall = statistics.median(w for w, _ in base)
                base_cpu = statistics.median(c for _, c in base)
                print(f"    baseline {BASELINE}: {ms(base_wall)} wall, {ms(base_cpu)} CPU; this build "
                      f"{wall / base_wall:.2f}x its wall, {cpu / base_cpu:.2f}x its CPU")
            if looks:
                empty_wall = statistics.median(w for w, _ in empty)
                look_wall = statistics.median(w for w, _ in looks)
                look_cpu = statistics.median(c for _, c in looks)
                print(f"    floor: an empty process {ms(empty_wall)} wall; listing the folders and "
                      f"looking at each transcript {ms(look_wall)} wall, {ms(look_cpu)} CPU; the "
                      f"search {wall / look_wall:.2f}x that, {ms(wall - look_wall)} above it")
            for name, runs_of in ((f"rg -i -c '{words}'", counts), (f"rg -i -l '{words}'", files),
                                  (f"rg -i '{words}'", lines)):
                if runs_of:
                    rg_wall = statistics.median(w for w, _ in runs_of)
                    rg_cpu = statistics.median(c for _, c in runs_of)
                    print(f"    {name}: {ms(rg_wall)} wall, {ms(rg_cpu)} CPU; search "
                          f"{rg_wall / wall:.1f}x faster (wall), {rg_cpu / cpu:.1f}x less CPU")

    def index_size(self):
        folder = os.path.join(self.state, "search")
        return size_of(os.path.join(folder, name) for name in os.listdir(folder))


def build_floor():
    """benches/floor.c built statically into the work folder, or None (said) without a compiler."""
    compiler = os.environ.get("CC") or shutil.which("cc")
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "floor.c")
    program = os.path.join(work, "floor")
    if compiler:
        done = subprocess.run([compiler, "-O2", "-static", "-o", program, source],
                              capture_output=True, text=True)
        if done.returncode == 0:
            return program
        print(f"== floor: `{compiler} -static` failed, no floor measured: {done.stderr.strip()}")
    else:
        print("== floor: no C compiler (cc), no floor measured")
    return None


def main():
    corpus_files = list(transcripts(projects))
    size = size_of(corpus_files)
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), platform.processor())
    print(f"== machine: {os.cpu_count()} cores, {cpu}, {platform.system()} {platform.release()}; "
          f"load {load()}")
    print(f"== corpus: {size} bytes in {len(corpus_files)} transcripts")

    print("\n== 1. the projects folder as Claude Code left it (nothing kept)")
    live = Part("live", os.path.join(work, "state-live"), projects)
    live.first_build(size)
    index = live.index_size()
    print(f"index: {index} bytes, {index / size:.3f} of the transcripts")
    baseline = None
    if BASELINE:
        baseline = Part("baseline", os.path.join(work, "state-baseline"), projects,
                        os.path.join(BASELINE, "ctxhooks"))
        print(f"baseline {BASELINE}:", end=" ")
        baseline.first_build(size)
    live.new_turns()
    live.warm(against_rg=True, baseline=baseline, floor=build_floor())
    if "2" not in PARTS:
        print(f"\n== load at the end {load()}")
        return

    print("\n== 2. the same transcripts kept by the Stop hook, one run per turn")
    kept_projects = os.path.join(work, "kept-projects")
    kept = Part("kept", os.path.join(work, "state-kept"), kept_projects)
    start = time.perf_counter()
    stops = replay(kept_projects, kept.env)
    print(f"kept by {stops} Stop runs in {time.perf_counter() - start:.0f} s")
    kept_size = 0
    for path, _, names in os.walk(os.path.join(kept.state, "sessions")):
        if os.sep + "kept" in path:
            kept_size += size_of(os.path.join(path, name) for name in names
                                 if ".jsonl." in name and (name.endswith(".gz") or name.endswith(".index.jsonl")))
    kept.first_build(size)
    index = kept.index_size()
    kept_mains = size_of(p for p in transcripts(kept_projects) if main_transcript(p))
    print(f"kept copies (gzip members and their indexes): {kept_size} bytes, "
          f"{kept_size / kept_mains:.3f} of the {kept_mains} bytes they keep")
    print(f"index: {index} bytes, {index / size:.3f} of all transcripts, "
          f"{index / kept_size:.2f} of the kept copies")
    kept.new_turns()
    kept.warm(against_rg=False)
    print(f"\n== load at the end {load()}")


def main_transcript(path):
    return "subagents" not in path and not os.path.basename(path).startswith("agent-")


def replay(out, env):
    """Copies the corpus into `out`, each main transcript written turn by turn (a turn ends
    before each prompt a person typed) with the Stop hook run after each, as Claude Code runs it
    (two sessions at a time); sub-agents' transcripts are copied whole (ctxhooks keeps them on
    SubagentStop, not here). Returns the number of Stop runs."""
    sessions = []
    for path, _, names in os.walk(projects):
        target = os.path.join(out, os.path.relpath(path, projects))
        os.makedirs(target, exist_ok=True)
        for name in names:
            source, copy = os.path.join(path, name), os.path.join(target, name)
            if name.endswith(".jsonl") and main_transcript(source):
                sessions.append((source, copy, name[:-len(".jsonl")]))
            else:
                shutil.copyfile(source, copy)

    def one(session):
        source, copy, session_id = session
        payload = json.dumps({"session_id": session_id, "transcript_path": copy, "cwd": "/",
                              "hook_event_name": "Stop", "stop_hook_active": False}).encode()
        runs = 0
        with open(source, "rb") as reader, open(copy, "wb") as writer:
            for line in reader:
                try:
                    record = json.loads(line)
                    prompt = record.get("type") == "user" and isinstance(
                        (record.get("message") or {}).get("content"), str)
                except ValueError:
                    prompt = False
                if prompt and writer.tell() > 0:
                    writer.flush()
                    subprocess.run([stop], input=payload, env=env, check=True, stdout=subprocess.DEVNULL)
                    runs += 1
                writer.write(line)
            writer.flush()
        subprocess.run([stop], input=payload, env=env, check=True, stdout=subprocess.DEVNULL)
        return runs + 1

    with ThreadPoolExecutor(max_workers=2) as pool:
        return sum(pool.map(one, sessions))


main()
