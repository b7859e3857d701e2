#!/usr/bin/env python3
"""Tiny OTLP/HTTP *JSON* logs sink for checking a collector pipeline locally.

Listens on 127.0.0.1 only. Accepts POST /v1/logs (optionally gzip/deflate
encoded, as the collector's otlphttp exporter sends by default), appends every
log record it receives as one JSON line to --out, and answers 200 with an
empty ExportLogsServiceResponse. GET /count returns the number of records so
far. Exits by itself after --max-seconds so it can never linger.

Only the standard library is used.
"""
import argparse
import gzip
import json
import sys
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STATE = {"records": 0, "requests": 0, "bad": 0}


def flatten_value(v):
    """OTLP JSON AnyValue -> plain Python value."""
    if not isinstance(v, dict):
        return v
    for k in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if k in v:
            return v[k]
    if "intValue" in v:
        return int(v["intValue"])
    if "arrayValue" in v:
        return [flatten_value(x) for x in v["arrayValue"].get("values", [])]
    if "kvlistValue" in v:
        return {kv["key"]: flatten_value(kv.get("value", {}))
                for kv in v["kvlistValue"].get("values", [])}
    return None


def make_handler(out_path):
    class H(BaseHTTPRequestHandler):
        def log_message(self, fmt, *args):  # keep stderr quiet
            pass

        def do_GET(self):
            if self.path != "/count":
                self.send_error(404)
                return
            with LOCK:
                body = json.dumps(STATE).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n)
            enc = (self.headers.get("Content-Encoding") or "").lower()
            ctype = (self.headers.get("Content-Type") or "").lower()
            try:
                if enc == "gzip":
                    raw = gzip.decompress(raw)
                elif enc in ("deflate", "zlib"):
                    raw = zlib.decompress(raw)
                elif enc not in ("", "identity"):
                    raise ValueError("unsupported Content-Encoding %r" % enc)
                if "json" not in ctype:
                    raise ValueError("expected JSON, got Content-Type %r "
                                     "(set encoding: json on the exporter)" % ctype)
                doc = json.loads(raw)
            except Exception as e:  # noqa: BLE001
                with LOCK:
                    STATE["bad"] += 1
                print("otlp_sink: bad request: %s" % e, file=sys.stderr, flush=True)
                self.send_error(400, str(e))
                return
            if self.path != "/v1/logs":
                self.send_error(404)
                return
            lines = []
            for rl in doc.get("resourceLogs", []):
                res = {a["key"]: flatten_value(a.get("value", {}))
                       for a in rl.get("resource", {}).get("attributes", [])}
                for sl in rl.get("scopeLogs", []):
                    for lr in sl.get("logRecords", []):
                        attrs = {a["key"]: flatten_value(a.get("value", {}))
                                 for a in lr.get("attributes", [])}
                        types = {a["key"]: (next(iter(a.get("value") or {}), "empty"))
                                 for a in lr.get("attributes", [])}
                        lines.append(json.dumps({
                            "resource": res,
                            "attributes": attrs,
                            "attribute_types": types,
                            "body": flatten_value(lr.get("body", {})),
                            "timeUnixNano": lr.get("timeUnixNano"),
                            "observedTimeUnixNano": lr.get("observedTimeUnixNano"),
                            "severityText": lr.get("severityText"),
                        }, sort_keys=True))
            with LOCK:
                with open(out_path, "a", encoding="utf-8") as f:
                    for line in lines:
                        f.write(line + "\n")
                STATE["records"] += len(lines)
                STATE["requests"] += 1
            body = b"{}"
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return H


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=14318)
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-seconds", type=float, default=300)
    a = ap.parse_args()
    open(a.out, "w").close()
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), make_handler(a.out))
    threading.Timer(a.max_seconds, srv.shutdown).start()
    print("otlp_sink: listening on 127.0.0.1:%d" % a.port, flush=True)
    srv.serve_forever()
    print("otlp_sink: stopped; %s" % json.dumps(STATE), flush=True)


if __name__ == "__main__":
    main()
