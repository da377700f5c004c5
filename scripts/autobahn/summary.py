#!/usr/bin/env python3
"""Summarises an Autobahn|Testsuite report (index.json and the case files next to it).

usage: summary.py REPORTS/index.json [seconds]
Prints the counts by result, then every case whose result is not OK, with what the case
does; exits 1 when a case is FAILED or UNIMPLEMENTED (OK, NON-STRICT and INFORMATIONAL
pass, as the suite itself grades them), except an UNIMPLEMENTED whose every
permessage-deflate offer asks for server_max_window_bits below 15: PROTOCOL.md
("Transport") has the server answer those without the extension (its one compressor per
frame cannot honour a smaller window), which the suite grades UNIMPLEMENTED.
"""
import collections
import json
import pathlib
import re
import sys

index_path = pathlib.Path(sys.argv[1])
seconds = sys.argv[2] if len(sys.argv) > 2 else None
passing = {"OK", "NON-STRICT", "INFORMATIONAL"}


def declined_by_contract(report: dict) -> bool:
    """Whether every permessage-deflate offer of the case's upgrade asks for
    server_max_window_bits below 15."""
    offers = [line.split(":", 1)[1] for line in report.get("httpRequest", "").split("\r\n")
              if line.lower().startswith("sec-websocket-extensions:")]
    windows = []
    for offer in ",".join(offers).split(","):
        parameters = [part.strip() for part in offer.split(";")]
        if parameters[0] != "permessage-deflate":
            continue
        bits = [int(p.split("=", 1)[1]) for p in parameters[1:] if p.startswith("server_max_window_bits=")]
        windows.append(bits[0] if bits else 15)
    return bool(windows) and all(bits < 15 for bits in windows)


index = json.loads(index_path.read_text())
failed = 0
for agent, cases in index.items():
    def order(item):
        return [int(part) for part in item[0].split(".")]

    behavior = collections.Counter(case["behavior"] for case in cases.values())
    closing = collections.Counter(case["behaviorClose"] for case in cases.values())
    sections = sorted({int(cid.split(".")[0]) for cid in cases})
    print(f"agent {agent}: {len(cases)} cases, sections {sections[0]}-{sections[-1]}")
    print("  result:         " + ", ".join(f"{name} {count}" for name, count in behavior.most_common()))
    print("  closing result: " + ", ".join(f"{name} {count}" for name, count in closing.most_common()))
    if seconds:
        print(f"  wall time of the run: {seconds} s")
    notable = [(cid, case) for cid, case in sorted(cases.items(), key=order)
               if case["behavior"] != "OK" or case["behaviorClose"] != "OK"]
    if notable:
        print("  cases not simply OK:")
    for cid, case in notable:
        report = json.loads((index_path.parent / case["reportfile"]).read_text())
        description = re.sub(r"<[^>]+>", " ", report.get("description", "")).split("\n")[0].strip()
        contract = case["behavior"] == "UNIMPLEMENTED" and declined_by_contract(report)
        note = " [declined: server_max_window_bits below 15, PROTOCOL.md]" if contract else ""
        print(f"    {cid:8} {case['behavior']:13} {case['behaviorClose']:13} {description}{note}")
        if (case["behavior"] not in passing and not contract) or case["behaviorClose"] not in passing:
            failed += 1
total = sum(len(cases) for cases in index.values())
print(f"{total - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
