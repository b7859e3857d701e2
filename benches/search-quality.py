#!/usr/bin/env python3
"""Search quality: known-item queries over the real transcripts of tests/fixtures/transcripts.

    benches/search-quality.py BIN_DIR [--seed N] [--per-kind N] [--limit N]

BIN_DIR holds the built `ctxhooks` and `ctxhooks-search` (`target/debug`, `target/release`, or
what install/build-release.sh prints). Standard library only.

Each main transcript of the fixtures is laid out as a session of a projects folder of its own
(its sub-agents' transcripts beside it as Claude Code 2.1 lays them out), in a temporary folder,
and indexed once by a first search. Then, for each kind of query, `--per-kind` known items are
drawn at random (the seed is printed; the same seed draws the same queries):

- `exact`: 2 to 6 consecutive words of a person's prompt or of the model's text, that one
  message alone holds (no other line of any transcript holds those words in that order, counted
  over every string of every line's `message`, tool calls and tool results included);
- `omitted`: the same kind of phrase of 3 to 6 words with one word left out (not its first or
  last);
- `misspelt`: the same kind of phrase with one word of 4 letters or more misspelt (two
  neighbouring letters swapped, or one left out).

Words are what SQLite FTS5's `unicode61` tokenizer makes of the text (runs of letters and digits),
joined by spaces, as a person types them. Each query runs as `ctxhooks search --json --limit N`
(default 10); reported per kind: hit@1, hit@5 and MRR (1/rank of the first right result, 0 when it
is not among the N) for the message (its session and byte offset) and for its session.
"""

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(REPO, "tests", "fixtures", "transcripts")
WORD = re.compile(r"\w+", re.UNICODE)


def fold(text):
    """Case folded, and the diacritics of Latin letters, as unicode61 folds them (a kana's
    voicing mark is no diacritic to it)."""
    out = []
    for character in text.lower():
        if "\u00c0" <= character <= "\u024f":
            decomposed = unicodedata.normalize("NFKD", character)
            character = "".join(c for c in decomposed if not unicodedata.combining(c))
        out.append(character)
    return "".join(out)


def tokens(text):
    # `\w` also takes `_`, which unicode61 splits on.
    return [token for word in WORD.findall(fold(text)) for token in word.split("_") if token]


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)


def said(record):
    """The words a person typed or the model wrote in a transcript line, or None."""
    if record.get("isMeta") or record.get("isCompactSummary") or record.get("isSidechain"):
        return None
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if record.get("type") == "user" and isinstance(content, str):
        return content
    if record.get("type") in ("user", "assistant") and isinstance(content, list):
        if any(isinstance(block, dict) and block.get("type") == "tool_result" for block in content):
            return None
        texts = [block.get("text", "") for block in content
                 if isinstance(block, dict) and block.get("type") == "text"]
        return "\n".join(texts) or None
    return None


def main_transcripts():
    """(path, sub-agent paths) of each fixture session: a sub-agent's file goes with the session
    it is filed under, or with the main transcript beside it (the flat 2.0 layout)."""
    mains, agents = [], []
    for path, _, names in os.walk(FIXTURES):
        for name in sorted(names):
            if name.endswith(".jsonl"):
                full = os.path.join(path, name)
                (agents if name.startswith("agent-") else mains).append(full)
    mains.sort()
    return [(main, sorted(a for a in agents if os.path.dirname(a) == os.path.dirname(main)))
            for main in mains]


def copy_lines(source, target):
    """Copies a transcript, ending its last line with a newline as Claude Code does (some
    fixtures were stored without it; the index reads complete lines only)."""
    with open(source, "rb") as file:
        data = file.read()
    with open(target, "wb") as file:
        file.write(data if data.endswith(b"\n") else data + b"\n")


def lay_out(projects):
    """Writes each fixture session as projects/-fixture-N/<id>.jsonl; returns the lines of each
    session as (session, offset, record), a sub-agent's with no session (they are never the
    known item, but they count for what one message alone holds)."""
    lines = []
    for number, (main, agents) in enumerate(main_transcripts()):
        session = f"00000000-0000-4000-8000-{number:012d}"
        folder = os.path.join(projects, f"-fixture-{number}")
        os.makedirs(os.path.join(folder, session, "subagents"))
        copy_lines(main, os.path.join(folder, f"{session}.jsonl"))
        for agent in agents:
            copy_lines(agent, os.path.join(folder, session, "subagents", os.path.basename(agent)))
        for path, is_main in [(main, True)] + [(agent, False) for agent in agents]:
            offset = 0
            with open(path, "rb") as file:
                for raw in file:
                    try:
                        record = json.loads(raw)
                    except ValueError:
                        record = None
                    if isinstance(record, dict):
                        lines.append((session if is_main else None, offset, record))
                    offset += len(raw)
    return lines


def draw(lines, rng, per_kind):
    """Known items: for each kind, `per_kind` (query, session, offset)."""
    # Every line's tokens, over every string of its `message`: what "held by one line" counts.
    held = [" " + " ".join(tokens("\n".join(strings(record.get("message"))))) + " "
            for _, _, record in lines]
    candidates = []
    for index, (session, offset, record) in enumerate(lines):
        text = said(record) if session else None
        words = tokens(text) if text else []
        if len(words) >= 3:
            candidates.append((index, session, offset, words))
    rng.shuffle(candidates)

    def unique(words, owner):
        needle = " " + " ".join(words) + " "
        return all((needle in text) == (i == owner) for i, text in enumerate(held))

    kinds = {"exact": [], "omitted": [], "misspelt": []}
    tried = 0
    for index, session, offset, words in candidates * 20:
        if all(len(items) >= per_kind for items in kinds.values()):
            break
        tried += 1
        kind = min(kinds, key=lambda k: len(kinds[k]))
        length = rng.randint(3 if kind == "omitted" else 2, 6)
        if len(words) < length:
            continue
        start = rng.randint(0, len(words) - length)
        phrase = words[start:start + length]
        if not unique(phrase, index):
            continue
        if kind == "exact":
            query = phrase
        elif kind == "omitted":
            left_out = rng.randint(1, length - 2)
            query = phrase[:left_out] + phrase[left_out + 1:]
        else:
            long = [i for i, word in enumerate(phrase) if len(word) >= 4 and word.isalpha()]
            if not long:
                continue
            at = rng.choice(long)
            word = phrase[at]
            cut = rng.randint(1, len(word) - 2)
            wrong = (word[:cut] + word[cut + 1] + word[cut] + word[cut + 2:]
                     if rng.random() < 0.5 and word[cut] != word[cut + 1]
                     else word[:cut] + word[cut + 1:])
            query = phrase[:at] + [wrong] + phrase[at + 1:]
        item = (" ".join(query), session, offset)
        if item not in kinds[kind]:
            kinds[kind].append(item)
    return kinds


def measure(ctxhooks, env, projects, items, limit):
    ranks_message, ranks_session, walls = [], [], []
    for query, session, offset in items:
        start = time.perf_counter()
        done = subprocess.run([ctxhooks, "search", "--json", "--limit", str(limit), "--projects",
                               projects, query], env=env, capture_output=True, text=True)
        walls.append(time.perf_counter() - start)
        if done.returncode != 0:
            sys.exit(f"search {query!r} failed: {done.stderr}")
        results = json.loads(done.stdout)["results"]
        ranks_message.append(next((rank for rank, result in enumerate(results, 1)
                                   if result["session"] == session and result["offset"] == offset), None))
        ranks_session.append(next((rank for rank, result in enumerate(results, 1)
                                   if result["session"] == session), None))
    return ranks_message, ranks_session, walls


def scores(ranks):
    n = len(ranks)
    hit1 = sum(1 for r in ranks if r == 1) / n
    hit5 = sum(1 for r in ranks if r is not None and r <= 5) / n
    mrr = sum(1 / r for r in ranks if r is not None) / n
    return f"hit@1 {hit1:.3f}  hit@5 {hit5:.3f}  MRR {mrr:.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bin_dir")
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument("--per-kind", type=int, default=100)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    ctxhooks = os.path.abspath(os.path.join(args.bin_dir, "ctxhooks"))
    version = subprocess.run([ctxhooks, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"== search quality: {ctxhooks} ({version}); seed {args.seed}, {args.per_kind} queries "
          f"per kind, --limit {args.limit}")
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as work:
        projects = os.path.join(work, "projects")
        lines = lay_out(projects)
        env = dict(os.environ, HOME=work, CLAUDE_CONFIG_DIR=os.path.join(work, "claude"),
                   CTXHOOKS_HOME=os.path.join(work, "state"), NO_COLOR="1")
        kinds = draw(lines, rng, args.per_kind)
        sessions = len({session for session, _, _ in lines if session})
        print(f"== {len(lines)} lines in {sessions} sessions of tests/fixtures/transcripts")
        subprocess.run([ctxhooks, "search", "--projects", projects, "zzzqqqnothing"], env=env,
                       check=True, capture_output=True)
        for kind, items in kinds.items():
            message, session, walls = measure(ctxhooks, env, projects, items, args.limit)
            print(f"{kind:9} {len(items):4} queries  message: {scores(message)}   "
                  f"session: {scores(session)}   median {statistics.median(walls) * 1e3:.0f} ms")
            if args.show_misses:
                for (query, _, _), rank in zip(items, message):
                    if rank != 1:
                        print(f"    rank {rank}: {query}")


main()
