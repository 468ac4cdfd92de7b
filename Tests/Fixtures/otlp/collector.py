"""An OTLP/HTTP trace receiver for Gangway's tracing tests: not Gangway's code.

It reads what an OpenTelemetry exporter sends to a collector's /v1/traces (an
ExportTraceServiceRequest in protobuf, gzip-compressed or not), decoded with the
opentelemetry-proto package, and keeps each span it gets.

  POST /v1/traces   spans, in protobuf; answered with an empty ExportTraceServiceResponse
  GET  /spans       every span received, as JSON: service, scope, trace and span IDs
                    (hex), parent span ID, trace state, flags, name, kind, attributes,
                    events, links, status code and message, start and duration
  GET  /exports     how many exports were received

Writes its base URL to --ready-file once it listens; ends when its standard input closes.
"""

import argparse
import gzip
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span

parser = argparse.ArgumentParser()
parser.add_argument("--ready-file", required=True)
arguments = parser.parse_args()

lock = threading.Lock()
spans = []
exports = {"count": 0}


def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value(kv.value) for kv in any_value.kvlist_value.values}
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, kind) if kind else None


def attributes(key_values):
    return {a.key: value(a.value) for a in key_values}


def received(request):
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {
                    "service": resource.get("service.name"),
                    "scope": scope_spans.scope.name,
                    "traceID": span.trace_id.hex(),
                    "spanID": span.span_id.hex(),
                    "parentSpanID": span.parent_span_id.hex() or None,
                    "traceState": span.trace_state,
                    "flags": span.flags,
                    "name": span.name,
                    "kind": Span.SpanKind.Name(span.kind),
                    "attributes": attributes(span.attributes),
                    "events": [
                        {
                            "name": event.name,
                            "attributes": attributes(event.attributes),
                            "afterStartNanoseconds": event.time_unix_nano - span.start_time_unix_nano,
                        }
                        for event in span.events
                    ],
                    "links": [
                        {
                            "traceID": link.trace_id.hex(),
                            "spanID": link.span_id.hex(),
                            "attributes": attributes(link.attributes),
                        }
                        for link in span.links
                    ],
                    "status": span.status.code,
                    "statusMessage": span.status.message,
                    "startNanoseconds": span.start_time_unix_nano,
                    "durationNanoseconds": span.end_time_unix_nano - span.start_time_unix_nano,
                }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, data, content_type):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        with lock:
            body = list(spans) if self.path == "/spans" else dict(exports) if self.path == "/exports" else None
        if body is None:
            self.answer(404, b"{}", "application/json")
        else:
            self.answer(200, json.dumps(body).encode(), "application/json")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(length)
        if self.path != "/v1/traces":
            self.answer(404, b"", "text/plain")
            return
        if self.headers.get("Content-Encoding", "").lower() == "gzip":
            data = gzip.decompress(data)
        request = ExportTraceServiceRequest()
        try:
            request.ParseFromString(data)
        except DecodeError:
            self.answer(400, b"", "text/plain")
            return
        with lock:
            spans.extend(received(request))
            exports["count"] += 1
        self.answer(200, ExportTraceServiceResponse().SerializeToString(), "application/x-protobuf")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(arguments.ready_file + ".tmp", "w") as ready:
    ready.write("http://127.0.0.1:%d\n" % server.server_address[1])
os.rename(arguments.ready_file + ".tmp", arguments.ready_file)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
server.shutdown()
