#!/usr/bin/env python3
"""Verifies ID tokens as two mainstream relying parties do, against a key set by URL.

Usage:
    python verify_tokens.py --jwks URL --issuer ISSUER --audience CLIENT_ID TOKEN...

Each token is verified twice, in the order given, through one client each for the whole
run: PyJWT's PyJWKClient (keys cached, looked up by the token's `kid`, the key set
fetched again for a `kid` it does not know), and Authlib's default validation against
the key set as fetched now (`authlib.jose.jwt.decode` then `claims.validate()`). One
line per token and library: `ok LIBRARY KID` or `FAIL LIBRARY KID: reason`. Exit status
0 only if every token passes both. No token is printed.
"""

import argparse
import json
import sys
import urllib.request
import warnings

import jwt as pyjwt
from authlib.jose import JsonWebKey  # noqa: E402

warnings.filterwarnings("ignore", message="authlib.jose module is deprecated")
from authlib.jose import jwt as authlib_jwt  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--jwks", required=True)
parser.add_argument("--issuer", required=True)
parser.add_argument("--audience", required=True)
parser.add_argument("tokens", nargs="+")
arguments = parser.parse_args()

keys = pyjwt.PyJWKClient(arguments.jwks, cache_keys=True)
failed = False


def report(library, kid, error):
    global failed
    if error is None:
        print(f"ok {library} {kid}")
    else:
        failed = True
        print(f"FAIL {library} {kid}: {type(error).__name__}: {error}")


for token in arguments.tokens:
    kid = pyjwt.get_unverified_header(token).get("kid", "?")
    try:
        key = keys.get_signing_key_from_jwt(token)
        pyjwt.decode(token, key.key, algorithms=["ES256"], audience=arguments.audience, issuer=arguments.issuer,
                     options={"require": ["exp", "iat", "sub", "aud", "iss"]})
        report("pyjwt", kid, None)
    except Exception as error:  # PyJWT's errors, reported verbatim
        report("pyjwt", kid, error)
    try:
        with urllib.request.urlopen(arguments.jwks, timeout=10) as response:
            key_set = JsonWebKey.import_key_set(json.load(response))
        options = {"iss": {"essential": True, "value": arguments.issuer},
                   "aud": {"essential": True, "value": arguments.audience}}
        claims = authlib_jwt.decode(token, key_set, claims_options=options)
        claims.validate()
        report("authlib", kid, None)
    except Exception as error:  # Authlib's JoseError subclasses, reported verbatim
        report("authlib", kid, error)

sys.exit(1 if failed else 0)
