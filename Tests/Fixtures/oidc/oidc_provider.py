#!/usr/bin/env python3
"""Test harness around the third-party `oidc-provider-mock` (PyPI, 0.4.8).

The real protocol work (authorize, code, token, refresh, userinfo, dynamic
registration, nonce, at_hash, client auth) is done by oidc-provider-mock /
authlib.  This file only adds test hooks that the mock lacks:

  * binds 127.0.0.1 on a free port (or --port) and prints one line
        READY http://127.0.0.1:PORT
    on stdout once it accepts connections (also --ready-file PATH);
  * exits when stdin reaches EOF (--exit-on-stdin-eof), so a crashed test
    never leaves it running; also exits on SIGTERM/SIGINT;
  * enforces PKCE (S256 only) -- the mock accepts and ignores code_challenge;
    --require-pkce also rejects authorize requests without code_challenge;
  * key rotation: POST /_test/rotate-key {"alg":"RS256"|"ES256","keep_old":bool}
    (ID tokens are re-signed with the current key; JWKS lists current + kept keys);
    --key-file PEM starts with a given private key;
  * one-shot ID-token tampering for negative tests:
    POST /_test/next-id-token {"claims":{"aud":"x"}, "remove":["nonce"],
                               "header":{"kid":"zzz"},
                               "sign_with":"unpublished"|"none"|"hmac-public-key"}
  * one-shot failures: POST /_test/fail-next {"path":"/jwks","status":503,"count":1}
  * RFC 7009 revocation at /oauth2/revoke (the mock has none);
  * refresh tokens that rotate, as Keycloak's, Okta's and Auth0's do: each refresh
    answers a new one, and the one it spent is refused from then on (the mock keeps
    them);
  * discovery additionally lists code_challenge_methods_supported and
    revocation_endpoint;
  * --no-kid publishes keys and signs ID tokens without a key ID, as the mock's
    0.3 line does (OpenID Connect requires `kid` only when several keys could
    have signed).
"""

import argparse
import base64
import hashlib
import hmac
import json
import os
import secrets
import signal
import sys
import threading
from urllib.parse import parse_qs, urlencode, urlparse

os.environ.setdefault("AUTHLIB_INSECURE_TRANSPORT", "1")

import flask  # noqa: E402
import joserfc.jwk  # noqa: E402
import werkzeug.serving  # noqa: E402
from joserfc import jwt  # noqa: E402

import oidc_provider_mock  # noqa: E402

BP = "oidc-provider-mock"


def b64url_json(segment: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))


def new_key(alg: str):
    if alg == "RS256":
        return joserfc.jwk.RSAKey.generate_key(2048, private=True, auto_kid=True)
    if alg == "ES256":
        return joserfc.jwk.ECKey.generate_key("P-256", private=True, auto_kid=True)
    raise ValueError(f"unsupported alg {alg}")


def alg_of(key) -> str:
    return "ES256" if isinstance(key, joserfc.jwk.ECKey) else "RS256"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--ready-file")
    ap.add_argument("--exit-on-stdin-eof", action="store_true")
    ap.add_argument("--require-registration", action="store_true")
    ap.add_argument("--require-nonce", action="store_true")
    ap.add_argument("--require-pkce", action="store_true")
    ap.add_argument("--no-pkce-enforcement", action="store_true")
    ap.add_argument("--no-refresh-token", action="store_true")
    ap.add_argument("--token-max-age", type=int, default=3600)
    ap.add_argument("--no-kid", action="store_true")
    ap.add_argument("--alg", default="RS256", choices=["RS256", "ES256"])
    ap.add_argument("--key-file", help="PEM private key (RSA or EC P-256) to start with")
    ap.add_argument("--user-claims", action="append", default=[],
                    help='JSON object with "sub", repeatable')
    args = ap.parse_args()

    from datetime import timedelta

    users = []
    for raw in args.user_claims:
        d = json.loads(raw)
        sub = d.pop("sub")
        users.append(oidc_provider_mock.User(sub=sub, claims=d))

    app = oidc_provider_mock.app(
        require_client_registration=args.require_registration,
        require_nonce=args.require_nonce,
        issue_refresh_token=not args.no_refresh_token,
        access_token_max_age=timedelta(seconds=args.token_max_age),
        user_claims=users,
    )
    app.debug = False  # mock sets debug=True; we do not want the debugger

    with app.test_request_context("/"):
        app.preprocess_request()
        storage = flask.g.oidc_provider_mock_storage

    lock = threading.Lock()
    if args.key_file:
        with open(args.key_file, "rb") as f:
            pem = f.read()
        try:
            current = joserfc.jwk.RSAKey.import_key(pem)
        except Exception:
            current = joserfc.jwk.ECKey.import_key(pem)
        current.ensure_kid()
    else:
        current = new_key(args.alg)
    state = {
        "current": current,          # signs every ID token
        "old": [],                   # still published in JWKS
        "next_id_token": None,       # one-shot tamper instructions
        "fail": [],                  # one-shot failures
        "pkce": {},                  # code -> (challenge, method)
        "spent": set(),              # refresh tokens a refresh used
    }
    if isinstance(current, joserfc.jwk.RSAKey):
        storage.jwk = current        # the mock signs with this; we re-sign anyway

    # Each refresh answers a new refresh token (stored by the mock like any other).
    oidc_provider_mock._app.RefreshTokenGrant.INCLUDE_NEW_REFRESH_TOKEN = True

    views = app.view_functions
    orig_discovery = views[f"{BP}.openid_config"]
    orig_authorize = views[f"{BP}.authorize"]
    orig_token = views[f"{BP}.issue_token"]

    def oauth_error(error: str, desc: str, status: int = 400):
        return flask.jsonify({"error": error, "error_description": desc}), status

    @app.before_request
    def injected_failures():
        with lock:
            for f in state["fail"]:
                if f["path"] == flask.request.path and f["count"] > 0:
                    f["count"] -= 1
                    return flask.Response(f.get("body", "injected failure"), f["status"])
        return None

    def discovery():
        resp = orig_discovery()
        doc = resp.get_json()
        base = flask.request.host_url.rstrip("/")
        doc["code_challenge_methods_supported"] = ["S256"]
        doc["revocation_endpoint"] = base + "/oauth2/revoke"
        doc["id_token_signing_alg_values_supported"] = ["RS256", "ES256"]
        doc["token_endpoint_auth_methods_supported"] = [
            "client_secret_basic", "client_secret_post", "none"]
        return flask.jsonify(doc)

    def jwks():
        with lock:
            keys = [state["current"], *state["old"]]
        out = []
        for k in keys:
            d = k.as_dict(private=False)
            d.setdefault("alg", alg_of(k))
            d.setdefault("use", "sig")
            if args.no_kid:
                d.pop("kid", None)
            out.append(d)
        return flask.jsonify({"keys": out})

    def authorize():
        a = flask.request.args
        challenge = a.get("code_challenge")
        method = a.get("code_challenge_method", "plain" if challenge else None)
        if not args.no_pkce_enforcement and flask.request.method == "POST":
            bad = None
            if args.require_pkce and not challenge:
                bad = "code_challenge required"
            elif challenge and method != "S256":
                bad = "only code_challenge_method=S256 is supported"
            if bad and a.get("redirect_uri"):
                q = {"error": "invalid_request", "error_description": bad}
                if a.get("state"):
                    q["state"] = a["state"]
                sep = "&" if "?" in a["redirect_uri"] else "?"
                return flask.redirect(a["redirect_uri"] + sep + urlencode(q))
        resp = orig_authorize()
        resp = flask.make_response(resp)
        loc = resp.headers.get("Location")
        if loc:
            code = parse_qs(urlparse(loc).query).get("code", [None])[0]
            if code:
                with lock:
                    state["pkce"][code] = (challenge, method)
        return resp

    def token():
        form = flask.request.form
        if form.get("grant_type") == "refresh_token":
            # Rotation: a refresh token is good for one refresh.
            with lock:
                spent = form.get("refresh_token", "")
                if spent in state["spent"]:
                    return oauth_error("invalid_grant", "refresh token already used")
                state["spent"].add(spent)
        if form.get("grant_type") == "authorization_code" and not args.no_pkce_enforcement:
            with lock:
                rec = state["pkce"].pop(form.get("code", ""), None)
            verifier = form.get("code_verifier")
            if rec is not None:
                challenge, _method = rec
                if challenge:
                    if not verifier:
                        return oauth_error("invalid_grant", "Missing 'code_verifier'")
                    calc = base64.urlsafe_b64encode(
                        hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode()
                    if calc != challenge:
                        return oauth_error("invalid_grant", "Invalid 'code_verifier'")
                elif verifier:
                    return oauth_error("invalid_grant", "code_verifier without code_challenge")
        resp = flask.make_response(orig_token())
        if resp.status_code != 200:
            return resp
        body = resp.get_json()
        if not body or "id_token" not in body:
            return resp
        h_seg, p_seg, _ = body["id_token"].split(".")
        header, claims = b64url_json(h_seg), b64url_json(p_seg)
        with lock:
            tamper, state["next_id_token"] = state["next_id_token"], None
            key = state["current"]
        tamper = tamper or {}
        if tamper.get("sign_with") == "unpublished":
            key = new_key(alg_of(key))
        header = {"typ": "JWT", "alg": alg_of(key), "kid": key.kid}
        if args.no_kid:
            del header["kid"]
        header.update(tamper.get("header", {}))
        claims.update(tamper.get("claims", {}))
        for name in tamper.get("remove", []):
            claims.pop(name, None)
        if tamper.get("sign_with") in ("none", "hmac-public-key"):
            # Classic forgeries: no signature at all, or an HMAC keyed with the
            # provider's public key (for a relying party that lets the token pick).
            def seg(obj):
                return base64.urlsafe_b64encode(
                    json.dumps(obj, separators=(",", ":")).encode()).rstrip(b"=").decode()
            if tamper["sign_with"] == "none":
                header = {"typ": "JWT", "alg": "none", "kid": key.kid}
                body["id_token"] = f"{seg(header)}.{seg(claims)}."
            else:
                header = {"typ": "JWT", "alg": "HS256", "kid": key.kid}
                signing_input = f"{seg(header)}.{seg(claims)}".encode()
                secret = json.dumps(key.as_dict(private=False), sort_keys=True).encode()
                mac = hmac.new(secret, signing_input, hashlib.sha256).digest()
                body["id_token"] = signing_input.decode() + "." + \
                    base64.urlsafe_b64encode(mac).rstrip(b"=").decode()
            return flask.jsonify(body)
        body["id_token"] = jwt.encode(header, claims, key, algorithms=[header["alg"]])
        return flask.jsonify(body)

    views[f"{BP}.openid_config"] = discovery
    views[f"{BP}.jwks"] = jwks
    views[f"{BP}.authorize"] = authorize
    views[f"{BP}.issue_token"] = token

    @app.post("/oauth2/revoke")
    def revoke():  # RFC 7009: always 200 for unknown tokens
        tok = flask.request.form.get("token", "")
        rt = storage.remove_refresh_token(tok)
        if rt is not None:
            storage.remove_access_token(rt.access_token)
        storage.remove_access_token(tok)
        return "", 200

    @app.post("/_test/rotate-key")
    def rotate_key():
        body = flask.request.get_json(silent=True) or {}
        with lock:
            alg = body.get("alg") or alg_of(state["current"])
            k = new_key(alg)
            if body.get("keep_old", False):
                state["old"].insert(0, state["current"])
            else:
                state["old"] = []
            state["current"] = k
            if isinstance(k, joserfc.jwk.RSAKey):
                storage.jwk = k
            return flask.jsonify({"kid": k.kid, "alg": alg,
                                  "published": [k.kid] + [o.kid for o in state["old"]]})

    @app.post("/_test/next-id-token")
    def next_id_token():
        with lock:
            state["next_id_token"] = flask.request.get_json(force=True)
        return "", 204

    @app.post("/_test/fail-next")
    def fail_next():
        body = flask.request.get_json(force=True)
        body.setdefault("count", 1)
        body.setdefault("status", 503)
        with lock:
            state["fail"].append(body)
        return "", 204

    server = werkzeug.serving.make_server(args.host, args.port, app, threaded=True)
    port = server.server_port
    issuer = f"http://{args.host}:{port}"

    def stop(*_):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if args.exit_on_stdin_eof:
        def watch_stdin():
            try:
                while sys.stdin.buffer.read(4096):
                    pass
            finally:
                stop()
        threading.Thread(target=watch_stdin, daemon=True).start()

    if args.ready_file:
        tmp = args.ready_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(issuer + "\n")
        os.replace(tmp, args.ready_file)
    print(f"READY {issuer}", flush=True)  # socket is already listening here
    server.serve_forever(poll_interval=0.2)
    server.server_close()


if __name__ == "__main__":
    main()
