#!/usr/bin/env bash
# Benchmark: `ctxhooks search` over the ~300 MB projects folder `benches/history-corpus.py` builds,
# side by side in one run: the first index build (MB of transcript per second), one new turn
# appended and searched (the update reads only it), warm queries against `rg -i` over the raw
# projects folder (what a person does today), and the index's size against the transcripts'.
# Built as install/setup.sh builds it.
# Usage: benches/search.sh [CORPUS_DIR] [RUNS] (default: a corpus built in a temporary folder,
# else a copy of CORPUS_DIR; 20 runs). Needs python3, hyperfine, rg (apt-get install -y hyperfine ripgrep).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
command -v hyperfine >/dev/null || { echo "needs hyperfine" >&2; exit 1; }
command -v rg >/dev/null || { echo "needs ripgrep (rg)" >&2; exit 1; }
runs=${2:-20}
release_dir=$(install/build-release.sh --bin ctxhooks)
ctxhooks="$release_dir/ctxhooks"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
corpus="$work/corpus"
if [[ -n "${1:-}" ]]; then
  # A copy: the new turns below are appended to it, never to the given corpus.
  cp -r "$1" "$corpus"
else
  python3 benches/history-corpus.py "$corpus" >/dev/null
fi
projects="$corpus/projects"
bytes=$(find "$projects" -name '*.jsonl' -type f -printf '%s\n' | awk '{s += $1} END {print s}')
files=$(find "$projects" -name '*.jsonl' -type f | wc -l)
echo "== corpus: $projects, $bytes bytes in $files transcripts"

export CTXHOOKS_HOME="$work/state"
search() { "$ctxhooks" search --projects "$projects" "$@"; }

echo "== first build (an empty state folder; the query finds nothing)"
start=$(date +%s.%N)
search zzzqqqnothing --limit 1 >/dev/null
end=$(date +%s.%N)
python3 - "$start" "$end" "$bytes" <<'PY'
import sys
start, end, size = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
print(f"first build: {end - start:.2f} s, {size / 1e6 / (end - start):.1f} MB/s of transcript")
PY
index="$CTXHOOKS_HOME/search/index.sqlite"
python3 - "$index" "$bytes" <<'PY'
import os, sys
size, total = os.path.getsize(sys.argv[1]), int(sys.argv[2])
print(f"index: {size} bytes, {size / total:.3f} of the transcripts (kept copies: 0.22-0.29, BENCHMARKS.md)")
PY

echo "== one new turn: appended to the largest transcript, then searched for (update + query)"
largest=$(find "$projects" -name '*.jsonl' -type f -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
for round in 1 2 3 4 5; do
  python3 - "$largest" "$round" <<'PY'
import json, sys
path, round_ = sys.argv[1], sys.argv[2]
first = json.loads(open(path, encoding="utf-8").readline())
for kind, text in (("user", f"new turn {round_}: where is the kumquat{round_} config?"),
                   ("assistant", f"The kumquat{round_} config lives in settings.toml. " * 40)):
    line = {"type": kind, "uuid": f"bench-{kind}-{round_}", "sessionId": first.get("sessionId"),
            "cwd": first.get("cwd"), "timestamp": "2026-12-02T00:00:00.000Z",
            "message": {"role": kind, "content": text if kind == "user" else [{"type": "text", "text": text}]}}
    open(path, "a", encoding="utf-8").write(json.dumps(line) + "\n")
PY
  start=$(date +%s.%N)
  found=$(search --json "kumquat$round" | python3 -c 'import json,sys; o=json.load(sys.stdin); print(len(o["results"]), o["indexed_bytes"])')
  end=$(date +%s.%N)
  python3 -c "import sys; print(f'new turn {sys.argv[1]}: {(float(sys.argv[3]) - float(sys.argv[2])) * 1e3:.0f} ms (results, bytes indexed: {sys.argv[4]})')" "$round" "$start" "$end" "$found"
done

echo "== warm queries: ctxhooks search (update with nothing new + query) against rg -i, $runs runs each"
for query in compaction 'transcript renderer' 'AshComputer'; do
  hyperfine --style basic --warmup 2 --runs "$runs" -N \
    --command-name "ctxhooks search '$query'" "$ctxhooks search --projects $projects --limit 10 \"$query\"" \
    --command-name "rg -i -l '$query'" "rg -i -l \"$query\" $projects" 2>&1 \
    | grep -E "^(Benchmark|  Time|  Range|    [0-9.]+ ± [0-9.]+ times faster| +[0-9.]+ ±)|faster than" || true
done
