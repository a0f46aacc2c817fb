"""Print "PASSED FAILED SKIPPED" counted from JUnit XML files (pytest, vitest).

A test case counts as failed when it has a <failure> or <error> child (pytest puts
setup/teardown errors there too), as skipped when it has only <skipped>, else
passed. Missing or unreadable files count as nothing; the caller decides what a
missing report means.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET


def count(path: str) -> tuple[int, int, int]:
    passed = failed = skipped = 0
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return 0, 0, 0
    for case in root.iter("testcase"):
        tags = {child.tag for child in case}
        if tags & {"failure", "error"}:
            failed += 1
        elif "skipped" in tags:
            skipped += 1
        else:
            passed += 1
    # Errors outside any test case (e.g. collection errors reported at suite level).
    for suite in root.iter("testsuite"):
        if suite.find("testcase") is None and int(suite.get("errors", "0") or 0):
            failed += int(suite.get("errors", "0"))
    return passed, failed, skipped


if __name__ == "__main__":
    totals = [0, 0, 0]
    for p in sys.argv[1:]:
        for i, n in enumerate(count(p)):
            totals[i] += n
    print(*totals)
