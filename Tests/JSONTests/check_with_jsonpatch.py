#!/usr/bin/env python3
"""Checks JSON Patches computed by ReactorHub's JSON module with Python's jsonpatch.

Reads a file ("-" for standard input) of JSON lines {"a": doc, "b": doc, "patch": [...]},
for instance from the jsonpatch-pairs executable (Fuzz/README.md), and applies each patch to
"a" with jsonpatch (an independent RFC 6902 implementation), then compares the result
with "b" by JSON equality that, unlike Python's ==, tells booleans from numbers.
Prints the first incorrect pairs and "checked N pairs, M correct", and exits 0 only when every pair is correct; with
--failures FILE, also writes each incorrect pair there, one JSON line each.
"""
import json
import sys

import jsonpatch

SHOWN = 5  # incorrect pairs printed (documents cut short); the rest are only counted


def shown(value, limit=400):
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"


def same(x, y):
    if isinstance(x, bool) or isinstance(y, bool):
        return isinstance(x, bool) and isinstance(y, bool) and x == y
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        return x == y
    if x is None or y is None:
        return x is None and y is None
    if isinstance(x, str) and isinstance(y, str):
        return x == y
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(same(a, b) for a, b in zip(x, y))
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    return False


def main(path, failures_path=None):
    checked = 0
    correct = 0
    failures = open(failures_path, "w", encoding="utf-8") if failures_path else None
    with (sys.stdin if path == "-" else open(path, encoding="utf-8")) as lines:
        for number, line in enumerate(lines, start=1):
            pair = json.loads(line)
            checked += 1
            try:
                result = jsonpatch.apply_patch(pair["a"], pair["patch"])
            except Exception as error:  # any refusal is a failure to report
                if checked - correct <= SHOWN:
                    print(f"pair {number}: jsonpatch refused the patch: {error!r}")
                if failures:
                    failures.write(line)
                continue
            if same(result, pair["b"]):
                correct += 1
            else:
                if checked - correct <= SHOWN:
                    print(f"pair {number}: result differs\n  got:      {shown(result)}\n  expected: {shown(pair['b'])}")
                if failures:
                    failures.write(line)
    if failures:
        failures.close()
    print(f"checked {checked} pairs, {correct} correct")
    return 0 if checked > 0 and correct == checked else 1


if __name__ == "__main__":
    arguments = sys.argv[1:]
    failures_file = None
    if len(arguments) == 3 and arguments[1] == "--failures":
        failures_file = arguments[2]
        arguments = arguments[:1]
    if len(arguments) != 1:
        sys.exit("usage: check_with_jsonpatch.py PAIRS.jsonl|- [--failures FILE]")
    sys.exit(main(arguments[0], failures_file))
