#!/usr/bin/env python3
"""same_program.py A B... — exit 0 when sProgram A is the same as one of B... (the same JSON
apart from the hardware model's name, which does not change the kernel), 1 otherwise."""
import json
import sys


def canon(path):
    """The sProgram at path as canonical JSON without the model's name (bench/model/picks.py
    matches programs by it too)."""
    p = json.load(open(path))
    p.pop("hw", None)
    return json.dumps(p, sort_keys=True)


if __name__ == "__main__":
    a = canon(sys.argv[1])
    sys.exit(0 if any(canon(b) == a for b in sys.argv[2:]) else 1)
