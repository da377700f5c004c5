#!/usr/bin/env python3
"""Prints the slowest tests of a `scripts/test.sh` run: Swift Testing's "passed after"
lines and the JUnit XML of the pytest suites, in one list."""
import pathlib
import re
import sys
import xml.etree.ElementTree as ET

folder = pathlib.Path(sys.argv[1])
count = int(sys.argv[2]) if len(sys.argv) > 2 else 10
timings = []
for log in folder.glob("*.log"):
    for line in log.read_text(errors="replace").splitlines():
        match = re.search(r"Test (\S+?)(?: with \d+ test cases?)? passed after ([0-9.]+) seconds", line)
        if match and not line.lstrip().startswith("✔ Suite"):
            timings.append((float(match.group(2)), f"{log.stem}: {match.group(1)}"))
for report in folder.glob("*.xml"):
    for case in ET.parse(report).getroot().iter("testcase"):
        timings.append((float(case.get("time", 0)), f"{report.stem}: {case.get('classname')}.{case.get('name')}"))
timings.sort(reverse=True)
print(f"\nThe {count} slowest tests:")
for seconds, name in timings[:count]:
    print(f"  {seconds:7.2f} s  {name}")
