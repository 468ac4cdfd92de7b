"""A company's OData v4 service for Gangway's data source tests: not Gangway's code.

It serves one entity set, Checks (key ID), in OData v4 JSON, with change tracking as the
OData v4.01 protocol (11.3) and JSON format (15) describe it:

  GET /odata/Checks        with `Prefer: odata.track-changes`, the set a page at a time
                           (`odata.maxpagesize`, 1,000 by default), `@odata.nextLink` on each
                           page but the last, `@odata.deltaLink` on the last, and
                           `Preference-Applied`
  GET /odata/Checks?$deltatoken=N
                           the entities changed since the read that gave the link (each in
                           its state now), and those removed as
                           `{"@removed": {"reason": "deleted"}, "@id": "Checks('ID')"}`, paged
                           the same way, then a new delta link; a token older than the
                           expired mark answers 410 Gone

A request is served only with the credential it is started with: a bearer token signed by
the Gangway server (checked with PyJWT against --jwks, issuer --issuer, audience this
service's own URL, ES256), or the X-API-Key --api-key.

Writes, each as the person the Gangway server names in its token (PyJWT, as above), once
by its `Idempotency-Key` (the same key again answers what it answered the first time,
applying nothing):

  PATCH  /odata/Checks('ID')  changes the fields sent; answers the entity (200)
  POST   /odata/Checks        creates the entity sent (201)
  DELETE /odata/Checks('ID')  removes it (204)

A write is refused by the company's rule with 400 and an OData error: a TyrePressure
outside 150 to 300 (`TYRE_PRESSURE_OUT_OF_RANGE`); a PATCH or DELETE of an entity it does
not have is 404. Its control `POST /control/slow {"ms": N}` makes each answer wait N ms, `POST /control/hold {"ms": N}`
makes a write that applied wait N ms after it applied before it answers (a replayed one answers at
once), and `POST /control/loop {"on": true}` makes each page's next link the page itself.

Control, for the tests (no credential): POST /control/load {"count": N} puts N checks;
POST /control/change {"put": [{...}], "remove": [ids]} changes them as the company would;
POST /control/expire makes every delta token given so far expire; POST /control/fail
{"count": N, "status": S} answers the next N writes S (their idempotency keys in `failures`);
GET /control/stats what it saw.

Writes its base URL (…/odata) to --ready-file once it listens; ends when its standard input
closes.
"""

import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import jwt

parser = argparse.ArgumentParser()
parser.add_argument("--jwks")
parser.add_argument("--issuer")
parser.add_argument("--api-key")
parser.add_argument("--ready-file", required=True)
arguments = parser.parse_args()

keys = jwt.PyJWKClient(arguments.jwks, cache_keys=True) if arguments.jwks else None
lock = threading.Lock()
# The set: ID -> entity, and the change log: ID -> the sequence of its last change.
checks = {}
changed_at = {}
removed_at = {}
state = {"sequence": 0, "expired_below": 0, "fail": 0, "fail_status": 503}
stats = {"requests": 0, "pages": 0, "subjects": [], "refused": 0, "prefer": [], "writes": [], "applied": {},
         "failed": 0, "failures": []}
# Idempotency-Key -> (status, document) answered the first time.
answered = {}
base_url = None


def put(entity):
    state["sequence"] += 1
    checks[entity["ID"]] = entity
    changed_at[entity["ID"]] = state["sequence"]
    removed_at.pop(entity["ID"], None)


def remove(identifier):
    state["sequence"] += 1
    if checks.pop(identifier, None) is not None:
        changed_at.pop(identifier, None)
        removed_at[identifier] = state["sequence"]


def check(number):
    return {
        "ID": "C-%07d" % number,
        "Aircraft": "D-A%03d" % (number % 500),
        "Station": ["FRA", "MUC", "HAM", "BER"][number % 4],
        "Status": "open",
        "TyrePressure": 200 + number % 20,
        "Torque": 12.5,
        "Signed": False,
        "Note": None,
        "Remark@odata.type": "#String",
        "@odata.etag": 'W/"%d"' % number,
    }


def authorized(headers):
    if arguments.api_key is not None and headers.get("X-API-Key") == arguments.api_key:
        stats["subjects"].append("api-key")
        return "api-key"
    value = headers.get("Authorization", "")
    if keys is None or not value.startswith("Bearer "):
        return None
    token = value[len("Bearer "):]
    try:
        key = keys.get_signing_key_from_jwt(token)
        claims = jwt.decode(
            token,
            key.key,
            algorithms=["ES256"],
            audience=base_url,
            issuer=arguments.issuer,
            leeway=60,
            options={"require": ["exp", "iat", "sub", "jti", "aud", "iss"]},
        )
    except Exception:
        return None
    stats["subjects"].append(claims["sub"])
    return claims["sub"]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, document, headers=None):
        body = b"" if document is None else json.dumps(document, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json;odata.metadata=minimal")
        self.send_header("OData-Version", "4.01")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"{}")

    def do_POST(self):
        path = urlsplit(self.path).path
        if path.startswith("/odata/"):
            return self.write("POST")
        with lock:
            if path == "/control/load":
                start = len(checks) + 1
                for number in range(start, start + self.body()["count"]):
                    put(check(number))
                return self.send(200, {"count": len(checks)})
            if path == "/control/change":
                change = self.body()
                for entity in change.get("put", []):
                    put(entity)
                for identifier in change.get("remove", []):
                    remove(identifier)
                return self.send(200, {"count": len(checks)})
            if path == "/control/expire":
                state["expired_below"] = state["sequence"] + 1
                return self.send(200, {})
            if path == "/control/loop":
                state["loop"] = self.body().get("on", True)
                return self.send(200, {})
            if path == "/control/slow":
                state["slow"] = self.body()["ms"] / 1000.0
                return self.send(200, {})
            if path == "/control/hold":
                state["hold"] = self.body()["ms"] / 1000.0
                return self.send(200, {})
            if path == "/control/fail":
                change = self.body()
                state["fail"] = change["count"]
                state["fail_status"] = change.get("status", 503)
                return self.send(200, {})
        self.send(404, {"error": {"code": "NotFound", "message": "No such resource."}})

    def write(self, method):
        import re
        import time
        parts = urlsplit(self.path)
        if state.get("slow"):
            time.sleep(state["slow"])
        with lock:
            stats["requests"] += 1
            if state["fail"] > 0:
                state["fail"] -= 1
                stats["failed"] += 1
                stats["failures"].append(self.headers.get("Idempotency-Key"))
                self.body()
                return self.send(state["fail_status"], {"error": {"code": "Unavailable", "message": "Try later."}})
        subject = authorized(self.headers)
        if not subject:
            stats["refused"] += 1
            return self.send(401, {"error": {"code": "Unauthorized", "message": "Who are you?"}})
        key = self.headers.get("Idempotency-Key")
        document = self.body() if method != "DELETE" else {}
        match = re.fullmatch(r"/odata/Checks(?:\('((?:[^']|'')*)'\))?", parts.path)
        if match is None:
            return self.send(404, {"error": {"code": "NotFound", "message": "No such resource."}})
        identifier = match.group(1).replace("''", "'") if match.group(1) is not None else None
        with lock:
            if key is not None and key in answered:
                status, answer = answered[key]
                stats["writes"].append({"key": key, "sub": subject, "method": method, "replayed": True})
                return self.send(status, answer)
            status, answer = self.apply(method, identifier, document)
            if key is not None:
                answered[key] = (status, answer)
            stats["writes"].append({"key": key, "sub": subject, "method": method, "id": identifier, "status": status})
            if status < 300 and key is not None:
                stats["applied"][key] = stats["applied"].get(key, 0) + 1
            hold = state.get("hold") if status < 300 else None
        if hold:
            time.sleep(hold)
        return self.send(status, answer)

    def apply(self, method, identifier, document):
        pressure = document.get("TyrePressure")
        if pressure is not None:
            try:
                value = float(pressure)
            except (TypeError, ValueError):
                value = -1
            if not 150 <= value <= 300:
                return 400, {"error": {"code": "TYRE_PRESSURE_OUT_OF_RANGE",
                                       "message": "A tyre pressure is from 150 to 300 kPa."}}
        if method == "POST":
            identifier = document.get("ID")
            if not identifier or identifier in checks:
                return 409, {"error": {"code": "Conflict", "message": "The check exists."}}
            put(dict(document))
            return 201, checks[identifier]
        if identifier not in checks:
            return 404, {"error": {"code": "NotFound", "message": "No such check."}}
        if method == "DELETE":
            remove(identifier)
            return 204, None
        entity = dict(checks[identifier])
        for name, value in document.items():
            if name != "ID":
                entity[name] = value
        put(entity)
        return 200, entity

    def do_PATCH(self):
        self.write("PATCH")

    def do_DELETE(self):
        self.write("DELETE")

    def do_GET(self):
        parts = urlsplit(self.path)
        if parts.path == "/control/stats":
            with lock:
                return self.send(200, stats)
        if parts.path != "/odata/Checks":
            return self.send(404, {"error": {"code": "NotFound", "message": "No such resource."}})
        with lock:
            stats["requests"] += 1
            if state["fail"] > 0:
                state["fail"] -= 1
                return self.send(state["fail_status"], {"error": {"code": "Unavailable", "message": "Try later."}})
        if not authorized(self.headers):
            stats["refused"] += 1
            return self.send(401, {"error": {"code": "Unauthorized", "message": "Who are you?"}})
        query = {name: values[0] for name, values in parse_qs(parts.query).items()}
        prefer = self.headers.get("Prefer", "")
        stats["prefer"].append(prefer)
        size = 1000
        for preference in prefer.split(","):
            name, _, value = preference.strip().partition("=")
            if name == "odata.maxpagesize" and value.isdigit():
                size = max(1, int(value))
        with lock:
            stats["pages"] += 1
            if "$deltatoken" in query:
                since = int(query["$deltatoken"])
                if since < state["expired_below"]:
                    return self.send(410, {"error": {"code": "Gone", "message": "The delta token expired."}})
                rows = sorted(
                    [(sequence, "put", identifier) for identifier, sequence in changed_at.items() if sequence > since]
                    + [(sequence, "remove", identifier) for identifier, sequence in removed_at.items() if sequence > since]
                )
                upto = int(query.get("$upto", state["sequence"]))
                rows = [row for row in rows if row[0] <= upto]
                skip = int(query.get("$skiptoken", 0))
                page = rows[skip:skip + size]
                value = [
                    dict(checks[identifier]) if kind == "put"
                    else {"@removed": {"reason": "deleted"}, "@id": "Checks('%s')" % identifier}
                    for _, kind, identifier in page
                ]
                document = {"@context": "$metadata#Checks/$delta", "value": value}
                if skip + size < len(rows):
                    document["@nextLink"] = "Checks?$deltatoken=%d&$upto=%d&$skiptoken=%d" % (since, upto, skip + size)
                else:
                    document["@deltaLink"] = "Checks?$deltatoken=%d" % upto
                return self.send(200, document, {"Preference-Applied": "odata.maxpagesize=%d" % size})
            identifiers = sorted(checks)
            after = query.get("$skiptoken")
            start = 0
            if after is not None:
                import bisect
                start = bisect.bisect_right(identifiers, after)
            page = identifiers[start:start + size]
            snapshot = int(query.get("$snapshot", state["sequence"]))
            document = {"@odata.context": "$metadata#Checks", "value": [dict(checks[i]) for i in page]}
            if state.get("loop"):
                # A broken service: its next link is the page it just gave.
                document["@odata.nextLink"] = "%s/Checks?%s" % (base_url, parts.query)
            elif start + size < len(identifiers):
                document["@odata.nextLink"] = "%s/Checks?$skiptoken=%s&$snapshot=%d" % (base_url, page[-1], snapshot)
            elif "odata.track-changes" in prefer:
                document["@odata.deltaLink"] = "%s/Checks?$deltatoken=%d" % (base_url, snapshot)
            applied = "odata.maxpagesize=%d" % size + (", odata.track-changes" if "odata.track-changes" in prefer else "")
            return self.send(200, document, {"Preference-Applied": applied})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
base_url = "http://127.0.0.1:%d/odata" % server.server_address[1]
threading.Thread(target=server.serve_forever, daemon=True).start()
with open(arguments.ready_file + ".tmp", "w") as ready:
    ready.write(base_url + "\n")
os.replace(arguments.ready_file + ".tmp", arguments.ready_file)
sys.stdin.read()
server.shutdown()
