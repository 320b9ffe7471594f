"""torch_sdpa.py CONFIGS — time torch SDPA (cuDNN and flash backends) on each configuration line
"name B H S D causal" of CONFIGS, f16, and print one JSON line per (config, backend) with the
median per-launch time of 10 batches of 10 back-to-back launches (CUDA events around each
batch, after 10 warm-up launches). Launches are queued ahead of the GPU, so the time is the
kernels' and not Python's dispatch: timed one launch at a time between events, a busy CPU can
add its dispatch delay to short kernels (cuDNN's time for one configuration differed by up to
25% between two runs of 2026-11-29 in which the bundles were built meanwhile)."""
import json
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}


def time_ms(fn, warmup=10, batches=10, per_batch=10):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(batches):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        fn()  # queued first, so the GPU is busy when a is recorded
        a.record()
        for _ in range(per_batch):
            fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / per_batch)
    times.sort()
    return times[len(times) // 2]


def main():
    for line in open(sys.argv[1]):
        name, B, H, S, D, causal = line.split()
        B, H, S, D, causal = int(B), int(H), int(S), int(D), causal == "1"
        q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.float16) for _ in range(3))
        for bname, backend in BACKENDS.items():
            rec = {"config": name, "backend": bname}
            try:
                with sdpa_kernel([backend]):
                    rec["ms"] = time_ms(lambda: torch.nn.functional.scaled_dot_product_attention(
                        q, k, v, is_causal=causal))
            except Exception as e:  # a backend may not support a shape
                rec["error"] = str(e).splitlines()[0][:200]
            print(json.dumps(rec), flush=True)
        del q, k, v
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
