#!/usr/bin/env python3
"""Makes the token vectors of AuthTests with PyJWT and cryptography.

The tokens come from an implementation independent of the Auth module, so the Swift
verifier is checked against someone else's reading of RFC 7515/7519, not its own. Each
vector names the verifier's configuration (alg, audience, issuer), the token, and the
expected outcome: the subject, expiry and rights checks of a valid token, or the exact
refusal reason of PROTOCOL.md.

    make_vectors.py [OUT]      writes the vectors (default: tokens.json beside this file)

The keys beside this file are test keys only, made once with
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa-private.pem
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ec-private.pem
    openssl pkey -in …-private.pem -pubout -out …-public.pem
ES256 signatures are randomised, so a new run differs from the checked-in file in those
tokens only; the outcomes are the same.
"""
import base64
import hashlib
import hmac
import json
import os
import sys
import unicodedata

import jwt
from jwt.algorithms import ECAlgorithm, HMACAlgorithm, RSAAlgorithm

HERE = os.path.dirname(os.path.abspath(__file__))
NOW = 1767225600  # 2026-01-01T00:00:00Z, the verifier's fixed clock
LEEWAY = 30
SECRET = b"reactorhub-test-secret-0123456789abcdef"
AUDIENCE = "reactorhub"
ISSUER = "https://issuer.example"


def read(name):
    with open(os.path.join(HERE, name), "rb") as file:
        return file.read()


KEYS = {"HS256": SECRET, "RS256": read("rsa-private.pem"), "ES256": read("ec-private.pem")}
SIGNERS = {
    "HS256": HMACAlgorithm(HMACAlgorithm.SHA256),
    "RS256": RSAAlgorithm(RSAAlgorithm.SHA256),
    "ES256": ECAlgorithm(ECAlgorithm.SHA256),
}
RSA_PUBLIC_PEM = read("rsa-public.pem")


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def claims(sub="alice", exp=NOW + 3600, iat=NOW - 60, **extra):
    body = {"sub": sub, "iat": iat, "exp": exp}
    body.update(extra)
    return {key: value for key, value in body.items() if value is not None}


def encode(alg, body, headers=None):
    """A token made by PyJWT itself."""
    return jwt.encode(body, KEYS[alg], algorithm=alg, headers=headers)


def sign_raw(alg, header, payload):
    """A token from raw header and payload text (for what PyJWT will not write), signed by PyJWT's algorithms."""
    header = header.encode() if isinstance(header, str) else header
    payload = payload.encode() if isinstance(payload, str) else payload
    signing_input = b64(header) + "." + b64(payload)
    signer = SIGNERS[alg]
    signature = signer.sign(signing_input.encode(), signer.prepare_key(KEYS[alg]))
    return signing_input + "." + b64(signature)


def parts(token):
    return token.split(".")


def with_signature(token, signature):
    header, payload, _ = parts(token)
    return f"{header}.{payload}.{b64(signature)}"


def flip_signature_byte(token, index=0):
    signature = bytearray(unb64(parts(token)[2]))
    signature[index] ^= 0x01
    return with_signature(token, bytes(signature))


VECTORS = []


def valid(name, token, alg="HS256", sub="alice", exp=NOW + 3600, iat=NOW - 60, read=(), act=(), checks=(), **config):
    """A token that verifies; its subject is `sub` in NFC, as the verifier keeps it."""
    VECTORS.append({
        "name": name, "alg": alg, "token": token, "valid": True, "reason": None,
        "sub": unicodedata.normalize("NFC", sub), "exp": exp, "iat": iat, "read": list(read), "act": list(act),
        "checks": [{"right": right, "reactor": reactor, "allowed": allowed} for right, reactor, allowed in checks],
        **config,
    })


def refused(name, token, reason, alg="HS256", **config):
    VECTORS.append({"name": name, "alg": alg, "token": token, "valid": False, "reason": reason, **config})


def sized_token(length):
    """A valid HS256 token of exactly `length` bytes (a pad claim and a kid header fill it)."""
    for kid in range(4):
        for pad in range(length * 3 // 4 - 200, length * 3 // 4):
            token = encode("HS256", claims(pad="x" * pad), headers={"kid": "k" * kid})
            if len(token) == length:
                return token
    raise SystemExit(f"no token of {length} bytes")


def make():
    rights = {"read": ["doc/*"], "act": ["doc/team-*"]}
    alice_checks = [("read", "doc/x", True), ("act", "doc/team-a", True), ("act", "doc/x", False), ("read", "counter/x", False)]
    valid("HS256 token from PyJWT", encode("HS256", claims(rh=rights)), read=rights["read"], act=rights["act"], checks=alice_checks)
    valid("RS256 token from PyJWT", encode("RS256", claims(sub="bob", rh={"read": ["counter/lobby"], "act": ["counter/lobby"]})),
          alg="RS256", sub="bob", read=["counter/lobby"], act=["counter/lobby"],
          checks=[("read", "counter/lobby", True), ("act", "counter/lobby", True), ("read", "counter/lobby2", False)])
    valid("ES256 token from PyJWT", encode("ES256", claims(sub="carol", rh={"read": ["*"], "act": []})),
          alg="ES256", sub="carol", read=["*"], checks=[("read", "todo/anything", True), ("act", "todo/anything", False)])
    valid("token without rh has no rights", encode("HS256", claims()), checks=[("read", "doc/x", False), ("act", "doc/x", False)])
    valid("token without iat", encode("HS256", claims(iat=None)), iat=None)
    valid("exp as a fraction of seconds", encode("HS256", claims(exp=NOW + 100.5)), exp=NOW + 100.5)

    # Expiry and validity times, at the edges of the leeway.
    refused("expired an hour ago", encode("HS256", claims(exp=NOW - 3600)), "expired")
    refused("expired an hour ago, RS256", encode("RS256", claims(exp=NOW - 3600)), "expired", alg="RS256")
    valid("exp one second inside the leeway", encode("HS256", claims(exp=NOW - LEEWAY + 1)), exp=NOW - LEEWAY + 1)
    refused("exp exactly at the leeway", encode("HS256", claims(exp=NOW - LEEWAY)), "expired")
    refused("nbf an hour ahead", encode("HS256", claims(nbf=NOW + 3600)), "not yet valid")
    valid("nbf exactly at the leeway", encode("HS256", claims(nbf=NOW + LEEWAY)))
    refused("nbf one second past the leeway", encode("HS256", claims(nbf=NOW + LEEWAY + 1)), "not yet valid")
    valid("nbf in the past", encode("HS256", claims(nbf=NOW - 10)))
    refused("iat an hour ahead", encode("HS256", claims(iat=NOW + 3600)), "not yet valid")

    # Signatures.
    for alg in ("HS256", "RS256", "ES256"):
        refused(f"{alg} signature with one byte flipped", flip_signature_byte(encode(alg, claims())), "bad signature", alg=alg)
    refused("ES256 signature with a byte of S flipped", flip_signature_byte(encode("ES256", claims()), 40), "bad signature", alg="ES256")
    es = encode("ES256", claims())
    raw = unb64(parts(es)[2])
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    refused("ES256 signature in DER rather than R||S", with_signature(es, der), "bad signature", alg="ES256")
    refused("ES256 signature of 63 bytes", with_signature(es, raw[:63]), "bad signature", alg="ES256")
    refused("ES256 signature of 65 bytes", with_signature(es, raw + b"\0"), "bad signature", alg="ES256")
    rs = encode("RS256", claims())
    refused("RS256 signature one byte short", with_signature(rs, unb64(parts(rs)[2])[:-1]), "bad signature", alg="RS256")
    other = jwt.encode(claims(), b"another-secret-of-32-bytes-or-more!!", algorithm="HS256")
    refused("HS256 signed with another secret", other, "bad signature")
    refused("HS256 with an empty signature", with_signature(encode("HS256", claims()), b""), "bad signature")
    refused("payload changed after signing", parts(encode("HS256", claims()))[0] + "." + b64(json.dumps(claims(sub="mallory")).encode())
            + "." + parts(encode("HS256", claims()))[2], "bad signature")

    # The algorithm is the configuration's, never the header's.
    none_header = b64(b'{"alg":"none","typ":"JWT"}')
    refused("alg none with an empty signature", f"{none_header}.{b64(json.dumps(claims()).encode())}.", "algorithm")
    refused("alg none against RS256", f"{none_header}.{b64(json.dumps(claims()).encode())}.", "algorithm", alg="RS256")
    confusion_input = b64(b'{"alg":"HS256","typ":"JWT"}') + "." + b64(json.dumps(claims(rh={"read": ["*"], "act": ["*"]})).encode())
    confusion = hmac.new(RSA_PUBLIC_PEM, confusion_input.encode(), hashlib.sha256).digest()
    refused("HS256 keyed with the RS256 public key PEM (key confusion)", f"{confusion_input}.{b64(confusion)}", "algorithm", alg="RS256")
    refused("RS256 token against ES256", encode("RS256", claims()), "algorithm", alg="ES256")
    refused("ES256 token against HS256", encode("ES256", claims()), "algorithm")
    refused("alg in lower case", sign_raw("HS256", '{"alg":"hs256"}', json.dumps(claims())), "algorithm")
    refused("header without alg", sign_raw("HS256", '{"typ":"JWT"}', json.dumps(claims())), "malformed")
    refused("alg that is not a string", sign_raw("HS256", '{"alg":["HS256"]}', json.dumps(claims())), "malformed")
    refused("header with crit", sign_raw("HS256", '{"alg":"HS256","crit":["exp"]}', json.dumps(claims())), "malformed")
    # The verifier skips parsing the few header spellings most issuers write; any other
    # spelling of the same header is parsed and accepted too.
    valid("header with typ before alg", sign_raw("HS256", '{"typ":"JWT","alg":"HS256"}', json.dumps(claims())))
    valid("header with spaces", sign_raw("HS256", '{ "alg" : "HS256" , "typ" : "JWT" }', json.dumps(claims())))
    valid("header with only alg, RS256", sign_raw("RS256", '{"alg":"RS256"}', json.dumps(claims())), alg="RS256")
    refused("HS256 header against RS256, signed by the RS256 key", sign_raw("RS256", '{"alg":"HS256","typ":"JWT"}', json.dumps(claims())), "algorithm", alg="RS256")

    # Shape and base64url.
    good = encode("HS256", claims())
    header, payload, signature = parts(good)
    refused("empty token", "", "malformed")
    refused("two parts", f"{header}.{payload}", "malformed")
    refused("four parts", f"{good}.{signature}", "malformed")
    refused("JWE-like five parts", f"{header}.{payload}.{signature}.{signature}.{signature}", "malformed")
    cut = len(payload) - (len(payload) - 1) % 4  # the longest length of 1 mod 4
    refused("truncated base64url payload", f"{header}.{payload[:cut]}.{signature}", "malformed")
    refused("truncated base64url signature", f"{header}.{payload}.{signature[:41]}", "malformed")
    refused("padded base64url signature", f"{good}=", "malformed")
    padded_header = base64.urlsafe_b64encode(b'{"alg":"HS256" }').decode()
    assert padded_header.endswith("=")
    refused("padded base64url header", sign_raw("HS256", '{"alg":"HS256" }', json.dumps(claims())).replace(padded_header.rstrip("="), padded_header, 1), "malformed")
    last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".index(signature[-1])
    noncanonical = signature[:-1] + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[last | 1]
    refused("non-zero trailing bits in base64url", f"{header}.{payload}.{noncanonical}", "malformed")
    refused("standard base64 '+' in the signature", f"{header}.{payload}.+{signature[1:]}", "malformed")
    refused("standard base64 '/' in the payload", f"{header}./{payload[1:]}.{signature}", "malformed")
    refused("space in the token", f"{header}.{payload} .{signature}", "malformed")
    refused("non-ASCII letter in the token", f"{header}.{payload}.é{signature[1:]}", "malformed")
    refused("leading whitespace", f" {good}", "malformed")
    exact = sized_token(8192)
    valid("token of exactly 8192 bytes", exact)
    refused("token of 8193 bytes", sized_token(8193), "malformed")
    refused("header that is not JSON", sign_raw("HS256", "alg=HS256", json.dumps(claims())), "malformed")
    refused("header that is an array", sign_raw("HS256", '["HS256"]', json.dumps(claims())), "malformed")
    refused("payload that is not JSON (signed)", sign_raw("HS256", '{"alg":"HS256"}', "sub=alice"), "malformed")
    refused("payload that is an array (signed)", sign_raw("HS256", '{"alg":"HS256"}', "[1,2]"), "malformed")
    refused("payload with trailing garbage (signed)", sign_raw("HS256", '{"alg":"HS256"}', json.dumps(claims()) + "x"), "malformed")

    # Duplicate members: two readers of one token must not see two different users.
    refused("sub twice in the claims", sign_raw("HS256", '{"alg":"HS256"}',
            f'{{"sub":"alice","exp":{NOW + 3600},"sub":"admin"}}'), "malformed")
    refused("sub twice, once spelled with an escape", sign_raw("HS256", '{"alg":"HS256"}',
            f'{{"sub":"alice","exp":{NOW + 3600},"su\\u0062":"admin"}}'), "malformed")
    refused("exp twice in the claims", sign_raw("HS256", '{"alg":"HS256"}',
            f'{{"sub":"alice","exp":{NOW - 10},"exp":{NOW + 3600}}}'), "malformed")
    refused("read twice inside rh", sign_raw("HS256", '{"alg":"HS256"}',
            f'{{"sub":"alice","exp":{NOW + 3600},"rh":{{"read":[],"read":["*"]}}}}'), "malformed")
    refused("alg twice in the header", sign_raw("HS256", '{"alg":"HS256","alg":"HS256"}', json.dumps(claims())), "malformed")
    refused("alg twice in the header, none then HS256", sign_raw("HS256", '{"alg":"none","alg":"HS256"}', json.dumps(claims())), "malformed")

    # The subject: 1 to 128 Unicode scalars.
    valid("sub of 128 characters", encode("HS256", claims(sub="a" * 128)), sub="a" * 128)
    refused("sub of 129 characters", encode("HS256", claims(sub="a" * 129)), "malformed")
    valid("sub of 128 two-byte scalars", encode("HS256", claims(sub="é" * 128)), sub="é" * 128)
    valid("sub of 128 four-byte scalars (512 bytes)", encode("HS256", claims(sub="😀" * 128)), sub="😀" * 128)
    refused("sub of 129 four-byte scalars", encode("HS256", claims(sub="😀" * 129)), "malformed")
    valid("sub of 64 graphemes of 2 scalars (128 scalars)", encode("HS256", claims(sub="e\u0301" * 64)), sub="e\u0301" * 64)
    refused("sub of 65 graphemes of 2 scalars (130 scalars)", encode("HS256", claims(sub="e\u0301" * 65)), "malformed")
    refused("sub of one grapheme of 200 scalars", encode("HS256", claims(sub="e" + "\u0301" * 199)), "malformed")
    refused("empty sub", encode("HS256", claims(sub="")), "malformed")
    refused("missing sub", encode("HS256", claims(sub=None)), "malformed")
    refused("sub that is a number", encode("HS256", claims(sub=42)), "malformed")

    # Claim types.
    refused("exp as a string", sign_raw("HS256", '{"alg":"HS256"}', f'{{"sub":"alice","exp":"{NOW + 3600}"}}'), "malformed")
    refused("exp as a boolean", sign_raw("HS256", '{"alg":"HS256"}', '{"sub":"alice","exp":true}'), "malformed")
    refused("exp null", sign_raw("HS256", '{"alg":"HS256"}', '{"sub":"alice","exp":null}'), "malformed")
    refused("missing exp", encode("HS256", claims(exp=None)), "malformed")
    refused("nbf as a string", sign_raw("HS256", '{"alg":"HS256"}', f'{{"sub":"alice","exp":{NOW + 3600},"nbf":"0"}}'), "malformed")
    refused("iat as a string", sign_raw("HS256", '{"alg":"HS256"}', f'{{"sub":"alice","exp":{NOW + 3600},"iat":"0"}}'), "malformed")
    refused("expired and mistyped nbf: malformed first", sign_raw("HS256", '{"alg":"HS256"}', f'{{"sub":"alice","exp":1,"nbf":"0"}}'), "malformed")

    # Audience and issuer, checked only when configured.
    config = {"audience": AUDIENCE}
    valid("aud string equal to the audience", encode("HS256", claims(aud=AUDIENCE)), **config)
    valid("aud array holding the audience", encode("HS256", claims(aud=["other", AUDIENCE])), **config)
    refused("aud string of another audience", encode("HS256", claims(aud="other")), "audience", **config)
    refused("aud array without the audience", encode("HS256", claims(aud=["a", "b"])), "audience", **config)
    refused("aud empty array", encode("HS256", claims(aud=[])), "audience", **config)
    refused("aud absent when an audience is configured", encode("HS256", claims()), "audience", **config)
    refused("aud differing in case", encode("HS256", claims(aud="ReactorHub")), "audience", **config)
    refused("aud that is a number", sign_raw("HS256", '{"alg":"HS256"}', f'{{"sub":"alice","exp":{NOW + 3600},"aud":7}}'), "malformed", **config)
    valid("aud ignored when no audience is configured", encode("HS256", claims(aud="anyone")))
    config = {"issuer": ISSUER}
    valid("iss equal to the issuer", encode("HS256", claims(iss=ISSUER)), **config)
    refused("iss of another issuer", encode("HS256", claims(iss="https://evil.example")), "issuer", **config)
    refused("iss absent when an issuer is configured", encode("HS256", claims()), "issuer", **config)
    valid("iss ignored when no issuer is configured", encode("HS256", claims(iss="https://evil.example")))

    # Malformed rights.
    for label, rh in [("a string", "doc/*"), ("null", None), ("read as a string", {"read": "doc/*"}),
                      ("a number pattern", {"read": [1]}), ("a star inside the id", {"read": ["doc/a*b"]}),
                      ("a star for the kind", {"act": ["*/x"]}), ("an unknown member", {"write": ["doc/*"]}),
                      ("a pattern without '/'", {"read": ["doc"]}), ("an id with '/'", {"read": ["doc/a/b"]}),
                      ("an unknown placeholder", {"read": ["doc/{user}"]})]:
        body = claims()
        body["rh"] = rh
        refused(f"rh with {label}", encode("HS256", body), "malformed")

    # {sub} stands for the subject as literal text, never as pattern syntax.
    notes = {"read": ["doc/notes-{sub}"], "act": ["doc/notes-{sub}"]}
    valid("{sub} gives alice her own notes", encode("HS256", claims(rh=notes)), read=notes["read"], act=notes["act"],
          checks=[("read", "doc/notes-alice", True), ("act", "doc/notes-alice", True), ("read", "doc/notes-bob", False),
                  ("read", "doc/notes-alicex", False), ("read", "doc/notes-", False)])
    injections = [
        ("'*'", "*", [("read", "doc/notes-x", False), ("read", "doc/notes-", False), ("read", "doc/notes-*", False),
                      ("act", "doc/notes-bob", False)]),
        ("'a/b'", "a/b", [("read", "doc/notes-a", False), ("read", "doc/notes-a/b", False), ("read", "doc/b", False)]),
        ("'x*'", "x*", [("read", "doc/notes-x", False), ("read", "doc/notes-xyz", False), ("read", "doc/notes-x*", False)]),
    ]
    for label, sub, checks in injections:
        valid(f"sub {label} does not widen doc/notes-{{sub}}", encode("HS256", claims(sub=sub, rh=notes)), sub=sub,
              read=notes["read"], act=notes["act"], checks=checks)
    # Subjects are compared in NFC: the Kelvin sign is canonically equal to K, so it is user K.
    valid("sub of the Kelvin sign is K in NFC, so doc/notes-{sub} is doc/notes-K",
          encode("HS256", claims(sub="\u212a", rh=notes)), sub="\u212a", read=notes["read"], act=notes["act"],
          checks=[("read", "doc/notes-K", True), ("read", "doc/notes-k", False)])
    kinds = {"read": ["{sub}/*"], "act": []}
    valid("{sub} as the kind", encode("HS256", claims(sub="doc", rh=kinds)), sub="doc", read=kinds["read"],
          checks=[("read", "doc/x", True), ("read", "docs/x", False), ("act", "doc/x", False)])
    valid("sub '*' as the kind matches no kind", encode("HS256", claims(sub="*", rh=kinds)), sub="*", read=kinds["read"],
          checks=[("read", "doc/x", False), ("read", "counter/x", False)])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "tokens.json")
    make()
    names = [vector["name"] for vector in VECTORS]
    assert len(names) == len(set(names)), "vector names must be unique"
    document = {
        "generator": f"make_vectors.py with PyJWT {jwt.__version__}",
        "now": NOW, "leeway": LEEWAY, "secret": SECRET.decode(),
        "rsaPublicKey": "rsa-public.pem", "ecPublicKey": "ec-public.pem",
        "vectors": VECTORS,
    }
    with open(out, "w", encoding="utf-8") as file:
        json.dump(document, file, indent=1, ensure_ascii=False)
        file.write("\n")
    print(f"wrote {len(VECTORS)} vectors to {out}")


if __name__ == "__main__":
    main()
