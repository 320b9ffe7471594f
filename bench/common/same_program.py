#!/usr/bin/env python3
"""same_program.py A B... — exit 0 when sProgram A is the same as one of B... (the same JSON
apart from the hardware model's name, which does not change the kernel), 1 otherwise."""
import json
import sys


def canon(path):
    p = json.load(open(path))
    p.pop("hw", None)
    return json.dumps(p, sort_keys=True)


a = canon(sys.argv[1])
sys.exit(0 if any(canon(b) == a for b in sys.argv[2:]) else 1)
