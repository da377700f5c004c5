#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (Fuzz/README.md) from the test vectors.

    scripts/fuzz-seeds.py [output-folder]      (default: Fuzz/corpus)

One folder per target, one input per file, named by a hash of its content, so running it
again writes the same files. Sources: the RFC 6902 suites in
Tests/JSONTests/Resources/json-patch-tests, the PyJWT tokens of
Tests/AuthTests/Vectors/tokens.json, the string literals of the parser, pointer, action,
client-message, static-file and rights-pattern tests, and the protocol examples of
docs/protocol.md. The folder is rewritten: seeds that the vectors no longer give are
removed. Inputs that once crashed a target live apart, in Fuzz/regressions/<target>/.
"""
import base64
import hashlib
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TESTS = ROOT / "Tests"

TARGETS = ["json-parser", "client-message", "action-decoder", "json-pointer", "patch-apply", "static-path", "token"]


def compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def swift_literals(*paths):
    """The string literals of Swift files, escapes decoded; interpolated ones are skipped."""
    found = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        # Raw strings first (#"..."#), then take them out so their quotes do not confuse the rest.
        for match in re.finditer(r'#"(.*?)"#', text):
            if "\\#(" not in match.group(1):
                found.append(match.group(1))
        text = re.sub(r'#".*?"#', "", text)
        for match in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', text):
            body = match.group(1)
            if "\\(" in body:
                continue
            found.append(decode_swift_escapes(body))
        # Byte arrays of malformed inputs: [0x22, 0x61, 0xFF, 0x22].
        for match in re.finditer(r"\[((?:0x[0-9A-Fa-f]{2}(?:,\s*)?)+)\]", text):
            found.append(bytes(int(byte, 16) for byte in re.findall(r"0x([0-9A-Fa-f]{2})", match.group(1))))
    return found


def decode_swift_escapes(body):
    simple = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}

    def replace(match):
        if match.group(1):
            return chr(int(match.group(1), 16))
        return simple.get(match.group(2), match.group(2))

    return re.sub(r"\\(?:u\{([0-9A-Fa-f]+)\}|(.))", replace, body)


def as_bytes(seed):
    return seed if isinstance(seed, bytes) else seed.encode("utf-8")


def looks_like_json(text):
    return isinstance(text, bytes) or text[:1] in ("{", "[", '"') or text in ("true", "false", "null") or re.match(r"^-?\d", text)


def patch_cases():
    folder = TESTS / "JSONTests" / "Resources" / "json-patch-tests"
    cases = []
    for name in ("tests.json", "spec_tests.json"):
        cases += json.loads((folder / name).read_text(encoding="utf-8"))
    return [case for case in cases if "doc" in case and "patch" in case]


def protocol_examples():
    lines = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8").splitlines()
    messages = []
    for line in lines:
        for match in re.finditer(r"`(\{.*?\})`", line):
            messages.append(match.group(1))
        if line.startswith('{"type"'):
            messages.append(line.strip())
    return messages


def token_vectors():
    return json.loads((TESTS / "AuthTests" / "Vectors" / "tokens.json").read_text(encoding="utf-8"))


def unbase64url(part):
    try:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    except ValueError:
        return None


def seeds():
    corpus = {target: [] for target in TARGETS}
    cases = patch_cases()

    json_tests = list(TESTS.joinpath("JSONTests").glob("JSONParser*Tests.swift")) + [
        TESTS / "JSONTests" / "JSONValueTests.swift",
        TESTS / "JSONTests" / "JSONWriterTests.swift",
    ]
    corpus["json-parser"] += [literal for literal in swift_literals(*json_tests) if looks_like_json(literal)]
    for case in cases:
        corpus["json-parser"] += [compact(case["doc"]), compact(case["patch"])]
        if "expected" in case:
            corpus["json-parser"].append(compact(case["expected"]))
    corpus["json-parser"].append((ROOT / "config" / "reactorhub.json").read_text(encoding="utf-8"))

    hub_tests = [path for path in TESTS.joinpath("HubTests").glob("*.swift")]
    messages = [literal for literal in swift_literals(*hub_tests) if isinstance(literal, str) and literal.startswith("{")]
    messages += protocol_examples()
    corpus["client-message"] += messages + ["not json", "", "[]", '{"type":"ping","ref":"' + "r" * 64 + '"}']

    action_tests = [TESTS / "JSONTests" / "ActionDecoderTests.swift", TESTS / "JSONTests" / "ActionSchemaTests.swift"]
    actions = [literal for literal in swift_literals(*action_tests) if isinstance(literal, str) and looks_like_json(literal)]
    for message in messages:
        try:
            value = json.loads(message)
        except ValueError:
            continue
        if isinstance(value, dict) and "action" in value:
            actions.append(compact(value["action"]))
    corpus["action-decoder"] += actions

    pointers = [literal for literal in swift_literals(TESTS / "JSONTests" / "JSONPointerTests.swift")
                if isinstance(literal, str) and (literal == "" or literal.startswith("/"))]
    for case in cases:
        for operation in case["patch"] if isinstance(case["patch"], list) else []:
            for member in ("path", "from"):
                if isinstance(operation, dict) and isinstance(operation.get(member), str):
                    pointers.append(operation[member])
    corpus["json-pointer"] += pointers

    corpus["patch-apply"] += [compact(case["doc"]) + "\n" + compact(case["patch"]) for case in cases]

    transport_tests = list(TESTS.joinpath("TransportTests").glob("StaticFile*.swift"))
    paths = [literal for literal in swift_literals(*transport_tests) if isinstance(literal, str) and literal.startswith("/")]
    paths += ["relative", "/", "/docs/", "/docs/up/docs/up/index.html", "/outside-dir/secret.txt", "/env-link.txt",
              "/%2e%2e/outside/secret.txt", "/docs/%2e%2e/.env", "/.git/config", "/index.html%00.txt"]
    corpus["static-path"] += paths

    vectors = token_vectors()
    tokens = []
    patterns = []
    for vector in vectors["vectors"]:
        token = vector["token"]
        tokens.append(b"\x00" + token.encode("utf-8"))
        parts = token.split(".")
        if len(parts) == 3:
            header, payload = unbase64url(parts[0]), unbase64url(parts[1])
            if header is not None and payload is not None:
                tokens.append(b"\x01" + header + b"\n" + payload)
        reactors = [check["reactor"] for check in vector.get("checks", [])] or ["doc/x"]
        for pattern in (vector.get("read") or []) + (vector.get("act") or []):
            patterns += [b"\x02" + pattern.encode("utf-8") + b"\n" + reactor.encode("utf-8") for reactor in reactors]
    rights_tests = [TESTS / "AuthTests" / "RightsPatternTests.swift", TESTS / "AuthTests" / "RightsTests.swift"]
    literals = [literal for literal in swift_literals(*rights_tests) if isinstance(literal, str)]
    for pattern in [literal for literal in literals if "/" in literal or literal == "*"]:
        patterns.append(b"\x02" + pattern.encode("utf-8") + b"\ndoc/notes-alice")
    corpus["token"] += tokens + patterns
    return corpus


def write(output):
    total = 0
    for target, inputs in seeds().items():
        folder = output / target
        folder.mkdir(parents=True, exist_ok=True)
        wanted = {}
        for seed in inputs:
            data = as_bytes(seed)
            wanted[hashlib.sha1(data).hexdigest()[:16]] = data
        for stale in folder.iterdir():
            if stale.name not in wanted:
                stale.unlink()
        for name, data in wanted.items():
            path = folder / name
            if not path.exists() or path.read_bytes() != data:
                path.write_bytes(data)
        total += len(wanted)
        print(f"{target}: {len(wanted)} seeds")
    print(f"{total} seeds in {output}")


if __name__ == "__main__":
    write(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "Fuzz" / "corpus")
