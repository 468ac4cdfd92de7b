#!/usr/bin/env python3
"""Writes the seed corpora of Gangway's fuzz harnesses: Fuzz/Corpus/<harness>/<name>.

Every seed is a small, realistic input in the real format, led by the harness's mode
byte (an ASCII digit; see the comment at the top of each harness's main.swift). No seed
holds a secret: the signatures are filler, and the harnesses sign what must verify with
their own fixed test keys. Run it again after changing a format; it replaces every seed.

    python3 Fuzz/Corpus/make-seeds.py
"""

import base64
import json
import os
import shutil
import struct

CORPUS = os.path.dirname(os.path.abspath(__file__))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def text(value: str) -> bytes:
    data = value.encode()
    return struct.pack(">q", len(data)) + data


def signed_bytes(change: dict) -> bytes:
    """Change.signedBytes (GangwayOffline/Change/Change+SignedBytes.swift)."""
    out = text("gangway.change.v1") + text(change["id"]) + text(change["registrationID"])
    out += text(change["author"]) + struct.pack(">q", change["sequence"])
    out += text(change["entitySet"]) + text(change["entityID"])
    base = change.get("baseVersion")
    out += b"\x00" if base is None else b"\x01" + struct.pack(">q", base)
    out += struct.pack(">q", change["madeAt"]) + struct.pack(">q", len(change["fields"]))
    for name in sorted(change["fields"], key=lambda n: n.encode()):
        out += text(name) + text(change["fields"][name])
    return out


CHANGE = {
    "id": "6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5",
    "registrationID": "$REGISTRATION",
    "author": "alice",
    "sequence": 1,
    "entitySet": "checks",
    "entityID": "stand-12",
    "fields": {"status": "ok", "note": "Tyres checked"},
    "madeAt": 1_795_327_200,
}
UPDATE = dict(CHANGE, id="0e9d8c7b-6a59-4837-a261-5f4e3d2c1b0a", sequence=2, baseVersion=1,
              fields={"status": "needs attention", "stand": "B12"})
SIGNATURE = bytes(range(64))  # filler: the harnesses sign what must verify
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
VERIFIER = "dBjftJeZ4CVP-mJ92K4-8lCeSJnbIAZxx7x7B1ZZvbE"
CONFIGURATION = {
    "activationExpiresAt": "2026-12-01T00:00:00Z",
    "activationNonce": "AAECAwQFBgcICQoLDA0ODw",
    "appID": "checks",
    "appName": "Ground checks",
    "authType": "basic",
    "serverURL": "https://ms.airline.example",
}


def compact(value) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def json_plaintext(change: dict) -> str:
    """A sealed change's plaintext as earlier versions wrote it: SignedChange's JSON."""
    return compact({"change": change, "signature": base64.b64encode(SIGNATURE).decode()})


def binary_plaintext(change: dict) -> bytes:
    return b"\x00" + SIGNATURE + signed_bytes(change)


def form(fields) -> str:
    from urllib.parse import urlencode
    return urlencode(fields)


AUTHORIZE = [
    ("client_id", "checks"), ("redirect_uri", "com.airline.checks:/oauth2redirect"), ("response_type", "code"),
    ("code_challenge", CHALLENGE), ("code_challenge_method", "S256"), ("state", "af0ifjsldkj"),
    ("nonce", "n-0S6_WzA2Mj"), ("device_id", "stand-12"),
]
OAUTH_AUTHORIZE = [(n, "oauth" if n == "client_id" else v) for n, v in AUTHORIZE]
POLICY = {
    "passwordPolicyEnabled": True, "passwordPolicyMinLength": 8, "passwordPolicyDigitRequired": True,
    "passwordPolicyRetryLimit": 10, "passwordPolicyLockTimeout": 300, "passwordPolicyExpiresInNDays": 90,
}
CLAIMS = {
    "iss": "$ISSUER", "sub": "248289761001", "aud": "checks", "exp": 1_790_003_600, "iat": 1_790_000_000,
    "nonce": "n-0S6_WzA2Mj", "email": "alice@airline.example", "name": "Alice Martin",
}

SEEDS = {
    "form": {
        "authorization-request": "0" + form(AUTHORIZE),
        "loopback-redirect": "0" + form([
            ("client_id", "checks"), ("redirect_uri", "http://127.0.0.1:49152/callback"),
            ("response_type", "code"), ("code_challenge", CHALLENGE), ("code_challenge_method", "S256"),
            ("state", "a b+c"),
        ]),
        "refused": "0client_id=checks&redirect_uri=https%3A%2F%2Fchecks.airline.example%2Foauth%2Fcallback"
                   "&response_type=token&state=xyz",
        "device-form": "0user_code=bcdf-ghjk&form_token=QUJD&decision=approve",
        "fields": "1client_id\0checks\0state\0a b+c%d&e=f\0nonce\0\u00e9t\u00e9",
    },
    "headers": {
        "cookies": "0gangway_form=c2VjcmV0; theme=dark\n__Host-gangway_device=ZGV2aWNl",
        "proxies": "110.0.0.0/8,fd00::/8,192.0.2.7\n10.0.0.5\n203.0.113.9, 10.1.2.3",
        "ipv6": "1::1\n::ffff:127.0.0.1\n2001:db8::1, ::ffff:10.0.0.1",
    },
    "oauth-requests": {
        "token-device-code": "0" + form([
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("client_id", "oauth"),
        ]) + "&device_code=$DEVICE_CODE",
        "token-code": "0" + form([
            ("grant_type", "authorization_code"), ("code", "SplxlOBeZQQYbYS6WxSbIA"),
            ("redirect_uri", "com.airline.checks:/oauth2redirect"), ("code_verifier", VERIFIER),
            ("client_id", "oauth"),
        ]),
        "token-refresh": "0grant_type=refresh_token&refresh_token=tGzv3JOkF0XG5Qx2TlKWIA&client_id=oauth",
        "revoke": "1token=tGzv3JOkF0XG5Qx2TlKWIA&token_type_hint=refresh_token&client_id=oauth",
        "device-authorization": "2client_id=oauth&scope=openid&device_id=stand-12",
        "sign-in-form": "3" + form(OAUTH_AUTHORIZE + [
            ("username", "alice"), ("password", "alice-password"), ("decision", "approve"),
        ]) + "&form_token=$FORM_TOKEN",
        "sign-in-page": "4" + form(OAUTH_AUTHORIZE),
        "device-page": "5user_code=BCDF-GHJK&form_token=$FORM_TOKEN",
    },
    "change-batch": {
        "sealed": "0" + compact({"sealed": [b64url(b"\x02" + bytes(range(65)) + bytes(range(100, 160)))]}),
        "shared-form": b"1" + signed_bytes(CHANGE),
        "single-form-json": "2" + json_plaintext(CHANGE),
        "single-form-binary": b"2" + binary_plaintext(UPDATE),
    },
    "sealed-change": {
        "sealed": b"0\x02" + bytes(range(65)) + bytes(range(100, 160)),
        "shared-binary": b"1" + binary_plaintext(CHANGE),
        "shared-json": "1" + json_plaintext(UPDATE),
        "single-binary": b"2" + binary_plaintext(UPDATE),
        "signed-bytes": b"3" + signed_bytes(CHANGE),
    },
    "activation-link": {
        "link": "0gangway://activate?payload=" + b64url(compact(CONFIGURATION).encode())
                + "&signature=" + b64url(SIGNATURE),
        "signed-payload": "1" + compact(CONFIGURATION),
        "app-name": "2Ground checks \u2708 Stand 12",
        "file": "3" + json.dumps({k: CONFIGURATION[k] for k in ("serverURL", "appID", "appName")}
                                 | {"authType": "oauth2"}),
    },
    "id-token": {
        "token": "0" + b64url(b'{"alg":"ES256","typ":"JWT","kid":"es"}') + "."
                 + b64url(compact(CLAIMS).encode()) + "." + b64url(SIGNATURE),
        "claims": "1" + compact(CLAIMS),
        "claims-two-audiences": "1" + compact(dict(CLAIMS, aud=["checks", "other"], azp="checks")),
        "jwks": "2" + compact({"keys": [
            {"kty": "EC", "crv": "P-256", "kid": "es", "alg": "ES256", "use": "sig",
             "x": b64url(bytes(range(32))), "y": b64url(bytes(range(32, 64)))},
            {"kty": "RSA", "kid": "rs", "alg": "RS256", "e": "AQAB", "n": b64url(bytes([0xC3]) + bytes(254) + b"\x5b")},
        ]}),
        "jwks-unnamed": "3" + compact({"keys": [
            {"kty": "EC", "crv": "P-256", "x": b64url(bytes(range(32))), "y": b64url(bytes(range(32, 64)))},
        ]}),
        "discovery": "4" + compact({
            "issuer": "$ISSUER", "authorization_endpoint": "$ISSUER/authorize", "token_endpoint": "$ISSUER/token",
            "jwks_uri": "$ISSUER/jwks", "token_endpoint_auth_methods_supported": ["client_secret_post"],
        }),
        "token-answer": "5" + compact({
            "access_token": "SlAV32hkKG", "token_type": "Bearer", "refresh_token": "8xLOxBtZp8",
            "expires_in": 3600, "id_token": "eyJhbGciOiJFUzI1NiJ9.e30.c2ln",
        }),
        "token-refusal": "6" + compact({"error": "invalid_grant", "error_description": "The code has expired."}),
    },
    "settings-json": {
        "strings": "0" + compact({"mobileservices": {"settingsExchange": {"passwordPolicy": {
            "passwordPolicyMinLength": "8", "passwordPolicyDigitRequired": "true",
            "passwordPolicyLockTimeout": 300, "passwordPolicyFingerprintEnabled": "no"}}}}),
        "bare-policy": "0" + compact(POLICY),
        "off": "0" + compact({"passwordPolicy": {"passwordPolicyEnabled": False}}),
        "exchange": "1" + compact({"mobileservices": {"settingsExchange": {
            "passwordPolicy": POLICY, "sharedDeviceSettings": {"allowUploadPendingChangesFromPreviousUser": True},
            "blockWipingPolicy": {"blockWipeEnabled": True, "blockDisconnectedPeriod": 30, "wipeDisconnectedPeriod": 90},
            "logSettings": {"logEnabled": True, "logLevel": "warning", "maxEntriesPerUpload": 500,
                            "uploadIntervalSeconds": 3600},
            "consentSettings": {"eulaVersion": "2026-1", "consentVersion": ""},
            "dataSettings": {"entitySets": {"checks": {"writableFields": ["status", "note"], "allowsCreation": True}}},
            "changeSealingKey": b64url(b"\x04" + bytes(range(64))),
        }}}),
        "admin-change": "2" + compact({"settings": {
            "passwordPolicy": {"passwordPolicyMinLength": 6, "passwordPolicyIsDigitsOnly": True},
            "logSettings": {"logEnabled": True, "logLevel": "warning", "maxEntriesPerUpload": 500},
            "dataSettings": {"entitySets": {"checks": {"writableFields": ["status"], "allowsCreation": False}}},
        }}),
    },
    "flat-json": {
        "strings": '0{"note":"Tyres checked","status":"ok"}',
        "integers": '0{"note":3,"status":-12}',
        "escaped": '0{"note":"say \\"hi\\"\\n","status":"\\u00e9"}',
        "write-strings": "1note\0Tyres \"checked\"\nat 06:00\0status\0ok\x01",
        "write-integers": b"2\x04note" + struct.pack(">q", 3) + b"\x06status" + struct.pack(">q", -1),
        "result": b"3" + bytes(range(16)) + b"\x00\x05\x01" + struct.pack(">q", 7),
        "sync-page": "4" + compact({"cursor": "1.17.3", "entities": [
            {"fields": {"station": "CDG", "status": "open", "note": "say \"hi\" \u2708"}, "id": "check-1",
             "position": 3, "updatedAt": "2026-12-04T06:00:00Z", "updatedBy": "admin", "version": 2},
        ], "entitySet": "checks", "more": False, "part": True, "removed": [{"id": "check-2", "position": 2}]}),
        "any-value": "5" + json.dumps({"a": [1, -2, True, None, "x\u00e9"], "b": {"c": {}}}, indent=1),
    },
    "log-upload": {
        "entries": compact({"entries": [
            {"time": "2026-11-22T06:00:00Z", "level": "info", "message": "signed in", "source": "gangway.flows"},
            {"time": "2026-11-22T06:00:01.250+01:00", "level": "warning", "message": "slow network \u2708"},
        ]}),
        "empty": compact({"entries": []}),
    },
    "protocol-text": {
        "date": "02026-11-22T06:00:00Z",
        "date-offset": "00000-03-01t23:59:60.5-23:59",
        "base64url": "1" + CHALLENGE,
        "bytes": b"2\x00\xff\x10gangway",
        "redirect-uri": "3http://127.0.0.1:49152/callback",
        "verifier": "3" + VERIFIER,
        "uuid": "36F1C2D3E-4A5B-4C6D-8E7F-8091A2B3C4D5",
        "version": "31.4.2",
        "domain": "3Airline.Example",
    },
}


def main() -> None:
    for harness, seeds in SEEDS.items():
        directory = os.path.join(CORPUS, harness)
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
        for name, seed in seeds.items():
            with open(os.path.join(directory, name), "wb") as file:
                file.write(seed if isinstance(seed, bytes) else seed.encode())


if __name__ == "__main__":
    main()
