#!/usr/bin/env python3
"""count-tests.py — sum meson test results over build dirs (meson-logs/testlog.json) and print
the one closing line CI reads: "N passed, N failed, N skipped". Exit 1 if any failed or no
test ran at all."""
import json
import os
import sys

passed = failed = skipped = 0
for build in sys.argv[1:]:
    log = os.path.join(build, "meson-logs", "testlog.json")
    if not os.path.exists(log):
        print(f"{build}: no test log (the build failed?)")
        failed += 1
        continue
    for line in open(log, encoding="utf-8"):
        line = line.strip()
        if not line:
            continue
        r = json.loads(line).get("result", "")
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
            print(f"{build}: FAILED: {json.loads(line).get('name')} ({r})")
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed == 0 else 0)
