"""State checksums on a real daemon (PROTOCOL.md "Checksums (opt-in)"), checked by an
independent implementation: RFC 8785 (JCS) written here from the RFC, cross-checked with
the `rfc8785` package where it applies, and hashlib's SHA-256. States with floats (the
RFC's own number examples), escapes, non-ASCII keys sorted by UTF-16 code units, and
integers past 2^53; a snapshot, every patch, and a `resumed`."""
import hashlib
import json
import math
import struct

import jsonpatch
import pytest
import rfc8785
from websockets.sync.client import connect


# --- RFC 8785, written from the RFC ------------------------------------------------------

def es_number(value: float) -> str:
    """ECMAScript's Number.prototype.toString of a double (ECMA-262 Number::toString), as
    RFC 8785 section 3.2.2.3 requires: Python's repr gives the shortest round-trip digits."""
    if math.isnan(value) or math.isinf(value):
        raise ValueError("no JSON form")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    every = whole + fraction
    stripped = every.lstrip("0")
    # The value is 0.DIGITS × 10^point.
    point = len(whole) + int(exponent or 0) - (len(every) - len(stripped))
    digits = stripped.rstrip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        text = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if n - 1 >= 0 else "-") + str(abs(n - 1))
    return sign + text


def jcs_string(text: str) -> str:
    out = ['"']
    for character in text:
        code = ord(character)
        if character in '"\\':
            out.append("\\" + character)
        elif code < 0x20:
            out.append({8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r"}.get(code, f"\\u{code:04x}"))
        else:
            out.append(character)
    out.append('"')
    return "".join(out)


def jcs(value) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return es_number(float(value))   # integers past 2^53 become their nearest double
    if isinstance(value, str):
        return jcs_string(value)
    if isinstance(value, list):
        return "[" + ",".join(jcs(element) for element in value) + "]"
    members = sorted(value.items(), key=lambda member: member[0].encode("utf-16-be"))
    return "{" + ",".join(jcs_string(key) + ":" + jcs(member) for key, member in members) + "}"


def checksum(state) -> str:
    return hashlib.sha256(jcs(state).encode()).hexdigest()[:16]


def cross_checked(state) -> str:
    """`checksum`, after checking the canonical form against the rfc8785 package when the
    state is in its domain (it refuses integers past 2^53 - 1)."""
    try:
        theirs = rfc8785.dumps(state)
    except rfc8785.IntegerDomainError:
        theirs = None
    if theirs is not None:
        assert jcs(state).encode() == theirs
    return checksum(state)


def test_the_canonicalizer_here_follows_the_rfc():
    # RFC 8785 Appendix B, and section 3.2.2's example.
    for bits, text in [(0x0000000000000000, "0"), (0x8000000000000000, "0"), (0x0000000000000001, "5e-324"),
                       (0x7fefffffffffffff, "1.7976931348623157e+308"), (0x4340000000000000, "9007199254740992"),
                       (0x4430000000000000, "295147905179352830000"), (0x44b52d02c7e14af6, "1e+23"),
                       (0x444b1ae4d6e2ef50, "1e+21"), (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
                       (0x3eb0c6f7a0b5ed8d, "0.000001"), (0x41b3de4355555554, "333333333.33333325"),
                       (0xbecbf647612f3696, "-0.0000033333333333333333"), (0x43143ff3c1cb0959, "1424953923781206.2")]:
        assert es_number(struct.unpack(">d", bits.to_bytes(8, "big"))[0]) == text
    example = json.loads('{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],'
                         '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}')
    expected = '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
    assert jcs(example) == expected
    assert rfc8785.dumps(example) == expected.encode()


# --- Against the daemon ------------------------------------------------------------------

EDITS = [
    ("/n", 0.1),
    ("/big", 9007199254740993),
    ("/floats", [1e21, 1e-7, -0.0, 5e-324, 1.5e300, 333333333.33333329, 1e23, 4.5, 100.0]),
    ("/é", "tab\tquote\"back\\slash\u0001\u001f\u2028 ü"),
    ("/😀", {"€": 1, "\r": 2, "ö": 3, "1": 4, "\u0080": 5, "\ufb33": 6, "😂": 7}),
    ("/n", 1.0),
    ("/nested", {"b": [{"z": None, "a": True}], "a": {"ﬂ": "x", "e\u0301": "y", "é": "z"}}),
]


def exchange(client, message):
    client.send(json.dumps(message, ensure_ascii=False))


def next_of(client, kind):
    while True:
        message = json.loads(client.recv(timeout=10))
        if message["type"] == kind:
            return message
        assert message["type"] in ("ack", "presence"), message


def test_every_frame_of_a_join_that_asks_carries_the_sum_of_its_state(daemon):
    with connect(daemon.url, open_timeout=5, max_size=None) as client, connect(daemon.url, open_timeout=5) as plain:
        client.recv(timeout=5)
        plain.recv(timeout=5)
        exchange(client, {"type": "join", "reactor": "doc/checked", "checksums": True, "ref": 1})
        snapshot = next_of(client, "snapshot")
        assert snapshot["sum"] == cross_checked({}) == "44136fa355b3678a"
        exchange(plain, {"type": "join", "reactor": "doc/checked", "ref": 1})
        assert "sum" not in next_of(plain, "snapshot")
        state = {}
        for index, (path, value) in enumerate(EDITS, start=1):
            exchange(client, {"type": "action", "reactor": "doc/checked", "ref": f"e{index}",
                              "action": {"type": "set", "path": path, "value": value}})
            patch = next_of(client, "patch")
            assert patch["version"] == index
            state = jsonpatch.apply_patch(state, patch["patch"])
            assert patch["sum"] == cross_checked(state), f"version {index}: {jcs(state)}"
            assert "sum" not in next_of(plain, "patch")
        # A resume from version 3 that asks: `resumed` carries the sum of version 3.
        epoch = snapshot["epoch"]
    with connect(daemon.url, open_timeout=5, max_size=None) as back:
        back.recv(timeout=5)
        exchange(back, {"type": "join", "reactor": "doc/checked", "checksums": True, "ref": 2,
                        "since": {"epoch": epoch, "version": 3}})
        resumed = next_of(back, "resumed")
        replayed = {}
        for path, value in EDITS[:3]:
            replayed = jsonpatch.apply_patch(replayed, [{"op": "add", "path": path, "value": value}])
        assert resumed["sum"] == cross_checked(replayed)
        for version in range(4, len(EDITS) + 1):
            patch = next_of(back, "patch")
            assert patch["version"] == version
            replayed = jsonpatch.apply_patch(replayed, patch["patch"])
            assert patch["sum"] == cross_checked(replayed)
        assert replayed == state


@pytest.mark.parametrize("value", ['"true"', "1", "null", "[]"])
def test_checksums_that_is_not_a_boolean_is_a_bad_request(daemon, value):
    with connect(daemon.url, open_timeout=5) as client:
        client.recv(timeout=5)
        client.send('{"type":"join","reactor":"doc/x","ref":"r","checksums":' + value + "}")
        reply = json.loads(client.recv(timeout=5))
        assert reply["type"] == "error" and reply["code"] == "bad_request" and reply["ref"] == "r"
        assert "checksums" in reply["message"]
