#!/usr/bin/env python3
"""Decodes an HS256 token with PyJWT and prints its claims as JSON (sorted keys).

    decode_with_pyjwt.py SECRET TOKEN

Checks the signature, exp, nbf and iat as PyJWT does, at the current time; exits 1 with
PyJWT's reason when it refuses the token.
"""
import json
import sys

import jwt

secret, token = sys.argv[1], sys.argv[2]
try:
    claims = jwt.decode(token, secret.encode(), algorithms=["HS256"], options={"require": ["sub", "exp", "iat"]})
except jwt.InvalidTokenError as error:
    print(f"PyJWT refused the token: {type(error).__name__}: {error}")
    sys.exit(1)
print(json.dumps(claims, sort_keys=True, separators=(",", ":")))
