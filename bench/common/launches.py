"""launches.py — how many launches a benchmark times, from the kernel's expected time: one rule
for the bundle harness's arguments (bench/gemm/run) and pt_bench's own timing, torch-free so the
shell can ask it. Command line: launches.py EST_US prints "ITERS BATCH"."""
import sys


def iters_for(est_ms, target_ms=60.0):
    """Timed launches per round and launches per graph for a kernel of about est_ms."""
    iters = int(min(200, max(20, target_ms / max(est_ms, 1e-4))))
    batch = max(5, min(20, iters // 4))
    return iters, batch


if __name__ == "__main__":
    print(*iters_for(float(sys.argv[1]) / 1000.0))
