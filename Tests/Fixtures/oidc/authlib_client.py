#!/usr/bin/env python3
"""Interoperability check: drive Gangway's OAuth 2.0 / OpenID Connect server with Authlib.

Usage:
    python authlib_client.py --server URL --username alice --password PASSWORD [--app checks]

Expects a running server whose app (default `checks`) has authentication type
`oauth2` with the redirect URI http://127.0.0.1/callback (loopback: any port matches,
RFC 8252). Every protocol step goes through Authlib's OAuth2Client (httpx2-based,
Authlib 1.9.9) and Authlib's DEFAULT ID token validation (`authlib.jose.jwt.decode`
then `claims.validate()`, leeway 0); only the sign-in pages are driven by hand, as a
browser would: a cookie jar, the form's hidden fields (form_token among them), a
same-origin POST, and the 303 read without following it.

Steps, one line each, `ok STEP` or `FAIL STEP: reason`:
  discovery       OpenID configuration and RFC 8414 metadata agree on the issuer
  authorization   code grant with PKCE S256, nonce, state; RFC 9207 `iss` checked
  id_token        JWKS, signature, iss/aud/nonce/exp/iat validated by Authlib defaults
  refresh         new access token, rotated refresh token; the spent one is refused
                  (invalid_grant), and so is the rotated one after that reuse (RFC 9700)
  revocation      RFC 7009 revoke_token; userinfo answers 200 before, 401 after
  device          RFC 8628: codes, approval on the two-step page, polling, ID token
Exit status 0 only if every step passes. No token or password is printed.
"""

import argparse
import sys
import time
import warnings
from html.parser import HTMLParser
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx2  # Authlib's httpx integration runs on httpx2
from authlib.common.security import generate_token
from authlib.integrations.httpx_client import OAuth2Client, OAuthError

# authlib.jose (asked for: Authlib's own default JWT validation) warns that it is
# deprecated in favour of joserfc; keep the output to one line per step. This must
# follow Authlib's import, which installs an "always" filter for its warnings.
warnings.filterwarnings("ignore", message="authlib.jose module is deprecated")
from authlib.jose import JsonWebKey, jwt  # noqa: E402

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


class Fail(Exception):
    pass


def check(condition, reason):
    if not condition:
        raise Fail(reason)


class FormParser(HTMLParser):
    """Collects the first form's action and its hidden inputs."""

    def __init__(self):
        super().__init__()
        self.action, self.hidden, self.seen = None, {}, False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and not self.seen:
            self.seen, self.action = True, attrs.get("action") or ""
        elif tag == "input" and self.seen and attrs.get("type") == "hidden":
            self.hidden[attrs.get("name")] = attrs.get("value") or ""


def submit_page(browser, url, fields):
    """GETs a sign-in page and POSTs its form as a browser would; returns the answer."""
    page = browser.get(url)
    check(page.status_code == 200, f"GET page answered {page.status_code}")
    form = FormParser()
    form.feed(page.text)
    check(form.seen and "form_token" in form.hidden, "no form with a form_token on the page")
    target = urljoin(str(page.url), form.action)
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(target))
    headers = {"Origin": origin, "Sec-Fetch-Site": "same-origin"}
    return browser.post(target, data={**form.hidden, **fields}, headers=headers)


def validate_id_token(id_token, jwks, issuer, client_id, nonce=None):
    """Authlib's default validation; returns the claims or raises Fail with Authlib's error."""
    options = {"iss": {"essential": True, "value": issuer}, "aud": {"essential": True, "value": client_id}}
    if nonce is not None:
        options["nonce"] = {"essential": True, "value": nonce}
    claims = {}
    try:
        claims = jwt.decode(id_token, JsonWebKey.import_key_set(jwks), claims_options=options)
        claims.validate()
    except Exception as error:  # Authlib's JoseError subclasses, reported verbatim
        times = {k: claims[k] for k in ("iat", "exp") if k in claims}
        raise Fail(f"{type(error).__name__}: {error} (now={int(time.time())}, {times})") from error
    return claims


def oauth_error(call):
    """Runs `call`, which must fail with an OAuth error; returns the error code."""
    try:
        call()
    except OAuthError as error:
        return error.error
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", required=True, help="base URL, e.g. http://127.0.0.1:8080")
    parser.add_argument("--username", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--app", default="checks", help="app ID, which is also the client_id")
    parser.add_argument("--redirect-uri", default="http://127.0.0.1:53682/callback")
    args = parser.parse_args()
    base, app = args.server.rstrip("/"), args.app
    login = {"username": args.username, "password": args.password, "decision": "approve"}
    state = {}
    http = httpx2.Client(timeout=15)

    def new_client():
        return OAuth2Client(client_id=app, token_endpoint_auth_method="none", scope="openid profile",
                            redirect_uri=args.redirect_uri, code_challenge_method="S256", timeout=15)

    def sign_in():
        """Authorization code grant with PKCE S256; returns (client, token, nonce)."""
        meta, client = state["meta"], new_client()
        verifier, nonce = generate_token(64), generate_token(24)
        url, sent_state = client.create_authorization_url(
            meta["authorization_endpoint"], code_verifier=verifier, nonce=nonce, state=generate_token(24))
        with httpx2.Client(follow_redirects=False, timeout=15) as browser:
            answer = submit_page(browser, url, login)
        check(answer.status_code == 303, f"authorize POST answered {answer.status_code}, not 303")
        location = answer.headers.get("location", "")
        check(location.split("?")[0] == args.redirect_uri, "303 not to the redirect URI")
        query = parse_qs(urlsplit(location).query)
        check("error" not in query, f"authorization error {query.get('error')}")
        check(query.get("iss") == [meta["issuer"]], "authorization response iss missing or wrong (RFC 9207)")
        token = client.fetch_token(meta["token_endpoint"], authorization_response=location,
                                   code_verifier=verifier, state=sent_state)
        check(token.get("token_type", "").lower() == "bearer", "token_type is not Bearer")
        check(token.get("access_token") and token.get("refresh_token") and token.get("id_token"),
              "token response lacks access_token, refresh_token or id_token")
        return client, token, nonce

    def discovery():
        oidc = http.get(f"{base}/apps/{app}/.well-known/openid-configuration")
        rfc8414 = http.get(f"{base}/.well-known/oauth-authorization-server/apps/{app}")
        check(oidc.status_code == 200 and rfc8414.status_code == 200,
              f"metadata answered {oidc.status_code} / {rfc8414.status_code}")
        meta, other = oidc.json(), rfc8414.json()
        check(meta["issuer"] == f"{base}/apps/{app}" == other["issuer"], "issuers differ")
        for key in ("authorization_endpoint", "token_endpoint", "device_authorization_endpoint",
                    "revocation_endpoint", "jwks_uri", "userinfo_endpoint"):
            check(meta.get(key), f"no {key} in the OpenID configuration")
        check("S256" in meta.get("code_challenge_methods_supported", []), "S256 not supported")
        check("none" in meta.get("token_endpoint_auth_methods_supported", []), "public clients not supported")
        jwks = http.get(meta["jwks_uri"])
        check(jwks.status_code == 200 and jwks.json().get("keys"), "JWKS empty or unavailable")
        state.update(meta=meta, jwks=jwks.json())

    def authorization():
        state["client"], state["token"], state["nonce"] = sign_in()

    def id_token():
        meta = state["meta"]
        claims = validate_id_token(state["token"]["id_token"], state["jwks"], meta["issuer"], app, state["nonce"])
        check(claims.get("sub") == args.username, "sub is not the user name")

    def refresh():
        meta, client = state["meta"], state["client"]
        old = dict(state["token"])
        new = client.refresh_token(meta["token_endpoint"], refresh_token=old["refresh_token"])
        check(new.get("access_token") and new["access_token"] != old["access_token"], "no new access token")
        check(new.get("refresh_token") and new["refresh_token"] != old["refresh_token"], "refresh token not rotated")
        check(client.get(meta["userinfo_endpoint"]).status_code == 200, "new access token refused by userinfo")
        # A copy of the spent token, used from another address (the server trusts loopback as
        # its proxy here): the token's own client refreshing twice at once is let through
        # for a few seconds, a copy never is.
        reuse = oauth_error(
            lambda: client.refresh_token(
                meta["token_endpoint"],
                refresh_token=old["refresh_token"],
                headers={"X-Forwarded-For": "203.0.113.9"},
            )
        )
        check(reuse == "invalid_grant", f"spent refresh token used again: {reuse or 'accepted'}, not invalid_grant")
        family = oauth_error(lambda: client.refresh_token(meta["token_endpoint"], refresh_token=new["refresh_token"]))
        check(family == "invalid_grant", f"rotated refresh token after reuse: {family or 'accepted'}, not revoked")
        if new.get("id_token"):  # checked last, so rotation and reuse are reported on their own
            try:
                validate_id_token(new["id_token"], state["jwks"], meta["issuer"], app)
            except Fail as error:
                raise Fail(f"rotation and reuse detection fine, but the refreshed ID token: {error}") from error

    def revocation():
        meta = state["meta"]
        client, token, _ = sign_in()  # fresh tokens: the refresh step's reuse revoked the first family
        check(client.get(meta["userinfo_endpoint"]).status_code == 200, "userinfo refused a live access token")
        answer = client.revoke_token(meta["revocation_endpoint"], token=token["access_token"],
                                     token_type_hint="access_token")
        check(answer.status_code == 200, f"revoke answered {answer.status_code}")
        after = client.get(meta["userinfo_endpoint"]).status_code
        check(after == 401, f"userinfo with the revoked access token answered {after}, not 401")

    def device():
        meta, client = state["meta"], new_client()
        codes = client.request("POST", meta["device_authorization_endpoint"], withhold_token=True,
                               data={"client_id": app, "scope": "openid profile"})
        check(codes.status_code == 200, f"device_authorization answered {codes.status_code}")
        codes = codes.json()
        with httpx2.Client(follow_redirects=False, timeout=15) as browser:
            approved = submit_page(browser, codes["verification_uri_complete"], login)
        check(approved.status_code == 200, f"device page POST answered {approved.status_code}, not 200")
        interval, deadline = int(codes.get("interval", 5)), time.monotonic() + min(codes["expires_in"], 90)
        while True:
            time.sleep(interval)
            try:
                token = client.fetch_token(meta["token_endpoint"], grant_type=DEVICE_GRANT,
                                           device_code=codes["device_code"])
                break
            except OAuthError as error:
                if error.error == "slow_down":
                    interval += 5
                elif error.error != "authorization_pending":
                    raise Fail(f"device token poll: {error.error}")
                check(time.monotonic() < deadline, "device code never approved")
        check(token.get("access_token") and token.get("id_token"), "device grant gave no access or ID token")
        claims = validate_id_token(token["id_token"], state["jwks"], meta["issuer"], app)
        check(claims.get("sub") == args.username, "device ID token sub is not the user name")

    steps = [("discovery", discovery, []), ("authorization", authorization, ["meta"]),
             ("id_token", id_token, ["token"]), ("refresh", refresh, ["token"]),
             ("revocation", revocation, ["meta"]), ("device", device, ["meta"])]
    failed = 0
    for name, step, needs in steps:
        missing = [need for need in needs if need not in state]
        try:
            check(not missing, f"skipped, an earlier step gave no {', '.join(missing)}")
            step()
            print(f"ok {name}", flush=True)
        except Fail as error:
            failed += 1
            print(f"FAIL {name}: {error}", flush=True)
        except OAuthError as error:
            failed += 1
            print(f"FAIL {name}: OAuth error {error.error}: {error.description}", flush=True)
        except Exception as error:  # noqa: BLE001  transport or parsing: reported, not raised
            failed += 1
            print(f"FAIL {name}: {type(error).__name__}: {error}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
