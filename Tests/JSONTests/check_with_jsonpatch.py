#!/usr/bin/env python3
"""Checks JSON Patches computed by ReactorHub's JSON module with Python's jsonpatch.

Reads a file of JSON lines {"a": doc, "b": doc, "patch": [...]} and applies each patch to
"a" with jsonpatch (an independent RFC 6902 implementation), then compares the result
with "b" by JSON equality that, unlike Python's ==, tells booleans from numbers.
Prints "checked N pairs, M correct" and exits 0 only when every pair is correct.
"""
import json
import sys

import jsonpatch


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


def main(path):
    checked = 0
    correct = 0
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            pair = json.loads(line)
            checked += 1
            try:
                result = jsonpatch.apply_patch(pair["a"], pair["patch"])
            except Exception as error:  # any refusal is a failure to report
                print(f"pair {number}: jsonpatch refused the patch: {error!r}")
                continue
            if same(result, pair["b"]):
                correct += 1
            else:
                print(f"pair {number}: result differs\n  got:      {json.dumps(result)}\n  expected: {json.dumps(pair['b'])}")
    print(f"checked {checked} pairs, {correct} correct")
    return 0 if checked > 0 and correct == checked else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
