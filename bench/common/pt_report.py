"""pt_report.py — what the benchmark reports share: reading JSON-lines results, geomeans, number
formatting and the table's head line (date, GPU, driver and clocks seen)."""
import datetime
import json
import math
import os


def load(path):
    """The JSON lines of path ([] if it is missing); a line that does not parse is an error row."""
    rows = []
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line:
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    rows.append({"error": "unreadable line: " + line[:120]})
    return rows


def geomean(v):
    v = [x for x in v if x and x > 0]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else None


def fmt(x, spec="{:.3f}"):
    return "—" if x is None else spec.format(x)


def placement_ratios(ours, base):
    """Baseline time / our time for each buffer placement both were timed on ([] if none)."""
    po = (ours or {}).get("placement_medians_ms") or []
    pb = (base or {}).get("placement_medians_ms") or []
    return [b / o for o, b in zip(po, pb) if o and b]


def head_line(rows):
    """The table's first line, from the {"info": ...} record of pt_bench.gpu_info()."""
    info = next((r["info"] for r in rows if "info" in r), {})
    return (f"date: {datetime.date.today()}, GPU: {info.get('gpu', '?')}, "
            f"nvidia-smi (driver, SM clock now/max, mem clock, power, temp): "
            f"{info.get('nvidia_smi', '?')}, torch {info.get('torch', '?')} "
            f"(CUDA {info.get('cuda', '?')})\n")
