#!/usr/bin/env bash
# Benchmark: `ctxhooks search` on the ~300 MB projects folder `benches/history-corpus.py` builds,
# everything side by side in one run (benches/search.py measures; see it for what):
#   1. the corpus as Claude Code left it: the first index build (MB of transcript per second,
#      wall clock and CPU), one new turn appended and searched, warm queries interleaved with
#      `rg -i -l` over the raw projects folder (what a person does today), the index's size;
#   2. the same corpus kept by the real Stop hook turn by turn, as with the hooks installed: the
#      kept copies' size against the index's, the first build from the kept copies, one new
#      turn, warm queries.
# Beside the warm queries of part 1, the floor (benches/floor.c, built with `cc -static` when there
# is a C compiler): an empty process, and one that only lists the folders and looks at each
# transcript once, which any search that sees every append must do.
# Built as install/setup.sh builds it. The machine, its load and the command are printed first.
# Usage: benches/search.sh [CORPUS_DIR] [RUNS] (default: a corpus built in a temporary folder,
# else a copy of CORPUS_DIR, whose projects/ the new turns are appended to; 20 runs per query).
# Needs python3 and rg (apt-get install -y ripgrep).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
command -v rg >/dev/null || { echo "needs ripgrep (rg)" >&2; exit 1; }
runs=${2:-20}
release_dir=$(install/build-release.sh --bin ctxhooks --bin ctxhooks-search --bin ctxhooks-stop)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -n "${1:-}" ]]; then
  # A copy: the new turns are appended to it, never to the given corpus.
  cp -r "$1" "$work/corpus"
else
  python3 benches/history-corpus.py "$work/corpus" >/dev/null
fi
python3 benches/search.py "$release_dir" "$work" "$runs"
