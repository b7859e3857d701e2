#!/usr/bin/env bash
# Benchmark: `ctxhooks compactions` (the compaction ledger) reads a 200 MB session with 10
# compactions in under a second.
#
# Builds a transcript by repeating real fixture lines with unique ids (their own compactions left
# out), with 10 compactions (a boundary with 2.1.332's metadata and a summary that names some of
# the segment's files and commands) at even places; then times `ctxhooks compactions
# --transcript FILE` in text and in JSON with hyperfine, on 1 MB and on 200 MB, and checks that
# the ledger found the 10 compactions.
#
# Usage: benches/compactions.sh [work folder]   (default: a fresh folder under /tmp)
# Needs: python3, hyperfine.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d /tmp/ctxhooks-bench.XXXXXX)}"
mkdir -p "$work"
fixtures="$repo/tests/fixtures/transcripts"
release_dir=$("$repo/install/build-release.sh" --bin ctxhooks)
ctxhooks="$release_dir/ctxhooks"

# generate <target bytes> <compactions> <output>
generate() {
    python3 - "$1" "$2" "$3" "$fixtures" <<'PY'
import json, sys
target, compactions, out, fixtures = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
sources = [
    fixtures + "/entireio__cli/a6/e4c2a0fbd1/0/full.jsonl",
    fixtures + "/d-kimuson__claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    fixtures + "/marot__spotter/tool_heavy.jsonl",
    fixtures + "/entireio__cli/00/c9e2351016/3/full.jsonl",
]
lines = [json.loads(l) for s in sources for l in open(s, encoding="utf-8") if l.strip()]
lines = [l for l in lines if l.get("subtype") != "compact_boundary" and not l.get("isCompactSummary")]
every = target // (compactions + 1)
written, copy, done = 0, 0, 0
with open(out, "w", encoding="utf-8") as f:
    while written < target:
        for record in lines:
            r = dict(record)
            if "uuid" in r: r["uuid"] = f"{r['uuid']}-{copy}"
            if "requestId" in r: r["requestId"] = f"{r['requestId']}-{copy}"
            if isinstance(r.get("message"), dict) and "id" in r["message"]:
                r["message"] = dict(r["message"]); r["message"]["id"] = f"{r['message']['id']}-{copy}"
            text = json.dumps(r, separators=(",", ":")) + "\n"
            f.write(text); written += len(text.encode())
            if done < compactions and written >= every * (done + 1):
                done += 1
                boundary = {"type": "system", "subtype": "compact_boundary", "uuid": f"boundary-{done}",
                    "timestamp": "2026-12-02T10:00:00.000Z", "compactMetadata": {"trigger": "auto",
                    "preTokens": 167000, "postTokens": 9000, "durationMs": 60000,
                    "preservedMessages": {"uuids": [f"kept-{done}"]}}}
                summary = {"type": "user", "isCompactSummary": True, "uuid": f"summary-{done}",
                    "message": {"role": "user", "content": "This session is being continued from a previous conversation that ran out of context.\n\nSummary:\n" + "We edited hooks_claudecode_handlers.go and ran mise run test. " * 200}}
                for extra in (boundary, summary):
                    text = json.dumps(extra, separators=(",", ":")) + "\n"
                    f.write(text); written += len(text.encode())
            if written >= target: break
        copy += 1
PY
}

results="$work/results.txt"
: > "$results"
for size in 1000000 200000000; do
    file="$work/ledger-$size.jsonl"
    [ -s "$file" ] || generate "$size" 10 "$file"
    found=$("$ctxhooks" compactions --json --transcript "$file" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["compactions"]), sum(c["counts"]["items"] for c in d["compactions"]))')
    echo "== $(stat -c %s "$file") bytes: compactions and items found: $found" | tee -a "$results"
    hyperfine --warmup 1 --runs 10 \
        "$ctxhooks compactions --transcript $file" \
        "$ctxhooks compactions --json --transcript $file" | tee -a "$results"
done
echo "results in $results"
