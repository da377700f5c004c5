"""docs/api-http.md's examples, replayed: every `sh` block followed by an output block (`json`
or `text`) runs, in the document's order, with bash and curl against one real daemon (with an
`auth` section: `$RH` is its address, `$TOKEN` a token of its secret), and its output must be
what the document shows, `…` standing for anything. The blocks without an output (setting
`RH` and `TOKEN`) are the reader's setup, done here by the test."""
import json
import os
import re
import subprocess

from auth_support import auth_config, token
from conftest import ROOT

DOC = ROOT / "docs" / "api-http.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.M | re.S)


def examples() -> list[tuple[str, str, str]]:
    """(command, language of the output, output) of each example, in order."""
    blocks = [(match.group(1), match.group(2), match.start(), match.end()) for match in FENCE.finditer(DOC.read_text())]
    found = []
    for (language, text, _, end), following in zip(blocks, blocks[1:] + [None]):
        if language != "sh" or following is None:
            continue
        next_language, next_text, next_start, _ = following
        # The output block follows at once (nothing but a blank line between them).
        if next_language in ("json", "text") and DOC.read_text()[end:next_start].strip() == "":
            found.append((text, next_language, next_text))
    return found


def matches(expected, actual) -> bool:
    """`expected` as the document writes it, "…" matching any value."""
    if expected == "…":
        return True
    if isinstance(expected, dict):
        return isinstance(actual, dict) and expected.keys() == actual.keys() and all(matches(expected[k], actual[k]) for k in expected)
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(map(matches, expected, actual))
    return expected == actual and type(expected) is type(actual)


def text_pattern(expected: str) -> re.Pattern:
    return re.compile("".join(".*?" if part == "…" else re.escape(part) for part in re.split("(…)", expected)), re.S)


def test_every_example_of_the_document_does_what_it_shows(daemon_factory):
    runnable = examples()
    assert len(runnable) >= 12, f"only {len(runnable)} examples with their output"
    hub = daemon_factory(auth_config(reactors={"counter": {"delayMs": 20}}))
    env = {**os.environ, "RH": hub.http_url, "TOKEN": token("billing")}
    for command, language, expected in runnable:
        result = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env, timeout=30)
        # curl --max-time ends a stream on purpose (exit 28).
        assert result.returncode == 0 or ("--max-time" in command and result.returncode == 28), (command, result.stderr)
        if language == "json":
            assert matches(json.loads(expected), json.loads(result.stdout)), f"{command}\nshown: {expected}\ngot:   {result.stdout}"
        else:
            assert text_pattern(expected).fullmatch(result.stdout), f"{command}\nshown: {expected!r}\ngot:   {result.stdout!r}"
