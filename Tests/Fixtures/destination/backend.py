"""A company backend for Gangway's destination tests: not Gangway's code.

It trusts the person a Gangway server forwards only after checking the bearer token with
PyJWT against the server's published keys (its JWKS client): the algorithm (ES256), the
issuer, the audience (this backend's own URL) and expiry. It answers who it sees.

  GET  /whoami            who the token names, and what else reached the backend
  POST /echo              the body's length and SHA-256, and who sent it
  GET  /download?bytes=N  N bytes, streamed
  GET  /redirect          a redirect to another host
  GET  /fixed             for a fixed-credential destination: the X-API-Key it got
  GET  /raw-token         the bearer token as it came, unchecked
  GET  /trace             the traceparent and tracestate headers as they came
  POST /check             verifies the token in the body, as a token of a forwarded request
  POST /early?status=N    answers N at once, before reading the body (as a backend that
                          refuses a body does), then reads the body and drops it; with
                          &close=1 it closes the connection instead, the body unread

Writes its base URL to --ready-file once it listens; ends when its standard input closes.
"""

import argparse
import hashlib
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import jwt

parser = argparse.ArgumentParser()
parser.add_argument("--jwks", required=True)
parser.add_argument("--issuer", required=True)
parser.add_argument("--ready-file", required=True)
parser.add_argument("--jwks-lifespan", type=float, default=300, help="seconds the key set is kept (PyJWT's default)")
arguments = parser.parse_args()

keys = jwt.PyJWKClient(arguments.jwks, cache_keys=True, lifespan=arguments.jwks_lifespan)
audience = None
seen = {"requests": 0}


def verify(token):
    key = keys.get_signing_key_from_jwt(token)
    return jwt.decode(
        token,
        key.key,
        algorithms=["ES256"],
        audience=audience,
        issuer=arguments.issuer,
        options={"require": ["exp", "iat", "sub", "jti", "aud", "iss"]},
    )


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, headers=None):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Set-Cookie", "backend-session=1")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            return self.rfile.read(length)
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return b""

    def claims(self):
        header = self.headers.get("Authorization", "")
        if not header.startswith("Bearer "):
            self.answer(401, {"error": "no bearer token"})
            return None
        try:
            return verify(header[len("Bearer "):])
        except Exception as error:  # noqa: BLE001 - the reason goes back to the test
            self.answer(401, {"error": type(error).__name__})
            return None

    def seen_by_backend(self, claims, url):
        return {
            "sub": claims["sub"],
            "app": claims.get("app"),
            "registration": claims.get("registration"),
            "name": claims.get("name"),
            "path": url.path,
            "query": url.query,
            "cookie": self.headers.get("Cookie"),
            "headers": sorted(name.lower() for name in self.headers.keys()),
            "token": self.headers.get("Authorization", "")[len("Bearer "):],
            "forwardedFor": self.headers.get("X-Forwarded-For"),
        }

    def do_GET(self):
        seen["requests"] += 1
        url = urlsplit(self.path)
        if url.path == "/redirect":
            self.answer(302, {}, {"Location": "http://other.example/steal"})
            return
        if url.path == "/trace":
            self.answer(200, {"traceparent": self.headers.get("traceparent"),
                              "tracestate": self.headers.get("tracestate"),
                              "count": len(self.headers.get_all("traceparent") or [])})
            return
        if url.path == "/raw-token":
            # For the tests of the checks themselves: the token as it came, unchecked.
            self.answer(200, {"token": self.headers.get("Authorization", "")[len("Bearer "):]})
            return
        if url.path == "/fixed":
            self.answer(200, {"apiKey": self.headers.get("X-API-Key"), "authorization": self.headers.get("Authorization")})
            return
        claims = self.claims()
        if claims is None:
            return
        if url.path == "/download":
            size = int(parse_qs(url.query).get("bytes", ["0"])[0])
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            chunk = b"g" * 65536
            while size > 0:
                part = chunk[: min(size, len(chunk))]
                self.wfile.write(part)
                size -= len(part)
            return
        self.answer(200, self.seen_by_backend(claims, url))

    def do_POST(self):
        seen["requests"] += 1
        url = urlsplit(self.path)
        if url.path == "/early":
            query = parse_qs(url.query)
            self.answer(int(query.get("status", ["413"])[0]), {"error": "refused before reading the body"})
            self.wfile.flush()
            if query.get("close") == ["1"]:
                self.close_connection = True
            else:
                self.body()
            return
        data = self.body()
        if url.path == "/check":
            try:
                self.answer(200, {"sub": verify(data.decode())["sub"]})
            except Exception as error:  # noqa: BLE001
                self.answer(401, {"error": type(error).__name__})
            return
        claims = self.claims()
        if claims is None:
            return
        answer = self.seen_by_backend(claims, url)
        answer["length"] = len(data)
        answer["sha256"] = hashlib.sha256(data).hexdigest()
        self.answer(200, answer)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
audience = "http://127.0.0.1:%d" % server.server_address[1]
with open(arguments.ready_file + ".tmp", "w") as ready:
    ready.write(audience + "\n")
os.rename(arguments.ready_file + ".tmp", arguments.ready_file)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
server.shutdown()
